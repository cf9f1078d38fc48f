//! A fuzz campaign split into shards and merged gives the verdict, the
//! coverage and the failing seeds of the same campaign run in one piece;
//! what CI pages read (JUnit XML) says the same.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dst(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dst"));
    c.env("DST_MIN_FREE", "0");
    c.args(args).env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("dst runs")
}

fn scratch(name: &str) -> PathBuf {
    support::scratch("shards", name)
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// What must agree between one piece and merged shards, per scenario.
fn essence(v: &Value) -> Vec<Value> {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sc| {
            let t = &sc["tally"];
            let findings: Vec<(&String, &Value)> = t["findings"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(seed, f)| (seed, &f["trace_hash"]))
                .collect();
            serde_json::json!({
                "scenario": sc["scenario"], "ok": sc["ok"], "seeds": t["seeds"],
                "coverage": t["coverage"], "coverage_first": t["coverage_first"],
                "violations": t["violations"], "failing": t["failing_seeds"], "findings": findings,
                "missing": sc["coverage_missing"], "unseen": sc["expected_violation_unseen"],
            })
        })
        .collect()
}

/// Runs `args` once whole and as `n` shards (by environment, as a
/// scheduler would set it), merges, and compares.
fn one_against_shards(name: &str, args: &[&str], n: u64) -> (Value, Output) {
    let d = scratch(name);
    let whole = d.join("whole.json");
    let mut a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
    a.extend(["--report-dir".into(), s(&d.join("r")), "--summary".into()]);
    let run = |extra: &str, env: &[(&str, String)]| {
        let mut b = a.clone();
        b.push(extra.to_string());
        let refs: Vec<&str> = b.iter().map(|x| x.as_str()).collect();
        dst(&refs, env)
    };
    let o = run(&s(&whole), &[]);
    let mut parts = Vec::new();
    for i in 0..n {
        let p = d.join(format!("shard-{i}.json"));
        let env = [("DST_SHARD", i.to_string()), ("DST_SHARDS", n.to_string())];
        let so = run(&s(&p), &env);
        assert!(
            matches!(so.status.code(), Some(0) | Some(1)),
            "{}",
            String::from_utf8_lossy(&so.stderr)
        );
        let v = read(&p);
        assert_eq!(v["shard"]["index"], i);
        assert_eq!(v["deferred"], true);
        parts.push(s(&p));
    }
    let merged = d.join("merged.json");
    let junit = d.join("merged.xml");
    let mut m: Vec<String> = vec!["merge".into()];
    m.extend(parts);
    m.extend(["--summary".into(), s(&merged), "--junit".into(), s(&junit)]);
    let refs: Vec<&str> = m.iter().map(|x| x.as_str()).collect();
    let mo = dst(&refs, &[]);
    assert_eq!(
        mo.status.code(),
        o.status.code(),
        "{}",
        String::from_utf8_lossy(&mo.stderr)
    );
    let (w, mv) = (read(&whole), read(&merged));
    assert_eq!(essence(&w), essence(&mv));
    assert_eq!(w["ok"], mv["ok"]);
    assert_eq!(mv["merged"].as_array().unwrap().len() as u64, n);
    (mv, mo)
}

#[test]
fn shards_merged_match_one_piece_on_the_correct_model() {
    let (v, o) = one_against_shards("correct", &["fuzz", "raft-crash-restart", "--seeds", "0..24"], 4);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["ok"], true);
    assert!(!v["scenarios"][0]["tally"]["coverage_first"]
        .as_object()
        .unwrap()
        .is_empty());
}

#[test]
fn shards_merged_match_one_piece_with_a_bug_switch() {
    let args = ["fuzz", "raft-snapshot", "--seeds", "0..12", "--bug", "apply-requeue"];
    let (v, _) = one_against_shards("bug", &args, 3);
    let findings = v["scenarios"][0]["tally"]["findings"].as_object().unwrap();
    assert!(!findings.is_empty(), "the switch shows on some seed");
}

#[test]
fn a_shard_alone_no_longer_fails_for_coverage_it_could_not_reach() {
    let o = dst(&["fuzz", "raft-partitions", "--seeds", "0..5", "--shard", "0/4"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let o = dst(
        &[
            "fuzz",
            "raft-partitions",
            "--seeds",
            "0..5",
            "--shard",
            "0/4",
            "--judge-slice",
            "--json",
        ],
        &[],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["shard"]["count"], 4);
    assert_eq!(v["deferred"], false);
}

#[test]
fn merges_of_mismatched_or_incomplete_shards_are_refused() {
    let d = scratch("refuse");
    let mk = |name: &str, seeds: &str, shard: &str| {
        let p = d.join(name);
        dst(
            &[
                "fuzz",
                "raft-crash-restart",
                "--seeds",
                seeds,
                "--shard",
                shard,
                "--summary",
                &s(&p),
            ],
            &[],
        );
        s(&p)
    };
    let a = mk("a.json", "0..6", "0/2");
    let b = mk("b.json", "0..6", "1/2");
    let other = mk("c.json", "0..8", "1/2");
    let bad = |args: &[&str], needle: &str| {
        let o = dst(args, &[]);
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        assert!(e.contains(needle), "'{needle}' not in {e}");
    };
    bad(&["merge", &a], "shards missing from the merge: 1/2");
    bad(&["merge", &a, &a], "given twice");
    bad(&["merge", &a, &other], "differ in seed range");
    let junk = d.join("junk.json");
    std::fs::write(&junk, b"{\"format\": \"something-else\"}").unwrap();
    bad(&["merge", &a, &s(&junk)], "summary format");
    // A shard count as large as the type: refused at once, the missing
    // shards named a few and counted, not listed until memory runs out.
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    v["shard"]["count"] = u64::MAX.into();
    let huge = d.join("huge.json");
    std::fs::write(&huge, v.to_string()).unwrap();
    let o = dst(&["merge", &s(&huge)], &[]);
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert_eq!(dst(&["merge", &a, &b], &[]).status.code(), Some(0));
}

#[test]
fn junit_xml_reads_back_in_a_real_junit_consumer() {
    let d = scratch("junit");
    let sc = d.join("starved.json");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/raft-crash-restart.json");
    let mut v = read(&base);
    v["name"] = "starved".into();
    v["event_budget"] = 200.into();
    std::fs::write(&sc, v.to_string()).unwrap();
    let xml = d.join("out.xml");
    let o = dst(
        &[
            "fuzz",
            &s(&sc),
            "--seeds",
            "0..2",
            "--report-dir",
            &s(&d.join("r")),
            "--junit",
            &s(&xml),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let script = r#"
import sys
from junitparser import JUnitXml, Failure
xml = JUnitXml.fromfile(sys.argv[1])
for suite in xml:
    for case in suite:
        for r in case.result:
            if isinstance(r, Failure):
                print(case.classname, '|', case.name, '|', r.message, '|', (r.text or '').replace('\n', ' / '))
"#;
    let py = Command::new("python3").args(["-c", script, &s(&xml)]).output();
    let ok = py.as_ref().is_ok_and(|p| p.status.success());
    if !ok {
        let why = py
            .map(|p| String::from_utf8_lossy(&p.stderr).to_string())
            .unwrap_or_else(|e| e.to_string());
        assert!(
            std::env::var_os("DST_REQUIRE_JUNITPARSER").is_none(),
            "junitparser is required here: {why}"
        );
        eprintln!("skipped: python3 with junitparser is not available ({why})");
        return;
    }
    let text = String::from_utf8_lossy(&py.unwrap().stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "one failing scenario and two failing seeds: {text}");
    assert!(lines[0].starts_with("dst.fuzz | starved |"), "{text}");
    assert!(
        lines[1].starts_with("dst.fuzz.starved | seed 0 |") && lines[1].contains("replay: dst replay "),
        "{text}"
    );
    assert!(lines[2].contains("seed 1"), "{text}");
}
