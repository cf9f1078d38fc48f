//! Outputs are checked before the work: whichever command (a campaign, a
//! search, a walk, a bug hunt) and whichever output it cannot write (a
//! report folder that is a file or lies under one, a summary where a
//! folder is, or under a file, or in a place nobody may write), it exits 2
//! with one line naming the flag, before a single seed runs. Numbers the
//! machine bounds (`--jobs`) are refused the same way; a path printed back
//! cannot forge a line; an error line quoting megabytes stays short.

use crate::fixtures::{dst, folder};
use crate::mutate::config;
use proptest::prelude::*;

/// A command that would run for minutes were its outputs not checked
/// first, with `flag` naming `path`.
fn command(which: usize, flag: &str, path: &str) -> Vec<String> {
    let mut a: Vec<String> = match which % 4 {
        0 => vec!["fuzz", "raft-partitions", "--seeds", "0..100000"],
        1 => vec!["search", "raft-partitions", "--runs", "100000"],
        2 => vec!["explore", "raft-crash-restart", "--deviations", "3"],
        _ => vec!["mutants", "--max-seeds", "100000"],
    }
    .into_iter()
    .map(String::from)
    .collect();
    a.extend([flag.to_string(), path.to_string()]);
    a
}

/// A path no output can be written to, in a folder holding `file` (a
/// plain file) and `dir` (a folder).
fn unwritable(n: usize) -> &'static str {
    [
        "file",
        "file/below",
        "file/below/deeper",
        "/proc/dst-nowhere/x",
        "dir/../file/x",
    ][n % 5]
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn an_output_that_cannot_be_written_is_refused_before_the_work(which in 0usize..4, at in 0usize..5, summary in any::<bool>()) {
        let dir = folder("before");
        std::fs::write(dir.join("file"), "x").unwrap();
        std::fs::create_dir_all(dir.join("dir")).unwrap();
        // Only campaigns write summaries; a folder is no summary either.
        let (flag, path) = if summary && which == 0 {
            ("--summary", if at == 0 { "dir" } else { unwritable(at) })
        } else {
            ("--report-dir", unwritable(at))
        };
        let started = std::time::Instant::now();
        let o = dst(&dir, &command(which, flag, path).iter().map(String::as_str).collect::<Vec<_>>());
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        prop_assert_eq!(o.status.code(), Some(2), "{} {}: {}", flag, path, err);
        prop_assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
        prop_assert_eq!(err.lines().count(), 1, "{}", err);
        prop_assert!(err.contains(flag), "{}", err);
        // Not a timing assertion: a campaign of 100,000 seeds that ran
        // before refusing would take minutes, not seconds.
        prop_assert!(started.elapsed().as_secs() < 60, "ran before refusing");
        prop_assert_eq!(std::fs::read_to_string(dir.join("file")).unwrap(), "x");
    }

    #[test]
    fn jobs_past_what_a_machine_runs_are_refused(jobs in prop_oneof![1025u64..100_000, Just(u64::MAX), Just(1u64 << 32)]) {
        let dir = folder("before-jobs");
        let o = dst(&dir, &["fuzz", "raft-partitions", "--seeds", "0..100000", "--jobs", &jobs.to_string()]);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        prop_assert_eq!(o.status.code(), Some(2), "{}", err);
        prop_assert!(err.contains("--jobs") && err.lines().count() == 1, "{}", err);
    }

    #[test]
    fn a_printed_path_forges_no_line(name in "[a-z]{1,6}", breaks in prop::sample::select(vec!["\n", "\r", "\u{1b}[2K\r", "\u{2028}", "\n\n"])) {
        let dir = folder("before-paths");
        let report = format!("{name}{breaks}FORGED.json");
        let o = dst(&dir, &["run", "raft-crash-restart", "--seed", "0", "--bug", "hardstate-not-persisted", "--report", &report]);
        prop_assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        prop_assert!(out.lines().all(|l| !l.starts_with("FORGED")), "{}", out);
        prop_assert!(out.contains("FORGED.json"), "{}", out);
        prop_assert!(dir.join(&report).is_file());
    }
}

#[test]
fn an_error_line_quoting_megabytes_stays_short() {
    let dir = folder("before-long");
    // The longest one argument Linux passes is 128 KiB.
    let name = "x".repeat(100_000);
    let o = dst(&dir, &["fuzz", &name, "--seeds", "0..1"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{}", &err[..err.len().min(200)]);
    assert_eq!(err.lines().count(), 1);
    assert!(err.len() < 4_000, "{} bytes", err.len());
    assert!(err.contains("bytes more"), "{}", &err[..200]);
}
