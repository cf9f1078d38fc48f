//! Stream links keep TCP's promises under every fault kind: each direction
//! in order, nothing twice, and every loss shows to the sender as a broken
//! connection. The same runs on datagram links break the first two, so the
//! checks below can fail.

use serde::Serialize;
use sim::async_node::Ctx;
use sim::fault::Action;
use sim::fault::LinkMode;
use sim::{
    ClientReply, ClientReq, EventKind, Io, Machine, ModelDef, MsgInfo, NodeId, Registry, RunOutcome, Scenario, Setup,
    SyncTicket, TimerId,
};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

#[derive(Clone, Debug, Serialize)]
struct Seq(u64);

impl MsgInfo for Seq {
    fn kind(&self) -> &'static str {
        "seq"
    }
}

/// Sends a numbered message to every peer each 5 ms, writes and syncs a
/// record now and then (so storage faults have something to hit), and
/// marks what it learns of broken links.
struct Streamer {
    next: u64,
}

impl Machine for Streamer {
    type Msg = Seq;
    type Rec = u64;
    fn boot(&mut self, io: &mut Io<Self>) {
        io.set_timer(0, 5_000_000);
    }
    fn on_message(&mut self, _from: NodeId, _msg: Seq, _io: &mut Io<Self>) {}
    fn on_timer(&mut self, _t: TimerId, io: &mut Io<Self>) {
        for p in 0..io.nodes() {
            if p != io.id() {
                self.next += 1;
                io.send(p, Seq(self.next));
            }
        }
        if self.next.is_multiple_of(7) && io.disk_append(self.next).is_ok() {
            io.fsync();
        }
        io.set_timer(0, 5_000_000);
    }
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        io.reply(req.req_id, ClientReply::NotLeader { hint: None });
    }
    fn on_fsynced(&mut self, _t: SyncTicket, _io: &mut Io<Self>) {}
    fn on_link_broken(&mut self, _peer: NodeId, io: &mut Io<Self>) {
        io.reached("link-broken");
    }
}

/// The same protocol as async code: a task learns of each broken link.
async fn streamer(ctx: Ctx<Seq, u64>) {
    ctx.spawn(async move {
        loop {
            ctx.link_broken().await;
            ctx.reached("link-broken");
        }
    });
    ctx.spawn(async move {
        loop {
            ctx.recv().await;
        }
    });
    let mut next = 0;
    loop {
        ctx.sleep(Duration::from_millis(5)).await;
        for p in 0..ctx.nodes() {
            if p != ctx.id() {
                next += 1;
                ctx.send(p, Seq(next));
            }
        }
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    let goals = &[("link-broken", "a node learned that a connection broke")];
    r.add(
        ModelDef::new(
            "streamer",
            "numbered messages to every peer",
            |_: Setup<'_, serde_json::Value>| Ok(|_| Streamer { next: 0 }),
        )
        .goals(goals),
    );
    r.add(
        ModelDef::new_async(
            "streamer-async",
            "the same as async code",
            |_: Setup<'_, serde_json::Value>| Ok(streamer),
        )
        .goals(goals),
    );
    r
}

/// Every fault kind a plan draws, and heavy message chaos.
fn scenario(model: &str, links: LinkMode) -> Scenario {
    let links = serde_json::to_string(&links).unwrap();
    Scenario::from_json(&format!(
        r#"{{"name":"streams","model":"{model}","nodes":4,"links":{links},"invariants":["no-dual-leaders"],
            "workload":{{"clients":0}},"safety_ms":3000,"liveness_ms":1500,
            "faults":{{"swarm":false,"partition":true,"partition_one_way":true,"partition_rolling":true,
              "link":true,"crash":true,"power_loss":true,"pause":true,"clock":true,"targeted":true,"disk":true,
              "interval_ms_mean":120,"fault_ms_max":400,
              "drop_probability_max":0.05,"duplicate_probability_max":0.1,"reorder_probability_max":0.1,
              "delay_ms_min":1,"delay_ms_max":10,"impair_leader_probability":0.5}}}}"#
    ))
    .unwrap()
}

/// What a trace shows of the links' promises.
#[derive(Default)]
struct Seen {
    out_of_order: u64,
    duplicates: u64,
    /// Messages lost (sent in the fault phase, never delivered) that their
    /// sender was never told of, while it stayed up.
    silent_losses: u64,
    breaks: BTreeMap<String, u64>,
    drops: BTreeMap<String, u64>,
    faults: BTreeSet<String>,
}

fn tag<T: Serialize>(x: &T, key: &str) -> String {
    match serde_json::to_value(x).unwrap() {
        serde_json::Value::String(s) => s,
        v => v[key].as_str().unwrap().to_string(),
    }
}

fn look(out: &RunOutcome) -> Seen {
    let mut s = Seen::default();
    let heal = out.scenario.safety_ms * 1_000_000;
    let mut sent: BTreeMap<u64, (u64, NodeId, NodeId)> = BTreeMap::new();
    let mut delivered: BTreeSet<u64> = BTreeSet::new();
    let mut last: BTreeMap<(NodeId, NodeId), u64> = BTreeMap::new();
    // When each node last learned of a break with each peer, and last went down.
    let mut told: BTreeMap<(NodeId, NodeId), Vec<u64>> = BTreeMap::new();
    let mut down: BTreeMap<NodeId, Vec<u64>> = BTreeMap::new();
    for e in out.trace.events() {
        match &e.kind {
            EventKind::Send { id, to, .. } => {
                sent.insert(*id, (e.t_ns, e.node.unwrap(), *to));
            }
            EventKind::Deliver { id, from, .. } => {
                let to = e.node.unwrap();
                if !delivered.insert(*id) {
                    s.duplicates += 1;
                }
                let prev = last.entry((*from, to)).or_default();
                if *id < *prev {
                    s.out_of_order += 1;
                }
                *prev = (*prev).max(*id);
            }
            EventKind::Duplicate { .. } => s.duplicates += 1,
            EventKind::Drop { cause, .. } => *s.drops.entry(tag(cause, "")).or_default() += 1,
            EventKind::LinkBroken { peer, cause } => {
                *s.breaks.entry(tag(cause, "")).or_default() += 1;
                told.entry((e.node.unwrap(), *peer)).or_default().push(e.t_ns);
            }
            EventKind::Fault { action } => {
                s.faults.insert(tag(action, "action"));
                if let Action::Crash { node } = action {
                    down.entry(*node).or_default().push(e.t_ns);
                }
            }
            EventKind::Halt { .. } => down.entry(e.node.unwrap()).or_default().push(e.t_ns),
            _ => {}
        }
    }
    for (id, (t, from, to)) in sent {
        if t >= heal || delivered.contains(&id) {
            continue;
        }
        let after = |v: Option<&Vec<u64>>| v.is_some_and(|v| v.iter().any(|&x| x >= t));
        if !after(told.get(&(from, to))) && !after(down.get(&from)) {
            s.silent_losses += 1;
        }
    }
    s
}

fn campaign(model: &str, links: LinkMode, seeds: u64) -> Seen {
    let r = registry();
    let s = scenario(model, links);
    let mut all = Seen::default();
    for seed in 0..seeds {
        let out = r.run(&s, seed, &[], None).unwrap();
        let seen = look(&out);
        all.out_of_order += seen.out_of_order;
        all.duplicates += seen.duplicates;
        all.silent_losses += seen.silent_losses;
        for (k, v) in seen.breaks {
            *all.breaks.entry(k).or_default() += v;
        }
        for (k, v) in seen.drops {
            *all.drops.entry(k).or_default() += v;
        }
        all.faults.extend(seen.faults);
    }
    all
}

#[test]
fn streams_keep_order_and_say_when_they_lose() {
    for model in ["streamer", "streamer-async"] {
        let seen = campaign(model, LinkMode::Stream, 12);
        assert_eq!(seen.out_of_order, 0, "{model}: a stream delivered out of order");
        assert_eq!(seen.duplicates, 0, "{model}: a stream delivered twice");
        assert_eq!(
            seen.silent_losses, 0,
            "{model}: a stream lost a message and told nobody"
        );
        for kind in [
            "partition",
            "partition-one-way",
            "link",
            "crash",
            "restart",
            "pause",
            "disk",
        ] {
            assert!(
                seen.faults.contains(kind),
                "{model}: no {kind} fault ran: {:?}",
                seen.faults
            );
        }
        for cause in ["loss", "partition", "down"] {
            assert!(
                seen.breaks.get(cause).copied().unwrap_or(0) > 0,
                "{model}: no break by {cause}: {:?}",
                seen.breaks
            );
        }
        assert!(
            seen.drops.get("reset").copied().unwrap_or(0) > 0,
            "{model}: {:?}",
            seen.drops
        );
    }
}

#[test]
fn the_same_runs_on_datagrams_break_each_promise() {
    let seen = campaign("streamer", LinkMode::Datagram, 6);
    assert!(seen.out_of_order > 0, "datagrams overtake each other");
    assert!(seen.duplicates > 0, "datagrams are duplicated");
    assert!(seen.silent_losses > 0, "datagrams are lost without a word");
    assert!(seen.breaks.is_empty(), "datagram links never break: {:?}", seen.breaks);
}

#[test]
fn stream_runs_replay_to_the_same_trace() {
    let r = registry();
    for model in ["streamer", "streamer-async"] {
        let s = scenario(model, LinkMode::Stream);
        for seed in [1, 7] {
            let a = r.run(&s, seed, &[], None).unwrap();
            let b = r.run(&s, seed, &[], None).unwrap();
            assert_eq!(a.trace.hash_hex(), b.trace.hash_hex(), "{model} seed {seed}");
            assert!(a.coverage.contains("link-broken"), "{model} seed {seed}");
        }
    }
}

#[test]
fn a_plan_entry_turns_one_pair_into_a_stream() {
    use sim::fault::PlanEntry;
    let r = registry();
    let s = scenario("streamer", LinkMode::Datagram);
    let plan = vec![PlanEntry {
        at_ns: 0,
        action: Action::LinkMode {
            a: 0,
            b: 1,
            mode: LinkMode::Stream,
        },
    }];
    let out = r.run(&s, 3, &[], Some(plan)).unwrap();
    let mut last: BTreeMap<(NodeId, NodeId), u64> = BTreeMap::new();
    let (mut pair_disorder, mut other_disorder) = (0, 0);
    for e in out.trace.events() {
        if let EventKind::Deliver { id, from, .. } = &e.kind {
            let to = e.node.unwrap();
            let prev = last.entry((*from, to)).or_default();
            if *id < *prev {
                if (*from).min(to) == 0 && (*from).max(to) == 1 {
                    pair_disorder += 1;
                } else {
                    other_disorder += 1;
                }
            }
            *prev = (*prev).max(*id);
        }
        if let EventKind::LinkBroken { peer, .. } = &e.kind {
            let pair = (e.node.unwrap().min(*peer), e.node.unwrap().max(*peer));
            assert_eq!(pair, (0, 1), "only the stream pair breaks");
        }
    }
    assert_eq!(pair_disorder, 0);
    assert!(other_disorder > 0, "the other pairs stay datagrams");
}

#[test]
fn a_scenario_names_its_links_and_vary_may_draw_them() {
    let s = scenario("streamer", LinkMode::Stream);
    assert_eq!(s.links, LinkMode::Stream);
    let bad = Scenario::from_json(r#"{"name":"x","model":"m","nodes":3,"links":"tcp","invariants":[]}"#);
    assert!(bad.unwrap_err().contains("tcp"));
    let varied = Scenario::from_json(
        r#"{"name":"x","model":"m","nodes":3,"invariants":[],"vary":{"links":{"one-of":["datagram","stream"]}}}"#,
    )
    .unwrap();
    let modes: BTreeSet<LinkMode> = (0..20).map(|seed| varied.drawn(seed).unwrap().links).collect();
    assert_eq!(modes.len(), 2, "both modes are drawn");
}
