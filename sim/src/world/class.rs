//! What a run's verdict is a finding of, and whether anyone asked for it:
//! the registry judges runs by it, the runner reports by it.

use super::{RunOutcome, Status, Verdict};
use crate::event::{Event, EventKind};

/// How a run counts, given what its scenario and bug switches call for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The run passed.
    Pass,
    /// A violation the scenario or the bug switches call for.
    Expected,
    /// A violation or error nobody asked for: a finding.
    Unexpected,
}

/// What a verdict is a finding of: the violated invariant, `panic` for a
/// panic inside a model, or nothing (a pass, or the harness's own limit
/// such as an exhausted event budget).
pub fn cause(out: &RunOutcome) -> Option<String> {
    cause_of(&out.verdict, out.trace.events())
}

/// [`cause`] of a verdict over the trace it names events of (the whole
/// trace, or a compact report's window).
pub fn cause_of(verdict: &Verdict, trace: &[Event]) -> Option<String> {
    match verdict.status {
        Status::Pass => None,
        Status::Violation => verdict.invariant.clone(),
        Status::Error => {
            let at = verdict.evidence.first().and_then(|i| crate::trace::event_at(trace, *i));
            at.is_some_and(|e| matches!(e.kind, EventKind::Panic { .. }))
                .then(|| PANIC.to_string())
        }
    }
}

/// The cause a model panic counts as.
pub const PANIC: &str = "panic";

/// `expected`: the causes the scenario declares (see
/// [`crate::Registry::expected_causes`]). A violation is expected
/// when a bug switch asked for it or the scenario declares its cause; an
/// exhausted budget never is.
pub fn classify(out: &RunOutcome, expected: &[String], bugs: &[String]) -> Class {
    match (out.verdict.status, cause(out)) {
        (Status::Pass, _) => Class::Pass,
        (Status::Violation, _) if !bugs.is_empty() => Class::Expected,
        (_, Some(c)) if expected.contains(&c) => Class::Expected,
        _ => Class::Unexpected,
    }
}
