//! Turning a run into a verdict a user can act on: expected or not, and a
//! report on disk with the command that replays it.

use crate::report::{Report, Stats, SCHEMA};
use crate::scenario::{Expect, Scenario};
use crate::world::{RunOutcome, Status};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Pass,
    /// A violation the scenario or the bug switches call for.
    Expected,
    /// A violation or error nobody asked for: a finding.
    Unexpected,
}

pub fn classify(out: &RunOutcome, scenario: &Scenario, bugs: &[String]) -> Class {
    match out.verdict.status {
        Status::Pass => Class::Pass,
        Status::Error => Class::Unexpected,
        Status::Violation if !bugs.is_empty() => Class::Expected,
        Status::Violation => match &scenario.expect {
            Expect::Violation(id) if out.verdict.invariant.as_deref() == Some(id) => Class::Expected,
            _ => Class::Unexpected,
        },
    }
}

pub fn report_path(dir: &Path, scenario: &str, seed: u64, bugs: &[String]) -> PathBuf {
    let mut name = format!("{scenario}-{seed}");
    for b in bugs {
        name.push('-');
        name.push_str(b);
    }
    dir.join(format!("{name}.json"))
}

pub fn report(out: &RunOutcome, scenario: &Scenario, seed: u64, bugs: &[String], wall_ms: u64, path: &Path) -> Report {
    Report {
        schema: SCHEMA,
        dst_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: scenario.name.clone(),
        seed,
        bugs: bugs.to_vec(),
        config: serde_json::to_value(scenario).expect("scenario serializes"),
        swarm: out.draw.clone(),
        plan: out.plan.clone(),
        verdict: out.verdict.clone(),
        expected: classify(out, scenario, bugs) != Class::Unexpected,
        coverage: out.coverage.clone(),
        stats: Stats {
            events: out.trace.len() as u64,
            messages: out.messages,
            sim_ns: out.sim_ns,
            wall_ms,
            counters: out.counters.clone(),
        },
        trace_hash: out.trace.hash_hex(),
        replay: format!("dst replay {}", path.display()),
        trace: out.trace.events().to_vec(),
    }
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
