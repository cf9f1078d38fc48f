//! dst's own histories: a dst report (its trace), or JSON Lines of dst
//! trace events, one event a line.

use super::DstHistory;
use crate::event::Event;
use crate::report::Report;
use crate::workload::{KvOp, KvResult};
use linearizability::{History, ParseError};

/// Whether `text` is a dst report rather than event lines.
pub fn is_report(text: &str) -> bool {
    // A blank file is event lines, none of them: a history with nothing to check.
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    // A report's one line may be hundreds of megabytes, and reading it as
    // an event would buffer all of it (an event's fields are read into a
    // buffer to find its kind); its top-level keys are read without that.
    #[derive(serde::Deserialize)]
    struct Keys {
        schema: Option<serde::de::IgnoredAny>,
    }
    if serde_json::from_str::<Keys>(first).is_ok_and(|k| k.schema.is_some()) || first.len() > EVENT_LINE_MAX {
        return true;
    }
    serde_json::from_str::<Event>(first).is_err()
}

/// Bytes an event line may take: past this a first line is read as a
/// report (and refused as one if it is none).
const EVENT_LINE_MAX: usize = 1 << 20;

/// The history in a report's whole trace. A compact report keeps only a
/// window of it, which is refused: its trace is its seed's to regenerate.
pub fn of_report(report: &Report) -> Result<History<KvOp, KvResult>, ParseError> {
    if report.is_compact() {
        return Err(ParseError::whole(
            "a compact report keeps only a window of its trace; dst replay --full writes it whole",
        ));
    }
    let mut h = DstHistory::default();
    for e in &report.trace {
        h.push(e).map_err(ParseError::whole)?;
    }
    Ok(h.finish())
}

/// Parse a report or event lines; the error names the first bad line (a
/// report's errors are the file's as a whole).
pub fn parse(text: &str) -> Result<History<KvOp, KvResult>, ParseError> {
    if is_report(text) {
        // Only the history's events are held of a long trace.
        let r = Report::parse_keeping(text, &|e| e.kind.is_client_op()).map_err(ParseError::whole)?;
        return of_report(&r);
    }
    let mut h = DstHistory::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let e: Event =
            serde_json::from_str(line).map_err(|e| ParseError::at(n + 1, format!("not a dst event: {e}")))?;
        h.push(&e).map_err(|m| ParseError::at(n + 1, m))?;
    }
    Ok(h.finish())
}
