//! The command line as a user meets it: exit codes, one-line errors for bad
//! input, reports that replay, and reports that were cut or edited.

use std::path::PathBuf;
use std::process::Output;

mod support;
use support::{dst_here as dst, stderr};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Bad input: exit 2 and exactly one line on stderr, no panic.
fn assert_bad(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "want one line, got: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn unknown_scenario_is_bad_input() {
    assert_bad(
        &dst(&["run", "no-such-scenario"]),
        "unknown scenario 'no-such-scenario'",
    );
    assert_bad(&dst(&["fuzz", "nope", "--seeds", "0..1"]), "unknown scenario");
}

#[test]
fn unknown_bug_is_bad_input() {
    assert_bad(
        &dst(&["run", "raft-partitions", "--bug", "no-such-bug"]),
        "unknown bug 'no-such-bug'",
    );
    assert_bad(&dst(&["mutants", "--bug", "no-such-bug"]), "unknown bug");
}

#[test]
fn malformed_scenario_file_is_bad_input() {
    let p = tmp("bad-scenario.json");
    std::fs::write(&p, "{ \"name\": \"x\", \"model\": ").unwrap();
    assert_bad(&dst(&["run", p.to_str().unwrap()]), "invalid scenario JSON");
    std::fs::write(
        &p,
        r#"{"name":"x","model":"raft","nodes":3,"invariants":["no-such-invariant"]}"#,
    )
    .unwrap();
    assert_bad(
        &dst(&["run", p.to_str().unwrap()]),
        "unknown invariant 'no-such-invariant'",
    );
    std::fs::write(&p, r#"{"name":"x","model":"paxos","nodes":3,"invariants":[]}"#).unwrap();
    assert_bad(&dst(&["run", p.to_str().unwrap()]), "unknown model 'paxos'");
    // Another model's invariant, a goal the model never marks, a config of the wrong shape.
    for (body, needle) in [
        (
            r#""invariants":["offset-monotonic"]"#,
            "unknown invariant 'offset-monotonic' for model raft",
        ),
        (
            r#""invariants":[],"coverage":["handover"]"#,
            "unknown coverage goal 'handover' for model raft",
        ),
        (
            r#""invariants":[],"config":{"heartbeat_ms":"fast"}"#,
            "invalid raft config",
        ),
        (r#""invariants":[],"config":[1,2]"#, "invalid raft config"),
        (
            r#""invariants":[],"config":{"election_timeout_msmin":1}"#,
            "unknown field `election_timeout_msmin`",
        ),
    ] {
        std::fs::write(&p, format!(r#"{{"name":"x","model":"raft","nodes":3,{body}}}"#)).unwrap();
        assert_bad(&dst(&["run", p.to_str().unwrap()]), needle);
        assert_bad(&dst(&["fuzz", p.to_str().unwrap(), "--seeds", "0..1"]), needle);
    }
}

#[test]
fn bad_ranges_are_bad_input() {
    assert_bad(
        &dst(&["fuzz", "raft-partitions", "--seeds", "9..3"]),
        "invalid seed range",
    );
    assert_bad(
        &dst(&["fuzz", "raft-partitions", "--shard", "3/3", "--seeds", "0..1"]),
        "invalid shard",
    );
    assert_bad(
        &dst(&["fuzz", "raft-partitions", "--budget", "soon"]),
        "invalid duration",
    );
}

/// Every scenario knob out of its range: exit 2 and one line naming the
/// knob, its value and the range, at load, before any seed runs.
#[test]
fn scenario_knobs_out_of_range_are_bad_input() {
    let p = tmp("out-of-range.json");
    let raft = r#""model":"raft","nodes":3,"invariants":["liveness"]"#;
    for (head, body, needle) in [
        (
            raft,
            r#""faults":{"drop_probability_max":1.5}"#,
            "scenario x: faults.drop_probability_max = 1.5 is out of range 0..=1",
        ),
        (
            raft,
            r#""faults":{"torn_write_probability":-0.1}"#,
            "faults.torn_write_probability = -0.1 is out of range 0..=1",
        ),
        (
            raft,
            r#""faults":{"delay_ms_min":30,"delay_ms_max":10}"#,
            "faults.delay_ms_min = 30 exceeds faults.delay_ms_max = 10",
        ),
        (
            raft,
            r#""faults":{"spared":[5]}"#,
            "faults.spared = 5 is out of range 0..=2",
        ),
        (
            raft,
            r#""liveness_ms":18446744073709551000"#,
            "liveness_ms = 18446744073709551000 is out of range 0..=3600000",
        ),
        (
            raft,
            r#""safety_ms":3600001"#,
            "safety_ms = 3600001 is out of range 1..=3600000",
        ),
        (
            raft,
            r#""event_budget":0"#,
            "event_budget = 0 is out of range 1..=10000000",
        ),
        (
            raft,
            r#""workload":{"clients":0}"#,
            "workload.clients = 0 is out of range 1..=100 (liveness judges client ops)",
        ),
        (
            raft,
            r#""workload":{"op_timeout_ms":0}"#,
            "workload.op_timeout_ms = 0 is out of range 1..=3600000",
        ),
        (
            raft,
            r#""liveness_ms":2000,"liveness":{"tail_ms":3000}"#,
            "liveness.tail_ms = 3000 is out of range 0..=1999 (shorter than liveness_ms)",
        ),
        (
            raft,
            r#""config":{"heartbeat_ms":0}"#,
            "config.heartbeat_ms = 0 is out of range 1..=149 (below config.election_timeout_ms_min)",
        ),
        (
            raft,
            r#""vary":{"config.heartbeat_ms":{"range":[0,40]}}"#,
            "(when vary draws config.heartbeat_ms=0)",
        ),
        (
            r#""model":"raft-rs-0.7.0","nodes":3,"invariants":[]"#,
            r#""config":{"tick_ms":0}"#,
            "config.tick_ms = 0 is out of range 1..=3600000",
        ),
        (
            r#""model":"raft","nodes":12,"invariants":[]"#,
            r#""safety_ms":1000"#,
            "nodes = 12 is out of range 1..=9",
        ),
    ] {
        std::fs::write(&p, format!(r#"{{"name":"x",{head},{body}}}"#)).unwrap();
        assert_bad(&dst(&["run", p.to_str().unwrap()]), needle);
        assert_bad(&dst(&["fuzz", p.to_str().unwrap(), "--seeds", "0..1"]), needle);
    }
}

/// A report whose plan was edited to name a node the cluster lacks.
#[test]
fn a_report_whose_plan_names_a_missing_node_is_bad_input() {
    let p = tmp("node-99.json");
    let o = dst(&["run", "raft-partitions", "--seed", "3", "--report", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let at = v["plan"].as_array().unwrap().len();
    v["plan"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"at_ns": 5, "action": "crash", "node": 99}));
    std::fs::write(&p, v.to_string()).unwrap();
    let needle = format!("plan[{at}].node = 99 is out of range 0..=4");
    assert_bad(&dst(&["replay", p.to_str().unwrap()]), &needle);
    assert_bad(&dst(&["shrink", p.to_str().unwrap()]), &needle);
}

#[test]
fn a_found_bug_writes_a_report_that_replays_exactly() {
    let p = tmp("apply-requeue.json");
    let o = dst(&[
        "run",
        "raft-snapshot",
        "--seed",
        "0",
        "--bug",
        "apply-requeue",
        "--report",
        p.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the violation the switch asks for: {}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&p).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], sim::report::SCHEMA);
    assert!(v["window"]["events"].as_u64().unwrap() >= v["trace"].as_array().unwrap().len() as u64);
    assert!(v.get("calm").is_none(), "a run keeps no message calm");
    assert_eq!(v["verdict"]["status"], "violation");
    assert_eq!(v["verdict"]["invariant"], "no-double-apply");
    assert!(v["replay"].as_str().unwrap().starts_with("dst replay "));
    assert!(!v["trace"].as_array().unwrap().is_empty());
    let r = dst(&["replay", p.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
}

#[test]
fn a_passing_run_exits_zero_and_writes_no_report_unless_asked() {
    let o = dst(&["run", "raft-partitions", "--seed", "1", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"]["status"], "pass");
    assert!(v["report"].is_null());
}

#[test]
fn broken_reports_are_bad_input() {
    let p = tmp("good.json");
    let o = dst(&[
        "run",
        "raft-crash-restart",
        "--seed",
        "2",
        "--report",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&p).unwrap();

    let cut = tmp("truncated.json");
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    assert_bad(&dst(&["replay", cut.to_str().unwrap()]), "truncated report");

    let junk = tmp("junk.json");
    std::fs::write(&junk, "this is not json").unwrap();
    assert_bad(&dst(&["replay", junk.to_str().unwrap()]), "malformed report JSON");

    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["schema"] = 99.into();
    let other = tmp("schema99.json");
    std::fs::write(&other, v.to_string()).unwrap();
    assert_bad(&dst(&["replay", other.to_str().unwrap()]), "schema 99 is not supported");

    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["trace"][3]["t_ns"] = 1.into();
    let edited = tmp("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    assert_bad(&dst(&["replay", edited.to_str().unwrap()]), "does not match its hash");

    assert_bad(&dst(&["replay", "/no/such/report.json"]), "cannot read");

    for (calm, needle) in [
        (serde_json::json!([[9, 3]]), "calm: range [9, 3] is empty"),
        (serde_json::json!([[1, 10], [10, 20]]), "sorted and apart"),
        (serde_json::json!([[50, 60], [1, 2]]), "sorted and apart"),
        (serde_json::json!([[1]]), "invalid report"),
        (serde_json::json!("all"), "invalid report"),
    ] {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["calm"] = calm;
        let bad = tmp("bad-calm.json");
        std::fs::write(&bad, v.to_string()).unwrap();
        assert_bad(&dst(&["replay", bad.to_str().unwrap()]), needle);
        assert_bad(&dst(&["shrink", bad.to_str().unwrap()]), needle);
    }
}

/// A report from before message chaos could be calmed (and before traces
/// were hashed a word at a time) still replays.
#[test]
fn a_schema_2_report_without_calm_still_replays() {
    let p = tmp("schema2.json");
    let old = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema3-raft-crash-restart-4.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(old).unwrap()).unwrap();
    assert!(v.get("calm").is_none(), "an unshrunk report keeps no calm messages");
    v["schema"] = 2.into();
    std::fs::write(&p, v.to_string()).unwrap();
    let r = dst(&["replay", p.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
}

#[test]
fn a_replay_that_diverges_exits_one() {
    let p = tmp("diverge.json");
    let o = dst(&["run", "raft-partitions", "--seed", "3", "--report", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    // Same trace, but a different seed: the run no longer matches the report.
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    v["seed"] = 4.into();
    std::fs::write(&p, v.to_string()).unwrap();
    let r = dst(&["replay", p.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stdout).contains("MISMATCH"));
}

#[test]
fn fuzz_summarizes_and_exits_zero_on_the_correct_model() {
    let dir = tmp("fuzz-reports");
    let o = dst(&[
        "fuzz",
        "all",
        "--seeds",
        "0..8",
        "--jobs",
        "2",
        "--json",
        "--report-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["scenarios"].as_array().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&dst(&["list", "--json"]).stdout).unwrap();
    assert_eq!(rows.len(), list["scenarios"].as_array().unwrap().len());
    for r in rows {
        assert_eq!(r["tally"]["seeds"], 8);
        assert_eq!(r["tally"]["unexpected"], 0);
    }
}

#[test]
fn fuzz_with_a_bug_reports_each_failing_seed() {
    let dir = tmp("fuzz-bug");
    let o = dst(&[
        "fuzz",
        "raft-snapshot",
        "--seeds",
        "0..3",
        "--bug",
        "apply-requeue",
        "--report-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "violations a bug switch calls for are expected: {}",
        stderr(&o)
    );
    let reports = std::fs::read_dir(&dir).unwrap().count();
    assert!(reports >= 1, "no report written");
}

#[test]
fn shards_split_the_seed_space() {
    let run = |shard: &str| {
        let o = dst(&[
            "fuzz",
            "raft-crash-restart",
            "--seeds",
            "0..10",
            "--shard",
            shard,
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["scenarios"][0]["tally"]["seeds"].as_u64().unwrap()
    };
    assert_eq!(run("0/3") + run("1/3") + run("2/3"), 10);
}

#[test]
fn list_names_every_bug_and_invariant() {
    let o = dst(&["list", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bugs"].as_array().unwrap().len(), dst::registry().bugs().count());
    assert!(v["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["id"] == "liveness"));
}

#[test]
fn shrink_keeps_the_violation_with_fewer_faults_and_replays() {
    let p = tmp("to-shrink.json");
    let o = dst(&[
        "run",
        "raft-crash-restart",
        "--seed",
        "0",
        "--bug",
        "reply-before-durable",
        "--report",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let before: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let out = tmp("shrunk.json");
    let s = dst(&[
        "shrink",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-runs",
        "60",
        "--json",
    ]);
    assert_eq!(s.status.code(), Some(0), "{}", stderr(&s));
    let said: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    let after: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(after["verdict"]["invariant"], before["verdict"]["invariant"]);
    let plan = |v: &serde_json::Value| v["plan"].as_array().unwrap().len() as u64;
    assert!(plan(&after) < plan(&before));
    assert_eq!(said["plan"]["before"], plan(&before));
    assert_eq!(said["plan"]["after"], plan(&after));
    assert_eq!(said["events"]["before"], before["stats"]["events"]);
    assert_eq!(said["events"]["after"], after["stats"]["events"]);
    assert!(said["events"]["after"].as_u64() <= said["events"]["before"].as_u64());
    assert!(
        said["chaos"]["after"].as_u64() < said["chaos"]["before"].as_u64(),
        "{said}"
    );
    assert!(
        said["runs"].as_u64().unwrap() <= 61,
        "the budget, and one run to confirm: {said}"
    );
    assert_eq!(dst(&["replay", out.to_str().unwrap()]).status.code(), Some(0));
    let line = String::from_utf8_lossy(&dst(&["shrink", p.to_str().unwrap(), "--out", out.to_str().unwrap()]).stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(line.starts_with("plan 72 -> "), "{line}");
    assert!(line.contains(" messages, events 1635 -> "), "{line}");
}

#[test]
fn shrinking_a_passing_report_is_bad_input() {
    let p = tmp("pass-shrink.json");
    assert_eq!(
        dst(&["run", "raft-partitions", "--seed", "5", "--report", p.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    assert_bad(&dst(&["shrink", p.to_str().unwrap()]), "only a report with a violation");
}
