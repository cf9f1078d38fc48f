//! The world's own guarantees, shown with a toy machine: a panic in a model
//! is a finding with its event, a runaway run hits its event budget, and
//! the fault plan really reaches the nodes.

use serde::Serialize;
use sim::fault::{Action, PlanEntry};
use sim::{
    ClientReply, ClientReq, EventKind, Io, KvResult, Machine, ModelEvent, MsgInfo, NodeId, Role, RunSpec, Scenario,
    Status, SyncTicket, TimerId,
};

#[derive(Clone, Debug, Serialize)]
struct Ping(u64);

impl MsgInfo for Ping {
    fn kind(&self) -> &'static str {
        "ping"
    }
}

/// Pings every peer each 10 ms; panics on the `panic_at`th ping it receives.
struct Pinger {
    panic_at: Option<u64>,
    heard: u64,
}

impl Machine for Pinger {
    type Msg = Ping;
    type Rec = u64;
    fn boot(&mut self, io: &mut Io<Self>) {
        io.event(ModelEvent::Role {
            term: 1,
            role: Role::Follower,
            cause: "boot".into(),
            from: None,
            ballot: None,
        });
        io.set_timer(0, 10_000_000);
    }
    fn on_message(&mut self, _from: NodeId, _msg: Ping, io: &mut Io<Self>) {
        self.heard += 1;
        if Some(self.heard) == self.panic_at {
            panic!("ping {} broke node {}", self.heard, io.id());
        }
    }
    fn on_timer(&mut self, _t: TimerId, io: &mut Io<Self>) {
        for p in 0..io.nodes() {
            if p != io.id() {
                io.send(p, Ping(io.now_mono_ns()));
            }
        }
        io.set_timer(0, 10_000_000);
    }
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        io.reply(req.req_id, ClientReply::NotLeader { hint: None });
    }
    fn on_fsynced(&mut self, _t: SyncTicket, _io: &mut Io<Self>) {}
}

fn scenario() -> Scenario {
    Scenario::from_json(
        r#"{"name":"toy","model":"toy","nodes":3,"invariants":["no-dual-leaders"],"safety_ms":1000,"liveness_ms":500,
            "faults":{"swarm":false,"partition":false,"partition_one_way":false,"link":false,"crash":false,"pause":false}}"#,
    )
    .unwrap()
}

/// Seed 3 of the toy scenario with a hand-written plan.
fn run_plan(s: &Scenario, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let spec = RunSpec {
        plan: Some(plan),
        ..RunSpec::new(s, 3)
    };
    sim::run(spec, |_| Pinger {
        panic_at: None,
        heard: 0,
    })
}

#[test]
fn a_panic_in_a_model_becomes_an_error_verdict_with_its_event() {
    let s = scenario();
    let out = sim::run(RunSpec::new(&s, 1), |id| Pinger {
        panic_at: (id == 2).then_some(5),
        heard: 0,
    });
    assert_eq!(out.verdict.status, Status::Error);
    let msg = out.verdict.message.clone().unwrap();
    assert!(msg.contains("node 2 panicked: ping 5 broke node 2"), "{msg}");
    let last = out.trace.events().last().unwrap();
    assert!(matches!(last.kind, EventKind::Panic { .. }));
    assert_eq!(out.verdict.evidence, vec![last.i]);
}

#[test]
fn an_exhausted_event_budget_ends_the_run_as_an_error() {
    let mut s = scenario();
    s.event_budget = 200;
    let out = sim::run(RunSpec::new(&s, 1), |_| Pinger {
        panic_at: None,
        heard: 0,
    });
    assert_eq!(out.verdict.status, Status::Error);
    assert!(out.verdict.message.unwrap().contains("event budget of 200"));
}

#[test]
fn a_partition_in_the_plan_drops_messages_across_it_and_heal_restores_them() {
    let s = scenario();
    let plan = vec![
        PlanEntry {
            at_ns: 100_000_000,
            action: Action::Partition {
                groups: vec![vec![0], vec![1, 2]],
            },
        },
        PlanEntry {
            at_ns: 300_000_000,
            action: Action::Heal,
        },
        PlanEntry {
            at_ns: 400_000_000,
            action: Action::Crash { node: 1 },
        },
        PlanEntry {
            at_ns: 600_000_000,
            action: Action::Restart { node: 1 },
        },
    ];
    let out = run_plan(&s, plan);
    assert_eq!(out.verdict.status, Status::Pass);
    let ev = out.trace.events();
    let cut = |from: usize, to: usize, lo: u64, hi: u64| {
        ev.iter().any(|e| {
            matches!(&e.kind, EventKind::Drop { from: f, to: t, cause: sim::DropCause::Partition, .. } if *f == from && *t == to)
                && (lo..hi).contains(&e.t_ns)
        })
    };
    assert!(cut(0, 1, 100_000_000, 300_000_000));
    assert!(!cut(1, 2, 0, 2_000_000_000), "nodes on one side keep talking");
    assert!(!cut(0, 1, 320_000_000, 2_000_000_000), "heal restores the link");
    let down = ev.iter().any(|e| {
        matches!(
            &e.kind,
            EventKind::Drop {
                to: 1,
                cause: sim::DropCause::Down,
                ..
            }
        )
    });
    assert!(down, "messages to a crashed node are dropped");
    let boots = ev
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Boot { restart: true }) && e.node == Some(1))
        .count();
    assert_eq!(boots, 1);
}

#[test]
fn drift_makes_timers_fire_on_the_node_clock() {
    let s = scenario();
    let plan = vec![PlanEntry {
        at_ns: 0,
        action: Action::ClockDrift { node: 0, ppm: 500_000 },
    }];
    let out = run_plan(&s, plan);
    let sends = |n: usize| {
        out.trace
            .events()
            .iter()
            .filter(|e| e.node == Some(n) && matches!(e.kind, EventKind::Send { .. }))
            .count() as f64
    };
    let ratio = sends(0) / sends(1);
    assert!(
        (1.4..1.6).contains(&ratio),
        "a clock 50% fast ticks 1.5x as often, got {ratio}"
    );
}

#[test]
fn a_paused_node_drains_each_sender_in_order_but_the_senders_interleaved() {
    // A fixed delay and no chaos, so each sender's messages arrive in the
    // order they were sent.
    let s = Scenario::from_json(
        r#"{"name":"toy","model":"toy","nodes":3,"invariants":["no-dual-leaders"],"safety_ms":1000,"liveness_ms":500,
            "faults":{"swarm":false,"partition":false,"partition_one_way":false,"link":false,"crash":false,"pause":false,
                      "delay_ms_min":1,"delay_ms_max":1,"drop_probability_max":0.0,
                      "duplicate_probability_max":0.0,"reorder_probability_max":0.0}}"#,
    )
    .unwrap();
    let (at, until) = (100_000_000u64, 300_000_000u64);
    let plan = vec![PlanEntry {
        at_ns: at,
        action: Action::Pause { node: 0, ms: 200 },
    }];
    let out = run_plan(&s, plan);
    assert_eq!(out.verdict.status, Status::Pass);
    let held: Vec<(NodeId, u64)> = out
        .trace
        .events()
        .iter()
        .filter(|e| e.node == Some(0) && e.t_ns == until)
        .filter_map(|e| match &e.kind {
            EventKind::Deliver { id, from, .. } => Some((*from, *id)),
            _ => None,
        })
        .collect();
    // Two peers ping every 10 ms for the 200 ms stall.
    assert!(
        held.len() >= 30,
        "what arrived during the pause is handled on resume: {held:?}"
    );
    for peer in [1, 2] {
        let ids: Vec<u64> = held.iter().filter(|(f, _)| *f == peer).map(|(_, i)| *i).collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "peer {peer} stays in order: {ids:?}"
        );
    }
    let ids: Vec<u64> = held.iter().map(|(_, i)| *i).collect();
    assert!(
        ids.windows(2).any(|w| w[0] > w[1]),
        "senders are interleaved, not replayed in arrival order"
    );
    let runs = held.windows(2).filter(|w| w[0].0 != w[1].0).count();
    assert!(runs >= 4, "neither sender is drained wholly before the other: {held:?}");
}

/// Answers every client request itself, with its own id as the value.
struct Echo;

impl Machine for Echo {
    type Msg = Ping;
    type Rec = u64;
    fn boot(&mut self, _io: &mut Io<Self>) {}
    fn on_message(&mut self, _from: NodeId, _msg: Ping, _io: &mut Io<Self>) {}
    fn on_timer(&mut self, _t: TimerId, _io: &mut Io<Self>) {}
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        let value = vec![io.id() as u64];
        io.reply(req.req_id, ClientReply::Ok(KvResult::Value { value }));
    }
    fn on_fsynced(&mut self, _t: SyncTicket, _io: &mut Io<Self>) {}
}

fn echo_run(workload: &str, seed: u64) -> sim::RunOutcome {
    let s = Scenario::from_json(&format!(
        r#"{{"name":"toy","model":"toy","nodes":3,"invariants":["no-dual-leaders"],"safety_ms":1000,"liveness_ms":500,
            "faults":{{"swarm":false,"partition":false,"partition_one_way":false,"link":false,"crash":false,"pause":false}},
            "workload":{workload}}}"#
    ))
    .unwrap();
    sim::run(RunSpec::new(&s, seed), |_| Echo)
}

/// (client, node that served it) for every op answered.
fn served(out: &sim::RunOutcome) -> Vec<(u32, u64)> {
    out.trace
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Ok {
                client,
                result: KvResult::Value { value },
                ..
            } => Some((*client, value[0])),
            _ => None,
        })
        .collect()
}

#[test]
fn bound_clients_start_every_op_at_their_own_node() {
    let out = echo_run(
        r#"{"clients":6,"get_weight":1,"put_weight":0,"append_weight":0,"cas_weight":0,"bound_clients":true}"#,
        1,
    );
    let got = served(&out);
    assert!(got.len() > 100, "the clients ran: {}", got.len());
    assert!(got.iter().all(|&(c, n)| n == c as u64 % 3), "{got:?}");
}

#[test]
fn unbound_clients_stay_with_the_node_that_first_served_them() {
    let mut homes_missed = 0;
    for seed in 0..4 {
        let out = echo_run(
            r#"{"clients":6,"get_weight":1,"put_weight":0,"append_weight":0,"cas_weight":0}"#,
            seed,
        );
        let got = served(&out);
        for c in 0..6u32 {
            let nodes: Vec<u64> = got.iter().filter(|g| g.0 == c).map(|g| g.1).collect();
            assert!(
                nodes.windows(2).all(|w| w[0] == w[1]),
                "client {c} is sticky: {nodes:?}"
            );
            homes_missed += usize::from(nodes[0] != c as u64 % 3);
        }
    }
    assert!(homes_missed > 0, "the first node is drawn, not the client's own");
}

#[test]
fn read_spells_hold_every_write_back_and_leave_the_others_alone() {
    let out = echo_run(
        r#"{"clients":4,"put_weight":1,"append_weight":1,"get_weight":0,"cas_weight":1,"read_spell_ms":100}"#,
        2,
    );
    let mut spells: std::collections::BTreeMap<u64, (usize, usize)> = Default::default();
    for e in out.trace.events() {
        if let EventKind::Invoke { op, .. } = &e.kind {
            let s = spells.entry(e.t_ns / 100_000_000).or_default();
            if op.is_read() {
                s.0 += 1;
            } else {
                s.1 += 1;
            }
        }
    }
    assert!(
        spells.values().all(|&(r, w)| r == 0 || w == 0),
        "no spell mixes: {spells:?}"
    );
    let quiet = spells.values().filter(|s| s.1 == 0).count();
    let busy = spells.values().filter(|s| s.0 == 0).count();
    assert!(quiet >= 2 && busy >= 2, "both kinds of spell occur: {spells:?}");
}

#[test]
fn a_cut_of_the_leaders_link_becomes_the_one_way_cut_it_resolved_to() {
    // The toy has no leader, so the leader resolves to node 0; its peers in
    // id order are 1 and 2.
    let plan = vec![PlanEntry {
        at_ns: 100_000_000,
        action: Action::CutLeaderLink {
            peer: 1,
            outbound: false,
        },
    }];
    let out = run_plan(&scenario(), plan);
    let ev = out.trace.events();
    let recorded = ev.iter().find_map(|e| match &e.kind {
        EventKind::Fault { action } => Some(action.clone()),
        _ => None,
    });
    assert_eq!(
        recorded,
        Some(Action::PartitionOneWay {
            from: vec![2],
            to: vec![0]
        })
    );
    let cut = |from: usize, to: usize| {
        ev.iter().any(|e| {
            matches!(&e.kind, EventKind::Drop { from: f, to: t, cause: sim::DropCause::Partition, .. } if *f == from && *t == to)
        })
    };
    assert!(cut(2, 0));
    assert!(!cut(0, 2), "only the one direction is cut");
}
