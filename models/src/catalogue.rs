//! Which models exist, which bug switches each carries, which invariant must
//! catch each bug and under which built-in scenario: the one table that
//! `dst list`, `dst mutants` and the tests read.

use crate::raft::{Raft, RaftBugs, RaftConfig};
use sim::check::{self, Invariant};
use sim::nemesis::PlanEntry;
use sim::{RunOutcome, RunSpec, Scenario};

#[derive(Clone, Copy, Debug)]
pub struct BugInfo {
    pub id: &'static str,
    pub model: &'static str,
    /// "safety" or "liveness".
    pub kind: &'static str,
    /// The invariants that may catch it, the one BUGS.md names first.
    pub invariants: &'static [&'static str],
    /// The built-in scenario that exposes it.
    pub scenario: &'static str,
    pub summary: &'static str,
}

pub const MODELS: &[&str] = &["raft"];

pub const BUGS: &[BugInfo] = &[
    BugInfo {
        id: "hardstate-not-persisted",
        model: "raft",
        kind: "safety",
        invariants: &["no-dual-leaders"],
        scenario: "raft-crash-restart",
        summary: "term and vote live only in memory; a restarted node votes twice in one term",
    },
    BugInfo {
        id: "reply-before-durable",
        model: "raft",
        kind: "safety",
        invariants: &["no-dual-leaders", "state-machine-safety"],
        scenario: "raft-crash-restart",
        summary: "vote and append acks leave before the fsync completes",
    },
    BugInfo {
        id: "snapshot-without-data",
        model: "raft",
        kind: "safety",
        invariants: &["state-machine-safety"],
        scenario: "raft-snapshot",
        summary: "InstallSnapshot advances the applied index without installing the data",
    },
    BugInfo {
        id: "apply-requeue",
        model: "raft",
        kind: "safety",
        invariants: &["no-double-apply"],
        scenario: "raft-snapshot",
        summary: "each commit advance re-queues from last_applied+1: an index applies twice",
    },
    BugInfo {
        id: "skip-compacted-range",
        model: "raft",
        kind: "safety",
        invariants: &["state-machine-safety"],
        scenario: "raft-snapshot",
        summary: "a compacted committed range is skipped instead of installed from the snapshot",
    },
    BugInfo {
        id: "no-check-quorum",
        model: "raft",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-partitions",
        summary: "a leader that hears no quorum never steps down",
    },
    BugInfo {
        id: "no-prevote",
        model: "raft",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-partitions",
        summary: "a partitioned node campaigns with real terms and deposes a healthy leader on rejoin",
    },
];

pub fn bug(id: &str) -> Result<&'static BugInfo, String> {
    BUGS.iter().find(|b| b.id == id).ok_or_else(|| {
        let ids: Vec<&str> = BUGS.iter().map(|b| b.id).collect();
        format!("unknown bug '{id}' (known: {})", ids.join(", "))
    })
}

/// Check that a scenario names a known model and that every bug belongs to it.
pub fn validate(scenario: &Scenario, bugs: &[String]) -> Result<(), String> {
    if !MODELS.contains(&scenario.model.as_str()) {
        return Err(format!(
            "scenario {}: unknown model '{}' (known: {})",
            scenario.name,
            scenario.model,
            MODELS.join(", ")
        ));
    }
    for id in bugs {
        let b = bug(id)?;
        if b.model != scenario.model {
            return Err(format!(
                "bug '{id}' belongs to model {}, not to scenario {}'s {}",
                b.model, scenario.name, scenario.model
            ));
        }
    }
    model_config(scenario, bugs).map(|_| ())
}

fn model_config(scenario: &Scenario, bugs: &[String]) -> Result<RaftConfig, String> {
    let raw = if scenario.config.is_null() {
        serde_json::json!({})
    } else {
        scenario.config.clone()
    };
    let mut cfg: RaftConfig =
        serde_json::from_value(raw).map_err(|e| format!("scenario {}: invalid raft config: {e}", scenario.name))?;
    cfg.nodes = scenario.nodes;
    cfg.bugs = RaftBugs::from_ids(bugs)?;
    Ok(cfg)
}

/// The checkers a scenario asks for.
pub fn checkers(scenario: &Scenario) -> Result<Vec<Box<dyn Invariant>>, String> {
    scenario
        .invariants
        .iter()
        .map(|id| check::build(id, scenario))
        .collect()
}

/// Run one seed of `scenario` with `bugs` switched on.
pub fn run(
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    plan: Option<Vec<PlanEntry>>,
) -> Result<RunOutcome, String> {
    validate(scenario, bugs)?;
    let cfg = model_config(scenario, bugs)?;
    let spec = RunSpec {
        scenario,
        seed,
        plan,
        checkers: checkers(scenario)?,
    };
    Ok(sim::run(spec, move |id| Raft::new(id, cfg.clone())))
}
