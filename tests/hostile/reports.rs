//! Reports as `replay` and `shrink` load them, and as `dst check` reads
//! them for their history: cut, flipped, with fields of the wrong type,
//! absurd values, other schemas. Half the field edits restore the trace
//! hash, so that a changed trace gets past the hash to what reads it next.

use crate::assert_one_line;
use crate::mutate::{apply_json, config, hostile, json_edit};
use crate::samples;
use proptest::prelude::*;
use serde_json::Value as Json;
use sim::lin::parse_dst;
use sim::report::Report;
use sim::Event;

thread_local! {
    static REGISTRY: sim::Registry = dst::registry();
}

/// Loads `text` as replay does and reads its history as check does.
fn judge(text: &str) -> Result<(), TestCaseError> {
    match Report::parse(text) {
        Err(e) => assert_one_line!(e),
        Ok(r) => {
            if let Err(e) = REGISTRY.with(|reg| dst_runner::report_scenario(reg, &r)) {
                assert_one_line!(e);
            }
        }
    }
    if let Err(e) = parse_dst::parse(text) {
        assert_one_line!(e.to_string());
    }
    Ok(())
}

/// A compact report as the readers that need its whole trace load it:
/// parsed, its scenario checked, its trace regenerated.
fn judge_compact(text: &str) -> Result<(), TestCaseError> {
    let Ok(r) = Report::parse(text) else {
        return judge(text);
    };
    let full =
        REGISTRY.with(|reg| dst_runner::report_scenario(reg, &r).and_then(|s| dst_runner::with_full_trace(reg, &s, r)));
    match full {
        Err(e) => assert_one_line!(e),
        Ok(f) => prop_assert!(!f.is_compact()),
    }
    Ok(())
}

/// A compact report's window hash made to match its (edited) window.
fn rehash_window(v: &mut Json) {
    if let Ok(trace) = serde_json::from_value::<Vec<Event>>(v["trace"].clone()) {
        if v["window"].is_object() {
            v["window"]["hash"] = sim::trace::Trace::hash_of(&trace, sim::trace::TraceHash::Words).into();
        }
    }
}

fn rehash(v: &mut Json) {
    if let Ok(trace) = serde_json::from_value::<Vec<Event>>(v["trace"].clone()) {
        v["trace_hash"] = sim::trace::Trace::hash_of(&trace, sim::trace::TraceHash::Words).into();
    }
}

proptest! {
    #![proptest_config(config(1_000))]

    #[test]
    fn report_bytes(b in hostile(vec![samples::report().as_bytes().to_vec()])) {
        judge(&String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn report_fields(edits in prop::collection::vec(json_edit(), 1..4), again in any::<bool>()) {
        let mut v = samples::report_json();
        apply_json(&mut v, &edits);
        if again {
            rehash(&mut v);
        }
        judge(&v.to_string())?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn compact_report_bytes(b in hostile(vec![samples::compact_report().as_bytes().to_vec()])) {
        judge_compact(&String::from_utf8_lossy(&b))?;
    }

    #[test]
    fn compact_report_fields(edits in prop::collection::vec(json_edit(), 1..4), again in any::<bool>()) {
        let mut v = samples::compact_report_json();
        apply_json(&mut v, &edits);
        if again {
            rehash_window(&mut v);
        }
        judge_compact(&v.to_string())?;
    }

    #[test]
    fn report_schemas(schema in prop_oneof![Just(Json::from(u64::MAX)), any::<i64>().prop_map(Json::from),
                                            any::<f64>().prop_map(Json::from), any::<String>().prop_map(Json::from)]) {
        let mut v = samples::report_json();
        v["schema"] = schema;
        judge(&v.to_string())?;
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A full report read holding only a window of its trace (as `view`
    /// and `export` read a long one, and `check` its history) holds exactly
    /// those events, and still checks every event: an edit outside the
    /// window is refused as an edit inside it is.
    #[test]
    fn a_trace_read_in_part_is_checked_whole(from in 0u64..400, len in 0u64..400, edit in 0usize..10_000, t in any::<u64>()) {
        let text = samples::report();
        let whole = Report::parse(text).expect("the sample reads");
        let keep = |e: &Event| (from..from + len).contains(&e.i);
        let part = Report::parse_keeping(text, &keep).expect("the sample reads in part");
        let want: Vec<&Event> = whole.trace.iter().filter(|e| keep(e)).collect();
        prop_assert_eq!(part.trace.iter().collect::<Vec<_>>(), want);
        prop_assert_eq!(&part.verdict, &whole.verdict);
        let mut v: Json = serde_json::from_str(text).expect("JSON");
        let events = v["trace"].as_array_mut().expect("a trace");
        let k = edit % events.len();
        if events[k]["t_ns"].as_u64() == Some(t) {
            return Ok(());
        }
        events[k]["t_ns"] = t.into();
        let edited = v.to_string();
        let none = |_: &Event| false;
        let clients = |e: &Event| e.kind.is_client_op();
        let keeps: [&dyn Fn(&Event) -> bool; 3] = [&none, &keep, &clients];
        for keep in keeps {
            let e = Report::parse_keeping(&edited, keep).expect_err("an edited trace is refused");
            prop_assert!(e.contains("trace does not match its hash"), "{}", e);
        }
    }
}
