//! A report read back is evidence: each claim it makes about its run (the
//! verdict, the trace hash, the counts of events and messages, the
//! simulated time, the counters, the coverage goals reached, whether the
//! finding was expected) edited to another value of its type, `replay`
//! says MISMATCH (exit 1) and names that field as the first differing
//! claim; the report unedited reproduces.

use crate::fixtures::{dst, folder};
use crate::mutate::config;
use proptest::prelude::*;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A report of a found bug, with counters and coverage, and its folder.
fn base() -> &'static (PathBuf, Value) {
    static B: OnceLock<(PathBuf, Value)> = OnceLock::new();
    B.get_or_init(|| {
        let d = folder("claims");
        let o = dst(
            &d,
            &[
                "run",
                "raft-crash-restart",
                "--seed",
                "0",
                "--bug",
                "hardstate-not-persisted",
                "--report",
                "r.json",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let v = serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
        (d, v)
    })
}

/// A claim and the edit that changes it (`n` picks among ways).
fn edited(v: &mut Value, claim: usize, n: u64) -> &'static str {
    let bump = |x: &mut Value| *x = (x.as_u64().unwrap_or(0) + 1 + n % 1000).into();
    match claim % 8 {
        0 => {
            bump(&mut v["stats"]["events"]);
            "stats.events"
        }
        1 => {
            bump(&mut v["stats"]["messages"]);
            "stats.messages"
        }
        2 => {
            bump(&mut v["stats"]["sim_ns"]);
            "stats.sim_ns"
        }
        3 => {
            let c = v["stats"]["counters"].as_object_mut().unwrap();
            match c.keys().nth(n as usize % c.len().max(1)).cloned() {
                Some(k) if n.is_multiple_of(2) => bump(&mut c[&k]),
                _ => {
                    c.insert(format!("made-up-{n}"), 1.into());
                }
            }
            "stats.counters"
        }
        4 => {
            let c = v["coverage"].as_array_mut().unwrap();
            if n.is_multiple_of(2) && !c.is_empty() {
                c.remove(n as usize % c.len());
            } else {
                c.push(format!("never-reached-{n}").into());
            }
            "coverage"
        }
        5 => {
            v["expected"] = (!v["expected"].as_bool().unwrap()).into();
            "expected"
        }
        6 => {
            v["verdict"]["message"] = format!("another message {n}").into();
            "verdict"
        }
        _ => {
            v["trace_hash"] = format!("{:016x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1).into();
            "trace_hash"
        }
    }
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn an_edited_claim_is_a_mismatch_that_names_it(claim in 0usize..8, n in any::<u64>()) {
        let (d, v) = base();
        let mut v = v.clone();
        let field = edited(&mut v, claim, n);
        let file = d.join(format!("edited-{claim}-{n}.json"));
        std::fs::write(&file, v.to_string()).unwrap();
        let o = dst(d, &["replay", file.to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        // A coverage list that is no longer sorted or a counters map with
        // a bad key may be refused as input instead (exit 2, one line).
        if o.status.code() == Some(2) {
            prop_assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
            return Ok(());
        }
        prop_assert_eq!(o.status.code(), Some(1), "{}", out);
        prop_assert!(out.starts_with("MISMATCH"), "{}", out);
        let expect = format!("first differing claim: {field}:");
        prop_assert!(out.contains(&expect), "{} not in {}", expect, out);
    }
}

#[test]
fn the_report_as_written_reproduces() {
    let (d, _) = base();
    let o = dst(d, &["replay", "r.json"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.starts_with("reproduced"), "{out}");
}
