//! Targeted plan entries fire at the protocol moment they name, shown on a
//! toy replica whose every move is known: node 0 leads term 1 and every
//! 10 ms writes entry k, asks for an fsync and sends it to each peer in id
//! order, committing k once durable; a follower writes what it receives and
//! commits k-1; node 2 raises the term at 300 ms; node 1 holds a lease that
//! expires 200 ms after boot on its own clock.

use serde::Serialize;
use sim::fault::{Action, BurstFault, PlanEntry, Trigger};
use sim::{
    ClientReply, ClientReq, Event, EventKind, Io, Machine, ModelEvent, MsgInfo, NodeId, Role, RunSpec, Scenario,
    Status, SyncTicket, TimerId,
};
use std::collections::BTreeMap;

const MS: u64 = 1_000_000;
const LEASE_MS: u64 = 200;

#[derive(Clone, Debug, Serialize)]
struct Append(u64);

impl MsgInfo for Append {
    fn kind(&self) -> &'static str {
        "append"
    }
}

#[derive(Serialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
enum ToyEvent {
    /// At boot: how many records the disk durably held.
    Recovered { records: usize },
}

#[derive(Default)]
struct Replica {
    index: u64,
    synced: BTreeMap<SyncTicket, u64>,
}

const TICK: TimerId = 0;
const CAMPAIGN: TimerId = 1;

impl Machine for Replica {
    type Msg = Append;
    type Rec = u64;
    fn boot(&mut self, io: &mut Io<Self>) {
        io.emit(&ToyEvent::Recovered {
            records: io.disk().len(),
        });
        let role = if io.id() == 0 { Role::Leader } else { Role::Follower };
        role_event(io, 1, role);
        match io.id() {
            0 => io.set_timer(TICK, 10 * MS),
            1 => io.event(ModelEvent::LeaseStart {
                lease: 7,
                expires_at_ns: io.now_wall_ns() + LEASE_MS * MS,
            }),
            2 => io.set_timer(CAMPAIGN, 300 * MS),
            _ => {}
        }
    }
    fn on_message(&mut self, _from: NodeId, msg: Append, io: &mut Io<Self>) {
        // No storage faults in these scenarios: a refused write is a bug here.
        io.disk_append(msg.0).expect("no storage faults");
        io.fsync();
        io.event(ModelEvent::Commit { index: msg.0 - 1 });
    }
    fn on_timer(&mut self, t: TimerId, io: &mut Io<Self>) {
        if t == CAMPAIGN {
            role_event(io, 2, Role::Candidate);
            return;
        }
        self.index += 1;
        io.disk_append(self.index).expect("no storage faults");
        let ticket = io.fsync();
        self.synced.insert(ticket, self.index);
        for p in 1..io.nodes() {
            io.send(p, Append(self.index));
        }
        io.set_timer(TICK, 10 * MS);
    }
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        io.reply(req.req_id, ClientReply::NotLeader { hint: None });
    }
    fn on_fsynced(&mut self, t: SyncTicket, io: &mut Io<Self>) {
        if let Some(index) = self.synced.remove(&t) {
            io.event(ModelEvent::Commit { index });
        }
    }
}

fn role_event(io: &mut Io<Replica>, term: u64, role: Role) {
    io.event(ModelEvent::Role {
        term,
        role,
        cause: "toy".into(),
        from: None,
        ballot: None,
    });
}

/// No chaos: a fixed 1-2 ms delay, fsyncs of 5 ms, no torn writes.
fn scenario(nodes: usize) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"name":"toy","model":"toy","nodes":{nodes},"invariants":[],"safety_ms":1000,"liveness_ms":300,
            "workload":{{"clients":0}},
            "faults":{{"swarm":false,"partition":false,"partition_one_way":false,"link":false,"crash":false,
                       "pause":false,"delay_ms_min":1,"delay_ms_max":2,"drop_probability_max":0.0,
                       "duplicate_probability_max":0.0,"reorder_probability_max":0.0,
                       "fsync_ms_min":5,"fsync_ms_max":5,"torn_write_probability":0.0,
                       "impair_leader_probability":0.0}}}}"#
    ))
    .unwrap()
}

fn run(nodes: usize, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let s = scenario(nodes);
    let out = sim::run(
        RunSpec {
            plan: Some(plan),
            ..RunSpec::new(&s, 5)
        },
        |_| Replica::default(),
    );
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    out
}

fn targeted(at_ms: u64, trigger: Trigger, ms: u64) -> Vec<PlanEntry> {
    vec![PlanEntry {
        at_ns: at_ms * MS,
        action: Action::Targeted { trigger, ms },
    }]
}

/// The faults of the run, in order, with their trace positions.
fn faults(out: &sim::RunOutcome) -> Vec<(usize, Action)> {
    out.trace
        .events()
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            EventKind::Fault { action } => Some((i, action.clone())),
            _ => None,
        })
        .collect()
}

fn sends_to(e: &Event, node: NodeId) -> Option<(u64, NodeId)> {
    match e.kind {
        EventKind::Send { id, to, .. } if e.node == Some(node) => Some((id, to)),
        _ => None,
    }
}

#[test]
fn a_leader_crashed_mid_burst_reached_some_peers_and_never_sends_the_rest() {
    let out = run(
        5,
        targeted(
            25,
            Trigger::LeaderBurst {
                sends: 2,
                fresh: true,
                then: BurstFault::Crash,
            },
            100,
        ),
    );
    let f = faults(&out);
    assert_eq!(f[0].1, Action::Crash { node: 0 });
    let ev = out.trace.events();
    let c = f[0].0;
    // The step that was cut short: its sends sit right before the crash.
    let burst: Vec<(u64, NodeId)> = ev[..c].iter().rev().map_while(|e| sends_to(e, 0)).collect();
    assert_eq!(burst.len(), 2, "exactly the two sends before the crash: {burst:?}");
    let peers: Vec<NodeId> = burst.iter().map(|b| b.1).rev().collect();
    assert_eq!(
        peers,
        vec![1, 2],
        "the burst goes in id order and stops short of 3 and 4"
    );
    assert!(ev[c].t_ns > 25 * MS, "armed at 25 ms, fired at the next burst");
    let later_sends = ev[c + 1..]
        .iter()
        .take_while(|e| e.t_ns == ev[c].t_ns)
        .filter(|e| sends_to(e, 0).is_some())
        .count();
    assert_eq!(later_sends, 0, "nothing more leaves the crashed leader");
    for (id, to) in &burst {
        let landed = ev[c..]
            .iter()
            .any(|e| matches!(e.kind, EventKind::Deliver { id: d, .. } if d == *id) && e.node == Some(*to));
        assert!(landed, "the append already sent to {to} still lands");
    }
    // The entry written in that step was not yet durable: the crash lost it.
    assert!(
        matches!(ev[c + 1].kind, EventKind::DiskLoss { lost: 1, .. }),
        "{:?}",
        ev[c + 1]
    );
    assert_eq!(f[1].1, Action::Restart { node: 0 });
    assert_eq!(ev[f[1].0].t_ns, ev[c].t_ns + 100 * MS);
    assert_eq!(out.counters.get("targeted-fired-leader-burst"), Some(&1));
}

#[test]
fn an_isolated_leader_keeps_only_the_peers_its_burst_reached_until_what_it_sent_lands() {
    let out = run(
        5,
        targeted(
            25,
            Trigger::LeaderBurst {
                sends: 1,
                fresh: false,
                then: BurstFault::Isolate,
            },
            200,
        ),
    );
    let f = faults(&out);
    let ev = out.trace.events();
    assert_eq!(
        f[0].1,
        Action::PartitionOneWay {
            from: vec![0],
            to: vec![2, 3, 4]
        }
    );
    assert_eq!(
        f[1].1,
        Action::PartitionOneWay {
            from: vec![1, 2, 3, 4],
            to: vec![0]
        }
    );
    let (sent, to) = sends_to(&ev[f[0].0 - 1], 0).expect("fired right after a send");
    assert_eq!(to, 1);
    let rest: Vec<NodeId> = ev[f[1].0 + 1..]
        .iter()
        .take_while(|e| e.t_ns == ev[f[1].0].t_ns)
        .filter_map(|e| match e.kind {
            EventKind::Drop {
                to,
                cause: sim::DropCause::Partition,
                ..
            } if e.node == Some(0) => Some(to),
            _ => None,
        })
        .collect();
    assert_eq!(rest, vec![2, 3, 4], "the rest of the burst is cut off");
    let landed = ev
        .iter()
        .position(|e| matches!(e.kind, EventKind::Deliver { id, .. } if id == sent))
        .expect("the reached peer gets its append");
    assert_eq!(
        f[2].1,
        Action::PartitionOneWay {
            from: vec![0],
            to: vec![1]
        }
    );
    assert!(f[2].0 > landed, "the last link is cut only after the append landed");
    assert_eq!(f[3].1, Action::Heal);
    assert_eq!(ev[f[3].0].t_ns, ev[f[0].0].t_ns + 200 * MS);
}

#[test]
fn a_node_crashed_after_a_write_loses_it_before_its_fsync() {
    let out = run(3, targeted(100, Trigger::Unsynced { node: Some(2) }, 50));
    let f = faults(&out);
    assert_eq!(f[0].1, Action::Crash { node: 2 });
    let ev = out.trace.events();
    let c = f[0].0;
    // Node 2 writes only on an append: the crash comes in that very step.
    assert!(
        matches!(ev[c - 1].kind, EventKind::Deliver { .. }) && ev[c - 1].node == Some(2),
        "{:?}",
        ev[c - 1]
    );
    let EventKind::DiskLoss { lost, kept: 0 } = ev[c + 1].kind else {
        panic!("the crash lost unsynced writes: {:?}", ev[c + 1])
    };
    assert!(lost >= 1);
    assert!(
        !ev[c..]
            .iter()
            .any(|e| e.node == Some(2) && e.t_ns == ev[c].t_ns && matches!(e.kind, EventKind::Model(_))),
        "the commit that followed the write in that step never happened"
    );
    let appends = ev[..c]
        .iter()
        .filter(|e| e.node == Some(2) && matches!(e.kind, EventKind::Deliver { .. }))
        .count();
    let records: Vec<u64> = ev
        .iter()
        .filter(|e| e.node == Some(2))
        .filter_map(|e| e.custom::<serde_json::Value>())
        .filter_map(|v| v["records"].as_u64())
        .collect();
    assert_eq!(
        records,
        vec![0, appends as u64 - lost],
        "the restarted node recovers only what was synced"
    );
}

#[test]
fn the_nodes_holding_the_newest_commit_are_cut_from_the_rest() {
    for holders in [1, 2] {
        let out = run(3, targeted(100, Trigger::NewestHolders { holders }, 100));
        let f = faults(&out);
        let ev = out.trace.events();
        let Action::Partition { groups } = &f[0].1 else {
            panic!("{:?}", f[0].1)
        };
        assert_eq!(groups[0].len(), holders, "{groups:?}");
        assert!(groups[0].contains(&0), "the leader commits first");
        assert_eq!(groups[0].len() + groups[1].len(), 3);
        let EventKind::Model(ModelEvent::Commit { index }) = ev[f[0].0 - 1].kind else {
            panic!("fired right after a commit: {:?}", ev[f[0].0 - 1])
        };
        let best = |n: NodeId| {
            ev[..f[0].0]
                .iter()
                .filter(|e| e.node == Some(n))
                .filter_map(|e| match e.kind {
                    EventKind::Model(ModelEvent::Commit { index }) => Some(index),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        for &n in &groups[0] {
            assert_eq!(best(n), index, "node {n} holds the newest");
        }
        for &n in &groups[1] {
            assert!(best(n) < index, "node {n} lags");
        }
    }
}

#[test]
fn the_node_that_went_ahead_in_term_restarts_once_its_step_is_done() {
    let out = run(3, targeted(100, Trigger::TermAhead, 30));
    let f = faults(&out);
    let ev = out.trace.events();
    assert_eq!(f[0].1, Action::Crash { node: 2 });
    assert_eq!(ev[f[0].0].t_ns, 300 * MS, "node 2 campaigns at 300 ms");
    assert!(
        matches!(ev[f[0].0 - 1].kind, EventKind::Model(ModelEvent::Role { term: 2, .. })),
        "{:?}",
        ev[f[0].0 - 1]
    );
    assert_eq!(f[1].1, Action::Restart { node: 2 });
    assert_eq!(ev[f[1].0].t_ns, 330 * MS);
    assert_eq!(f.len(), 2, "an entry fires once");
}

#[test]
fn a_lease_holder_is_paused_just_before_its_lease_expires() {
    let out = run(3, targeted(20, Trigger::LeaseExpiring { before_ms: 30 }, 80));
    let f = faults(&out);
    let ev = out.trace.events();
    assert_eq!(f, vec![(f[0].0, Action::Pause { node: 1, ms: 80 })]);
    assert_eq!(
        ev[f[0].0].t_ns,
        (LEASE_MS - 30) * MS,
        "30 ms before the expiry on node 1's clock"
    );
}

#[test]
fn an_entry_whose_moment_never_comes_is_dropped_and_counted_as_such() {
    // Node 1 is the only lease holder; the lease is gone by 300 ms.
    let out = run(3, targeted(300, Trigger::LeaseExpiring { before_ms: 30 }, 80));
    assert!(faults(&out).is_empty());
    assert_eq!(out.counters.get("targeted-armed-lease-expiring"), Some(&1));
    assert_eq!(out.counters.get("targeted-fired-lease-expiring"), Some(&0));
    // Armed after the safety phase: never armed at all.
    let out = run(3, targeted(1_100, Trigger::TermAhead, 30));
    assert!(faults(&out).is_empty());
    assert!(out.counters.is_empty());
}

#[test]
fn a_plan_with_targeted_entries_replays_to_the_same_trace() {
    let mut plan = targeted(
        25,
        Trigger::LeaderBurst {
            sends: 1,
            fresh: true,
            then: BurstFault::Crash,
        },
        100,
    );
    plan.extend(targeted(150, Trigger::Unsynced { node: None }, 40));
    plan.extend(targeted(200, Trigger::NewestHolders { holders: 2 }, 60));
    plan.extend(targeted(250, Trigger::TermAhead, 20));
    plan.extend(targeted(20, Trigger::LeaseExpiring { before_ms: 10 }, 30));
    plan.sort_by_key(|e| e.at_ns);
    let a = run(5, plan.clone());
    let b = run(5, plan);
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
    for on in [
        "leader-burst",
        "unsynced",
        "newest-holders",
        "term-ahead",
        "lease-expiring",
    ] {
        assert_eq!(
            a.counters.get(&format!("targeted-fired-{on}")),
            Some(&1),
            "{on}: {:?}",
            a.counters
        );
    }
}
