//! Symmetry reduction in `dst explore`: a model whose nodes play the same
//! part declares them interchangeable and says what its state would be
//! with its nodes renamed; the walk then explores once the states that
//! differ only by which node is which, and finds what it found without.

use serde::Serialize;
use sim::explore::search::{Limits, Summary};
use sim::explore::Bounds;
use sim::hash::debug_digest;
use sim::{
    ClientReq, Event, Invariant, InvariantDef, Io, Machine, ModelDef, MsgInfo, NodeId, Now, Registry, Setup,
    SyncTicket, TimerId, Violation,
};
use std::collections::BTreeMap;

const BEAT: TimerId = 1;
const BEAT_NS: u64 = 10_000_000;

#[derive(Clone, Debug, Serialize)]
struct Ping;

impl MsgInfo for Ping {
    fn kind(&self) -> &'static str {
        "ping"
    }
    fn digest_at(&self, _: &Now) -> Option<u64> {
        Some(1)
    }
    fn digest_renamed(&self, _: &Now, _: &[NodeId]) -> Option<u64> {
        Some(1)
    }
}

/// Each node pings every other node each beat and counts, per peer, the
/// pings it heard since it booted, up to 3: nothing random, nothing that
/// treats a node apart by its id.
#[derive(Debug)]
struct Beacon {
    id: NodeId,
    heard: BTreeMap<NodeId, u8>,
}

impl Beacon {
    fn renamed(&self, ids: &[NodeId]) -> u64 {
        let heard: BTreeMap<NodeId, u8> = self.heard.iter().map(|(p, n)| (ids[*p], *n)).collect();
        debug_digest(&(ids[self.id], heard))
    }
}

impl Machine for Beacon {
    type Msg = Ping;
    type Rec = ();

    fn boot(&mut self, io: &mut Io<Self>) {
        io.set_timer(BEAT, BEAT_NS);
    }
    fn on_message(&mut self, from: NodeId, _: Ping, _: &mut Io<Self>) {
        let n = self.heard.entry(from).or_default();
        *n = (*n + 1).min(3);
    }
    fn on_timer(&mut self, _: TimerId, io: &mut Io<Self>) {
        for p in (0..io.nodes()).filter(|p| *p != self.id) {
            io.send(p, Ping);
        }
        io.set_timer(BEAT, BEAT_NS);
    }
    fn on_client(&mut self, _: ClientReq, _: &mut Io<Self>) {}
    fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}

    fn digest(&self) -> Option<u64> {
        Some(debug_digest(self))
    }
    fn digest_at(&self, _: &Now) -> Option<u64> {
        Some(debug_digest(self))
    }
    fn interchangeable(nodes: usize) -> Vec<Vec<NodeId>> {
        vec![(0..nodes).collect()]
    }
    fn digest_renamed(&self, _: &Now, ids: &[NodeId]) -> Option<u64> {
        Some(self.renamed(ids))
    }
    fn record_digest_at(_: &(), _: &Now) -> Option<u64> {
        Some(0)
    }
    fn record_digest_renamed(_: &(), _: &Now, _: &[NodeId]) -> Option<u64> {
        Some(0)
    }
}

/// Passes unless a node hears itself: the walk must cover every state.
#[derive(Default)]
struct Quiet;

impl Invariant for Quiet {
    fn id(&self) -> &'static str {
        "quiet"
    }
    fn observe(&mut self, _: &Event) -> Result<(), Violation> {
        Ok(())
    }
}

const SCENARIO: &str = r#"{
  "name": "beacons",
  "model": "beacon",
  "nodes": 3,
  "workload": {"clients": 0},
  "faults": {"swarm": false, "partition": true, "partition_one_way": false, "link": false,
             "crash": true, "pause": false, "drop_probability_max": 0.0,
             "delay_ms_min": 1, "delay_ms_max": 3},
  "safety_ms": 1000,
  "liveness_ms": 100,
  "invariants": ["quiet"]
}"#;

fn registry() -> Registry {
    let model = ModelDef::new("beacon", "pings its peers", |_: Setup<'_, serde_json::Value>| {
        Ok(|id| Beacon {
            id,
            heard: BTreeMap::new(),
        })
    })
    .invariant(InvariantDef::new("quiet", "nothing", |_| Box::new(Quiet)));
    let mut reg = Registry::new();
    reg.add(model).scenario(SCENARIO);
    reg
}

fn explore(symmetry: bool) -> Summary {
    let reg = registry();
    let sc = reg.load("beacons").unwrap();
    let limits = Limits {
        bounds: Bounds {
            deviations: 2,
            crashes: 1,
            partitions: 1,
            drops: 0,
            ops: 0,
            liveness: false,
            ..Bounds::default()
        },
        symmetry,
        ..Limits::new(Bounds::default())
    };
    let (sum, found) = dst_runner::explore(&reg, &sc, 0, &[], limits, |_| {}).unwrap();
    assert!(found.is_none());
    assert!(sum.complete(), "{sum:?}");
    sum
}

#[test]
fn renamed_states_are_explored_once() {
    let plain = explore(false);
    let sym = explore(true);
    eprintln!("{} states with symmetry, {} without", sym.states, plain.states);
    // Crashing or cutting off node 0, 1 or 2 at one moment gives three
    // states that are renamings of each other.
    assert!(
        sym.states * 2 < plain.states,
        "{} states with symmetry, {} without",
        sym.states,
        plain.states
    );
    assert_eq!(sym.shapes > 0, plain.shapes > 0);
}
