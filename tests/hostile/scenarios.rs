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
