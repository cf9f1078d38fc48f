//! A model's own decision routed through `Io::choice` (what a producer
//! appends, say): a sampled run takes it as drawn, and `dst explore`
//! takes every outcome, each other than the drawn one a deviation.

use serde::{Deserialize, Serialize};
use sim::explore::search::Limits;
use sim::explore::{Bounds, Known};
use sim::{
    ClientReq, Event, Invariant, InvariantDef, Io, Machine, ModelDef, MsgInfo, NodeId, Now, Overrides, Registry, Setup,
    Status, SyncTicket, TimerId, Violation,
};

#[derive(Clone, Debug, Serialize)]
enum NoMsg {}

impl MsgInfo for NoMsg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
enum Picked {
    Picked { outcome: u32 },
}

/// At boot each node decides one of three outcomes: drawn 0, always.
struct Decider;

impl Machine for Decider {
    type Msg = NoMsg;
    type Rec = ();

    fn boot(&mut self, io: &mut Io<Self>) {
        let outcome = io.choice(0, 3);
        io.emit(&Picked::Picked { outcome });
    }
    fn on_message(&mut self, _: NodeId, msg: NoMsg, _: &mut Io<Self>) {
        match msg {}
    }
    fn on_timer(&mut self, _: TimerId, _: &mut Io<Self>) {}
    fn on_client(&mut self, _: ClientReq, _: &mut Io<Self>) {}
    fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
    fn digest_at(&self, _: &Now) -> Option<u64> {
        Some(0)
    }
}

/// Outcome 2 is the bug.
#[derive(Default)]
struct NotTwo;

impl Invariant for NotTwo {
    fn id(&self) -> &'static str {
        "not-two"
    }
    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        match e.custom::<Picked>() {
            Some(Picked::Picked { outcome: 2 }) => Err(Violation::new(self.id(), "outcome 2", vec![e.i])),
            _ => Ok(()),
        }
    }
}

const SCENARIO: &str = r#"{
  "name": "deciders",
  "model": "decider",
  "nodes": 2,
  "workload": {"clients": 0},
  "faults": {"swarm": false, "partition": false, "partition_one_way": false, "link": false,
             "crash": false, "pause": false, "drop_probability_max": 0.0},
  "safety_ms": 100,
  "liveness_ms": 10,
  "invariants": ["not-two"]
}"#;

fn registry() -> Registry {
    let model = ModelDef::new("decider", "decides at boot", |_: Setup<'_, serde_json::Value>| {
        Ok(|_| Decider)
    })
    .invariant(InvariantDef::new("not-two", "no outcome 2", |_| Box::new(NotTwo)));
    let mut reg = Registry::new();
    reg.add(model).scenario(SCENARIO);
    reg
}

#[test]
fn a_sampled_run_takes_the_drawn_outcome_and_a_walk_takes_every_one() {
    let reg = registry();
    let sc = reg.load("deciders").unwrap();
    for seed in 0..20 {
        let out = reg.run_with(&sc, seed, &[], Overrides::default()).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}");
    }
    let limits = |deviations| Limits {
        bounds: Bounds {
            deviations,
            crashes: 0,
            drops: 0,
            ops: 0,
            ..Bounds::default()
        },
        states_max: 10_000,
        ..Limits::new(Bounds::default())
    };
    let (sum, found) = dst_runner::explore(&reg, &sc, 0, &[], limits(0), |_| {}).unwrap();
    assert!(
        found.is_none() && sum.complete(),
        "the natural run takes the drawn outcome"
    );
    let (_, found) = dst_runner::explore(&reg, &sc, 0, &[], limits(1), |_| {}).unwrap();
    let f = found.expect("one departure reaches outcome 2");
    assert_eq!(f.deviations, 1);
    assert_eq!(f.outcome.verdict.invariant.as_deref(), Some("not-two"));
    // The report's tape replays to the same outcome.
    let o = Overrides {
        explore: Some(f.tape),
        explore_known: Some(Known::new(true)),
        ..Overrides::default()
    };
    let again = reg.run_with(&sc, 0, &[], o).unwrap();
    assert_eq!(again.verdict.status, Status::Violation);
}
