//! What a file says is a claim dst checks before it acts on it: a fuzz
//! summary's counts and verdicts, the report a summary's finding points
//! to, a report's keys, hash and verdict, a cursor's keys, a scenario's
//! lists. Each test edits a real file the way a careless or hostile hand
//! would, through the binary, and wants the refusal (exit 2, one line) or
//! the safe reading; and text from files reaches the terminal and the CI
//! job page as text, never as control sequences or markup.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{dst, scratch};

/// A hand's edit of a file read as JSON.
type Edit = Box<dyn Fn(&mut Value)>;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 and one line on stderr that contains `needle`.
fn refused(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "want {needle:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "want {needle:?} in {err}");
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The summary of a short campaign with a bug switch on: every seed a
/// finding the switch expects.
fn bug_summary(dir: &Path) -> PathBuf {
    let s = dir.join("s.json");
    let o = dst(
        dir,
        &[
            "fuzz",
            "raft-crash-restart",
            "--seeds",
            "0..4",
            "--bug",
            "hardstate-not-persisted",
            "--no-reports",
            "--summary",
            s.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    s
}

#[test]
fn merge_refuses_a_summary_whose_numbers_do_not_add_up() {
    let dir = scratch("claims", "numbers");
    let s = bug_summary(&dir);
    let good = json(&s);
    let o = dst(&dir, &["merge", "s.json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the summary as written merges: {}",
        stderr(&o)
    );
    let edits: Vec<(&str, Edit)> = vec![
        (
            "is not its",
            Box::new(|v| {
                let t = &mut v["scenarios"][0]["tally"];
                t["pass"] = (t["pass"].as_u64().unwrap() + 1).into();
            }),
        ),
        (
            "is not its",
            Box::new(|v| v["scenarios"][0]["tally"]["seeds"] = u64::MAX.into()),
        ),
        (
            "finding seeds",
            Box::new(|v| {
                let f = v["scenarios"][0]["tally"]["findings"].as_object_mut().unwrap();
                let k = f.keys().next().unwrap().clone();
                f.remove(&k);
            }),
        ),
        (
            "is not one shard 0/1",
            Box::new(|v| {
                let f = v["scenarios"][0]["tally"]["findings"].as_object_mut().unwrap();
                let k = f.keys().next().unwrap().clone();
                let moved = f.remove(&k).unwrap();
                f.insert("900".into(), moved);
            }),
        ),
        ("it says ok", Box::new(|v| v["ok"] = false.into())),
        (
            "called expected",
            Box::new(|v| {
                let f = v["scenarios"][0]["tally"]["findings"].as_object_mut().unwrap();
                for (_, x) in f.iter_mut() {
                    x["cause"] = "no-such-thing".into();
                }
                let t = &mut v["scenarios"][0]["tally"];
                let n = t["violations"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|n| n.as_u64().unwrap())
                    .sum::<u64>();
                t["violations"] = serde_json::json!({ "no-such-thing": n });
                v["bugs"] = serde_json::json!([]);
            }),
        ),
        (
            "unknown field",
            Box::new(|v| v["scenarios"][0]["tally"]["extra"] = 1.into()),
        ),
    ];
    for (needle, edit) in edits {
        let mut v = good.clone();
        edit(&mut v);
        write(&s, &v);
        refused(&dst(&dir, &["merge", "s.json"]), needle);
    }
    // A key twice is refused too, though serde would keep the second.
    let text = serde_json::to_string(&good).unwrap().replacen("{", "{\"ok\":false,", 1);
    std::fs::write(&s, text).unwrap();
    refused(&dst(&dir, &["merge", "s.json"]), "duplicate key \"ok\"");
}

#[test]
fn text_from_a_summary_reaches_the_terminal_and_the_job_page_as_text() {
    let dir = scratch("claims", "escape");
    let s = bug_summary(&dir);
    let mut v = json(&s);
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2J<img src=x onerror=alert(1)>|`x`";
    v["scenarios"][0]["scenario"] = hostile.into();
    write(&s, &v);
    let page = dir.join("page.md");
    let o = Command::new(env!("CARGO_BIN_EXE_dst"))
        .env("DST_MIN_FREE", "0")
        .args(["merge", "s.json"])
        .current_dir(&dir)
        .env("GITHUB_STEP_SUMMARY", &page)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\\u001b]0;owned"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    let md = std::fs::read_to_string(&page).unwrap();
    assert!(!md.replace("\\<", "").contains('<') && !md.contains('\u{1b}'), "{md}");
    assert!(md.contains("\\<img"), "{md}");
    let row = md.lines().find(|l| l.contains("img")).unwrap();
    assert_eq!(row.matches(" | ").count(), 6, "the name stays in its cell: {row}");
}

/// A scenario file of a documented limit most seeds show, declared to
/// pass: its failing seeds are unexpected findings with reports, and the
/// registry does not know it, so a merge finds it only through a report.
fn limit_file(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/raft-skew-beyond-bound.json"
    ))
    .unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["name"] = "mine".into();
    v["expect"] = "pass".into();
    let path = dir.join("mine.json");
    write(&path, &v);
    path
}

#[test]
fn a_summary_pointing_a_finding_at_another_seeds_report_does_not_make_its_corpus_line() {
    let dir = scratch("claims", "corpus");
    let file = limit_file(&dir);
    let o = dst(
        &dir,
        &[
            "fuzz",
            file.to_str().unwrap(),
            "--seeds",
            "0..8",
            "--jobs",
            "1",
            "--report-dir",
            "r",
            "--summary",
            "s.json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let mut v = json(&dir.join("s.json"));
    let findings = v["scenarios"][0]["tally"]["findings"].as_object_mut().unwrap();
    let seeds: Vec<String> = findings
        .iter()
        .filter(|(_, f)| f["report"].is_string())
        .map(|(s, _)| s.clone())
        .collect();
    assert!(seeds.len() >= 3, "findings with reports: {seeds:?}");
    // The two lowest seeds' reports swapped: each names the other's run.
    let (a, b) = (seeds[0].clone(), seeds[1].clone());
    let ra = findings[&a]["report"].clone();
    findings[&a]["report"] = findings[&b]["report"].clone();
    findings[&b]["report"] = ra;
    write(&dir.join("s.json"), &v);
    std::fs::remove_file(&file).unwrap();
    let o = dst(&dir, &["merge", "s.json", "--corpus", "c.jsonl"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not added"), "{}", stderr(&o));
    let corpus = std::fs::read_to_string(dir.join("c.jsonl")).unwrap();
    let lines: Vec<Value> = corpus.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!lines.is_empty(), "an intact finding still makes a line");
    for l in &lines {
        let seed = l["seed"].to_string();
        assert!(
            seed != a && seed != b,
            "a line for seed {seed} made from another seed's report: {l}"
        );
    }
}

#[test]
fn a_report_with_a_key_twice_an_unknown_key_or_a_hash_that_is_not_one_is_refused() {
    let dir = scratch("claims", "report");
    let o = dst(
        &dir,
        &[
            "fuzz",
            "raft-crash-restart",
            "--seeds",
            "0..8",
            "--bug",
            "hardstate-not-persisted",
            "--report-dir",
            "r",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let first = std::fs::read_dir(dir.join("r"))
        .unwrap()
        .next()
        .expect("a seed fails")
        .unwrap();
    let good = json(&first.path());
    let text = serde_json::to_string(&good).unwrap();
    let cases: Vec<(String, &str)> = vec![
        (text.replacen("{", "{\"seed\":1,", 1), "duplicate key \"seed\""),
        (
            {
                let mut v = good.clone();
                v["verdict"]["evidence_"] = 1.into();
                v.to_string()
            },
            "unknown field \"verdict\".\"evidence_\"",
        ),
        (
            {
                let mut v = good.clone();
                v["trace_hash"] = "not-a-hash-at-all".into();
                v.to_string()
            },
            "is not a trace hash",
        ),
        (
            {
                let mut v = good.clone();
                v["verdict"]["status"] = "pass".into();
                v.to_string()
            },
            "the verdict is a pass, yet names",
        ),
        (
            {
                let mut v = good.clone();
                v["window"]["events"] = (v["window"]["events"].as_u64().unwrap() + 1000).into();
                v.to_string()
            },
            "stats.events",
        ),
    ];
    for (text, needle) in cases {
        std::fs::write(dir.join("bad.json"), text).unwrap();
        for cmd in ["replay", "view", "export"] {
            refused(&dst(&dir, &[cmd, "bad.json"]), needle);
        }
    }
}

#[test]
fn a_cursor_with_a_key_it_never_holds_is_refused() {
    let dir = scratch("claims", "cursor");
    let args = [
        "fuzz",
        "raft-crash-restart",
        "--seeds",
        "0..2",
        "--no-reports",
        "--cursor",
        "c.json",
    ];
    assert_eq!(dst(&dir, &args).status.code(), Some(0));
    let mut v = json(&dir.join("c.json"));
    v["next_seeds"] = 0.into();
    write(&dir.join("c.json"), &v);
    refused(&dst(&dir, &args), "next_seeds");
}

#[test]
fn scenario_lists_that_say_nothing_or_say_it_twice_are_refused() {
    let dir = scratch("claims", "lists");
    let base = json(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/cluster-boot.json"
    )));
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|v| v["faults"]["spared"] = serde_json::json!([0, 0])),
            "lists node 0 twice",
        ),
        (
            Box::new(|v| v["invariants"] = serde_json::json!([])),
            "invariants is empty",
        ),
        (
            Box::new(|v| v["vary"] = serde_json::json!({"faults": {"one-of": [{"crash": false}]}})),
            "'faults' is an object",
        ),
    ];
    for (edit, needle) in cases {
        let mut v = base.clone();
        edit(&mut v);
        write(&dir.join("s.json"), &v);
        refused(&dst(&dir, &["run", "s.json"]), needle);
    }
    // A model config key written twice: its config is free JSON, where
    // serde would keep the last and run a config nobody wrote.
    let text = serde_json::to_string(&base).unwrap();
    let twice = text.replacen("\"config\":{", "\"config\":{\"plan_every_ms\":5,", 1);
    assert_ne!(twice, text);
    std::fs::write(dir.join("twice.json"), twice).unwrap();
    refused(&dst(&dir, &["run", "twice.json"]), "duplicate key \"plan_every_ms\"");
}
