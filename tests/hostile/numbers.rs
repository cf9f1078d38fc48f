//! The numbers of a fuzz summary are claims: one number of a real summary
//! (a shard's, a merged one, one with expected and one with unexpected
//! findings) changed in a drawn way, `merge` either refuses it with one
//! line and exit 2 or reaches the very verdict the true summary gives. No
//! edit of a single number turns a failing campaign into a passing one,
//! hides a failing seed or a missing goal, or passes silently with a
//! number that cannot be.

use crate::fixtures::{dst, folder, scenario_file};
use crate::mutate::config;
use proptest::prelude::*;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;
use std::sync::OnceLock;

/// The exit code and the rest of a verdict, as [`verdict`] reads it.
type Verdict = (Option<i32>, Value);

/// What a verdict consists of: the exit code, whether the campaign is ok,
/// and per scenario its verdict, missing goals, unseen expected violation
/// and failing seeds.
fn verdict(o: &Output) -> Verdict {
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    let scenarios: Vec<Value> = v["scenarios"]
        .as_array()
        .map_or(&[][..], |s| s)
        .iter()
        .map(|s| {
            serde_json::json!([
                s["scenario"],
                s["ok"],
                s["coverage_missing"],
                s["expected_violation_unseen"],
                s["tally"]["unexpected"],
                s["tally"]["failing_seeds"],
            ])
        })
        .collect();
    (o.status.code(), serde_json::json!([v["ok"], scenarios]))
}

/// Real summaries, each with the verdict `merge --json` gives it.
fn bases() -> &'static (PathBuf, Vec<(Value, Verdict)>) {
    static B: OnceLock<(PathBuf, Vec<(Value, Verdict)>)> = OnceLock::new();
    B.get_or_init(|| {
        let d = folder("numbers");
        scenario_file(
            "raft-skew-beyond-bound",
            &[("expect", "pass".into())],
            &d.join("skew.json"),
        );
        let campaigns: [&[&str]; 5] = [
            &[
                "raft-crash-restart",
                "--seeds",
                "0..6",
                "--bug",
                "hardstate-not-persisted",
            ],
            &["skew.json", "--seeds", "0..6"],
            &["raft-crash-restart", "--seeds", "0..9", "--shard", "1/3"],
            &["raft-crash-restart", "--seeds", "0..9", "--shard", "0/3"],
            &["raft-crash-restart", "--seeds", "0..9", "--shard", "2/3"],
        ];
        let mut files = Vec::new();
        for (i, c) in campaigns.iter().enumerate() {
            let f = format!("s{i}.json");
            let mut args = vec!["fuzz"];
            args.extend_from_slice(c);
            args.extend_from_slice(&["--jobs", "1", "--no-reports", "--summary", &f]);
            let o = dst(&d, &args);
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            files.push(f);
        }
        let o = dst(
            &d,
            &["merge", "s2.json", "s3.json", "s4.json", "--summary", "merged.json"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        files.push("merged.json".into());
        let out = files
            .iter()
            .map(|f| {
                let v: Value =
                    serde_json::from_str(&std::fs::read_to_string(d.join(f)).expect("summary")).expect("JSON");
                (v, verdict(&dst(&d, &["merge", f, "--json"])))
            })
            .collect();
        (d, out)
    })
}

/// Where each number of `v` sits, as a JSON pointer.
fn numbers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Number(_) => out.push(at),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| numbers(x, format!("{at}/{i}"), out)),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| numbers(x, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
        _ => {}
    }
}

#[derive(Debug, Clone)]
enum Change {
    Add(u64),
    Sub(u64),
    Set(u64),
    Near(u64),
    Other(Value),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => (1u64..4).prop_map(Change::Add),
        3 => (1u64..4).prop_map(Change::Sub),
        1 => (4u64..1_000_000).prop_map(Change::Add),
        2 => (0u64..20).prop_map(Change::Set),
        2 => (0u64..3).prop_map(Change::Near),
        1 => prop::sample::select(vec![
            serde_json::json!(-1),
            serde_json::json!(0.5),
            serde_json::json!(1e30),
            serde_json::json!("3"),
            Value::Null,
        ])
        .prop_map(Change::Other),
    ]
}

fn apply(n: &Value, c: &Change) -> Value {
    let u = n.as_u64();
    match (c, u) {
        (Change::Add(d), Some(x)) => x.wrapping_add(*d).into(),
        (Change::Sub(d), Some(x)) => x.wrapping_sub(*d).into(),
        (Change::Set(s), _) => (*s).into(),
        (Change::Near(k), _) => (u64::MAX - k).into(),
        (Change::Other(v), _) => v.clone(),
        // A number that is not a whole one (seconds): moved by the same amount.
        (Change::Add(d), None) => (n.as_f64().unwrap_or(0.0) + *d as f64).into(),
        (Change::Sub(d), None) => (n.as_f64().unwrap_or(0.0) - *d as f64).into(),
    }
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn one_number_changed_is_refused_or_changes_no_verdict(
        base in any::<prop::sample::Index>(),
        leaf in any::<prop::sample::Index>(),
        c in change(),
    ) {
        let (dir, bases) = bases();
        let (summary, want) = base.get(bases);
        let mut at = Vec::new();
        numbers(summary, String::new(), &mut at);
        let pointer = leaf.get(&at);
        let mut edited = summary.clone();
        let slot = edited.pointer_mut(pointer).expect("the number");
        let new = apply(slot, &c);
        prop_assume!(new != *slot);
        *slot = new;
        let file = format!("edited-{}.json", std::process::id());
        std::fs::write(dir.join(&file), edited.to_string()).expect("temp file");
        let o = dst(dir, &["merge", &file, "--json"]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if o.status.code() == Some(2) {
            prop_assert!(err.starts_with("dst: ") && err.lines().count() == 1, "{}: {}", pointer, err);
            prop_assert!(o.stdout.is_empty(), "{}", pointer);
        } else {
            let got = verdict(&o);
            prop_assert_eq!(&got, want, "{} changed to {:?} was taken and moved the verdict: {}", pointer, c, err);
        }
    }
}
