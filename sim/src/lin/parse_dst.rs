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
    serde_json::from_str::<Event>(first).is_err()
}

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
        return of_report(&Report::parse(text).map_err(ParseError::whole)?);
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
