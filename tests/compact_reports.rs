//! Reports keep a window of their trace by default and every reader of
//! reports regenerates the rest from the seed: replay (and replay --full),
//! view, export, check and shrink work the same on compact, full and
//! gzipped reports, and on a full report of the previous schema.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::dst_here as dst;

fn scratch(name: &str) -> PathBuf {
    support::scratch("compact", name)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A linearizability violation (its evidence spans hundreds of events).
const FAILING: [&str; 5] = ["raft-read-index", "--seed", "1", "--bug", "read-without-quorum"];

/// `run` of the failing seed writing `report`, with `extra` flags.
fn run_to(report: &Path, extra: &[&str]) {
    let mut args: Vec<&str> = vec!["run"];
    args.extend(FAILING);
    let r = report.to_str().unwrap();
    args.extend(["--report", r]);
    args.extend(extra);
    let o = dst(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_compact_report_keeps_the_evidence_and_replays_to_the_full_one() {
    let dir = scratch("replay");
    let (compact, full) = (dir.join("c.json"), dir.join("f.json"));
    run_to(&compact, &[]);
    run_to(&full, &["--full-trace"]);
    let (c, f) = (json(&compact), json(&full));
    let all = f["trace"].as_array().unwrap();
    let kept = c["trace"].as_array().unwrap();
    assert_eq!(c["window"]["events"], all.len());
    assert_eq!(c["stats"]["events"], all.len());
    assert!(f.get("window").is_none());
    assert!(
        kept.len() * 10 < all.len(),
        "{} of {} events kept",
        kept.len(),
        all.len()
    );
    assert_eq!(c["trace_hash"], f["trace_hash"]);
    // Each kept event is the full trace's event of that number, and every
    // evidence event is kept.
    for e in kept {
        assert_eq!(e, &all[e["i"].as_u64().unwrap() as usize]);
    }
    for ev in c["verdict"]["evidence"].as_array().unwrap() {
        assert!(kept.iter().any(|e| &e["i"] == ev), "evidence event {ev} dropped");
    }
    let o = dst(&["replay", compact.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("offline check of the regenerated trace: linearizable"),
        "{}",
        text(&o)
    );
    // --full writes the whole report: the full run's, bar where it says it replays from.
    let whole = dir.join("whole.json");
    let o = dst(&[
        "replay",
        compact.to_str().unwrap(),
        "--full",
        "-o",
        whole.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let mut w = json(&whole);
    let mut f = f;
    for v in [&mut w, &mut f] {
        v["replay"] = Value::Null;
        v["stats"]["wall_ms"] = Value::Null;
    }
    assert_eq!(w, f);
}

#[test]
fn every_reader_gives_the_same_answer_on_compact_full_and_gzipped_reports() {
    let dir = scratch("readers");
    let compact = dir.join("c.json");
    let full = dir.join("f.json");
    run_to(&compact, &[]);
    run_to(&full, &["--full-trace"]);
    let gz = dir.join("g.json");
    run_to(&gz, &["--gzip"]);
    let gz = dir.join("g.json.gz");
    assert!(std::fs::read(&gz).unwrap().starts_with(&[0x1f, 0x8b]), "gzip as asked");
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema3-raft-crash-restart-4.json");
    let mut answers: Vec<Vec<String>> = Vec::new();
    // Each report names its own file (`replay`); that aside, all agree.
    let named = |s: String| {
        [&gz, &compact, &full]
            .iter()
            .fold(s, |s, p| s.replace(p.to_str().unwrap(), "REPORT"))
    };
    for r in [&compact, &full, &gz] {
        let p = r.to_str().unwrap();
        let mut seen = Vec::new();
        let o = dst(&["check", p]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        seen.push(named(String::from_utf8_lossy(&o.stdout).into_owned()));
        let page = dir.join("page.html");
        let o = dst(&["view", p, "-o", page.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        seen.push(named(std::fs::read_to_string(&page).unwrap()));
        let perfetto = dir.join("p.json");
        let o = dst(&["export", p, "-o", perfetto.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        seen.push(named(std::fs::read_to_string(&perfetto).unwrap()));
        let o = dst(&["replay", p, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["reproduced"], true);
        seen.push(v["offline_check"].to_string());
        answers.push(seen);
    }
    // Compared without printing pages of megabytes.
    for (k, what) in [(1, "full"), (2, "gzipped")] {
        for (a, b) in answers[0].iter().zip(&answers[k]) {
            assert!(
                a == b,
                "compact against {what}: {} against {} bytes differ",
                a.len(),
                b.len()
            );
        }
    }
    // Shrinking reads the compact report and writes a compact one that replays.
    let small = dir.join("small.json");
    let o = dst(&[
        "shrink",
        compact.to_str().unwrap(),
        "--max-runs",
        "30",
        "--out",
        small.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(json(&small).get("window").is_some());
    let o = dst(&["replay", small.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // A full report of schema 3, written by the dst before compact reports.
    assert_eq!(json(&old)["schema"], 3);
    let o = dst(&["replay", old.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("offline check of the saved trace: no-dual-leaders"),
        "{}",
        text(&o)
    );
}

/// A campaign on a bug switch that fails most of its seeds.
fn fuzz_command(reports: &Path, extra: &[&str]) -> Command {
    let mut c = support::dst_command();
    c.args([
        "fuzz",
        "raft-read-index",
        "--seeds",
        "0..8",
        "--bug",
        "read-without-quorum",
        "--jobs",
        "2",
    ])
    .arg("--report-dir")
    .arg(reports)
    .args(extra);
    c
}

fn fuzz(reports: &Path, extra: &[&str]) -> Output {
    fuzz_command(reports, extra).output().unwrap()
}

#[test]
fn fuzz_writes_compact_reports_and_full_ones_when_asked() {
    let dir = scratch("fuzz");
    let sizes = |extra: &[&str]| -> Vec<(String, u64)> {
        let reports = dir.join(format!("r{}", extra.len()));
        let o = fuzz(&reports, extra);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let mut files: Vec<(String, u64)> = std::fs::read_dir(&reports)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let compact = sizes(&[]);
    let full = sizes(&["--full-trace"]);
    let gz = sizes(&["--full-trace", "--gzip"]);
    assert!(!compact.is_empty());
    assert_eq!(compact.len(), full.len());
    assert_eq!(compact.len(), gz.len());
    for ((c, f), g) in compact.iter().zip(&full).zip(&gz) {
        assert_eq!(c.0, f.0);
        assert_eq!(format!("{}.gz", f.0), g.0);
        assert!(c.1 * 4 < f.1, "{} compact {} bytes, full {}", c.0, c.1, f.1);
        assert!(g.1 * 4 < f.1, "{} gzipped {} bytes, full {}", g.0, g.1, f.1);
    }
}

#[test]
fn a_low_disk_stops_the_reports_not_the_fuzzing() {
    let dir = scratch("disk");
    let reports = dir.join("reports");
    let run = |extra: &[&str]| {
        let summary = dir.join("s.json");
        let mut args = vec!["--summary", summary.to_str().unwrap()];
        args.extend(extra);
        let o = fuzz(&reports, &args);
        (o, json(&summary))
    };
    // More free space than any disk has: the guard trips at the first report.
    let (o, low) = run(&["--min-free", "1000000T"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines()
            .filter(|l| l.contains("no more reports are written"))
            .count()
            >= 1,
        "{err}"
    );
    assert!(!reports.exists() || std::fs::read_dir(&reports).unwrap().next().is_none());
    let (o, normal) = run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t = |v: &Value| v["scenarios"][0]["tally"].clone();
    let (a, b) = (t(&low), t(&normal));
    assert_eq!(a["seeds"], b["seeds"], "every seed ran");
    assert_eq!(
        a["findings"].as_object().unwrap().len(),
        b["findings"].as_object().unwrap().len()
    );
    assert_eq!(
        a["reports_withheld"].as_u64().unwrap(),
        a["findings"].as_object().unwrap().len() as u64
    );
    // DST_MIN_FREE sets the floor where no flag does.
    let o = fuzz_command(&dir.join("by-env"), &[])
        .env("DST_MIN_FREE", "1000000T")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no more reports are written"),
        "{}",
        text(&o)
    );
    // Bad sizes are one line and exit 2.
    let o = dst(&["fuzz", "raft-read-index", "--seeds", "0..1", "--min-free", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1, "{}", text(&o));
}

#[test]
fn damaged_compact_and_gzipped_reports_are_refused_in_one_line() {
    let dir = scratch("hostile");
    let compact = dir.join("c.json");
    run_to(&compact, &[]);
    let v = json(&compact);
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let edited = {
        let mut v = v.clone();
        v["trace"][3]["t_ns"] = 1.into();
        write("edited.json", v.to_string().as_bytes())
    };
    let reordered = {
        let mut v = v.clone();
        v["trace"].as_array_mut().unwrap().swap(0, 1);
        write("reordered.json", v.to_string().as_bytes())
    };
    let beyond = {
        let mut v = v.clone();
        v["window"]["events"] = 3.into();
        write("beyond.json", v.to_string().as_bytes())
    };
    let gz = {
        let o = dst(&[
            "run",
            "raft-read-index",
            "--seed",
            "1",
            "--bug",
            "read-without-quorum",
            "--gzip",
            "--report",
            dir.join("g.json").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        std::fs::read(dir.join("g.json.gz")).unwrap()
    };
    let cut = write("cut.json.gz", &gz[..gz.len() / 2]);
    let mut flipped = gz.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0xff;
    let flipped = write("flipped.json.gz", &flipped);
    for (p, why) in [
        (&edited, "does not match its hash"),
        (&reordered, "out of order"),
        (&beyond, "beyond"),
        (&cut, "gzip"),
        (&flipped, "gzip"),
    ] {
        for cmd in ["replay", "view", "export", "check", "shrink"] {
            let o = dst(&[cmd, p.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {}: {}", p.display(), text(&o));
            assert_eq!(err.lines().count(), 1, "{cmd} {}: {err}", p.display());
            assert!(err.contains(why) || cmd == "check", "{cmd} {}: {err}", p.display());
        }
    }
    // A gzip bomb: a small file that would gunzip past any report.
    let bomb = dir.join("bomb.json.gz");
    let made = Command::new("sh")
        .arg("-c")
        .arg(format!("head -c 300000000 /dev/zero | gzip -1 > {}", bomb.display()))
        .status()
        .unwrap();
    assert!(made.success());
    assert!(std::fs::metadata(&bomb).unwrap().len() < 2 << 20);
    let o = dst(&["replay", bomb.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("more than any report"),
        "{}",
        text(&o)
    );
    // A compact report whose seed no longer runs to its trace hash cannot
    // be regenerated: readers say so; replay calls it a mismatch.
    let mut v = v;
    v["trace_hash"] = "0000000000000000".into();
    let stale = write("stale.json", v.to_string().as_bytes());
    let o = dst(&[
        "view",
        stale.to_str().unwrap(),
        "-o",
        dir.join("x.html").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot be regenerated"),
        "{}",
        text(&o)
    );
    let o = dst(&["replay", stale.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}
