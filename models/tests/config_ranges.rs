//! Every knob of the built-in models' configs has a range, and a scenario
//! out of it is refused at load with one line naming the knob, the value
//! and the range, while every built-in scenario still loads.

use models::registry;
use sim::Scenario;

/// A scenario of `model` checking one of its invariants (a scenario that
/// checks none is refused).
fn scenario(model: &str, nodes: usize, config: &str) -> Scenario {
    let reg = registry();
    let m = reg.model(model).unwrap();
    let (inv, _) = reg.invariants_of(m).next().unwrap();
    Scenario::from_json(&format!(
        r#"{{"name":"x","model":"{model}","nodes":{nodes},"invariants":["{inv}"],"config":{config}}}"#
    ))
    .unwrap()
}

fn refused(model: &str, nodes: usize, config: &str) -> String {
    let err = registry()
        .validate(&scenario(model, nodes, config), &[])
        .expect_err(config);
    assert!(!err.contains('\n'), "{err}");
    err
}

#[test]
fn raft_knobs_out_of_range_are_named_with_their_range() {
    for (config, want) in [
        (
            r#"{"heartbeat_ms": 0}"#,
            "scenario x: config.heartbeat_ms = 0 is out of range 1..=149 (below config.election_timeout_ms_min)",
        ),
        (
            r#"{"heartbeat_ms": 150}"#,
            "config.heartbeat_ms = 150 is out of range 1..=149",
        ),
        (
            r#"{"election_timeout_ms_min": 400, "election_timeout_ms_max": 300}"#,
            "config.election_timeout_ms_min = 400 exceeds config.election_timeout_ms_max = 300",
        ),
        (
            r#"{"election_timeout_ms_max": 18446744073709551615}"#,
            "config.election_timeout_ms_max = 18446744073709551615 is out of range 1..=3600000",
        ),
        (
            r#"{"max_entries_per_append": 0}"#,
            "config.max_entries_per_append = 0 is out of range 1..=1000000",
        ),
        (
            r#"{"apply_batch_ms": 0}"#,
            "config.apply_batch_ms = 0 is out of range 1..=3600000",
        ),
        (
            r#"{"clock_drift_ppm_max": 1000000}"#,
            "config.clock_drift_ppm_max = 1000000 is out of range 0..=999999",
        ),
        (
            r#"{"leases": 2, "lease_ms": 0}"#,
            "config.lease_ms = 0 is out of range 1..=3600000",
        ),
        (
            r#"{"swim_probe_ms": 100, "swim_suspect_ms": 0}"#,
            "config.swim_suspect_ms = 0 is out of range 1..=3600000",
        ),
    ] {
        let err = refused("raft", 3, config);
        assert!(err.contains(want), "{config}: {err}");
    }
    assert!(registry().validate(&scenario("raft", 3, "{}"), &[]).is_ok());
}

#[test]
fn snapshot_knobs_out_of_range_are_named_with_their_range() {
    for (config, want) in [
        (
            r#"{"heartbeat_ms": 0}"#,
            "config.heartbeat_ms = 0 is out of range 1..=3600000",
        ),
        (r#"{"tick_ms": 0}"#, "config.tick_ms = 0 is out of range 1..=3600000"),
        (
            r#"{"session_ms": 50}"#,
            "config.session_ms = 50 is out of range 51..=3600000 (above config.heartbeat_ms)",
        ),
        (
            r#"{"delete_probability": 1.5}"#,
            "config.delete_probability = 1.5 is out of range 0..=1",
        ),
        (
            r#"{"reply_drop_probability": -0.5}"#,
            "config.reply_drop_probability = -0.5 is out of range 0..=1",
        ),
        (r#"{"partitions": 0}"#, "config.partitions = 0 is out of range 1..=1000"),
        (
            r#"{"produce_ms": 99999999999}"#,
            "config.produce_ms = 99999999999 is out of range 0..=3600000",
        ),
        (
            r#"{"records_max": 1000000001}"#,
            "config.records_max = 1000000001 is out of range 0..=1000000000",
        ),
    ] {
        let err = refused("snapshot", 4, config);
        assert!(err.contains(want), "{config}: {err}");
    }
    assert!(refused("snapshot", 2, "{}").contains("nodes = 2 is out of range 3..=9"));
    assert!(registry().validate(&scenario("snapshot", 4, "{}"), &[]).is_ok());
}

/// A shrunk safety violation runs no liveness phase; a scenario that
/// checks liveness needs one.
#[test]
fn a_liveness_phase_may_be_empty_only_when_liveness_is_not_checked() {
    let mut s = scenario("raft", 3, "{}");
    s.liveness_ms = 0;
    assert!(registry().validate(&s, &[]).is_ok());
    s.invariants = vec!["liveness".into()];
    let err = registry().validate(&s, &[]).unwrap_err();
    assert!(
        err.contains("liveness_ms = 0 is out of range 1..=3600000 (liveness is checked)"),
        "{err}"
    );
}

#[test]
fn a_generic_invariant_whose_events_a_model_never_reports_is_refused() {
    let mut s = scenario("snapshot", 4, "{}");
    s.invariants = vec!["no-dual-leaders".into()];
    let err = registry().validate(&s, &[]).unwrap_err();
    assert!(
        err.contains("unknown invariant 'no-dual-leaders' for model snapshot"),
        "{err}"
    );
    s.invariants = vec!["offset-monotonic".into(), "offset-monotonic".into()];
    let err = registry().validate(&s, &[]).unwrap_err();
    assert!(err.contains("invariants lists 'offset-monotonic' twice"), "{err}");
}

#[test]
fn a_vary_range_reaching_out_of_range_names_the_draw() {
    let mut s = scenario("raft", 3, "{}");
    s.vary = serde_json::from_str(r#"{"config.heartbeat_ms": {"range": [0, 40]}}"#).unwrap();
    let err = registry().validate_draws(&s).unwrap_err();
    assert!(
        err.contains("config.heartbeat_ms = 0 is out of range")
            && err.ends_with("(when vary draws config.heartbeat_ms=0)"),
        "{err}"
    );
    s.vary = serde_json::from_str(r#"{"faults.drop_probability_max": {"one-of": [0.1, 2.0]}}"#).unwrap();
    let err = registry().validate_draws(&s).unwrap_err();
    assert!(
        err.contains("faults.drop_probability_max = 2 is out of range 0..=1 (when vary draws"),
        "{err}"
    );
}

#[test]
fn every_built_in_scenario_still_loads() {
    let reg = registry();
    reg.check().unwrap();
    for s in reg.scenarios() {
        reg.load(&s.name).unwrap();
    }
}
