//! The command `fuzz` prints to run a failing seed again is a command a
//! shell runs as printed: whatever the scenario file's path holds (quotes,
//! spaces, `$`, backticks, a leading dash, letters beyond ASCII), pasted
//! into `sh` it runs that file's seed and fails the same way.

use crate::fixtures::{folder, scenario_file};
use crate::mutate::config;
use proptest::prelude::*;
use std::process::Command;

fn name() -> impl Strategy<Value = String> {
    let c = prop::sample::select(vec![
        'a', 'b', 'z', '0', ' ', '\'', '"', '$', '`', ';', '&', '*', '?', '\\', '(', ')', '!', '#', '~', '-', '=', '%',
        'é', 'ß', '→', '{', '}', '[', ']', '|', '<', '>',
    ]);
    prop::collection::vec(c, 1..10).prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn the_printed_replay_command_runs_as_printed(dir in prop::option::of(name()), file in name(), seed in 0u64..3) {
        let root = folder("hints");
        let rel = match &dir {
            Some(d) => format!("{d}/{file}.json"),
            None => format!("{file}.json"),
        };
        prop_assume!(!rel.split('/').any(|p| p == "." || p == ".."));
        let changes = [("expect", "pass".into())];
        scenario_file("raft-skew-beyond-bound", &changes, &root.join(&rel));
        // As a user types a path that starts with a dash.
        let rel = if rel.starts_with('-') { format!("./{rel}") } else { rel };
        let range = format!("{seed}..{}", seed + 1);
        let o = Command::new(env!("CARGO_BIN_EXE_dst")).env("DST_MIN_FREE", "0")
            .args(["fuzz", &rel, "--seeds", &range, "--no-reports"])
            .current_dir(&root)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .expect("dst runs");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        prop_assert_eq!(o.status.code(), Some(1), "{}{}", out, String::from_utf8_lossy(&o.stderr));
        let prefix = format!("unexpected seed {seed}: ");
        let hint = out
            .lines()
            .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
            .ok_or_else(|| TestCaseError::fail(format!("no hint for seed {seed}: {out}")))?;
        let rest = hint.strip_prefix("dst ").ok_or_else(|| TestCaseError::fail(format!("hint {hint:?}")))?;
        let again = Command::new("sh")
            .arg("-c")
            .arg(format!("\"$0\" {rest}"))
            .arg(env!("CARGO_BIN_EXE_dst"))
            .current_dir(&root)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .expect("sh runs");
        let said = String::from_utf8_lossy(&again.stdout).into_owned();
        let err = String::from_utf8_lossy(&again.stderr).into_owned();
        prop_assert_eq!(again.status.code(), Some(1), "{} -> {}{}", hint, said, err);
        let line = format!("raft-skew-beyond-bound seed {seed}: ");
        prop_assert!(said.contains(&line), "{} -> {}", hint, said);
    }
}
