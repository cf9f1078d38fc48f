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

/// Found by guided search on the correct model: a worker whose lease
/// request timed out, or came back stale, asks again; when the answer to
/// the first request arrives after the second was sent (here held up by a
/// 335 ms pause), the worker must date that lease from the first request.
/// Dated from the second, it dispatched under a descriptor version the
/// catalog had superseded once the real lease ran out.
#[test]
fn a_grant_answering_an_earlier_request_is_dated_from_it() {
    let reg = registry();
    let s = reg.load("cluster-epochs").unwrap();
    let plan: Vec<sim::fault::PlanEntry> = serde_json::from_str(
        r#"[{"at_ns": 439000000, "action": "pause", "node": 3, "ms": 225}, {"at_ns": 817000000, "action": "pause", "node": 3, "ms": 320}, {"at_ns": 976000000, "action": "crash", "node": 2}, {"at_ns": 1535000000, "action": "link", "from": 2, "to": 0, "drop_per_million": 310908, "delay_ms_extra": 177}, {"at_ns": 1765000000, "action": "restart", "node": 2}, {"at_ns": 1873000000, "action": "link", "from": 2, "to": 3, "drop_per_million": 469406, "delay_ms_extra": 135}, {"at_ns": 2088000000, "action": "link", "from": 0, "to": 1, "drop_per_million": 400140, "delay_ms_extra": 133}, {"at_ns": 2244000000, "action": "heal"}, {"at_ns": 2251000000, "action": "pause", "node": 1, "ms": 53}, {"at_ns": 2620000000, "action": "heal"}, {"at_ns": 2636000000, "action": "crash", "node": 2}, {"at_ns": 2683000000, "action": "heal"}, {"at_ns": 2821000000, "action": "pause", "node": 3, "ms": 335}, {"at_ns": 3077000000, "action": "pause", "node": 3, "ms": 276}, {"at_ns": 3343000000, "action": "restart", "node": 2}, {"at_ns": 3519968538, "action": "pause", "node": 3, "ms": 335}, {"at_ns": 3678000000, "action": "pause", "node": 3, "ms": 161}]"#,
    )
    .unwrap();
    let out = reg.run(&s, 1, &[], Some(plan)).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
}
