//! Time-boxed runs with a cursor: back to back they cover consecutive,
//! disjoint stretches of seeds, whatever the budget cut off.

use serde_json::Value;
use std::process::Command;

mod support;
use support::dst_here as dst;

fn json(p: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Runs scenario `sc` with a budget and the cursor; the items it covered
/// as (seed, scenario index) from the cursor before and after.
fn night(sc: &str, cursor: &std::path::Path, budget: &str, n_sc: u64) -> (u64, u64) {
    let before = cursor.exists().then(|| json(cursor));
    let at = |c: &Option<Value>| {
        c.as_ref().map_or(0, |c| {
            c["next_seed"].as_u64().unwrap() * n_sc + c["next_scenario"].as_u64().unwrap()
        })
    };
    let summary = cursor.with_extension("summary.json");
    let o = dst(&[
        "fuzz",
        sc,
        "--budget",
        budget,
        "--jobs",
        "2",
        "--cursor",
        cursor.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
        "--report-dir",
        cursor.with_extension("reports").to_str().unwrap(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ran: u64 = json(&summary)["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tally"]["seeds"].as_u64().unwrap())
        .sum();
    let (from, to) = (at(&before), at(&Some(json(cursor))));
    assert_eq!(to - from, ran, "the run covered exactly the items between the cursors");
    (from, to)
}

fn scratch(name: &str) -> std::path::PathBuf {
    support::scratch("cursor", name).join("cursor.json")
}

#[test]
fn two_nights_cover_consecutive_disjoint_seeds() {
    let c = scratch("one");
    let (a0, a1) = night("raft-crash-restart", &c, "2s", 1);
    let (b0, b1) = night("raft-crash-restart", &c, "2s", 1);
    assert_eq!(a0, 0);
    assert!(a1 > 0, "the first night ran something");
    assert_eq!(b0, a1, "the second night starts where the first stopped");
    assert!(b1 > b0);
}

#[test]
fn a_night_cut_inside_a_seed_resumes_at_the_next_scenario() {
    let list: Value = serde_json::from_slice(&dst(&["list", "--json"]).stdout).unwrap();
    let n_sc = list["scenarios"].as_array().unwrap().len() as u64;
    let c = scratch("all");
    let (_, a1) = night("all", &c, "1500ms", n_sc);
    let (b0, _) = night("all", &c, "1500ms", n_sc);
    assert_eq!(b0, a1);
}

#[test]
fn a_cursor_of_another_campaign_is_refused() {
    let c = scratch("other");
    night("raft-crash-restart", &c, "1s", 1);
    let o = dst(&[
        "fuzz",
        "raft-partitions",
        "--budget",
        "1s",
        "--cursor",
        c.to_str().unwrap(),
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("another campaign") && e.trim_end().lines().count() == 1,
        "{e}"
    );
}

/// A scenario whose every seed fails at once (an event budget far too
/// small), so that each seed a campaign runs is a line on its stdout.
fn starved(dir: &std::path::Path) -> std::path::PathBuf {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/raft-crash-restart.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
    v["name"] = "starved".into();
    v["event_budget"] = 200.into();
    let p = dir.join("starved.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

/// Starts `n` campaigns at once on one cursor; the seeds each ran.
fn together(n: usize, sc: &std::path::Path, cursor: &std::path::Path, extra: &[&str]) -> Vec<Vec<u64>> {
    let children: Vec<_> = (0..n)
        .map(|k| {
            Command::new(env!("CARGO_BIN_EXE_dst"))
                .env("DST_MIN_FREE", "0")
                .args([
                    "fuzz",
                    sc.to_str().unwrap(),
                    "--jobs",
                    "1",
                    "--cursor",
                    cursor.to_str().unwrap(),
                ])
                .args(["--no-reports", "--summary"])
                .arg(cursor.with_extension(format!("{k}.summary.json")))
                .args(extra)
                .env_remove("GITHUB_STEP_SUMMARY")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().unwrap();
            // Each failing seed is a line of the progress, on stderr.
            let text = String::from_utf8_lossy(&o.stderr).to_string();
            assert_eq!(o.status.code(), Some(1), "{text}");
            text.lines()
                .filter_map(|l| l.strip_prefix("UNEXPECTED starved seed "))
                .map(|l| l.split(':').next().unwrap().parse().unwrap())
                .collect()
        })
        .collect()
}

fn disjoint(runs: &[Vec<u64>]) -> std::collections::BTreeSet<u64> {
    let mut all = std::collections::BTreeSet::new();
    for seeds in runs {
        assert!(!seeds.is_empty(), "every campaign ran seeds: {runs:?}");
        for s in seeds {
            assert!(all.insert(*s), "seed {s} ran twice: {runs:?}");
        }
    }
    all
}

#[test]
fn campaigns_sharing_a_cursor_split_the_range_between_them() {
    let c = scratch("shared");
    let sc = starved(c.parent().unwrap());
    let runs = together(4, &sc, &c, &["--seeds", "0..1200"]);
    let all = disjoint(&runs);
    assert_eq!(all, (0..1200).collect(), "together they ran the range, once");
    assert_eq!(json(&c)["next_seed"], 1200);
}

#[test]
fn budgeted_campaigns_sharing_a_cursor_leave_no_seed_behind() {
    let c = scratch("shared-budget");
    let sc = starved(c.parent().unwrap());
    let runs = together(4, &sc, &c, &["--budget", "2s"]);
    let mut all = disjoint(&runs);
    // What was claimed and not run went back to the cursor: the seeds run
    // and the free stretches make up every seed below the frontier.
    let cur = json(&c);
    for g in cur["free"].as_array().map_or(&[][..], |v| v) {
        for s in g["from_seed"].as_u64().unwrap()..g["to_seed"].as_u64().unwrap() {
            assert!(all.insert(s), "seed {s} is free and was run: {cur}");
        }
    }
    let next = cur["next_seed"].as_u64().unwrap();
    assert_eq!(all, (0..next).collect(), "{cur}");
    // The next campaign takes the free stretches first.
    let again = together(1, &sc, &c, &["--budget", "1s"]);
    let first: Vec<u64> = cur["free"]
        .as_array()
        .map_or(vec![], |v| v.iter().map(|g| g["from_seed"].as_u64().unwrap()).collect());
    if let Some(f) = first.first() {
        assert!(again[0].contains(f), "{cur} then {:?}", again[0]);
    }
}

#[test]
fn a_cursor_whose_numbers_no_run_writes_is_refused() {
    let c = scratch("hostile");
    let sc = starved(c.parent().unwrap());
    together(1, &sc, &c, &["--seeds", "0..8"]);
    let good = json(&c);
    let free = |v: Value| {
        let mut g = good.clone();
        g["next_seed"] = 4.into();
        g["free"] = v;
        g
    };
    let mut past = good.clone();
    past["next_scenario"] = 7.into();
    for (bad, needle) in [
        (past, "scenario index 7 is past"),
        (
            free(serde_json::json!([{"from_seed": 3, "from_scenario": 0, "to_seed": 3}])),
            "is empty",
        ),
        (
            free(serde_json::json!([{"from_seed": 0, "from_scenario": 0, "to_seed": 9}])),
            "past next_seed",
        ),
        (
            free(
                serde_json::json!([{"from_seed": 0, "from_scenario": 0, "to_seed": 2}, {"from_seed": 1, "from_scenario": 0, "to_seed": 3}]),
            ),
            "overlaps",
        ),
    ] {
        std::fs::write(&c, bad.to_string()).unwrap();
        let o = dst(&[
            "fuzz",
            sc.to_str().unwrap(),
            "--seeds",
            "0..100",
            "--cursor",
            c.to_str().unwrap(),
        ]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {e}");
        assert!(e.contains(needle) && e.trim_end().lines().count() == 1, "{needle}: {e}");
    }
}
