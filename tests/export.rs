//! `dst export`: a report's trace as a Chrome Trace Event file that a viewer
//! (Perfetto, chrome://tracing) takes whole, checked against the format's
//! rules: what each phase must carry, slices that nest on their thread,
//! flows that start and end once, and every process and thread named.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::{dst_here as dst, stderr};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-export-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A report of `dst run ARGS --report FILE`, which must exit 0.
fn report(name: &str, args: &[&str]) -> PathBuf {
    let p = tmp(name);
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--report", p.to_str().unwrap()]);
    let o = dst(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    p
}

fn failing() -> PathBuf {
    report(
        "failing.json",
        &["raft-crash-restart", "--seed", "0", "--bug", "reply-before-durable"],
    )
}

fn export(report: &Path) -> Vec<u8> {
    let o = dst(&["export", report.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    o.stdout
}

fn int(e: &Value, key: &str) -> u64 {
    e[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not a non-negative integer: {e}"))
}

fn num(e: &Value, key: &str) -> f64 {
    let x = e[key].as_f64().unwrap_or_else(|| panic!("{key} is not a number: {e}"));
    assert!(x.is_finite() && x >= 0.0, "{key} is not finite and non-negative: {e}");
    x
}

/// Checks the rules of the Trace Event format a viewer relies on; returns
/// the file's events.
fn check_format(bytes: &[u8]) -> Vec<Value> {
    let v: Value = serde_json::from_slice(bytes).expect("the export is JSON");
    assert!(v.is_object(), "the JSON object form");
    assert!(v["metadata"].is_object());
    let events = v["traceEvents"].as_array().expect("a traceEvents array").clone();
    assert!(!events.is_empty());
    let mut named_pids = BTreeSet::new();
    let mut named_threads = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut slices: BTreeMap<(u64, u64), Vec<(f64, f64)>> = BTreeMap::new();
    let mut open: BTreeMap<(u64, u64), Vec<String>> = BTreeMap::new();
    // Per flow, its starts and its ends.
    type Ends<'a> = (Vec<&'a Value>, Vec<&'a Value>);
    let mut flows: BTreeMap<(u64, String), Ends> = BTreeMap::new();
    for e in &events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no ph: {e}"));
        let (pid, tid) = (int(e, "pid"), int(e, "tid"));
        if ph == "M" {
            let name = e["args"]["name"].as_str().unwrap_or_else(|| panic!("unnamed: {e}"));
            assert!(!name.is_empty());
            match e["name"].as_str() {
                Some("process_name") => named_pids.insert(pid),
                Some("thread_name") => named_threads.insert((pid, tid)),
                _ => panic!("a metadata event of another kind: {e}"),
            };
            continue;
        }
        let ts = num(e, "ts");
        assert!(e["name"].is_string(), "{e}");
        used.insert((pid, tid));
        let key = (pid, tid);
        match ph {
            "X" => slices.entry(key).or_default().push((ts, ts + num(e, "dur"))),
            "B" => open.entry(key).or_default().push(e["name"].to_string()),
            "E" => assert!(open.entry(key).or_default().pop().is_some(), "E without B: {e}"),
            "i" => assert!(["t", "p", "g"].contains(&e["s"].as_str().unwrap_or("t")), "{e}"),
            "s" | "f" => {
                let id = int(e, "id");
                let cat = e["cat"].as_str().expect("a flow has a category").to_string();
                let pair = flows.entry((id, cat)).or_default();
                if ph == "s" {
                    pair.0.push(e);
                } else {
                    assert_eq!(e["bp"], "e", "a flow ends in its enclosing slice: {e}");
                    pair.1.push(e);
                }
            }
            other => panic!("phase {other} is not one the export writes: {e}"),
        }
    }
    assert!(open.values().all(Vec::is_empty), "a B without its E");
    for (pid, tid) in &used {
        assert!(named_pids.contains(pid), "process {pid} has no process_name");
        assert!(
            named_threads.contains(&(*pid, *tid)),
            "thread {pid}/{tid} has no thread_name"
        );
    }
    // On one thread, slices nest or stay apart: a viewer drops one that straddles another.
    for (key, list) in &mut slices {
        list.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut stack: Vec<f64> = Vec::new();
        for &(start, end) in list.iter() {
            while stack.last().is_some_and(|&top| top <= start) {
                stack.pop();
            }
            if let Some(&top) = stack.last() {
                assert!(
                    end <= top,
                    "thread {key:?}: slice {start}..{end} straddles one ending at {top}"
                );
            }
            stack.push(end);
        }
    }
    // A flow binds to the one slice of its thread around its point.
    let inside = |e: &Value| {
        let (ts, key) = (num(e, "ts"), (int(e, "pid"), int(e, "tid")));
        let around = slices[&key].iter().filter(|(s, end)| *s < ts && ts < *end).count();
        assert_eq!(around, 1, "a flow point in {around} slices: {e}");
    };
    for ((id, cat), (starts, ends)) in &flows {
        assert_eq!(starts.len(), 1, "flow {id}/{cat}: {} starts", starts.len());
        assert_eq!(ends.len(), 1, "flow {id}/{cat}: {} ends", ends.len());
        assert!(
            num(ends[0], "ts") >= num(starts[0], "ts"),
            "flow {id} ends before it starts"
        );
        assert_eq!(
            starts[0]["name"], ends[0]["name"],
            "a viewer matches a flow by id, category and name"
        );
        inside(starts[0]);
        inside(ends[0]);
    }
    events
}

fn names(events: &[Value]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|e| e["name"].as_str().map(String::from))
        .collect()
}

fn process_names(events: &[Value]) -> BTreeSet<String> {
    events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .filter_map(|e| e["args"]["name"].as_str().map(String::from))
        .collect()
}

#[test]
fn a_failing_report_exports_its_nodes_messages_faults_and_evidence() {
    let r = failing();
    let bytes = export(&r);
    let events = check_format(&bytes);
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    let rep: Value = serde_json::from_str(&std::fs::read_to_string(&r).unwrap()).unwrap();
    let invariant = rep["verdict"]["invariant"].as_str().expect("a violation");
    for key in ["scenario", "seed", "bugs", "verdict", "replay"] {
        assert_eq!(v["metadata"][key], rep[key], "metadata.{key}");
    }
    let evidence: Vec<&Value> = events
        .iter()
        .filter(|e| e["name"] == format!("evidence: {invariant}").as_str())
        .collect();
    assert_eq!(evidence.len(), rep["verdict"]["evidence"].as_array().unwrap().len());
    assert!(evidence
        .iter()
        .all(|e| e["ph"] == "i" && e["args"]["message"] == rep["verdict"]["message"]));
    let procs = process_names(&events);
    for p in ["world", "node 0", "node 1", "node 2", "clients"] {
        assert!(procs.contains(p), "no process {p}: {procs:?}");
    }
    let n = names(&events);
    assert!(
        n.iter().any(|s| s.starts_with("leader t")),
        "a leader's term as a slice"
    );
    assert!(
        n.contains("crash node 0") && n.contains("down"),
        "crashes on the world and the node"
    );
    assert!(events.iter().any(|e| e["ph"] == "s") && events.iter().any(|e| e["cat"] == "ok"));
}

#[test]
fn a_passing_report_exports_a_valid_trace_with_its_heal_point() {
    let r = report("passing.json", &["raft-partitions", "--seed", "0"]);
    let out = tmp("passing.trace.json");
    let o = dst(&["export", r.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("ui.perfetto.dev"));
    let bytes = std::fs::read(&out).unwrap();
    let events = check_format(&bytes);
    assert!(!names(&events).iter().any(|n| n.starts_with("evidence")));
    let heal: Vec<&Value> = events.iter().filter(|e| e["name"] == "heal point").collect();
    assert_eq!(heal.len(), 1);
    assert_eq!(heal[0]["s"], "g", "the heal point marks every track");
    assert!(process_names(&events).contains("node 4"));
}

#[test]
fn the_export_is_the_same_bytes_every_time() {
    let r = failing();
    let first = export(&r);
    assert_eq!(first, export(&r));
    let out = tmp("again.trace.json");
    let o = dst(&[
        "export",
        r.to_str().unwrap(),
        "--format",
        "perfetto",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut written = std::fs::read(&out).unwrap();
    written.push(b'\n');
    assert_eq!(written, first, "the file holds what stdout shows");
}

/// Bad input: exit 2, exactly one line on stderr, nothing on stdout.
fn assert_bad(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "want one line, got: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_bad(&dst(&["export", "/no/such/report.json"]), "cannot read");
    let junk = tmp("junk.json");
    std::fs::write(&junk, "{\"schema\": 3, \"trace\": [").unwrap();
    assert_bad(&dst(&["export", junk.to_str().unwrap()]), "truncated report");
    std::fs::write(&junk, "not json").unwrap();
    assert_bad(&dst(&["export", junk.to_str().unwrap()]), "malformed report JSON");
    let r = failing();
    assert_bad(
        &dst(&["export", r.to_str().unwrap(), "--format", "nope"]),
        "unknown export format 'nope'",
    );
    let folder = tmp("a-folder");
    std::fs::create_dir_all(&folder).unwrap();
    assert_bad(
        &dst(&["export", r.to_str().unwrap(), "-o", folder.to_str().unwrap()]),
        "is a folder",
    );
    let unwritten = tmp("never.trace.json");
    assert_bad(
        &dst(&["export", junk.to_str().unwrap(), "-o", unwritten.to_str().unwrap()]),
        "malformed",
    );
    assert!(!unwritten.exists(), "nothing written for a bad report");
}

#[test]
fn a_moved_report_exports_the_command_that_replays_it_where_it_is() {
    let r = report(
        "to-move.json",
        &["raft-crash-restart", "--seed", "0", "--bug", "reply-before-durable"],
    );
    let moved = tmp("moved elsewhere.json");
    std::fs::rename(&r, &moved).unwrap();
    let v: Value = serde_json::from_slice(&export(&moved)).unwrap();
    let replay = v["metadata"]["replay"].as_str().expect("a replay command");
    assert!(replay.contains("moved elsewhere.json"), "{replay}");
    assert!(!replay.contains("failing.json"), "{replay}");
}
