//! `dst check` as a user meets it: the three formats, the verdicts and
//! their exit codes (0 linearizable, 1 not, 3 unknown, 2 malformed).

mod models;

use std::path::{Path, PathBuf};

#[path = "../support/mod.rs"]
mod support;
use support::dst_here as dst;

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
    // Values repeat, so that the register is searched.
    let writes: Vec<String> = (0..4).map(|p| format!("{p} :invoke :write {}", p % 2)).collect();
    let mut lines: Vec<&str> = writes.iter().map(String::as_str).collect();
    let oks: Vec<String> = (0..4).map(|p| format!("{p} :ok :write {}", p % 2)).collect();
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
fn one_memory_cap_covers_the_search_and_the_reading() {
    // 20 clients writing values 1..=5: the search needs far more than 8 MiB.
    let shape = linearizability::gen::Shape {
        ops: 1_000,
        clients: 20,
        unknown_min: 10,
        unknown_max: 10,
        distinct_values: Some(5),
    };
    let h = linearizability::gen::register_history(1, shape);
    let p = fixture("memo.edn", &linearizability::gen::to_jepsen_edn(&h));
    let cap = 8u64 << 20;
    for flag in ["--max-mib", "--memo-mib-max"] {
        let (code, out, _) = check(&p, &[flag, "8"]);
        assert_eq!(code, Some(3), "{out}");
        assert!(
            out.contains("unknown: the check held more than its memory cap of 8 MiB on key register after ")
                && out.ends_with("; a larger --max-mib may decide it\n"),
            "{out}"
        );
    }
    let (code, out, _) = check(&p, &["--max-mib", "8", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, Some(3));
    assert_eq!((v["limit"].as_str(), v["max_mib"].as_u64()), (Some("memory"), Some(8)));
    // Counted, not measured: what the check held stops within one step of
    // the cap.
    let peak = v["peak_heap_bytes"].as_u64().unwrap();
    assert!(cap < peak && peak < cap + (1 << 20), "peak {peak}");
    assert_malformed(&p, &["--max-mib", "0"], "--max-mib");

    // A history that alone takes more than the cap is left unread.
    let big = linearizability::gen::register_history(
        2,
        linearizability::gen::Shape {
            ops: 40_000,
            clients: 5,
            unknown_min: 0,
            unknown_max: 0,
            distinct_values: None,
        },
    );
    let p = fixture("big.edn", &linearizability::gen::to_jepsen_edn(&big));
    assert_eq!(check(&p, &[]).0, Some(0));
    let (code, out, _) = check(&p, &["--max-mib", "2"]);
    assert_eq!(code, Some(3), "{out}");
    assert!(
        out.ends_with(": unknown: the history took more than the memory cap of 2 MiB while it was read; a larger --max-mib may decide it\n"),
        "{out}"
    );
    let (code, out, _) = check(&p, &["--max-mib", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (code, v["result"].as_str(), v["limit"].as_str()),
        (Some(3), Some("unknown"), Some("memory"))
    );
}

#[test]
fn unique_values_are_decided_without_a_search() {
    let shape = linearizability::gen::Shape {
        ops: 6_000,
        clients: 6,
        unknown_min: 60,
        unknown_max: 60,
        distinct_values: None,
    };
    let mut h = linearizability::gen::register_history(2, shape);
    let p = fixture("unique.edn", &linearizability::gen::to_jepsen_edn(&h));
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.ends_with(" 0 search steps; decided without a search: unique values)\n"),
        "{out}"
    );
    assert!(linearizability::gen::inject_stale_read(&mut h, 2));
    let p = fixture("unique-stale.edn", &linearizability::gen::to_jepsen_edn(&h));
    let (code, out, _) = check(&p, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("cannot place: read -> "), "{out}");
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
    // A compact report's run is made again with the memory cap lifted: its
    // own checkers judge it as they did (their warnings go to stderr).
    let (code, out, err) = check(&report, &["--max-mib", "8"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!err.contains("memory cap"), "{err}");

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

/// A register history as Jepsen writes history.edn, one op a line: a
/// record, the nemesis, extra keys, keys in any order, a failed cas, a
/// write that timed out and a process reused after it.
const EDN_LINES: &str = r#"{:type :invoke, :f :write, :value 1, :process 0, :time 1000, :index 0}
#jepsen.history.Op{:index 1, :time 2000, :type :ok, :process 0, :f :write, :value 1}
{:process :nemesis, :type :info, :f :start, :value [:isolated {"n1" #{"n2" "n3"}}]}
{:process 1, :type :invoke, :f :cas, :value [2 3]}
{:f :cas, :value [2 3], :process 1, :type :fail, :error [:mismatch "expected 2"]}
{:process 2, :type :invoke, :f :write, :value 4}
{:process 2, :type :info, :f :write, :value 4, :error :timeout}
{:process 2, :type :invoke, :f :read, :value nil}
{:value 1, :process 2, :f :read, :type :ok}
{:process 3 :type :invoke :f :cas :value [1 5]}
{:process 3 :type :ok :f :cas :value [1 5]}
{:process 4, :type :invoke, :f :read, :value nil}
{:process 4, :type :ok, :f :read, :value 5}
"#;

#[test]
fn jepsen_edn_line_form_verdicts() {
    let ok = fixture("history-lines.edn", EDN_LINES);
    for extra in [&[][..], &["--format", "jepsen-edn"], &["--model", "cas-register"]] {
        let (code, out, err) = check(&ok, extra);
        assert_eq!(code, Some(0), "{extra:?}: {out}{err}");
        assert!(out.contains("history-lines.edn: linearizable (5 ops on 1 key"), "{out}");
    }
    // The write that timed out may take effect late: a read of 4 at the end is fine.
    let late = EDN_LINES.replace(":read, :value 5}", ":read, :value 4}");
    let (code, out, _) = check(&fixture("late.edn", &late), &[]);
    assert_eq!(code, Some(0), "{out}");
    // A stale read: 1 was replaced by the cas before the read began.
    let stale = EDN_LINES.replace(":read, :value 5}", ":read, :value 1}");
    let (code, out, _) = check(&fixture("stale.edn", &stale), &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: read -> 1 by client 4 (lines 12..13)"),
        "{out}"
    );
    assert!(out.contains("cas [1 5] by client 3 (lines 10..11)"), "{out}");
    // Only the failed cas could have written 3: it never happened.
    let failed = EDN_LINES.replace(":read, :value 5}", ":read, :value 3}");
    assert_eq!(check(&fixture("failed.edn", &failed), &[]).0, Some(1));
}

#[test]
fn jepsen_edn_vector_form_verdicts() {
    let vector = |ops: &str| format!("[{}]\n", ops.trim_end().replace('\n', "\n "));
    let (code, out, _) = check(&fixture("history-vector.edn", &vector(EDN_LINES)), &["--json"]);
    assert_eq!(code, Some(0), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["format"].as_str(), v["model"].as_str()),
        (Some("jepsen-edn"), Some("cas-register"))
    );
    assert_eq!(v["positions"], "line");
    // All on one line, positions are op indexes (as Jepsen's :index).
    let one_line = format!("[{}]", EDN_LINES.trim_end().replace('\n', " "));
    let stale = one_line.replace(":read, :value 5}", ":read, :value 1}");
    let (code, out, _) = check(&fixture("one-line.edn", &stale), &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: read -> 1 by client 4 (ops 11..12)"),
        "{out}"
    );
}

#[test]
fn jepsen_edn_values_models_and_initial_values() {
    let text = "{:process 0, :type :invoke, :f :write, :value :a}\n\
                {:process 0, :type :ok, :f :write, :value :a}\n\
                {:process 1, :type :invoke, :f :read, :value nil}\n\
                {:process 1, :type :ok, :f :read, :value nil}\n";
    let p = fixture("keywords.edn", text);
    let (code, out, _) = check(&p, &["--model", "register"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: read -> nil by client 1 (lines 3..4)"),
        "{out}"
    );
    let concurrent = fixture(
        "concurrent.edn",
        &text.replacen("{:process 0, :type :ok, :f :write, :value :a}\n", "", 1),
    );
    let (code, out, _) = check(&concurrent, &[]);
    assert_eq!(code, Some(0), "{out}");
    // Starting at 0, no one could read nil.
    let (code, out, _) = check(&concurrent, &["--initial", "0"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: read -> nil by client 1 (lines 2..3)"),
        "{out}"
    );
    let strings = text
        .replace(":value :a", ":value \"a\"")
        .replace(":ok, :f :read, :value nil", ":ok, :f :read, :value \"a\"");
    assert_eq!(check(&fixture("strings.edn", &strings), &[]).0, Some(0));
    let cas = fixture("cas.edn", "{:process 0, :type :invoke, :f :cas, :value [0 1]}\n");
    assert_eq!(check(&cas, &["--initial", "-1"]).0, Some(0));
    assert_malformed(
        &cas,
        &["--model", "register"],
        "cas.edn:1: a :cas op, but the register model has only :read and :write",
    );
    assert_malformed(
        &cas,
        &["--initial", "[0"],
        "--initial: expected ']' to close the vector",
    );
    assert_malformed(&cas, &["--model", "cas"], "invalid value 'cas' for '--model <MODEL>'");
    let kv = fixture(
        "kv-model.edn",
        "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n",
    );
    assert_malformed(
        &kv,
        &["--model", "register"],
        "--model is for jepsen-edn histories, and",
    );
    assert_malformed(&kv, &["--initial", "0"], "--initial is for register histories");
    let log = fixture("initial.log", &jepsen(&["0 :invoke :read nil", "0 :ok :read 7"]));
    assert_eq!(check(&log, &["--initial", "7"]).0, Some(0));
    assert_eq!(check(&log, &[]).0, Some(1));
    assert_malformed(
        &log,
        &["--initial", ":a"],
        "--initial: a Jepsen log's register holds integers, not :a",
    );
}

#[test]
fn malformed_jepsen_edn_names_the_line() {
    let p = fixture(
        "bad-type.edn",
        "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :done, :f :read}]\n",
    );
    assert_malformed(
        &p,
        &[],
        "bad-type.edn:2: expected :type :invoke, :ok, :fail or :info, found :done",
    );
    let p = fixture(
        "open.edn",
        "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok, :f :read, :value \"x}]\n",
    );
    assert_malformed(&p, &[], "open.edn:2: unterminated string");
    let p = fixture(
        "deep.edn",
        &format!(
            "{{:process 0, :type :invoke, :f :write, :value {}}}",
            "[".repeat(100_000)
        ),
    );
    assert_malformed(&p, &[], "deep.edn:1: nested deeper than");
    let p = fixture("txn.edn", "{:process 0, :type :invoke, :f :txn, :value [[:r 1 nil]]}\n");
    assert_malformed(
        &p,
        &["--format", "jepsen-edn"],
        "txn.edn:1: expected :f :read, :write, :cas, :acquire, :release, :add, :enqueue or :dequeue (Knossos' models), found :txn",
    );
}

/// Random small register histories through the binary, as a Jepsen log
/// (the direct path) and as Jepsen EDN: the verdicts are the same.
#[test]
fn jepsen_edn_agrees_with_the_jepsen_log_path() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut verdicts = [0; 2];
    for h in 0..40 {
        let (mut log, mut edn) = (Vec::new(), String::new());
        let mut open: Vec<Option<(&str, String)>> = vec![None; 4];
        for _ in 0..8 + next(6) {
            let p = next(4) as usize;
            match open[p].take() {
                None => {
                    let (f, v) = match next(3) {
                        0 => ("read", "nil".to_string()),
                        1 => ("write", next(3).to_string()),
                        _ => ("cas", format!("[{} {}]", next(3), next(3))),
                    };
                    log.push(format!("{p} :invoke :{f} {v}"));
                    edn += &format!("{{:process {p}, :type :invoke, :f :{f}, :value {v}}}\n");
                    open[p] = Some((f, v));
                }
                Some((f, v)) => {
                    let kind = ["ok", "ok", "ok", "fail", "info"][next(5) as usize];
                    let v = if f == "read" && kind == "ok" {
                        ["nil", "0", "1", "2"][next(4) as usize].to_string()
                    } else {
                        v
                    };
                    log.push(format!("{p} :{kind} :{f} {v}"));
                    edn += &format!(
                        "#jepsen.history.Op{{:type :{kind}, :value {v}, :f :{f}, :process {p}, :index {h}}}\n"
                    );
                }
            }
        }
        let log: Vec<&str> = log.iter().map(String::as_str).collect();
        let (a, out_a, _) = check(
            &fixture(&format!("random-{h}.log"), &jepsen(&log)),
            &["--format", "jepsen"],
        );
        let (b, out_b, _) = check(&fixture(&format!("random-{h}.edn"), &edn), &[]);
        assert_eq!(a, b, "history {h}:\n{out_a}\n{out_b}\n{edn}");
        verdicts[usize::from(a == Some(1))] += 1;
    }
    assert!(verdicts[0] > 5 && verdicts[1] > 5, "{verdicts:?}");
}

/// A history with no client operation to check is linearizable, as Knossos
/// and porcupine say, in every format, with a note that there was nothing
/// to check; text that is not a history at all is still refused.
/// A history.edn larger than what is read ahead at a time (a MiB) is read
/// as a stream: the vector's maps, some of them across the ends of chunks,
/// a vector cut short, and a file whose fault lies past its first bad op,
/// which is refused for that fault as when the file was read whole.
#[test]
fn large_jepsen_edn_files_are_read_as_a_stream() {
    let mut ops = String::from("[");
    for i in 0..30_000 {
        let pad = "x".repeat(i % 97);
        ops += &format!(
            "{{:process 0, :type :invoke, :f :write, :value {i}}}\n \
             {{:process 0, :type :ok, :f :write, :value {i}, :pad \"{pad}\"}}\n "
        );
    }
    let whole = format!("{}]\n", ops.trim_end());
    assert!(whole.len() > 3 << 20);
    let (code, out, err) = check(&fixture("big-vector.edn", &whole), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("linearizable (30000 ops on 1 key"), "{out}");
    let stale = whole.replace(
        ":value 29999}",
        ":value 29999}\n {:process 1, :type :invoke, :f :read}\n {:process 1, :type :ok, :f :read, :value 3}",
    );
    let (code, out, _) = check(&fixture("big-stale.edn", &stale), &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: read -> 3 by client 1 (lines 60000..60001)"),
        "{out}"
    );
    let cut = &whole[..whole[..whole.len() * 2 / 3].rfind("}\n").unwrap() + 2];
    assert_malformed(
        &fixture("cut-vector.edn", cut),
        &[],
        "cut-vector.edn:1: expected ']' to close the vector, found the end of the input",
    );
    let cut_map = &whole[..whole.len() * 2 / 3 + 5];
    let line = cut_map.matches('\n').count() + 1;
    assert_malformed(
        &fixture("cut-map.edn", cut_map),
        &[],
        &format!("cut-map.edn:{line}: expected"),
    );
    let mut bad = whole.replacen(":type :ok", ":type :done", 1).into_bytes();
    let at = bad.len();
    bad.extend_from_slice(b"\xff");
    let p = fixture("not-utf8.edn", "");
    std::fs::write(&p, &bad).unwrap();
    assert_malformed(
        &p,
        &[],
        &format!("not UTF-8 (invalid utf-8 sequence of 1 bytes from index {at})"),
    );
}

#[test]
fn histories_with_nothing_to_check_are_linearizable_and_say_so() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("empty.log", "", &[]),
        ("empty-jepsen.log", "\n\n", &["--format", "jepsen"]),
        ("empty.edn", "", &["--format", "edn"]),
        ("comments.edn", "; nothing yet\n", &["--format", "edn"]),
        ("empty-vector.edn", "[]", &[]),
        ("empty-jepsen.edn", "", &["--format", "jepsen-edn"]),
        ("nemesis.edn", "{:process :nemesis, :type :info, :f :start}\n", &[]),
        ("empty.jsonl", "", &["--format", "json"]),
        (
            "nemesis.log",
            "INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n",
            &["--format", "jepsen"],
        ),
        (
            "failed.edn",
            "{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :fail, :f :write, :value 1}\n",
            &[],
        ),
    ];
    for (name, text, extra) in cases {
        let p = fixture(name, text);
        let (code, out, err) = check(&p, extra);
        assert_eq!(code, Some(0), "{name}: {out}{err}");
        assert!(
            out.contains("linearizable") && out.contains("nothing to check"),
            "{name}: {out}"
        );
        let (_, json, _) = check(&p, &[&extra[..], &["--json"]].concat());
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["result"], "linearizable", "{name}: {json}");
        assert!(
            v["note"].as_str().is_some_and(|n| n.starts_with("nothing to check")),
            "{name}: {json}"
        );
    }
    let p = fixture("prose.log", "nothing to see\n");
    assert_malformed(&p, &[], "prose.log: no Jepsen history lines");
}

/// `--json` says where the time and memory went and how each key was
/// settled: by unique values or by a search, in how many steps.
#[test]
fn json_reports_time_memory_and_the_procedure_per_key() {
    let lines = [
        r#"{:process 0, :type :invoke, :f :put, :key "1", :value "a"}"#,
        r#"{:process 0, :type :ok, :f :put, :key "1", :value "a"}"#,
        r#"{:process 1, :type :invoke, :f :put, :key "2", :value "x"}"#,
        r#"{:process 1, :type :ok, :f :put, :key "2", :value "x"}"#,
        r#"{:process 1, :type :invoke, :f :put, :key "2", :value "x"}"#,
        r#"{:process 1, :type :ok, :f :put, :key "2", :value "x"}"#,
        r#"{:process 0, :type :invoke, :f :get, :key "2", :value nil}"#,
        r#"{:process 0, :type :ok, :f :get, :key "2", :value "x"}"#,
    ];
    let p = fixture("keys.edn", &(lines.join("\n") + "\n"));
    let (code, out, err) = check(&p, &["--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &v["seconds"];
    let (parse, search, total) = (
        s["read_and_parse"].as_f64().unwrap(),
        s["search"].as_f64().unwrap(),
        s["total"].as_f64().unwrap(),
    );
    assert!(parse >= 0.0 && search >= 0.0 && total + 1e-9 >= parse + search, "{s}");
    assert!(v["peak_heap_bytes"].as_u64().is_some_and(|b| b > 0), "{v}");
    let by_key = v["by_key"].as_array().unwrap();
    assert_eq!(by_key.len() as u64, v["keys"].as_u64().unwrap(), "{v}");
    let how = |k: &str| {
        by_key
            .iter()
            .find(|e| e["key"].as_str().unwrap().contains(k))
            .unwrap()
            .clone()
    };
    // Key 1 writes one value once: unique; key 2 writes "x" twice: searched.
    assert_eq!(how("1")["decided_by"], "unique values", "{v}");
    assert_eq!(how("2")["decided_by"], "search", "{v}");
    let steps: u64 = by_key.iter().map(|e| e["steps"].as_u64().unwrap()).sum();
    assert_eq!(steps, v["steps"].as_u64().unwrap());
    assert!(by_key.iter().all(|e| e["result"] == "linearizable"));
}
