//! No find is lost to another: runs of one scenario name and seed that
//! found different things (the scenario file edited between them) each
//! keep a report, however many and in whatever order they run, while the
//! same find run again writes over its own report and adds none. A file
//! at a report's name that is no report is left alone too.

use crate::fixtures::{dst, folder, scenario_file};
use crate::mutate::config;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

/// The trace hash of every report in `dir`, and how many files it holds.
fn finds(dir: &Path) -> (BTreeSet<String>, usize) {
    let mut hashes = BTreeSet::new();
    let mut files = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        files += 1;
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            if let Some(h) = v["trace_hash"].as_str() {
                hashes.insert(h.to_string());
            }
        }
    }
    (hashes, files)
}

/// The one crash-restart scenario with its clients' think time set: each
/// value runs seed 0 into another violation (another trace) of the bug.
fn variant(dir: &Path, think: u64) -> String {
    let mut w: serde_json::Value = serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/raft-crash-restart.json"))
            .unwrap(),
    )
    .unwrap()["workload"]
        .clone();
    w["think_ms_max"] = think.into();
    let file = dir.join(format!("think-{think}.json"));
    scenario_file("raft-crash-restart", &[("workload", w)], &file);
    file.to_string_lossy().into_owned()
}

proptest! {
    #![proptest_config(config(12))]

    #[test]
    fn every_different_find_keeps_its_report(order in prop::collection::vec(20u64..26, 1..6), fuzz in any::<bool>()) {
        let dir = folder(&format!("finds-{}", order.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("-")));
        let reports = dir.join("reports");
        let mut hashes = BTreeSet::new();
        for think in &order {
            let file = variant(&dir, *think);
            let o = if fuzz {
                dst(&dir, &["fuzz", &file, "--seeds", "0..1", "--bug", "hardstate-not-persisted", "--json"])
            } else {
                dst(&dir, &["run", &file, "--seed", "0", "--bug", "hardstate-not-persisted"])
            };
            prop_assert!(o.status.code() == Some(0), "{}", String::from_utf8_lossy(&o.stderr));
            let again = dst(&dir, &["run", &file, "--seed", "0", "--bug", "hardstate-not-persisted", "--report", "/dev/null"]);
            let line = String::from_utf8_lossy(&again.stdout).to_string();
            let hash = line.split("trace ").nth(1).and_then(|t| t.get(..16)).unwrap_or_default().to_string();
            prop_assert_eq!(hash.len(), 16, "{}", line);
            hashes.insert(hash);
            let (kept, files) = finds(&reports);
            prop_assert_eq!(&kept, &hashes, "a find was replaced");
            prop_assert_eq!(files, hashes.len(), "the same find written twice");
        }
    }
}

#[test]
fn a_file_at_a_report_s_name_that_is_no_report_is_left_alone() {
    let dir = folder("finds-not-a-report");
    let reports = dir.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    let mine = reports.join("raft-crash-restart-0-hardstate-not-persisted.json");
    std::fs::write(&mine, "my notes").unwrap();
    let o = dst(
        &dir,
        &[
            "run",
            "raft-crash-restart",
            "--seed",
            "0",
            "--bug",
            "hardstate-not-persisted",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("raft-crash-restart-0-hardstate-not-persisted.2.json"),
        "{out}"
    );
    assert!(reports
        .join("raft-crash-restart-0-hardstate-not-persisted.2.json")
        .is_file());
}
