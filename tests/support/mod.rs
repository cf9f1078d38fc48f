//! What the binary-level tests share: a scratch folder of their own and the
//! `dst` binary run in it. (Each test binary uses a part of it.)
#![allow(dead_code)]

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

/// `dst ARGS` run where the test runs, as [`dst`] runs it.
pub fn dst_here(args: &[&str]) -> Output {
    command(Path::new(env!("CARGO_BIN_EXE_dst")))
        .args(args)
        .output()
        .unwrap()
}

/// The binary `bin` (dst under another name, say) run as [`dst`] runs.
pub fn run(bin: &Path, dir: &Path, args: &[&str]) -> Output {
    command(bin).args(args).current_dir(dir).output().unwrap()
}

/// The `dst` binary as [`dst`] runs it, for a test that sets more.
pub fn dst_command() -> Command {
    command(Path::new(env!("CARGO_BIN_EXE_dst")))
}

/// `bin` with none of the CI environment a run would pick up: no job page
/// to write to, no shard to take.
fn command(bin: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env("DST_MIN_FREE", "0");
    for var in ["GITHUB_STEP_SUMMARY", "DST_SHARD", "DST_SHARDS", "JOB_COMPLETION_INDEX"] {
        c.env_remove(var);
    }
    c
}

/// What a command wrote on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}
