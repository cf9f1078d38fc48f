//! The same seed gives the same run, event for event: the trace hash and
//! verdict of every seed are compared across two runs on the same thread
//! (where madsim reseeds std's hasher per runtime) and on another thread.

use models::registry;
use sim::Expect;

const SEEDS_PER_SCENARIO: u64 = 70;

#[test]
fn every_seed_runs_twice_to_the_same_trace_hash() {
    let reg = registry();
    let mut runs = 0;
    for s in reg.scenarios() {
        for seed in 0..SEEDS_PER_SCENARIO {
            let a = reg.run(s, seed, &[], None).unwrap();
            let b = reg.run(s, seed, &[], None).unwrap();
            assert_eq!(
                a.trace.hash_hex(),
                b.trace.hash_hex(),
                "{} seed {seed} is not deterministic",
                s.name
            );
            assert_eq!(a.verdict, b.verdict);
            assert_eq!(a.plan, b.plan);
            // A run may end early in the violation its scenario declares (a documented limit).
            let expected_end = matches!(&s.expect, Expect::Violation(id) if a.verdict.invariant.as_ref() == Some(id));
            assert!(
                a.trace.len() > 1_000 || expected_end,
                "{} seed {seed} did almost nothing",
                s.name
            );
            runs += 1;
        }
    }
    assert!(runs >= 200);
}

#[test]
fn a_seed_replays_identically_on_another_thread() {
    let reg = registry();
    let s = reg.load("raft-snapshot").unwrap();
    dst_runner::replays(registry, &s, 42..43, &[]).unwrap();
}

#[test]
fn different_seeds_take_different_paths() {
    let reg = registry();
    let s = reg.load("raft-partitions").unwrap();
    let hashes: std::collections::BTreeSet<String> = (0..20)
        .map(|seed| reg.run(&s, seed, &[], None).unwrap().trace.hash_hex())
        .collect();
    assert_eq!(hashes.len(), 20);
}

#[test]
fn bug_runs_are_deterministic_too() {
    let reg = registry();
    for (_, b) in reg.bugs() {
        let s = reg.load(b.scenario).unwrap();
        let bugs = vec![b.id.to_string()];
        for seed in 0..3 {
            let x = reg.run(&s, seed, &bugs, None).unwrap();
            let y = reg.run(&s, seed, &bugs, None).unwrap();
            assert_eq!(x.trace.hash_hex(), y.trace.hash_hex(), "{} seed {seed}", b.id);
        }
    }
}

#[test]
fn replaying_the_recorded_plan_reproduces_the_run() {
    let reg = registry();
    let s = reg.load("raft-crash-restart").unwrap();
    let a = reg.run(&s, 9, &[], None).unwrap();
    let b = reg.run(&s, 9, &[], Some(a.plan.clone())).unwrap();
    assert_eq!(a.trace.hash_hex(), b.trace.hash_hex());
}

#[test]
fn a_plan_with_targeted_entries_runs_and_replays_to_the_same_trace_hash() {
    let reg = registry();
    let s = reg.load("raft-crash-restart-targeted").unwrap();
    let mut fired = 0;
    for seed in 0..10 {
        let a = reg.run(&s, seed, &[], None).unwrap();
        let b = reg.run(&s, seed, &[], None).unwrap();
        let c = reg.run(&s, seed, &[], Some(a.plan.clone())).unwrap();
        assert_eq!(a.trace.hash_hex(), b.trace.hash_hex(), "seed {seed}");
        assert_eq!(
            a.trace.hash_hex(),
            c.trace.hash_hex(),
            "seed {seed}: the recorded plan replays"
        );
        fired += a
            .counters
            .iter()
            .filter(|(k, _)| k.starts_with("targeted-fired-"))
            .map(|(_, v)| v)
            .sum::<u64>();
    }
    assert!(fired > 10, "targeted entries fired {fired} times");
}
