//! Time-boxed runs with a cursor: back to back they cover consecutive,
//! disjoint stretches of seeds, whatever the budget cut off.

use serde_json::Value;
use std::process::{Command, Output};

fn dst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dst"))
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("dst runs")
}

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
    let d = std::env::temp_dir().join(format!("dst-cursor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d.join("cursor.json")
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
