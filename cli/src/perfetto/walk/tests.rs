use super::*;

/// Events as a report holds them, numbered in order.
fn trace(events: &[Value]) -> Vec<Event> {
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let mut e = e.clone();
        e["i"] = json!(i);
        out.push(serde_json::from_value(e).expect("an event"));
    }
    out
}

fn role(t_ns: u64, node: NodeId, term: u64, role: &str) -> Value {
    json!({"t_ns": t_ns, "node": node, "kind": "model", "model": "role", "term": term, "role": role,
           "cause": "test", "from": null})
}

fn fault(t_ns: u64, action: Value) -> Value {
    json!({"t_ns": t_ns, "kind": "fault", "action": action})
}

fn slices(items: &[Item], lane: Lane) -> Vec<(u64, u64, &str)> {
    let mut v: Vec<_> = items
        .iter()
        .filter(|it| it.lane == lane)
        .filter_map(|it| match it.shape {
            Shape::Slice { dur_ns } => Some((it.t_ns, it.t_ns + dur_ns, it.name.as_str())),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_role_lasts_until_the_next_role_or_a_crash_and_a_crash_until_the_restart() {
    let t = trace(&[
        role(0, 0, 0, "follower"),
        role(100, 0, 1, "leader"),
        fault(200, json!({"action": "crash", "node": 0})),
        fault(250, json!({"action": "restart", "node": 0})),
        role(250, 0, 1, "follower"),
        fault(260, json!({"action": "crash", "node": 0})),
    ]);
    let items = walk(&t, 300, 9);
    let roles = vec![
        (0, 100, "follower t0"),
        (100, 200, "leader t1"),
        (250, 260, "follower t1"),
    ];
    assert_eq!(slices(&items, Lane::Role), roles);
    assert_eq!(
        slices(&items, Lane::Crashed),
        vec![(200, 250, "down"), (260, 300, "down")]
    );
}

#[test]
fn a_pause_within_a_pause_extends_it_and_the_heal_point_ends_it() {
    let ms = 1_000_000;
    let t = trace(&[
        fault(10, json!({"action": "pause", "node": 1, "ms": 1})),
        fault(20, json!({"action": "pause", "node": 1, "ms": 5})),
        json!({"t_ns": 2 * ms, "kind": "heal", "impaired": [2]}),
        fault(3 * ms, json!({"action": "pause", "node": 1, "ms": 9})),
    ]);
    let items = walk(&t, 4 * ms, 9);
    let paused = vec![(10, 2 * ms, "paused"), (3 * ms, 4 * ms, "paused")];
    assert_eq!(slices(&items, Lane::Paused), paused);
    let cut = vec![(2 * ms, 4 * ms, "node 2 cut off (impaired)")];
    assert_eq!(slices(&items, Lane::Network), cut);
}

#[test]
fn every_flow_that_starts_ends_once_and_not_before_it_starts() {
    let send = |t: u64, id: u64| json!({"t_ns": t, "node": 0, "kind": "send", "id": id, "to": 1, "msg": "append"});
    let deliver =
        |t: u64, id: u64| json!({"t_ns": t, "node": 1, "kind": "deliver", "id": id, "from": 0, "msg": "append"});
    let t = trace(&[
        send(100, 1),
        json!({"t_ns": 100, "node": 0, "kind": "duplicate", "id": 1}),
        send(900, 2),
        deliver(100, 1),
        deliver(500, 1),
        json!({"t_ns": 600, "node": 1, "kind": "drop", "id": 2, "from": 0, "to": 1, "msg": "append", "cause": "down"}),
        deliver(700, 3),
    ]);
    let items = walk(&t, 1_000, 9);
    let at = |want: Shape| -> Vec<u64> { items.iter().filter(|it| it.shape == want).map(|it| it.t_ns).collect() };
    let (starts, ends) = (at(Shape::FlowStart { id: 1 }), at(Shape::FlowEnd { id: 1 }));
    assert_eq!(
        (starts.len(), ends.len()),
        (1, 1),
        "a duplicate's second copy gets no flow"
    );
    assert!(ends[0] >= starts[0]);
    // Dropped (2), or delivered with no send in the trace (3): no flow at all.
    for id in [2, 3] {
        assert!(at(Shape::FlowStart { id }).is_empty() && at(Shape::FlowEnd { id }).is_empty());
    }
    // Three events of node 0 in one microsecond take three slots, apart.
    let mut sender: Vec<u64> = items
        .iter()
        .filter(|it| it.pid == 1 && !matches!(it.shape, Shape::FlowStart { .. }))
        .map(|it| it.t_ns)
        .collect();
    sender.sort();
    assert_eq!(sender, vec![0, SLOT_NS, 2 * SLOT_NS]);
}

#[test]
fn an_op_never_completed_stays_open_to_the_end() {
    let get = json!({"f": "get", "key": 4});
    let t = trace(&[
        json!({"t_ns": 10, "kind": "invoke", "client": 2, "op_id": 7, "op": get}),
        json!({"t_ns": 20, "kind": "invoke", "client": 1, "op_id": 8, "op": get}),
        json!({"t_ns": 30, "kind": "info", "client": 1, "op_id": 8, "why": "timeout"}),
    ]);
    let items = walk(&t, 99, 9);
    let ops: Vec<(u64, u64, &str, Lane)> = items
        .iter()
        .filter_map(|it| match it.shape {
            Shape::Slice { dur_ns } => Some((it.t_ns, dur_ns, it.cat.as_str(), it.lane)),
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        vec![(20, 10, "info", Lane::Client(1)), (10, 89, "open", Lane::Client(2))]
    );
    assert!(items.iter().all(|it| it.pid == 9 && it.name == "get k4"));
}
