//! Scenario files as `run`, `fuzz` and `search` load them: bytes mutated,
//! fields of the wrong type, missing, unknown or absurd. Whether a value is
//! in range is the scenario's own check; here, only that every refusal is
//! one line and nothing panics.

use crate::assert_one_line;
use crate::mutate::{apply_json, config, hostile, json_edit};
use crate::samples;
use proptest::prelude::*;
use serde_json::Value as Json;
use std::path::PathBuf;

thread_local! {
    static REGISTRY: sim::Registry = dst::registry();
    static FILE: PathBuf = {
        let d = std::env::temp_dir().join(format!("dst-hostile-scenarios-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d.join(format!("{:?}.json", std::thread::current().id()).replace(['(', ')'], ""))
    };
}

/// Loads `text` from a file, as the command line does.
fn judge(text: &[u8]) -> Result<(), TestCaseError> {
    let path = FILE.with(|f| f.clone());
    std::fs::write(&path, text).expect("temp file");
    let loaded = REGISTRY.with(|reg| reg.load(path.to_str().expect("utf-8 path")));
    if let Err(e) = loaded {
        assert_one_line!(e);
    }
    Ok(())
}

fn files() -> Vec<Vec<u8>> {
    samples::scenarios().iter().map(|s| s.as_bytes().to_vec()).collect()
}

proptest! {
    #![proptest_config(config(3_000))]

    #[test]
    fn scenario_bytes(b in hostile(files())) {
        judge(&b)?;
    }

    #[test]
    fn scenario_fields(i in any::<prop::sample::Index>(), edits in prop::collection::vec(json_edit(), 1..4)) {
        let mut v: Json = serde_json::from_str(i.get::<String>(samples::scenarios())).expect("a scenario is JSON");
        apply_json(&mut v, &edits);
        judge(v.to_string().as_bytes())?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Every model refuses a config key it does not know, by name, a
    /// model with no config at all among them: a misspelt knob never
    /// runs as if the scenario had not said it.
    #[test]
    fn an_unknown_config_key_is_refused_by_every_model(i in any::<prop::sample::Index>(), key in "zz_[a-z_]{1,12}") {
        REGISTRY.with(|reg| {
            let mut s = i.get(reg.scenarios()).clone();
            match &mut s.config {
                Json::Object(m) => {
                    m.insert(key.clone(), 1.into());
                }
                c => *c = serde_json::json!({ key.clone(): 1 }),
            }
            let e = reg.validate(&s, &[]).err();
            prop_assert!(e.as_deref().is_some_and(|e| e.contains(&key)), "{}: {:?}", s.name, e);
            assert_one_line!(e.unwrap_or_default());
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(config(200))]

    /// A byte-order mark before any scenario file is no part of it: the
    /// file loads as it does without one. A file that claims what a run
    /// drew (`varied`, written by dst into a report's config) is refused.
    #[test]
    fn a_bom_is_tolerated_and_an_output_field_refused(i in any::<prop::sample::Index>(), knob in "[a-z]{1,8}") {
        let text = i.get::<String>(samples::scenarios()).clone();
        let path = FILE.with(|f| f.clone());
        let load = |t: &str| {
            std::fs::write(&path, t).expect("temp file");
            REGISTRY.with(|reg| reg.load(path.to_str().expect("utf-8 path")))
        };
        let plain = load(&text);
        let marked = load(&format!("\u{feff}{text}"));
        prop_assert_eq!(plain.is_ok(), marked.is_ok(), "{:?} {:?}", plain.err(), marked.err());
        let mut v: Json = serde_json::from_str(&text).expect("a scenario is JSON");
        v["varied"] = serde_json::json!({ format!("config.{knob}"): 1 });
        let e = load(&v.to_string()).err();
        prop_assert!(e.as_deref().is_some_and(|e| e.contains("varied")), "{:?}", e);
    }
}
