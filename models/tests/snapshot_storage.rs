//! The durable snapshot store under storage faults: the correct store halts
//! rather than answer for a change its disk may have lost, so it passes;
//! each of its two storage bug switches loses an acknowledged row, which
//! `offset-monotonic` sees when the store recovers; and a seed runs the
//! same twice, commit log and all.

use models::registry;
use sim::Status;

const SCENARIO: &str = "snapshot-storage-faults";
const SEEDS: u64 = 40;
/// Seeds a bug switch may take to show (`dst mutants` reports the measured
/// numbers; this only keeps the test honest and fast).
const BUDGET: u64 = 300;

#[test]
fn the_correct_store_passes_and_meets_its_storage_faults() {
    let reg = registry();
    let s = reg.load(SCENARIO).unwrap();
    let mut recovered = 0;
    for seed in 0..SEEDS {
        let out = reg.run(&s, seed, &[], None).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
        recovered += out.coverage.contains("store-recovered") as u64;
    }
    assert!(recovered > 0, "no seed restarted the store with a commit log");
}

fn first_violation(bug: &str) -> (u64, String) {
    let reg = registry();
    let s = reg.load(SCENARIO).unwrap();
    let bugs = vec![bug.to_string()];
    (0..BUDGET)
        .find_map(|seed| {
            let v = reg.run(&s, seed, &bugs, None).unwrap().verdict;
            (v.status != Status::Pass).then(|| {
                assert_eq!(v.status, Status::Violation, "{bug} seed {seed}: {:?}", v.message);
                (seed, v.invariant.expect("a violation names its invariant"))
            })
        })
        .unwrap_or_else(|| panic!("{bug} not found within {BUDGET} seeds"))
}

#[test]
fn acknowledging_a_failed_fsync_loses_an_acknowledged_row() {
    let (seed, inv) = first_violation("store-fsync-error-ignored");
    assert_eq!(inv, "offset-monotonic", "seed {seed}");
}

#[test]
fn taking_an_unreadable_log_for_an_empty_one_loses_every_row() {
    let (seed, inv) = first_violation("store-read-error-as-empty");
    assert_eq!(inv, "offset-monotonic", "seed {seed}");
}

#[test]
fn a_seed_runs_twice_to_the_same_trace_hash() {
    let reg = registry();
    let s = reg.load(SCENARIO).unwrap();
    for seed in 0..4 {
        let a = reg.run(&s, seed, &[], None).unwrap();
        let b = reg.run(&s, seed, &[], None).unwrap();
        assert_eq!(a.trace.hash_hex(), b.trace.hash_hex(), "seed {seed}");
        assert_eq!(a.verdict, b.verdict);
    }
}
