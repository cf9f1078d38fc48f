//! A failing campaign writes a few reports per kind of failure, not one
//! per seed: every failing seed is still counted and listed.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    support::scratch("caps", name)
}

/// Fuzzes a documented limit that most seeds show; the summary and the
/// report files written.
fn campaign(dir: &Path, extra: &[&str]) -> (Value, Vec<String>) {
    let (reports, summary) = (dir.join("reports"), dir.join("summary.json"));
    let mut args = vec![
        "fuzz".to_string(),
        "raft-skew-beyond-bound".into(),
        "--seeds".into(),
        "0..40".into(),
        "--jobs".into(),
        "2".into(),
        "--report-dir".into(),
        reports.display().to_string(),
        "--summary".into(),
        summary.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = Command::new(env!("CARGO_BIN_EXE_dst"))
        .env("DST_MIN_FREE", "0")
        .args(&args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let files = std::fs::read_dir(&reports)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    (
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap(),
        files,
    )
}

fn tally(v: &Value) -> &Value {
    &v["scenarios"][0]["tally"]
}

#[test]
fn reports_are_capped_per_kind_and_in_all_and_every_seed_is_still_listed() {
    let dir = scratch("default");
    let (v, files) = campaign(&dir, &[]);
    let t = tally(&v);
    let failing = t["findings"].as_object().unwrap().len() as u64;
    assert!(failing > 10, "the limit shows on most seeds: {failing}");
    let kinds: std::collections::BTreeSet<String> = t["findings"]
        .as_object()
        .unwrap()
        .values()
        .map(|f| format!("{} {}", f["cause"], f["evidence"]))
        .collect();
    assert!(
        files.len() as u64 <= 3 * kinds.len() as u64,
        "{} reports for {} kinds",
        files.len(),
        kinds.len()
    );
    assert!(!files.is_empty());
    assert_eq!(t["reports_withheld"].as_u64().unwrap() + files.len() as u64, failing);
    let with_report = t["findings"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["report"].is_string())
        .count();
    assert_eq!(
        with_report,
        files.len(),
        "the summary names exactly the reports written"
    );

    let dir = scratch("total");
    let (_, files) = campaign(&dir, &["--max-reports", "100", "--max-reports-total", "2"]);
    assert_eq!(files.len(), 2);

    let dir = scratch("none");
    let (v, files) = campaign(&dir, &["--no-reports"]);
    assert!(files.is_empty());
    assert_eq!(
        tally(&v)["reports_withheld"].as_u64().unwrap(),
        failing,
        "the same seeds fail, none written"
    );
}
