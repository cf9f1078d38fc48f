//! Files dst reads back are taken as claims to check, not as facts: a fuzz
//! summary whose numbers do not add up, a report with a key twice or a key
//! dst never writes, a verdict or window edited away from its trace. Each
//! property edits a real file one generated way and wants a refusal, not
//! merely no panic.

use crate::mutate::config;
use dst_runner::record::{merge, FuzzRecord, SeedSpan, ShardOf};
use proptest::prelude::*;
use serde_json::Value as Json;
use sim::report::Report;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A real summary with findings: shard 1 of 2 of a raft campaign with a
/// bug switch on, every seed failing as the switch expects.
fn summary() -> Json {
    static JSON: OnceLock<Json> = OnceLock::new();
    JSON.get_or_init(|| {
        let reg = dst::registry();
        let mut o = dst_runner::FuzzOptions::seeds("raft-crash-restart", 0..12);
        o.shard = (1, 2);
        o.bugs = vec!["hardstate-not-persisted".into()];
        let s = dst_runner::fuzz(&reg, &o).expect("fuzzes");
        let span = SeedSpan {
            start: 0,
            end: Some(12),
        };
        let rec = FuzzRecord::of(&s, span, ShardOf { index: 1, count: 2 }, None);
        let v = serde_json::to_value(&rec).expect("encodes");
        let t = &v["scenarios"][0]["tally"];
        assert!(t["expected"].as_u64().unwrap() > 0 && t["undecided"] == 0, "{t}");
        assert!(!t["coverage"].as_object().unwrap().is_empty(), "{t}");
        v
    })
    .clone()
}

/// What merge makes of one shard's summary text before it counts it.
fn audited(text: &str) -> Result<FuzzRecord, String> {
    let v = sim::host::strict::parse(text).map_err(|e| e.to_string())?;
    let r: FuzzRecord = sim::host::strict::from_value(&v)?;
    dst_runner::audit::check(&r).map(|()| r)
}

/// One way a summary's numbers can be made to lie.
#[derive(Clone, Debug)]
enum Lie {
    /// A count moved by `delta` (wrapping), the rest left as it was.
    Count(&'static str, u64),
    /// A finding erased.
    Erase(usize),
    /// A seed added to a list without its count.
    List(&'static str, u64),
    /// A finding's expected flag flipped.
    Flip(usize),
    /// The stated verdict flipped.
    Ok(bool),
    /// A goal's count beyond the seeds, or its first seed another shard's.
    Goal(bool),
    /// A finding's seed moved to another shard or outside the range.
    Move(usize, u64),
}

fn lie() -> impl Strategy<Value = Lie> {
    let count = prop::sample::select(vec!["seeds", "pass", "expected", "unexpected", "undecided"]);
    let delta = prop_oneof![1..1_000u64, Just(u64::MAX), Just(u64::MAX / 2 + 1)];
    prop_oneof![
        (count, delta).prop_map(|(c, d)| Lie::Count(c, d)),
        any::<usize>().prop_map(Lie::Erase),
        (prop::sample::select(vec!["undecided_seeds", "failing_seeds"]), 0..12u64).prop_map(|(l, s)| Lie::List(l, s)),
        any::<usize>().prop_map(Lie::Flip),
        any::<bool>().prop_map(Lie::Ok),
        any::<bool>().prop_map(Lie::Goal),
        (any::<usize>(), prop_oneof![(0..6u64).prop_map(|s| s * 2), 12..1_000u64]).prop_map(|(i, s)| Lie::Move(i, s)),
    ]
}

fn tell(v: &mut Json, lie: &Lie) {
    let t = &mut v["scenarios"][0]["tally"];
    let nth = |t: &Json, i: usize| {
        let keys: Vec<String> = t["findings"].as_object().unwrap().keys().cloned().collect();
        keys[i % keys.len()].clone()
    };
    match lie {
        Lie::Count(c, d) => t[*c] = t[*c].as_u64().unwrap().wrapping_add(*d).into(),
        Lie::Erase(i) => {
            let k = nth(t, *i);
            t["findings"].as_object_mut().unwrap().remove(&k);
        }
        Lie::List(l, s) => t[*l].as_array_mut().unwrap().push((*s).into()),
        Lie::Flip(i) => {
            let k = nth(t, *i);
            let e = &mut t["findings"][&k]["expected"];
            *e = (!e.as_bool().unwrap()).into();
        }
        Lie::Ok(top) => {
            let at = if *top {
                &mut v["ok"]
            } else {
                &mut v["scenarios"][0]["ok"]
            };
            *at = (!at.as_bool().unwrap()).into();
        }
        Lie::Goal(beyond) => {
            let g = t["coverage"].as_object().unwrap().keys().next().cloned().unwrap();
            if *beyond {
                t["coverage"][&g] = (t["seeds"].as_u64().unwrap() + 1).into();
            } else {
                t["coverage_first"][&g] = 4.into();
            }
        }
        Lie::Move(i, s) => {
            let k = nth(t, *i);
            let f = t["findings"].as_object_mut().unwrap().remove(&k).unwrap();
            t["findings"][s.to_string()] = f;
        }
    }
}

/// Objects whose keys are data: the scenario as it ran, counters by name.
const FREE: &[&str] = &["config", "counters"];

/// A key dst never writes, put into the `n`th object of a report (counted
/// depth first), outside the parts that are free JSON: the scenario as it
/// ran (checked as a scenario), counters and a model's own events.
fn add_key(v: &mut Json, n: &mut usize, key: &str) -> bool {
    let free = v
        .get("model")
        .and_then(Json::as_str)
        .is_some_and(|m| !sim::GENERIC_KINDS.contains(&m));
    match v {
        Json::Object(m) if !free => {
            if *n == 0 {
                m.insert(key.to_string(), Json::from(1));
                return true;
            }
            *n -= 1;
            m.iter_mut()
                .filter(|(k, _)| !FREE.contains(&k.as_str()))
                .any(|(_, c)| add_key(c, n, key))
        }
        Json::Array(a) => a.iter_mut().any(|c| add_key(c, n, key)),
        _ => false,
    }
}

fn objects(v: &Json) -> usize {
    match v {
        Json::Object(m) => {
            1 + m
                .iter()
                .filter(|(k, _)| !FREE.contains(&k.as_str()))
                .map(|(_, c)| objects(c))
                .sum::<usize>()
        }
        Json::Array(a) => a.iter().map(objects).sum(),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn the_real_summary_is_taken_and_merges_with_its_other_shard(_x in 0..1u8) {
        let one = audited(&summary().to_string());
        prop_assert!(one.is_ok(), "{:?}", one.map(|_| ()));
        let mut other: FuzzRecord = serde_json::from_value(summary()).unwrap();
        other.shard.index = 0;
        other.scenarios[0].tally = Default::default();
        other.scenarios[0].ok = true;
        other.scenarios[0].coverage_missing = other.scenarios[0].goals.clone();
        other.ok = true;
        let both = merge(&[(PathBuf::from("a"), one.unwrap()), (PathBuf::from("b"), other)]);
        prop_assert!(both.is_ok(), "{:?}", both.map(|_| ()));
    }

    #[test]
    fn a_summary_that_does_not_add_up_is_refused(l in lie()) {
        let mut v = summary();
        tell(&mut v, &l);
        let e = audited(&v.to_string());
        prop_assert!(e.is_err(), "{:?} merged: {:?}", l, e.map(|r| r.ok));
        let e = e.unwrap_err();
        crate::assert_one_line!(e);
    }

    #[test]
    fn a_key_a_report_never_holds_is_refused(n in any::<usize>(), key in "[a-z_]{1,12}") {
        let mut v = crate::samples::report_json();
        let mut at = n % objects(&v);
        prop_assume!(add_key(&mut v, &mut at, &format!("x_{key}")));
        let e = Report::parse(&v.to_string());
        prop_assert!(e.as_ref().is_err_and(|e| e.contains("unknown field")), "{:?} {}", e.map(|_| ()), {
            let t = v.to_string();
            let i = t.find(&format!("\"x_{key}\"")).unwrap();
            t[i.saturating_sub(300)..(i + 50).min(t.len())].to_string()
        });
    }

    #[test]
    fn a_key_twice_is_refused_anywhere(n in any::<usize>()) {
        // Every `"i":` opens an event; doubling one key of the nth event.
        let text = crate::samples::report();
        let at: Vec<usize> = text.match_indices("{\"i\":").map(|(i, _)| i + 1).collect();
        let i = at[n % at.len()];
        let doubled = format!("{}\"i\":0,{}", &text[..i], &text[i..]);
        let e = Report::parse(&doubled);
        prop_assert!(e.as_ref().is_err_and(|e| e.contains("duplicate key")), "{:?}", e.map(|_| ()));
    }

    #[test]
    fn an_edited_verdict_or_window_is_refused(edit in 0..4u8, by in 1..100_000u64) {
        let mut v = crate::samples::compact_report_json();
        match edit {
            0 => {
                let pass = v["verdict"]["status"] == "pass";
                v["verdict"]["status"] = if pass { "violation" } else { "pass" }.into();
            }
            1 => v["window"]["events"] = (v["window"]["events"].as_u64().unwrap() + by).into(),
            2 => v["stats"]["events"] = (v["stats"]["events"].as_u64().unwrap() + by).into(),
            _ => {
                let past = v["window"]["events"].as_u64().unwrap() + by;
                v["verdict"]["evidence"].as_array_mut().unwrap().push(past.into());
            }
        }
        prop_assert!(Report::parse(&v.to_string()).is_err());
    }
}
