//! The gRPC register under dst: the correct register passes with every
//! goal reached, each bug switch is caught, clocks beyond the register's
//! bound break its lease as they must, a partition shows up to the nodes
//! as failed gRPC calls, and a run replays to the same trace.

use dst_runner::{fuzz, FuzzOptions};
use grpc_register_example::{registry, LEASE_IGNORES_DRIFT, RENAME_WITHOUT_DIR_SYNC};
use serde::Deserialize;
use sim::fault::{Action, PlanEntry};
use sim::Status;
use std::ops::Range;

fn clean(scenario: &str, seeds: Range<u64>) {
    let n = seeds.end - seeds.start;
    let s = fuzz(&registry(), &FuzzOptions::seeds(scenario, seeds)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].pass, n, "{:?}", s.tallies[0]);
}

/// Some seed of `seeds` breaks `caught_by`, and no seed breaks anything else.
fn caught(scenario: &str, bugs: &[&str], caught_by: &[&str], seeds: Range<u64>) {
    let mut o = FuzzOptions::seeds(scenario, seeds);
    o.bugs = bugs.iter().map(|b| b.to_string()).collect();
    let s = fuzz(&registry(), &o).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    let v = &s.tallies[0].violations;
    assert!(!v.is_empty(), "{scenario} {bugs:?}: nothing found");
    assert!(
        v.keys().all(|k| caught_by.contains(&k.as_str())),
        "{scenario} {bugs:?} broke more than {caught_by:?}: {v:?}"
    );
}

#[test]
fn the_correct_register_passes_crashes() {
    clean("grpc-register-crash-restart", 0..40);
}

#[test]
fn the_correct_register_passes_partitions() {
    clean("grpc-register-partitions", 0..40);
}

#[test]
fn the_correct_register_passes_drifting_clocks() {
    clean("grpc-register-drift", 0..40);
}

#[test]
fn a_lease_that_ignores_drift_serves_stale_reads() {
    caught("grpc-register-drift", &[LEASE_IGNORES_DRIFT], &["linearizable"], 0..120);
}

#[test]
fn clocks_beyond_the_bound_break_the_lease() {
    caught("grpc-register-drift-beyond-bound", &[], &["linearizable"], 0..200);
}

#[test]
fn an_unsynced_rename_forgets_writes_and_votes() {
    caught(
        "grpc-register-crash-restart",
        &[RENAME_WITHOUT_DIR_SYNC],
        &["linearizable", "no-dual-leaders"],
        0..40,
    );
}

/// What a node reports when calls to a peer start or stop failing.
#[derive(Deserialize)]
struct Reach {
    model: String,
    peer: usize,
    status: Option<String>,
}

#[test]
fn a_partition_shows_up_as_failed_calls_and_heals() {
    let r = registry();
    let s = r.load("grpc-register-partitions").unwrap();
    let at = |ms: u64, action| PlanEntry {
        at_ns: ms * 1_000_000,
        action,
    };
    let plan = vec![
        at(
            2_000,
            Action::Partition {
                groups: vec![vec![0], vec![1, 2]],
            },
        ),
        at(4_000, Action::Heal),
    ];
    let out = r.run(&s, 1, &[], Some(plan.clone())).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    let reach: Vec<(usize, u64, Reach)> = out
        .trace
        .events()
        .iter()
        .filter_map(|e| Some((e.node?, e.t_ns, e.custom::<Reach>()?)))
        .collect();
    let cut = |&(node, t, ref r): &(usize, u64, Reach)| {
        (2_000_000_000..4_000_000_000).contains(&t) && r.model == "peer-unreachable" && ((node == 0) != (r.peer == 0))
    };
    let failed: Vec<&str> = reach
        .iter()
        .filter(|x| cut(x))
        .filter_map(|x| x.2.status.as_deref())
        .collect();
    assert!(!failed.is_empty(), "no call across the cut failed");
    assert!(
        failed
            .iter()
            .all(|s| s.starts_with("deadline exceeded") || s.starts_with("Unavailable") || s.starts_with("Cancelled")),
        "{failed:?}"
    );
    assert!(
        reach
            .iter()
            .any(|(_, t, r)| *t > 4_000_000_000 && r.model == "peer-reachable"),
        "calls never worked again after the heal"
    );
    let again = r.run(&s, 1, &[], Some(plan)).unwrap();
    assert_eq!(out.trace.hash_hex(), again.trace.hash_hex());
}

#[test]
fn a_seed_replays_to_the_same_trace() {
    let r = registry();
    for (name, _) in grpc_register_example::SCENARIOS {
        let s = r.load(name).unwrap();
        dst_runner::replays(registry, &s, 0..2, &[]).unwrap();
    }
}
