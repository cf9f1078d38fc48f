//! What the binary-level property tests start from: a folder of their own
//! and built-in scenarios saved as files with a few keys changed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `dst ARGS` run in `dir`, with no CI job page to write to.
pub fn dst(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dst"))
        .env("DST_MIN_FREE", "0")
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("dst runs")
}

/// An empty folder named for `name` and this process.
pub fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The built-in scenario `base` with each `(key, value)` set, written to
/// `file` (its folder made).
pub fn scenario_file(base: &str, changes: &[(&str, Value)], file: &Path) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{base}.json"));
    let text = std::fs::read_to_string(path).expect("scenario");
    let mut v: Value = serde_json::from_str(&text).expect("JSON");
    for (k, x) in changes {
        v[*k] = x.clone();
    }
    if let Some(d) = file.parent() {
        std::fs::create_dir_all(d).expect("folder");
    }
    std::fs::write(file, v.to_string()).expect("scenario file");
    file.to_path_buf()
}
