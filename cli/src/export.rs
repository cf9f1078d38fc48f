//! `dst export REPORT`: the report's trace for a trace viewer.

use super::Exit;
use std::path::Path;

/// The formats `--format` takes.
const FORMATS: &[&str] = &["perfetto"];

pub fn main(reg: &sim::Registry, path: &Path, format: &str, out: Option<&Path>) -> Exit {
    if !FORMATS.contains(&format) {
        return Exit::Bad(format!(
            "unknown export format '{format}' (known: {})",
            FORMATS.join(", ")
        ));
    }
    // Refused before the work, and before anything is read, as for run --report.
    if let Some(Err(e)) = out.map(sim::host::files::refuse_special) {
        return Exit::Bad(e);
    }
    let report = match dst_runner::read_full_report(reg, path) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    let trace = crate::perfetto::perfetto(&report);
    let events = trace["traceEvents"].as_array().map_or(0, Vec::len);
    let text = serde_json::to_string(&trace).expect("a JSON value encodes");
    match out {
        None => sim::outln!("{text}"),
        Some(p) => {
            if let Err(e) = sim::host::files::write_atomic(p, text.as_bytes()) {
                return Exit::Bad(e);
            }
            sim::outln!(
                "{}: {events} trace events, {} bytes; open it in https://ui.perfetto.dev or chrome://tracing",
                sim::host::files::shown(p),
                text.len()
            );
        }
    }
    Exit::Clean
}
