//! `dst export REPORT`: the report's trace for a trace viewer.

use super::Exit;
use std::path::Path;

/// The formats `--format` takes.
const FORMATS: &[&str] = &["perfetto"];

pub fn main(reg: &sim::Registry, path: &Path, format: &str, out: Option<&Path>, events: Option<&str>) -> Exit {
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
    let events = match events.map(dst_runner::parse_events).transpose() {
        Ok(e) => e,
        Err(e) => return Exit::Bad(e),
    };
    // A long run's trace is regenerated holding only the events exported.
    let (report, drawn) = match dst_runner::read_drawn(reg, path, events) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    // Streamed, a trace event at a time: the text of a long run is never
    // held whole.
    match out {
        None => {
            let mut stdout = sim::host::interrupt::Stdout::new();
            let _ = crate::perfetto::write(&report, &drawn, &mut |piece| stdout.piece(piece));
            stdout.end_line();
        }
        Some(p) => {
            let (mut events, mut bytes) = (0, 0u64);
            let written = sim::host::files::write_atomic_with(p, |w| {
                events = crate::perfetto::write(&report, &drawn, &mut |piece| {
                    bytes += piece.len() as u64;
                    w.write_all(piece.as_bytes())
                })?;
                Ok(())
            });
            if let Err(e) = written {
                return Exit::Bad(e);
            }
            let window = drawn.note().map(|n| format!(" ({n})")).unwrap_or_default();
            sim::outln!(
                "{}: {events} trace events, {bytes} bytes{window}; open it in https://ui.perfetto.dev or chrome://tracing",
                sim::host::files::shown(p),
            );
        }
    }
    Exit::Clean
}
