//! What search and fuzz say about their runs is what the runs did: the two
//! sides of a comparison never share a report, a stall is counted as a
//! stall (not as the first find, not as what `--stop` waits for), a
//! documented limit does not stop a campaign, and every count comes with
//! the seeds it counts.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use support::{dst, scratch};

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// `raft-crash-restart` with an event budget no run gets through: every
/// run ends without a verdict of its invariants.
fn starved(dir: &Path) -> PathBuf {
    let reg = dst::registry();
    let mut s = reg.load("raft-crash-restart").unwrap();
    s.name = "starved".into();
    s.event_budget = 200;
    let p = dir.join("starved.json");
    std::fs::write(&p, serde_json::to_string(&s).unwrap()).unwrap();
    p
}

#[test]
fn the_two_sides_of_a_comparison_write_reports_of_their_own() {
    let dir = scratch("bookkeeping", "compare");
    let o = dst(
        &dir,
        &[
            "search",
            "raft-crash-restart",
            "--bug",
            "hardstate-not-persisted",
            "--compare",
            "--runs",
            "64",
            "--jobs",
            "2",
            "--report-dir",
            "r",
            "--json",
        ],
    );
    let v = json_of(&o);
    let (g, p) = (&v["guided"], &v["plain"]);
    assert!(
        g["first_violation"].is_array() && p["first_violation"].is_array(),
        "{v}"
    );
    let mut all: Vec<String> = Vec::new();
    for (side, name) in [(g, "guided"), (p, "plain")] {
        for r in side["reports"].as_array().unwrap() {
            let r = r.as_str().unwrap().to_string();
            assert!(r.contains(&format!("-{name}-")), "{r} names its side");
            assert!(dir.join(&r).exists(), "{r}");
            all.push(r);
        }
    }
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "two sides wrote one file: {all:?}");
    assert_eq!(std::fs::read_dir(dir.join("r")).unwrap().count(), n);
}

#[test]
fn a_stall_is_counted_apart_and_stops_a_search_only_when_asked() {
    let dir = scratch("bookkeeping", "stall");
    let file = starved(&dir);
    let f = file.to_str().unwrap();
    let o = dst(
        &dir,
        &[
            "search",
            f,
            "--stop",
            "--runs",
            "40",
            "--jobs",
            "1",
            "--report-dir",
            "r",
            "--json",
        ],
    );
    let v = json_of(&o);
    let g = &v["guided"];
    assert_eq!(g["runs"], 40, "a stall did not stop the search: {g}");
    assert_eq!(g["stalls"], 40, "{g}");
    assert_eq!(g["violations"], 0, "{g}");
    assert!(g["first_violation"].is_null(), "{g}");
    assert_eq!(g["first_stall"][0], 1, "{g}");
    assert_eq!(
        o.status.code(),
        Some(1),
        "stalls on a scenario declared to pass are unexpected"
    );
    let o = dst(
        &dir,
        &[
            "search",
            f,
            "--stop",
            "--stalls-are-finds",
            "--runs",
            "40",
            "--jobs",
            "1",
            "--report-dir",
            "r",
            "--json",
        ],
    );
    let g = json_of(&o)["guided"].clone();
    assert!(g["runs"].as_u64().unwrap() < 40, "{g}");
    assert_eq!(g["first_violation"][1], "stall", "{g}");
}

#[test]
fn stop_waits_for_a_find_not_for_a_documented_limit() {
    let dir = scratch("bookkeeping", "limit");
    let o = dst(
        &dir,
        &[
            "search",
            "raft-skew-beyond-bound",
            "--stop",
            "--runs",
            "48",
            "--jobs",
            "2",
            "--report-dir",
            "r",
            "--json",
        ],
    );
    let g = json_of(&o)["guided"].clone();
    assert!(g["violations"].as_u64().unwrap() > 0, "the limit shows: {g}");
    assert!(g["first_violation"].is_null(), "{g}");
    assert_eq!(g["runs"], 48, "{g}");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn fuzz_lists_every_seed_it_counts_or_says_how_many_more() {
    let dir = scratch("bookkeeping", "lists");
    let file = starved(&dir);
    let o = dst(
        &dir,
        &["fuzz", file.to_str().unwrap(), "--seeds", "0..16", "--no-reports"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains("stalled or ran out of their event budget"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.trim_start().starts_with("16 seeds"), "{line}");
    let after = line.split(": ").nth(1).unwrap();
    let shown = after.split(' ').take_while(|w| w.parse::<u64>().is_ok()).count();
    assert_eq!(shown, 10, "{line}");
    assert!(after.ends_with("and 6 more"), "{line}");
}
