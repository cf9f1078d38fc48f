//! The raft-rs models under dst: runs replay exactly, 0.7.0 passes every
//! scenario and reaches every coverage goal, 0.4.3's durability bug is found.

use raft_rs_example::{run, scenario, SCENARIOS};
use sim::{Scenario, Status};
use std::collections::BTreeSet;

fn named(kind: &str, version: &str) -> Scenario {
    scenario(&format!("raft-rs-{version}-{kind}")).unwrap()
}

const KINDS: [&str; 3] = ["partitions", "crash-restart", "snapshot"];

#[test]
fn every_scenario_exists_for_both_versions_with_the_same_settings() {
    assert_eq!(SCENARIOS.len(), 2 * KINDS.len());
    for kind in KINDS {
        let old = named(kind, "0.4.3");
        let new = named(kind, "0.7.0");
        assert_eq!(old.model, "raft-rs-0.4.3");
        assert_eq!(new.model, "raft-rs-0.7.0");
        let same = |s: &Scenario| Scenario {
            name: String::new(),
            description: String::new(),
            model: String::new(),
            ..s.clone()
        };
        assert_eq!(same(&old), same(&new), "{kind}");
        assert!(!old.coverage.is_empty(), "{kind}");
    }
}

#[test]
fn a_scenario_runs_only_under_its_own_model() {
    let s = named("crash-restart", "0.7.0");
    let err = |r: Result<sim::RunOutcome, String>| r.err().expect("an error");
    assert!(err(raft_rs_example::run_043(&s, 0, None)).contains("raft-rs-0.7.0"));
    let mut bad = s.clone();
    bad.model = "raft".into();
    assert!(err(run(&bad, 0, None)).contains("unknown model"));
    bad.model = s.model.clone();
    bad.config = serde_json::json!({ "election_ticks": 3 });
    assert!(err(run(&bad, 0, None)).contains("election_ticks"));
}

/// The crates draw election timeouts from an unseeded thread-local
/// generator, whose state also carries over between runs on a thread:
/// each seed runs once here and once on a fresh thread.
#[test]
fn a_seed_replays_to_the_same_trace() {
    for (name, _) in SCENARIOS {
        let s = scenario(name).unwrap();
        for seed in 0..4 {
            let here = run(&s, seed, None).unwrap();
            let s2 = s.clone();
            let there = std::thread::spawn(move || run(&s2, seed, None).unwrap().trace.hash_hex())
                .join()
                .unwrap();
            assert_eq!(here.trace.hash_hex(), there, "{name} seed {seed}");
            let again = run(&s, seed, Some(here.plan.clone())).unwrap();
            assert_eq!(
                here.trace.hash_hex(),
                again.trace.hash_hex(),
                "{name} seed {seed} with its plan"
            );
        }
    }
}

fn passes_and_covers(kind: &str, seeds: std::ops::Range<u64>) {
    let s = named(kind, "0.7.0");
    let mut reached = BTreeSet::new();
    for seed in seeds {
        let out = run(&s, seed, None).unwrap();
        assert_eq!(
            out.verdict.status,
            Status::Pass,
            "{} seed {seed}: {:?}",
            s.name,
            out.verdict
        );
        reached.extend(out.coverage);
    }
    for goal in &s.coverage {
        assert!(reached.contains(goal), "{}: no seed reached {goal}", s.name);
    }
}

#[test]
fn v070_passes_partitions() {
    passes_and_covers("partitions", 0..16);
}

#[test]
fn v070_passes_crash_restart() {
    passes_and_covers("crash-restart", 0..40);
}

#[test]
fn v070_passes_snapshot() {
    passes_and_covers("snapshot", 0..12);
}

/// raft 0.4.3 sets `must_sync` only when term or vote change, so entries
/// are acknowledged before they are durable: a power loss of a majority
/// loses a committed entry. Found within a few seeds.
#[test]
fn v043_loses_committed_entries_to_a_power_loss() {
    let s = named("crash-restart", "0.4.3");
    let lost = |seed| {
        let inv = run(&s, seed, None).unwrap().verdict.invariant.unwrap_or_default();
        ["state-machine-safety", "linearizable"].contains(&inv.as_str())
    };
    assert!(
        (0..20).any(lost),
        "no seed in 0..20 broke state-machine-safety or linearizable"
    );
}
