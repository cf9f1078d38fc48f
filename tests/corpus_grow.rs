//! A corpus that grows: campaigns with `--corpus` append one shrunk line
//! per new kind of failure, a second night continues where the first
//! stopped and adds only kinds the file lacks, and every line replays its
//! counterexample.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

mod support;
use support::dst_here as dst;

fn scratch(name: &str) -> PathBuf {
    support::scratch("grow", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The documented TTL limit declared as a pass: a scenario whose correct
/// model fails about half its seeds in more than one way, unexpectedly.
fn failing_scenario(dir: &Path) -> PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/scenarios/snapshot-ttl-limit.json")).unwrap())
            .unwrap();
    v["name"] = "ttl-limit-as-pass".into();
    v["expect"] = "pass".into();
    let p = dir.join("ttl-limit-as-pass.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

fn lines(corpus: &Path) -> Vec<Value> {
    std::fs::read_to_string(corpus)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn signatures(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["signature"].as_str().unwrap().to_string())
        .collect()
}

/// The signatures of a summary's unexpected findings, as the corpus words them.
fn found(summary: &Value) -> (BTreeSet<String>, Vec<u64>) {
    let mut sigs = BTreeSet::new();
    let mut seeds = Vec::new();
    for sc in summary["scenarios"].as_array().unwrap() {
        let name = sc["scenario"].as_str().unwrap();
        for (seed, f) in sc["tally"]["findings"].as_object().unwrap() {
            if f["expected"].as_bool().unwrap() {
                continue;
            }
            seeds.push(seed.parse().unwrap());
            let ev: Vec<&str> = f["evidence"]
                .as_array()
                .map(|a| a.iter().map(|e| e.as_str().unwrap()).collect())
                .unwrap_or_default();
            let ev = if ev.is_empty() { "-".to_string() } else { ev.join(",") };
            sigs.insert(format!("{name} {} - {ev}", f["cause"].as_str().unwrap_or("error")));
        }
    }
    (sigs, seeds)
}

fn night(scenario: &Path, dir: &Path, n: u32) -> (Value, Output) {
    let summary = dir.join(format!("night{n}.json"));
    let o = dst(&[
        "fuzz",
        s(scenario),
        "--budget",
        "3s",
        "--jobs",
        "2",
        "--cursor",
        s(&dir.join("cursor.json")),
        "--summary",
        s(&summary),
        "--report-dir",
        s(&dir.join("reports")),
        "--corpus",
        s(&dir.join("found.jsonl")),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    (json(&summary), o)
}

#[test]
fn two_nights_cover_disjoint_seeds_and_append_only_new_kinds() {
    let dir = scratch("nights");
    let scenario = failing_scenario(&dir);
    let corpus = dir.join("found.jsonl");

    let (one, out1) = night(&scenario, &dir, 1);
    let (sigs1, seeds1) = found(&one);
    assert!(!seeds1.is_empty(), "the first night found nothing to add");
    let after1 = std::fs::read_to_string(&corpus).unwrap();
    let lines1 = lines(&corpus);
    let have1: BTreeSet<String> = signatures(&lines1).into_iter().collect();
    assert_eq!(have1.len(), lines1.len(), "one line per signature");
    assert_eq!(have1, sigs1, "every kind the night found, and nothing else");
    let stdout1 = String::from_utf8_lossy(&out1.stdout);
    assert!(
        stdout1.contains(&format!("{} line(s) added", lines1.len())),
        "{stdout1}"
    );

    let next = json(&dir.join("cursor.json"))["next_seed"].as_u64().unwrap();
    let (two, out2) = night(&scenario, &dir, 2);
    let (sigs2, seeds2) = found(&two);
    assert_eq!(
        two["seeds"]["start"].as_u64(),
        Some(next),
        "the second night starts where the first stopped"
    );
    assert!(
        seeds1.iter().all(|s| *s < next) && seeds2.iter().all(|s| *s >= next),
        "disjoint seeds"
    );

    let after2 = std::fs::read_to_string(&corpus).unwrap();
    assert!(
        after2.starts_with(&after1),
        "the first night's lines are kept as they were"
    );
    let lines2 = lines(&corpus);
    let all: Vec<String> = signatures(&lines2);
    let unique: BTreeSet<String> = all.iter().cloned().collect();
    assert_eq!(unique.len(), all.len(), "no signature twice: {all:?}");
    let new: BTreeSet<String> = sigs2.difference(&sigs1).cloned().collect();
    let added: BTreeSet<String> = signatures(&lines2[lines1.len()..]).into_iter().collect();
    assert_eq!(
        added, new,
        "the second night adds exactly the kinds the first had not seen"
    );
    let stdout2 = String::from_utf8_lossy(&out2.stdout);
    assert!(stdout2.contains(&format!("{} line(s) added", new.len())), "{stdout2}");

    for l in &lines2 {
        assert_eq!(l["expect"], "pass", "a found bug is kept as failing until fixed");
        assert!(l["why"].as_str().unwrap().contains("fails until fixed"));
        assert!(l["case"]["plan"].is_array(), "the shrunk plan is attached: {l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn appended_lines_replay_their_shrunk_counterexample() {
    let dir = scratch("replay");
    let scenario = failing_scenario(&dir);
    let corpus = dir.join("found.jsonl");
    let o = dst(&[
        "fuzz",
        s(&scenario),
        "--seeds",
        "0..12",
        "--jobs",
        "2",
        "--report-dir",
        s(&dir.join("reports")),
        "--corpus",
        s(&corpus),
        "--corpus-shrink-runs",
        "60",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let reg = dst::registry();
    // As written, each line fails: the bug it keeps is not fixed.
    let err = dst_runner::corpus(&reg, &corpus).unwrap_err();
    let n = lines(&corpus).len();
    assert!(n > 0);
    assert_eq!(err.lines().count(), n, "{err}");
    assert!(err.contains("not pass"), "{err}");
    // Told to expect what it found, every line's attached case shows it again.
    let pinned: Vec<String> = lines(&corpus)
        .into_iter()
        .map(|mut l| {
            let cause = l["signature"].as_str().unwrap().split(' ').nth(1).unwrap().to_string();
            l["expect"] = cause.into();
            l.to_string()
        })
        .collect();
    let pinned_path = dir.join("pinned.jsonl");
    std::fs::write(&pinned_path, pinned.join("\n") + "\n").unwrap();
    let kept = dst_runner::corpus(&reg, &pinned_path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept.len(), n);
    assert!(kept.iter().all(|l| l.case.is_some()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_merged_grow_the_corpus_as_one_run_does() {
    let dir = scratch("merge");
    let scenario = failing_scenario(&dir);
    let one = dir.join("one.jsonl");
    let base = [
        "fuzz",
        s(&scenario),
        "--seeds",
        "0..10",
        "--jobs",
        "1",
        "--corpus-shrink-runs",
        "40",
    ];
    let mut args = base.to_vec();
    let reports = dir.join("reports");
    args.extend(["--report-dir", s(&reports), "--corpus", s(&one)]);
    assert_eq!(dst(&args).status.code(), Some(1));
    let mut summaries = Vec::new();
    for i in 0..2 {
        let sum = dir.join(format!("shard{i}.json"));
        let shard = format!("{i}/2");
        let mut a = base.to_vec();
        a.extend(["--shard", &shard, "--summary", s(&sum), "--report-dir", s(&reports)]);
        assert_eq!(dst(&a).status.code(), Some(1));
        summaries.push(sum);
    }
    let merged = dir.join("merged.jsonl");
    let mut m = vec!["merge"];
    m.extend(summaries.iter().map(|p| s(p)));
    m.extend(["--corpus", s(&merged), "--corpus-shrink-runs", "40"]);
    let o = dst(&m);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(&merged).unwrap(),
        std::fs::read_to_string(&one).unwrap(),
        "the merge appends what one run appends, byte for byte"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corpus_that_is_not_one_is_refused_before_any_seed_runs() {
    let dir = scratch("bad");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"scenario\": \"x\", \"seed\": \n").unwrap();
    let o = dst(&[
        "fuzz",
        "raft-partitions",
        "--seeds",
        "0..1",
        "--corpus",
        s(&bad),
        "--report-dir",
        s(&dir),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad.jsonl:1"), "{err}");
    assert!(o.stdout.is_empty(), "no seed ran");
    let o = dst(&[
        "fuzz",
        "raft-partitions",
        "--seeds",
        "0..1",
        "--corpus",
        s(&dir),
        "--report-dir",
        s(&dir),
    ]);
    assert_eq!(o.status.code(), Some(2), "a folder is no corpus file");
    let _ = std::fs::remove_dir_all(&dir);
}
