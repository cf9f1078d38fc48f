//! What the binary-level tests share: a scratch folder of their own and the
//! `dst` binary run in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An empty folder for one test of one test binary.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `dst ARGS` run in `dir`, with no CI job page to write to.
pub fn dst(dir: &Path, args: &[&str]) -> Output {
    run(Path::new(env!("CARGO_BIN_EXE_dst")), dir, args)
}

/// The binary `bin` (dst under another name, say) run as [`dst`] runs.
pub fn run(bin: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap()
}
