//! The cluster layer: each invariant fails with its bug switch on the
//! scenario that exposes it and passes on the correct model over the same
//! seeds, and every scenario reaches the windows its switches need.

use models::registry;
use sim::Status;

const SEEDS: u64 = 40;

/// (scenario, switch, the invariant that must catch it)
const CASES: &[(&str, &str, &str)] = &[
    ("cluster-ddl", "lease-after-ddl", "descriptor-fenced"),
    ("cluster-ddl", "fence-once", "descriptor-fenced"),
    ("cluster-epochs", "epoch-unchecked", "epoch-fenced"),
    ("cluster-boot", "read-error-as-zero", "boot-read-error"),
    ("cluster-gather", "gather-no-deadline", "gather-complete"),
    ("cluster-gather", "gather-partial", "gather-complete"),
    ("cluster-triggers", "retry-refires-succeeded", "trigger-exactly-once"),
    ("cluster-triggers", "failure-cancels-siblings", "trigger-siblings"),
    ("cluster-triggers", "self-cascade", "cascade-bounded"),
    ("cluster-triggers", "partial-body", "trigger-exactly-once"),
    ("cluster-readiness", "readiness-wall-deadline", "readiness-progress"),
];

#[test]
fn each_switch_is_caught_by_its_own_invariant() {
    let reg = registry();
    for &(scenario, bug, invariant) in CASES {
        let s = reg.load(scenario).unwrap();
        let bugs = vec![bug.to_string()];
        let mut caught = 0;
        for seed in 0..SEEDS {
            let out = reg.run(&s, seed, &bugs, None).unwrap();
            if out.verdict.status == Status::Pass {
                continue;
            }
            assert_eq!(
                out.verdict.status,
                Status::Violation,
                "{bug} seed {seed}: {:?}",
                out.verdict
            );
            assert_eq!(out.verdict.invariant.as_deref(), Some(invariant), "{bug} seed {seed}");
            caught += 1;
        }
        assert!(caught * 4 >= SEEDS, "{bug}: caught on {caught} of {SEEDS} seeds");
    }
}

#[test]
fn the_correct_model_passes_the_same_seeds_and_reaches_every_goal() {
    let reg = registry();
    for scenario in [
        "cluster-ddl",
        "cluster-epochs",
        "cluster-boot",
        "cluster-gather",
        "cluster-triggers",
        "cluster-readiness",
    ] {
        let s = reg.load(scenario).unwrap();
        let mut reached = std::collections::BTreeSet::new();
        for seed in 0..SEEDS {
            let out = reg.run(&s, seed, &[], None).unwrap();
            assert_eq!(
                out.verdict.status,
                Status::Pass,
                "{scenario} seed {seed}: {:?}",
                out.verdict
            );
            reached.extend(out.coverage.iter().cloned());
        }
        for goal in &s.coverage {
            assert!(
                reached.contains(goal),
                "{scenario}: {goal} never reached in {SEEDS} seeds"
            );
        }
    }
}

#[test]
fn a_bad_cluster_config_is_one_line_not_a_panic() {
    let reg = registry();
    let mut s = reg.load("cluster-ddl").unwrap();
    s.config = serde_json::json!({"lease_ms": 50, "lease_margin_ms": 50});
    let e = reg.validate(&s, &[]).unwrap_err();
    assert!(e.contains("config.lease_margin_ms") && !e.contains('\n'), "{e}");
    s.config = serde_json::json!({"leases": 1});
    assert!(reg.validate(&s, &[]).is_err());
}
