//! Which models exist, which bug switches each carries, which invariant must
//! catch each bug and under which built-in scenario: the one table that
//! `dst list`, `dst mutants` and the tests read.

use crate::raft::{Raft, RaftBugs, RaftConfig};
use crate::snapshot::{SnapBugs, SnapConfig, SnapNode};
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

pub const MODELS: &[&str] = &["raft", "snapshot"];

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
        invariants: &["liveness", "linearizable"],
        scenario: "raft-check-quorum-reads",
        summary: "a leader that hears no quorum never steps down; with lease-based reads it serves stale reads",
    },
    BugInfo {
        id: "no-prevote",
        model: "raft",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-partitions",
        summary: "a partitioned node campaigns with real terms and deposes a healthy leader on rejoin",
    },
    BugInfo {
        id: "read-without-quorum",
        model: "raft",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-read-index",
        summary: "a ReadIndex read is served without a quorum round: a leader cut off in a minority answers stale",
    },
    BugInfo {
        id: "read-index-no-term-floor",
        model: "raft",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-read-index",
        summary: "the read floor is the commit index before the new leader's no-op commits",
    },
    BugInfo {
        id: "lease-anchor-on-receive",
        model: "raft",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-lease-reads",
        summary: "the leader lease starts when the quorum's answer arrives, not when the heartbeat round was sent",
    },
    BugInfo {
        id: "lease-no-drift-margin",
        model: "raft",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-drift",
        summary: "the lease lasts the whole minimum election timeout, with no margin for clock drift",
    },
    BugInfo {
        id: "lease-no-vote-refusal",
        model: "raft",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-lease-votes",
        summary: "followers grant votes while a leader's lease can still rest on their answers",
    },
    BugInfo {
        id: "staleness-by-apply-time",
        model: "raft",
        kind: "safety",
        invariants: &["bounded-staleness"],
        scenario: "raft-follower-reads",
        summary: "a follower counts as fresh if it applied anything recently, however far behind it is",
    },
    BugInfo {
        id: "hlc-unchecked-update",
        model: "raft",
        kind: "safety",
        invariants: &["hlc-bounded"],
        scenario: "raft-skew-beyond-bound",
        summary: "the HLC adopts any remote timestamp: one far-future clock drags every HLC forward",
    },
    BugInfo {
        id: "lease-expiry-no-skew-margin",
        model: "raft",
        kind: "safety",
        invariants: &["lease-exclusive"],
        scenario: "raft-clock-skew",
        summary: "a remote descriptor lease counts as expired at expires_at on the reader's clock, with no skew margin",
    },
    BugInfo {
        id: "swim-incarnation-reset",
        model: "raft",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-membership",
        summary: "a restarted node rejoins membership at incarnation 0 and stays dead in its peers' views",
    },
    BugInfo {
        id: "unguarded-persist",
        model: "snapshot",
        kind: "safety",
        invariants: &["offset-monotonic"],
        scenario: "snapshot-handover",
        summary: "persist is a plain write: a stale writer overwrites a newer snapshot with a lower offset",
    },
    BugInfo {
        id: "delete-removes-row",
        model: "snapshot",
        kind: "safety",
        invariants: &["no-tombstone-revival"],
        scenario: "snapshot-handover",
        summary: "delete removes the row, so the stale writer's insert-if-not-exists lands after it",
    },
    BugInfo {
        id: "skip-tombstone-unpersisted",
        model: "snapshot",
        kind: "safety",
        // The skipped tombstone also lets the commit pass records whose
        // effect never reached the store; a later replay then folds wrongly.
        invariants: &["no-tombstone-revival", "snapshot-matches-journal"],
        scenario: "snapshot-handover",
        summary: "a delete of a never-persisted key writes nothing; the stale writer's buffered value lands",
    },
    BugInfo {
        id: "unguarded-journal-fold",
        model: "snapshot",
        kind: "safety",
        invariants: &["no-tombstone-revival"],
        scenario: "snapshot-events-recovery",
        summary: "events recovery folds every journal row, ignoring the store floor: pre-delete rows revive the key",
    },
    BugInfo {
        id: "flushcell-unserialized",
        model: "snapshot",
        kind: "safety",
        invariants: &["no-lost-write"],
        scenario: "snapshot-handover",
        summary: "flush is get, write, mark-persisted with no per-key serialization: a newer value is marked persisted",
    },
    BugInfo {
        id: "tombstone-recovers-as-none",
        model: "snapshot",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-replay-window",
        summary: "a tombstone reads back as no snapshot, so recovery sets no floor and the owner fences itself forever",
    },
    BugInfo {
        id: "no-monotone-buffer",
        model: "snapshot",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-handover",
        summary: "the key buffer accepts offsets below the one it recovered: a self-fencing loop after a handover",
    },
    BugInfo {
        id: "init-persisted-bypass",
        model: "snapshot",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-events-recovery",
        summary: "events recovery folds the store's journal rows around the monotone cell: rows that trail the snapshot clobber its floor",
    },
    BugInfo {
        id: "strict-fence",
        model: "snapshot",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-events-recovery",
        summary: "the fence is IF offset < :o, so a legitimate re-write at the same offset is rejected forever",
    },
    BugInfo {
        id: "guard-expired-naive",
        model: "snapshot",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-guard-expired",
        summary: "a row whose offset expired reads as offset 0: the key conflicts forever instead of being claimed",
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
    match scenario.model.as_str() {
        "snapshot" => snapshot_config(scenario, bugs).map(|_| ()),
        _ => model_config(scenario, bugs).map(|_| ()),
    }
}

fn snapshot_config(scenario: &Scenario, bugs: &[String]) -> Result<SnapConfig, String> {
    let raw = if scenario.config.is_null() {
        serde_json::json!({})
    } else {
        scenario.config.clone()
    };
    let mut cfg: SnapConfig =
        serde_json::from_value(raw).map_err(|e| format!("scenario {}: invalid snapshot config: {e}", scenario.name))?;
    cfg.nodes = scenario.nodes;
    cfg.bugs = SnapBugs::from_ids(bugs)?;
    cfg.validate().map_err(|e| format!("scenario {}: {e}", scenario.name))?;
    Ok(cfg)
}

fn model_config(scenario: &Scenario, bugs: &[String]) -> Result<RaftConfig, String> {
    let raw = if scenario.config.is_null() {
        serde_json::json!({})
    } else {
        scenario.config.clone()
    };
    let mut cfg: RaftConfig = serde_json::from_value(raw.clone())
        .map_err(|e| format!("scenario {}: invalid raft config: {e}", scenario.name))?;
    cfg.nodes = scenario.nodes;
    cfg.max_clock_skew_ms = scenario.max_clock_skew_ms;
    // Unless the scenario says otherwise, the lease and the staleness bound
    // allow for the drift the scenario's faults inject.
    if scenario.faults.clock && raw.get("clock_drift_ppm_max").is_none() {
        cfg.clock_drift_ppm_max = cfg
            .clock_drift_ppm_max
            .max(scenario.faults.drift_ppm_max.unsigned_abs());
    }
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
    let spec = RunSpec {
        scenario,
        seed,
        plan,
        checkers: checkers(scenario)?,
    };
    if scenario.model == "snapshot" {
        let cfg = snapshot_config(scenario, bugs)?;
        return Ok(sim::run(spec, move |id| SnapNode::new(id, cfg.clone())));
    }
    let cfg = model_config(scenario, bugs)?;
    Ok(sim::run(spec, move |id| Raft::new(id, cfg.clone())))
}
