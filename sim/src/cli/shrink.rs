//! `dst shrink REPORT`: the runner's plan shrinking, printed.

use super::Exit;
use crate::registry::Registry;
use std::path::{Path, PathBuf};

pub fn main(reg: &Registry, path: &Path, out: Option<PathBuf>, max_runs: u64, json: bool) -> Exit {
    let s = match crate::runner::shrink::shrink(reg, path, out, max_runs) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if json {
        println!(
            "{}",
            serde_json::json!({"from": s.from, "to": s.to, "runs": s.runs,
                "verdict": s.verdict, "report": s.report})
        );
    } else {
        println!(
            "shrunk the plan from {} to {} entries in {} runs: {}",
            s.from, s.to, s.runs, s.described
        );
        println!("report: {}  (replay: dst replay {})", s.report.display(), s.report.display());
    }
    Exit::Found
}
