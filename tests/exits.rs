//! Exit codes by the one rule README and the book give, interruption by a real signal,
//! a closed stdout, and files dst refuses to write over.

#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn dst() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dst"));
    c.env("DST_MIN_FREE", "0");
    c
}

fn out(args: &[&str]) -> Output {
    dst().args(args).output().expect("dst runs")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn scratch(name: &str) -> PathBuf {
    support::scratch("exits", name)
}

fn assert_bad(o: &Output, needle: &str) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    assert!(e.contains(needle), "'{needle}' not in: {e}");
}

/// Files whose name says they are temporary, anywhere under `dir`.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return found };
    for e in rd {
        let p = e.unwrap().path();
        if p.is_dir() {
            found.extend(temporaries(&p));
        } else if p.to_string_lossy().ends_with(".tmp") {
            found.push(p);
        }
    }
    found
}

fn interrupt(child: &Child) {
    signal(child, "INT");
}

fn signal(child: &Child, name: &str) {
    // The shell's own kill: no procps needed.
    let ok = Command::new("sh")
        .args(["-c", &format!("kill -{name} {}", child.id())])
        .status()
        .expect("sh runs");
    assert!(ok.success());
}

/// A scenario whose every run ends in an error nobody expects: an event
/// budget far too small for it.
fn starved_scenario(dir: &Path) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/raft-crash-restart.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
    v["name"] = "starved".into();
    v["event_budget"] = 200.into();
    let p = dir.join("starved.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn run_and_fuzz_exit_one_only_on_what_nobody_expected() {
    let d = scratch("unexpected");
    let sc = starved_scenario(&d);
    let rd = d.join("reports");
    let r = out(&[
        "run",
        sc.to_str().unwrap(),
        "--report",
        rd.join("r.json").to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(1), "{}", err(&r));
    let f = out(&[
        "fuzz",
        sc.to_str().unwrap(),
        "--seeds",
        "0..2",
        "--report-dir",
        rd.to_str().unwrap(),
    ]);
    assert_eq!(f.status.code(), Some(1), "{}", err(&f));
    let ok = out(&[
        "run",
        "raft-snapshot",
        "--bug",
        "apply-requeue",
        "--report",
        rd.join("b.json").to_str().unwrap(),
    ]);
    assert_eq!(ok.status.code(), Some(0), "asked for by --bug: {}", err(&ok));
    let m = out(&[
        "mutants",
        "--bug",
        "apply-requeue",
        "--max-seeds",
        "30",
        "--report-dir",
        rd.to_str().unwrap(),
    ]);
    assert_eq!(m.status.code(), Some(0), "{}", String::from_utf8_lossy(&m.stdout));
}

#[test]
fn zero_jobs_and_zero_budgets_are_refused() {
    assert_bad(
        &out(&["fuzz", "raft-crash-restart", "--seeds", "0..2", "--jobs", "0"]),
        "--jobs must be at least 1",
    );
    assert_bad(
        &out(&["fuzz", "raft-crash-restart", "--budget", "0s"]),
        "--budget must be above zero",
    );
    assert_bad(
        &out(&["search", "raft-crash-restart", "--budget", "0"]),
        "--budget must be above zero",
    );
    assert_bad(&out(&["mutants", "--jobs", "0"]), "--jobs must be at least 1");
}

#[test]
fn reports_never_replace_what_is_not_a_plain_file() {
    let d = scratch("targets");
    let plain = d.join("plain");
    std::fs::write(&plain, b"mine").unwrap();
    let o = out(&[
        "fuzz",
        "raft-snapshot",
        "--bug",
        "apply-requeue",
        "--seeds",
        "0..2",
        "--report-dir",
        plain.to_str().unwrap(),
    ]);
    assert_bad(&o, "is not a folder");
    let precious = d.join("precious");
    std::fs::write(&precious, b"keep").unwrap();
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&precious, &link).unwrap();
    assert_bad(
        &out(&["run", "raft-partitions", "--report", link.to_str().unwrap()]),
        "symbolic link",
    );
    assert_eq!(std::fs::read(&precious).unwrap(), b"keep");
    let fifo = d.join("fifo.json");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        assert_bad(
            &out(&["run", "raft-partitions", "--report", fifo.to_str().unwrap()]),
            "not a regular file",
        );
    }
    assert_bad(
        &out(&["run", "raft-partitions", "--report", d.to_str().unwrap()]),
        "is a folder",
    );
    assert!(temporaries(&d).is_empty(), "{:?}", temporaries(&d));
}

#[test]
fn ctrl_c_during_fuzz_prints_and_writes_the_summary_and_exits_130() {
    let d = scratch("sigint-fuzz");
    let summary = d.join("summary.json");
    let rd = d.join("reports");
    let child = dst()
        .args(["fuzz", "raft-swarm", "--seeds", "0..1000000", "--jobs", "1"])
        .args([
            "--summary",
            summary.to_str().unwrap(),
            "--report-dir",
            rd.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2_000));
    interrupt(&child);
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{text}\n{}", err(&o));
    assert!(text.contains("interrupted"), "{text}");
    assert!(err(&o).contains("dst: interrupted"), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    let seeds = v["scenarios"][0]["tally"]["seeds"].as_u64().unwrap();
    assert!((1..1_000_000).contains(&seeds), "{seeds}");
    assert!(temporaries(&d).is_empty(), "{:?}", temporaries(&d));
}

#[test]
fn ctrl_c_during_shrink_writes_the_best_so_far() {
    let d = scratch("sigint-shrink");
    let report = d.join("found.json");
    let o = out(&[
        "run",
        "raft-crash-restart",
        "--bug",
        "reply-before-durable",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let shrunk = d.join("shrunk.json");
    let child = dst()
        .args([
            "shrink",
            report.to_str().unwrap(),
            "--out",
            shrunk.to_str().unwrap(),
            "--max-runs",
            "100000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_500));
    interrupt(&child);
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    // Shrinking may have finished before the signal on a fast machine.
    assert!(matches!(o.status.code(), Some(130) | Some(0)), "{text}\n{}", err(&o));
    if o.status.code() == Some(130) {
        assert!(err(&o).contains("smallest case found so far"), "{}", err(&o));
    }
    assert!(text.contains("report: "), "{text}");
    let r = out(&["replay", shrunk.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
    assert!(temporaries(&d).is_empty(), "{:?}", temporaries(&d));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    ends_quietly_into_a_closed_pipe(&["list"]);
}

/// `args` with stdout a pipe whose reader is already gone: exit 141 and
/// nothing on stderr.
fn ends_quietly_into_a_closed_pipe(args: &[&str]) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = dst()
        .args(args)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", err(&o));
    assert!(err(&o).is_empty(), "quietly: {}", err(&o));
}

#[test]
fn check_into_a_closed_pipe_ends_quietly() {
    let d = scratch("check-pipe");
    let history = d.join("run.json");
    let o = out(&["run", "raft-read-index", "--report", history.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    ends_quietly_into_a_closed_pipe(&["check", history.to_str().unwrap()]);
}

#[test]
fn debug_logs_carry_no_misleading_hashmap_warning() {
    let o = dst()
        .args(["fuzz", "raft-crash-restart", "--seeds", "0..3", "--jobs", "1"])
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!err(&o).contains("will not be deterministic"), "{}", err(&o));
}

#[test]
fn sigterm_ends_a_long_single_run_with_a_report_that_replays_to_the_cut() {
    let d = scratch("sigterm-run");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/raft-crash-restart.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
    // Two hours of simulated time and ten million events: several seconds
    // of work, far longer than the second before the signal.
    v["name"] = "long".into();
    v["safety_ms"] = 3_600_000.into();
    v["liveness_ms"] = 3_600_000.into();
    v["event_budget"] = 10_000_000.into();
    let sc = d.join("long.json");
    std::fs::write(&sc, v.to_string()).unwrap();
    let report = d.join("cut.json");
    let child = dst()
        .args([
            "run",
            sc.to_str().unwrap(),
            "--seed",
            "3",
            "--report",
            report.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_000));
    signal(&child, "TERM");
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{text}\n{}", err(&o));
    assert!(text.contains("error: interrupted at"), "{text}");
    assert!(err(&o).contains("dst: interrupted"), "{}", err(&o));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let taken = r["interrupted"]
        .as_u64()
        .expect("the report says where the run was cut");
    assert!(taken > 0 && taken.is_multiple_of(4096), "{taken}");
    assert_eq!(r["verdict"]["status"], "error");
    assert!(temporaries(&d).is_empty(), "{:?}", temporaries(&d));
    // The replay stops where the run was cut, event for event.
    let again = out(&["replay", report.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{said}\n{}", err(&again));
    assert!(said.contains("reproduced"), "{said}");
}

/// A single-key kv history the search must work on for minutes: 16
/// clients x 1,000 gets, puts and appends on one key, values written
/// twice (so the key is not decided without a search).
fn hard_kv_history(path: &Path) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut draw = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    // Per client: the op it runs (f, its value) and, once it took effect,
    // what it returns. A step of a random client invokes, applies or
    // completes, so ops take effect in another order than they start.
    type Running = (&'static str, Option<String>, Option<Option<String>>);
    let (mut state, mut lines) = (String::new(), Vec::new());
    let mut running: Vec<Option<Running>> = vec![None; 16];
    let mut left = [1_000u32; 16];
    let shown = |v: &Option<String>| v.as_ref().map_or("nil".to_string(), |v| format!("{v:?}"));
    while left.iter().any(|&l| l > 0) || running.iter().any(|r| r.is_some()) {
        let c = draw(16) as usize;
        running[c] = match running[c].take() {
            None if left[c] > 0 => {
                left[c] -= 1;
                // Clients c and c + 8 write the same values.
                let value = format!("x {} {} y", c % 8, 1_000 - left[c]);
                let (f, v) = match draw(20) {
                    0..=7 => ("get", None),
                    8..=10 => ("put", Some(value)),
                    _ => ("append", Some(value)),
                };
                lines.push(format!(
                    "{{:process {c}, :type :invoke, :f :{f}, :key \"0\", :value {}}}",
                    shown(&v)
                ));
                Some((f, v, None))
            }
            None => None,
            Some((f, v, None)) => {
                match (f, &v) {
                    ("put", Some(v)) => state = v.clone(),
                    ("append", Some(v)) => state.push_str(v),
                    _ => {}
                }
                let out = if f == "get" { Some(state.clone()) } else { v.clone() };
                Some((f, v, Some(out)))
            }
            Some((f, _, Some(out))) => {
                lines.push(format!(
                    "{{:process {c}, :type :ok, :f :{f}, :key \"0\", :value {}}}",
                    shown(&out)
                ));
                None
            }
        };
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// `dst check` looks for a signal while it searches: SIGTERM ends it within
/// moments with "unknown" and why, exit 130, where it used to search on
/// to its budget.
#[test]
fn sigterm_ends_a_long_check_with_unknown_interrupted() {
    let d = scratch("sigterm-check");
    let h = d.join("hard.edn");
    hard_kv_history(&h);
    let child = dst()
        .args(["check", h.to_str().unwrap(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_500));
    signal(&child, "TERM");
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{text}\n{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        (&v["result"], &v["limit"]),
        (&"unknown".into(), &"interrupted".into()),
        "{v}"
    );
    assert!(v["reason"].as_str().unwrap().starts_with("interrupted on key"), "{v}");
}

#[test]
fn a_full_disk_on_stdout_is_a_write_error_not_a_closed_pipe() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full here");
        return;
    };
    for args in [&["list"][..], &["run", "raft-crash-restart", "--seed", "1"][..]] {
        let o = dst().args(args).stdout(full.try_clone().unwrap()).output().unwrap();
        assert_bad(&o, "cannot write to stdout: No space left on device");
    }
}
