//! What a campaign prints for its user: expected violations counted by
//! cause in the summary (one line per seed only with --verbose), how many
//! seeds --determinism ran twice, what a shrunk run keeps besides its plan,
//! and hints named for the binary that runs, a user's own as much as `dst`.

mod support;

use support::{dst, run, scratch};

fn out(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn expected_violations_are_counted_by_cause_and_listed_only_with_verbose() {
    let dir = scratch("output", "expected");
    let args = [
        "fuzz",
        "raft-crash-restart",
        "--seeds",
        "0..8",
        "--bug",
        "hardstate-not-persisted",
        "--jobs",
        "1",
    ];
    let o = dst(&dir, &args);
    let (stdout, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("expected raft-crash-restart seed"), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("expected: no-dual-leaders on "))
        .unwrap_or_else(|| panic!("no count line: {stdout}"));
    let n: usize = line
        .split(" on ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(line.contains("(dst replay reports/raft-crash-restart-"), "{line}");

    let o = dst(&dir, &[&args[..], &["--verbose"]].concat());
    let (_, stderr) = out(&o);
    let listed = stderr
        .lines()
        .filter(|l| l.starts_with("expected raft-crash-restart seed "))
        .count();
    assert_eq!(listed, n, "{stderr}");
}

#[test]
fn determinism_says_how_many_seeds_ran_twice() {
    let dir = scratch("output", "determinism");
    let o = dst(
        &dir,
        &["fuzz", "raft-crash-restart", "--seeds", "0..12", "--determinism"],
    );
    let (stdout, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("determinism: 12 seeds run twice, 0 of them differed"),
        "{stdout}"
    );
    let o = dst(&dir, &["fuzz", "raft-crash-restart", "--seeds", "0..12"]);
    assert!(!out(&o).0.contains("determinism:"));
}

#[test]
fn shrink_names_what_it_kept_besides_the_plan() {
    let dir = scratch("output", "kept");
    let run = [
        "run",
        "raft-check-quorum-reads",
        "--seed",
        "1",
        "--bug",
        "no-check-quorum",
        "--report",
        "r.json",
    ];
    assert_eq!(dst(&dir, &run).status.code(), Some(0));
    let o = dst(&dir, &["shrink", "r.json", "--max-runs", "60", "--json"]);
    let (stdout, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let kept: Vec<&str> = v["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.shrunk.json")).unwrap()).unwrap();
    let deaf = report["swarm"]["impair_leader"].as_bool();
    assert_eq!(
        kept.iter().any(|k| k.contains("leader left")),
        deaf.is_some(),
        "{kept:?} {report}"
    );
    let torn = report["swarm"]["torn_write_probability"].as_f64().unwrap() > 0.0;
    assert_eq!(kept.iter().any(|k| k.starts_with("torn writes")), torn, "{kept:?}");
}

#[test]
fn hints_name_the_binary_that_runs() {
    let dir = scratch("output", "program");
    let me = dir.join("mysim");
    // A hard link names the binary anew without a copy of its hundreds of
    // megabytes (copied only where /tmp is another file system).
    if std::fs::hard_link(env!("CARGO_BIN_EXE_dst"), &me).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_dst"), &me).unwrap();
    }
    let bug = ["--bug", "hardstate-not-persisted"];
    let fuzz = [
        "fuzz",
        "raft-crash-restart",
        "--seeds",
        "0..3",
        "--no-reports",
        "--jobs",
        "1",
    ];
    let o = run(&me, &dir, &[&fuzz[..], &bug].concat());
    let (stdout, _) = out(&o);
    assert!(stdout.contains("`mysim run` with the seed writes one"), "{stdout}");
    let one = ["run", "raft-crash-restart", "--seed", "0", "--report", "my report.json"];
    let o = run(&me, &dir, &[&one[..], &bug].concat());
    let (stdout, _) = out(&o);
    assert!(stdout.contains("(replay: mysim replay 'my report.json')"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
