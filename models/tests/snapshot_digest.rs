//! The snapshot store under `dst explore`: every node, message and disk
//! record gives a digest relative to the clocks, so an explored run's
//! digests leave absolute time out, and `records_max` bounds what the
//! producers append for a small scope.

use models::SnapEvent;
mod support;

use dst_runner::run_seed_with;
use sim::explore::Bounds;
use sim::{Overrides, RunOutcome, Scenario, Status};

/// The natural explored run of `sc`, cut where its choices end (at
/// `depth`, or where it meets a state it passed before).
fn explored(sc: &Scenario, depth: u32) -> RunOutcome {
    let bounds = Bounds {
        depth,
        liveness: false,
        ..Bounds::default()
    };
    support::natural(sc, bounds)
}

fn sampled(sc: &Scenario, seed: u64) -> RunOutcome {
    let reg = models::registry();
    let o = Overrides::default().keeping_all();
    run_seed_with(&reg, sc, seed, &[], o).unwrap().0
}

/// `snapshot-handover` with its model config edited by `edit`.
fn handover(edit: impl Fn(&mut serde_json::Map<String, serde_json::Value>)) -> Scenario {
    let mut sc = models::registry().load("snapshot-handover").unwrap();
    edit(sc.config.as_object_mut().expect("a config object"));
    sc
}

fn appends(out: &RunOutcome) -> Vec<u64> {
    out.trace
        .events()
        .iter()
        .filter_map(|e| match e.custom::<SnapEvent>() {
            Some(SnapEvent::JournalAppend { offset, .. }) => Some(offset),
            _ => None,
        })
        .collect()
}

#[test]
fn an_explored_handover_run_passes_with_relative_digests() {
    let sc = models::registry().load("snapshot-handover").unwrap();
    let out = explored(&sc, Bounds::default().depth);
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    assert!(!out.points.is_empty(), "the run passed choices");
    assert!(!appends(&out).is_empty(), "the producers ran");
}

#[test]
fn records_max_stops_the_producers_after_that_many_records_in_all() {
    let sc = handover(|c| {
        c.insert("records_max".into(), 4.into());
    });
    for seed in 1..=3 {
        let out = sampled(&sc, seed);
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
        assert_eq!(appends(&out).len(), 4, "seed {seed}");
    }
    let depth = Bounds::default().depth;
    assert_eq!(appends(&explored(&sc, depth)).len(), 4, "explored");
}

#[test]
fn without_records_max_a_run_is_the_run_it_was() {
    let sc = models::registry().load("snapshot-handover").unwrap();
    let zero = handover(|c| {
        c.insert("records_max".into(), 0.into());
    });
    let (a, b) = (sampled(&sc, 5), sampled(&zero, 5));
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
    assert!(appends(&a).len() > 4, "the producers ran on");
}

/// Once the producers are done, nothing rebalances and every record is
/// committed, the system goes round in ticks, fetches and heartbeats:
/// with every instant relative, the walk meets the state of one round
/// again in a later one, and the run ends there, long before its depth.
/// An absolute digest never meets a state again.
#[test]
fn a_quiet_system_meets_its_own_state_again_after_time_passed() {
    let mut sc = handover(|c| {
        c.insert("records_max".into(), 4.into());
        c.insert("rebalance_every_ms".into(), 0.into());
    });
    sc.faults = Default::default();
    let depth = 5_000;
    let out = explored(&sc, depth);
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    let mut seen = std::collections::BTreeSet::new();
    let again = out.points.iter().filter(|p| !seen.insert(p.digest)).count();
    assert!(again > 0, "no state met again in {} choices", out.points.len());
    assert!(out.points.len() < depth as usize);
    let commits = out
        .trace
        .events()
        .iter()
        .filter(|e| matches!(e.custom::<SnapEvent>(), Some(SnapEvent::JournalCommit { .. })))
        .count();
    assert!(commits > 0, "the records were committed first");
}
