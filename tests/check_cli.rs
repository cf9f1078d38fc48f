//! `dst check` as a user meets it: the three formats, the verdicts and
//! their exit codes (0 linearizable, 1 not, 3 unknown, 2 malformed).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dst"))
        .args(args)
        .output()
        .expect("dst runs")
}

fn fixture(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-check-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn check(path: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["check", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = dst(&args);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    (o.status.code(), out, err)
}

/// Exit 2, one line on stderr containing `needle`, nothing on stdout.
fn assert_malformed(path: &Path, extra: &[&str], needle: &str) {
    let (code, out, err) = check(path, extra);
    assert_eq!(code, Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "want one line, got: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(out.is_empty() && !err.contains("panicked"), "{out}{err}");
}

fn jepsen(lines: &[&str]) -> String {
    // Tabs between the fields, as Jepsen writes them; the value keeps its spaces.
    let fields = |l: &str| l.splitn(4, ' ').collect::<Vec<_>>().join("\t");
    lines
        .iter()
        .map(|l| format!("INFO  jepsen.util - {}\n", fields(l)))
        .collect()
}

#[test]
fn jepsen_register_verdicts() {
    let ok = fixture(
        "ok.log",
        &jepsen(&[
            "0 :invoke :write 1",
            "1 :invoke :read nil",
            "0 :ok :write 1",
            "1 :ok :read nil",
        ]),
    );
    let (code, out, _) = check(&ok, &["--format", "jepsen"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ok.log: linearizable (2 ops on 1 key"), "{out}");

    let stale = fixture(
        "stale.log",
        &jepsen(&[
            "0 :invoke :write 1",
            "0 :ok :write 1",
            "1 :invoke :cas [1 2]",
            "1 :ok :cas [1 2]",
            "2 :invoke :read nil",
            "2 :ok :read 1",
        ]),
    );
    let (code, out, _) = check(&stale, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("NOT linearizable on key register"), "{out}");
    assert!(
        out.contains("cannot place: read -> 1 by client 2 (lines 5..6)"),
        "{out}"
    );
    assert!(
        out.contains("cas [1 2] by client 1 (lines 3..4)") && out.contains("state there: 2"),
        "{out}"
    );

    // The same read is fine if the cas only timed out: it may never have happened.
    let text = std::fs::read_to_string(&stale)
        .unwrap()
        .replace(":ok\t:cas\t[1 2]", ":info\t:cas\t:timed-out");
    let (code, out, _) = check(&fixture("info.log", &text), &[]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn an_exhausted_budget_is_unknown() {
    let writes: Vec<String> = (0..4).map(|p| format!("{p} :invoke :write {p}")).collect();
    let mut lines: Vec<&str> = writes.iter().map(String::as_str).collect();
    let oks: Vec<String> = (0..4).map(|p| format!("{p} :ok :write {p}")).collect();
    lines.extend(oks.iter().map(String::as_str));
    lines.extend(["9 :invoke :read nil", "9 :ok :read 0"]);
    let p = fixture("budget.log", &jepsen(&lines));
    let (code, out, _) = check(&p, &["--budget", "3"]);
    assert_eq!(code, Some(3), "{out}");
    assert!(
        out.contains("unknown: gave up on key register after 3 search steps"),
        "{out}"
    );
    let (code, out, _) = check(&p, &["--budget", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, v["result"].as_str()), (Some(3), Some("unknown")));
    assert_eq!(check(&p, &[]).0, Some(0));
}

#[test]
fn edn_kv_verdicts() {
    let line =
        |p: u32, t: &str, f: &str, v: &str| format!("{{:process {p}, :type :{t}, :f :{f}, :key \"k\", :value {v}}}\n");
    let mut text = line(0, "invoke", "append", "\"a\"") + &line(0, "ok", "append", "\"a\"");
    text += &line(1, "invoke", "append", "\"b\"");
    text += &line(1, "ok", "append", "\"b\"");
    text += &line(2, "invoke", "get", "nil");
    let good = text.clone() + &line(2, "ok", "get", "\"ab\"");
    let (code, out, _) = check(&fixture("ok.edn", &good), &[]);
    assert_eq!(code, Some(0), "{out}");
    // A lost append: "b" was acknowledged before the read began.
    let lost = text + &line(2, "ok", "get", "\"a\"");
    let (code, out, _) = check(&fixture("lost.edn", &lost), &["--format", "edn", "--json"]);
    assert_eq!(code, Some(1), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"], "not-linearizable");
    assert_eq!(v["key"], "\"k\"");
    assert_eq!(v["unplaced"]["invoke"], 5);
    assert_eq!(v["linearized"].as_array().map(Vec::len), Some(2));
}

#[test]
fn dst_reports_and_event_lines() {
    let dir = std::env::temp_dir().join(format!("dst-check-cli-{}", std::process::id()));
    let report = dir.join("run.json");
    let o = dst(&[
        "run",
        "raft-partitions",
        "--seed",
        "0",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let (code, out, _) = check(&report, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains(": linearizable ("), "{out}");

    let events = [
        r#"{"i":0,"t_ns":0,"kind":"invoke","client":0,"op_id":0,"op":{"f":"put","key":1,"value":5}}"#,
        r#"{"i":1,"t_ns":9,"kind":"ok","client":0,"op_id":0,"result":{"r":"done"}}"#,
        r#"{"i":2,"t_ns":10,"node":1,"kind":"boot","restart":true}"#,
        r#"{"i":3,"t_ns":11,"kind":"invoke","client":1,"op_id":1,"op":{"f":"get","key":1}}"#,
        r#"{"i":4,"t_ns":12,"kind":"ok","client":1,"op_id":1,"result":{"r":"value","value":[]}}"#,
    ];
    let p = fixture("events.jsonl", &(events.join("\n") + "\n"));
    let (code, out, _) = check(&p, &["--format", "json"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: get -> [] by client 1 (events 3..4)"),
        "{out}"
    );

    let broken = format!("{}\n{}\n{{\"i\": 2\n", events[0], events[1]);
    assert_malformed(
        &fixture("broken.jsonl", &broken),
        &[],
        "broken.jsonl:3: not a dst event",
    );
    let text = std::fs::read_to_string(&report).unwrap();
    assert_malformed(&fixture("cut.json", &text[..text.len() / 2]), &[], "truncated report");
}

#[test]
fn malformed_histories_name_the_line() {
    let p = fixture("bad.log", &jepsen(&["0 :invoke :read nil", "0 :done :read nil"]));
    assert_malformed(
        &p,
        &[],
        "bad.log:2: expected :invoke, :ok, :fail or :info, found ':done'",
    );
    let p = fixture("twice.log", &jepsen(&["0 :invoke :read nil", "0 :invoke :read nil"]));
    assert_malformed(
        &p,
        &[],
        "twice.log:2: process 0 invokes again while its operation from line 1",
    );
    let p = fixture(
        "bad.edn",
        "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n{:process 0, :type\n",
    );
    assert_malformed(&p, &[], "bad.edn:2: expected a value");
    let p = fixture("empty.log", "nothing to see\n");
    assert_malformed(&p, &[], "empty.log: no Jepsen history lines");
    let p = fixture(
        "kv.edn",
        "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n",
    );
    assert_malformed(&p, &["--format", "jepsen"], "no Jepsen history lines");
    assert_malformed(
        &PathBuf::from("/no/such/history.log"),
        &[],
        "cannot read /no/such/history.log",
    );
    let o = dst(&["check", "x.log", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2));
}
