//! `dst shrink REPORT`: the runner's shrinking, printed.

use super::Exit;
use sim::fault::Chaos;
use sim::Registry;
use std::path::{Path, PathBuf};

/// Messages with chaos left that a line lists by id.
const SHOWN_MAX: usize = 8;

pub fn main(
    reg: &Registry,
    path: &Path,
    out: Option<PathBuf>,
    max_runs: u64,
    style: sim::report::Style,
    json: bool,
) -> Exit {
    let s = match dst_runner::shrink::shrink(reg, path, out, max_runs, style) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if json {
        let left: Vec<_> = s
            .chaos_left
            .iter()
            .map(|(id, c)| serde_json::json!({"id": id, "chaos": what(c)}))
            .collect();
        sim::outln!(
            "{}",
            serde_json::json!({
                "plan": {"before": s.plan_from, "after": s.plan_to},
                "chaos": {"before": s.chaos_from, "after": s.chaos_to, "left": left},
                "events": {"before": s.events_from, "after": s.events_to},
                "deviations": {"before": s.deviations_from, "after": s.deviations_to},
                "changed": s.changed, "runs": s.runs, "wall_ms": s.wall_ms,
                "kept": s.kept, "verdict": s.verdict, "report": s.report, "interrupted": s.interrupted})
        );
    } else {
        sim::outln!(
            "plan {} -> {} entries, chaos {} -> {} messages, events {} -> {}, {} runs, {:.1} s",
            s.plan_from,
            s.plan_to,
            s.chaos_from,
            s.chaos_to,
            s.events_from,
            s.events_to,
            s.runs,
            s.wall_ms as f64 / 1e3
        );
        if s.deviations_from > 0 {
            sim::outln!("explored run: deviations {} -> {}", s.deviations_from, s.deviations_to);
        }
        if !s.changed.is_empty() {
            sim::outln!("changed: {}", s.changed.join(", "));
        }
        if !s.kept.is_empty() {
            sim::outln!("kept besides the plan: {}", s.kept.join("; "));
        }
        if !s.chaos_left.is_empty() {
            let mut left: Vec<String> = s
                .chaos_left
                .iter()
                .take(SHOWN_MAX)
                .map(|(id, c)| format!("message {id} {}", what(c)))
                .collect();
            if s.chaos_left.len() > SHOWN_MAX {
                left.push(format!("{} more (--json lists them)", s.chaos_left.len() - SHOWN_MAX));
            }
            sim::outln!("chaos left: {}", left.join(", "));
        }
        sim::outln!("{}", s.described);
        sim::outln!(
            "report: {}  (replay: {})",
            sim::host::files::shown(&s.report),
            dst_runner::hint::replay(&s.report)
        );
    }
    if s.interrupted {
        super::interrupted_note("shrinking stopped early; the report holds the smallest case found so far");
    }
    Exit::Clean
}

/// What chaos did to one message, in words.
fn what(c: &Chaos) -> String {
    let parts: Vec<&str> = [
        (c.dropped, "dropped"),
        (c.duplicated, "duplicated"),
        (c.delayed, "delayed"),
    ]
    .iter()
    .filter_map(|(on, word)| on.then_some(*word))
    .collect();
    parts.join("+")
}
