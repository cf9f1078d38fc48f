//! Turning a run into a verdict a user can act on: expected or not, and a
//! report on disk with the command that replays it.

use crate::event::{Event, EventKind};
use crate::report::{Report, Stats, Style};
use crate::scenario::Scenario;
use crate::world::{RunOutcome, Status, Verdict};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
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
            let at = verdict
                .evidence
                .first()
                .and_then(|i| crate::report::event_at(trace, *i));
            at.is_some_and(|e| matches!(e.kind, EventKind::Panic { .. }))
                .then(|| PANIC.to_string())
        }
    }
}

/// Whether some check of the run ran out of its budget without a verdict
/// (its `*_unknown` counter moved): a pass that proves less than it says.
pub fn undecided(out: &RunOutcome) -> bool {
    out.counters.iter().any(|(k, v)| k.ends_with("_unknown") && *v > 0)
}

/// The cause a model panic counts as.
pub const PANIC: &str = "panic";

/// `expected`: the causes the scenario declares (see
/// [`crate::registry::Registry::expected_causes`]). A violation is expected
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

/// Where a run's report goes in `dir`: named after the scenario, the seed
/// and the bugs, each name made safe first (they come from data).
pub fn report_path(dir: &Path, scenario: &str, seed: u64, bugs: &[String]) -> PathBuf {
    let mut name = format!("{}-{seed}", crate::files::name_from_data(scenario));
    for b in bugs {
        name.push('-');
        name.push_str(&crate::files::name_from_data(b));
    }
    // File systems refuse names past 255 bytes; several long bug names
    // would pass that. The cut name keeps a hash of the whole one, so two
    // long names still name two files.
    if name.len() > REPORT_NAME_MAX {
        let hash = crate::hash::stable_hash(&name);
        name.truncate(REPORT_NAME_MAX - 17);
        name.push_str(&format!("-{hash:016x}"));
    }
    dir.join(format!("{name}.json"))
}

/// Bytes of a report's file name before `.json` (and `.gz`, `.shrunk`).
const REPORT_NAME_MAX: usize = 200;

/// The report of a run; `class` is what [`classify`] made of it, `style`
/// whether it keeps the whole trace. `scenario` is the one the run ran
/// (before its knobs were drawn): if the outcome does not hold the events
/// the report keeps, the seed is run again holding them.
#[allow(clippy::too_many_arguments)]
pub fn report(
    registry: &crate::registry::Registry,
    out: &RunOutcome,
    class: Class,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    wall_ms: u64,
    path: &Path,
    style: Style,
) -> Result<Report, String> {
    let (trace, window) = match style.trace(&out.trace, &out.verdict.evidence) {
        Some(kept) => kept,
        None => {
            let keep = style.keep(out.trace.len() as u64, &out.verdict.evidence);
            let again = super::rerun(registry, scenario, bugs, out, keep)?;
            style.trace(&again.trace, &out.verdict.evidence).ok_or_else(|| {
                format!(
                    "{} seed {seed}: the run again does not hold its report's events",
                    scenario.name
                )
            })?
        }
    };
    Ok(Report {
        // A run of an older report hashes its trace the old way.
        schema: out.trace.hash_kind().schema(),
        dst_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: scenario.name.clone(),
        seed,
        bugs: bugs.to_vec(),
        config: serde_json::to_value(&out.scenario).expect("scenario serializes"),
        swarm: out.draw.clone(),
        plan: out.plan.clone(),
        calm: out.calm.clone(),
        verdict: out.verdict.clone(),
        expected: class != Class::Unexpected,
        coverage: out.coverage.clone(),
        stats: Stats {
            events: out.trace.len() as u64,
            messages: out.messages,
            sim_ns: out.sim_ns,
            wall_ms,
            counters: out.counters.clone(),
        },
        trace_hash: out.trace.hash_hex(),
        replay: crate::hint::replay(path),
        interrupted: out.interrupted,
        explore: out.tape.clone(),
        window,
        trace,
    })
}

/// One line describing a verdict.
pub fn describe(out: &RunOutcome) -> String {
    let v = &out.verdict;
    match v.status {
        Status::Pass => "pass".to_string(),
        Status::Violation => format!(
            "violation of {}: {} (events {:?})",
            v.invariant.as_deref().unwrap_or("?"),
            v.message.as_deref().unwrap_or(""),
            v.evidence
        ),
        Status::Error => format!("error: {}", v.message.as_deref().unwrap_or("")),
    }
}
