//! Every catalogued bug is found within a fixed seed budget under its
//! scenario, by an invariant docs/book/src/bugs.md names for it; the correct model passes
//! a fixed seed range of every scenario.

use models::registry;
use sim::Status;

/// Seeds each bug may take. `dst mutants` reports the measured numbers;
/// this bound only keeps the test honest and fast.
const BUDGET: u64 = 600;
const CORRECT_SEEDS: u64 = 120;

#[test]
fn every_bug_switch_is_found_by_its_invariant() {
    let reg = registry();
    let mut missed = Vec::new();
    for (_, b) in reg.bugs() {
        let s = reg.load(b.scenario).unwrap();
        let bugs = vec![b.id.to_string()];
        let found = (0..BUDGET).find_map(|seed| {
            let out = reg.run(&s, seed, &bugs, None).unwrap();
            (out.verdict.status != Status::Pass).then_some((seed, out.verdict))
        });
        match found {
            Some((seed, v)) => {
                assert_eq!(v.status, Status::Violation, "{} seed {seed}: {:?}", b.id, v.message);
                let inv = v.invariant.unwrap();
                assert!(
                    b.invariants.contains(&inv.as_str()),
                    "{} was caught by {inv}, expected one of {:?}",
                    b.id,
                    b.invariants
                );
                assert!(!v.evidence.is_empty(), "{}: a violation must name its events", b.id);
            }
            None => missed.push(b.id),
        }
    }
    assert!(missed.is_empty(), "not found within {BUDGET} seeds: {missed:?}");
}

#[test]
fn correct_model_passes_every_scenario() {
    // Every scenario over the same seeds: no unexpected violation, every
    // coverage goal reached, and a declared violation seen and no other.
    let reg = registry();
    let mut opts = dst_runner::FuzzOptions::seeds("", 0..CORRECT_SEEDS);
    opts.scenarios.clear();
    let summary = dst_runner::fuzz(&reg, &opts).unwrap();
    assert_eq!(summary.scenarios.len(), reg.scenarios().len());
    assert!(summary.ok(), "{}", summary.failures().join("\n"));
}
