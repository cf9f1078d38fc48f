//! Skew beyond MAX_CLOCK_SKEW: descriptor leases, which rely on the bound,
//! break (the scenario declares that violation), while the HLC's refusal
//! keeps `hlc-bounded` holding for the whole run, not merely up to the
//! first lease violation that ends it.

use models::registry;
use sim::Status;

const SEEDS: u64 = 60;

#[test]
fn beyond_the_bound_hlc_bounded_holds_for_whole_runs() {
    let reg = registry();
    let mut s = reg.load("raft-skew-beyond-bound").unwrap();
    assert_eq!(s.expect, sim::Expect::Violation("lease-exclusive".into()));
    s.invariants.retain(|i| i != "lease-exclusive");
    s.expect = sim::Expect::Pass;
    let mut refused = 0;
    for seed in 0..SEEDS {
        let out = reg.run(&s, seed, &[], None).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
        refused += out.coverage.contains("hlc-refused") as u64;
    }
    // The far-future node's timestamps really were offered and refused.
    assert_eq!(refused, SEEDS);
}

#[test]
fn the_same_skew_with_the_unchecked_update_breaks_hlc_bounded() {
    let reg = registry();
    let mut s = reg.load("raft-skew-beyond-bound").unwrap();
    s.invariants.retain(|i| i != "lease-exclusive");
    s.expect = sim::Expect::Pass;
    let bugs = vec!["hlc-unchecked-update".to_string()];
    let caught = (0..SEEDS)
        .filter(|seed| {
            let out = reg.run(&s, *seed, &bugs, None).unwrap();
            out.verdict.invariant.as_deref() == Some("hlc-bounded")
        })
        .count();
    assert!(caught as u64 >= SEEDS * 9 / 10, "caught on {caught} of {SEEDS} seeds");
}
