//! Text from files reaches the terminal and the CI job page as text: any
//! string of a real summary or report replaced by drawn text full of what a
//! terminal obeys (escape sequences, carriage returns, C1 controls,
//! bidirectional overrides, line separators) and of Markdown, every
//! command that reads it prints nothing a terminal would obey, its `--json`
//! stays JSON, and the job page keeps the shape of its tables.

use crate::fixtures::{folder, scenario_file};
use crate::mutate::config;
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn dst(dir: &Path, args: &[&str], page: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dst"));
    c.env("DST_MIN_FREE", "0");
    c.args(args).current_dir(dir).env_remove("GITHUB_STEP_SUMMARY");
    if let Some(p) = page {
        c.env("GITHUB_STEP_SUMMARY", p);
    }
    c.output().expect("dst runs")
}

/// What a terminal would obey rather than show (tab and line feed aside).
fn obeyed(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{1b}[31m".to_string()),
        Just("\u{1b}]0;owned\u{7}".to_string()),
        Just("\u{1b}[2J\u{1b}[H".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\u{9b}1m".to_string()),
        Just("\u{7f}\u{8}".to_string()),
        Just("\u{202e}".to_string()),
        Just("\u{2066}x\u{2069}".to_string()),
        Just("\u{2028}".to_string()),
        Just("| a | b |".to_string()),
        Just("`".to_string()),
        Just("<script>x</script>".to_string()),
        Just("*[link](http://x)*".to_string()),
        "[a-z0-9 -]{1,8}",
        "\\PC{1,4}",
    ];
    prop::collection::vec(piece, 1..6).prop_map(|v| v.concat())
}

/// A folder with a summary of a campaign with unexpected failures and a
/// report of one of them, as JSON values.
fn inputs() -> &'static (PathBuf, Value, Value) {
    static I: OnceLock<(PathBuf, Value, Value)> = OnceLock::new();
    I.get_or_init(|| {
        let d = folder("terminal");
        scenario_file(
            "raft-skew-beyond-bound",
            &[("expect", "pass".into())],
            &d.join("skew.json"),
        );
        let o = dst(
            &d,
            &[
                "fuzz",
                "skew.json",
                "--seeds",
                "0..4",
                "--jobs",
                "1",
                "--summary",
                "s.json",
                "--report-dir",
                "r",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        let read =
            |p: PathBuf| -> Value { serde_json::from_str(&std::fs::read_to_string(p).expect("file")).expect("JSON") };
        let summary = read(d.join("s.json"));
        let report = std::fs::read_dir(d.join("r"))
            .expect("reports")
            .map(|e| e.expect("entry").path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .expect("a report");
        (d.clone(), summary, read(report))
    })
}

/// Where each string of `v` sits, as a JSON pointer (keys too: a key of an
/// object is text from the file as much as a value is).
fn strings(v: &Value, at: String, out: &mut Vec<(String, bool)>) {
    match v {
        Value::String(_) => out.push((at, false)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| strings(x, format!("{at}/{i}"), out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
            out.push((here.clone(), true));
            strings(x, here, out)
        }),
        _ => {}
    }
}

/// `v` with the string (or the key) at `pointer` replaced by `text`.
fn replaced(v: &Value, pointer: &str, key: bool, text: &str) -> Value {
    let mut v = v.clone();
    if key {
        let (parent, name) = pointer.rsplit_once('/').expect("a key");
        let name = name.replace("~1", "/").replace("~0", "~");
        if let Some(Value::Object(m)) = v.pointer_mut(parent) {
            if let Some(x) = m.remove(&name) {
                m.insert(text.to_string(), x);
            }
        }
    } else if let Some(s) = v.pointer_mut(pointer) {
        *s = text.into();
    }
    v
}

fn shown(what: &str, o: &Output) -> Result<(), TestCaseError> {
    for (name, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let t = String::from_utf8_lossy(bytes);
        let bad = t.chars().find(|c| obeyed(*c));
        prop_assert!(bad.is_none(), "{}: {} carries {:?}: {:?}", what, name, bad, t);
    }
    Ok(())
}

fn json_or_refused(what: &str, o: &Output) -> Result<(), TestCaseError> {
    if o.status.code() != Some(2) {
        let parsed = serde_json::from_slice::<Value>(&o.stdout).is_ok()
            || String::from_utf8_lossy(&o.stdout)
                .lines()
                .all(|l| serde_json::from_str::<Value>(l).is_ok());
        prop_assert!(
            parsed,
            "{}: --json is not JSON: {}",
            what,
            String::from_utf8_lossy(&o.stdout)
        );
    }
    Ok(())
}

/// Every row of each Markdown table has as many cell borders as its
/// header, counting only pipes that are not escaped.
fn tables_keep_their_shape(page: &str) -> Result<(), TestCaseError> {
    let pipes = |l: &str| {
        let mut n = 0;
        let mut escaped = false;
        for c in l.chars() {
            if c == '|' && !escaped {
                n += 1;
            }
            escaped = c == '\\' && !escaped;
        }
        n
    };
    let mut header = None;
    for l in page.lines() {
        if l.starts_with('|') {
            let h = *header.get_or_insert(pipes(l));
            prop_assert_eq!(pipes(l), h, "a row of another shape: {:?}\n{}", l, page);
        } else {
            header = None;
        }
    }
    let bad = page.chars().find(|c| obeyed(*c));
    prop_assert!(bad.is_none(), "the job page carries {:?}", bad);
    Ok(())
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn text_from_a_summary_is_shown_not_obeyed(at in any::<prop::sample::Index>(), text in hostile_text()) {
        let (dir, summary, _) = inputs();
        let mut at_list = Vec::new();
        strings(summary, String::new(), &mut at_list);
        let (pointer, key) = at.get(&at_list);
        let edited = replaced(summary, pointer, *key, &text);
        let file = dir.join("edited-summary.json");
        std::fs::write(&file, edited.to_string()).expect("temp file");
        let page = dir.join("page.md");
        let _ = std::fs::remove_file(&page);
        let o = dst(dir, &["merge", "edited-summary.json"], Some(&page));
        shown(&format!("merge ({pointer})"), &o)?;
        if let Ok(md) = std::fs::read_to_string(&page) {
            tables_keep_their_shape(&md)?;
        }
        let o = dst(dir, &["merge", "edited-summary.json", "--json"], None);
        shown(&format!("merge --json ({pointer})"), &o)?;
        json_or_refused(&format!("merge --json ({pointer})"), &o)?;
    }

    #[test]
    fn text_from_a_report_is_shown_not_obeyed(at in any::<prop::sample::Index>(), text in hostile_text()) {
        let (dir, _, report) = inputs();
        let mut at_list = Vec::new();
        strings(report, String::new(), &mut at_list);
        let (pointer, key) = at.get(&at_list);
        let edited = replaced(report, pointer, *key, &text);
        std::fs::write(dir.join("edited-report.json"), edited.to_string()).expect("temp file");
        for args in [
            &["replay", "edited-report.json"][..],
            &["replay", "edited-report.json", "--json"],
            &["export", "edited-report.json"],
            &["view", "edited-report.json", "-o", "edited.html"],
            &["check", "edited-report.json"],
            &["check", "edited-report.json", "--json"],
        ] {
            let o = dst(dir, args, None);
            let what = format!("{} ({pointer})", args.join(" "));
            shown(&what, &o)?;
            if args.contains(&"--json") || args[0] == "export" {
                json_or_refused(&what, &o)?;
            }
        }
    }
}
