//! The Raft model as dst knows it: its config, its bug switches (docs/book/src/bugs.md,
//! "Raft cluster") and the coverage goals it can reach. It registers
//! through the same public path as any user's model.

use super::{Raft, RaftBugs, RaftConfig};
use sim::{Bug, ModelDef, Setup};

pub const BUGS: &[Bug] = &[
    Bug {
        id: "hardstate-not-persisted",
        kind: "safety",
        invariants: &["no-dual-leaders"],
        scenario: "raft-crash-restart",
        summary: "term and vote live only in memory; a restarted node votes twice in one term",
    },
    Bug {
        id: "reply-before-durable",
        kind: "safety",
        invariants: &["no-dual-leaders", "state-machine-safety"],
        scenario: "raft-crash-restart",
        summary: "vote and append acks leave before the fsync completes",
    },
    Bug {
        id: "snapshot-without-data",
        kind: "safety",
        invariants: &["state-machine-safety"],
        scenario: "raft-snapshot",
        summary: "InstallSnapshot advances the applied index without installing the data",
    },
    Bug {
        id: "apply-requeue",
        kind: "safety",
        invariants: &["no-double-apply"],
        scenario: "raft-snapshot",
        summary: "each commit advance re-queues from last_applied+1: an index applies twice",
    },
    Bug {
        id: "skip-compacted-range",
        kind: "safety",
        invariants: &["state-machine-safety"],
        scenario: "raft-snapshot",
        summary: "a compacted committed range is skipped instead of installed from the snapshot",
    },
    Bug {
        id: "no-check-quorum",
        kind: "liveness",
        invariants: &["liveness", "linearizable"],
        scenario: "raft-check-quorum-reads",
        summary: "a leader that hears no quorum never steps down; with lease-based reads it serves stale reads",
    },
    Bug {
        id: "no-prevote",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-partitions",
        summary: "a partitioned node campaigns with real terms and deposes a healthy leader on rejoin",
    },
    Bug {
        id: "read-without-quorum",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-read-index",
        summary: "a ReadIndex read is served without a quorum round: a leader cut off in a minority answers stale",
    },
    Bug {
        id: "read-index-no-term-floor",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-read-index",
        summary: "the read floor is the commit index before the new leader's no-op commits",
    },
    Bug {
        id: "lease-anchor-on-receive",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-lease-reads",
        summary: "the leader lease starts when the quorum's answer arrives, not when the heartbeat round was sent",
    },
    Bug {
        id: "lease-no-drift-margin",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-drift",
        summary: "the lease lasts the whole minimum election timeout, with no margin for clock drift",
    },
    Bug {
        id: "lease-no-vote-refusal",
        kind: "safety",
        invariants: &["linearizable"],
        scenario: "raft-lease-votes",
        summary: "followers grant votes while a leader's lease can still rest on their answers",
    },
    Bug {
        id: "staleness-by-apply-time",
        kind: "safety",
        invariants: &["bounded-staleness"],
        scenario: "raft-follower-reads",
        summary: "a follower counts as fresh if it applied anything recently, however far behind it is",
    },
    Bug {
        id: "hlc-unchecked-update",
        kind: "safety",
        invariants: &["hlc-bounded"],
        scenario: "raft-skew-beyond-bound",
        summary: "the HLC adopts any remote timestamp: one far-future clock drags every HLC forward",
    },
    Bug {
        id: "lease-expiry-no-skew-margin",
        kind: "safety",
        invariants: &["lease-exclusive"],
        scenario: "raft-clock-skew",
        summary: "a remote descriptor lease counts as expired at expires_at on the reader's clock, with no skew margin",
    },
    Bug {
        id: "swim-incarnation-reset",
        kind: "liveness",
        invariants: &["liveness"],
        scenario: "raft-membership",
        summary: "a restarted node rejoins membership at incarnation 0 and stays dead in its peers' views",
    },
    Bug {
        id: "read-error-as-empty",
        kind: "safety",
        invariants: &["state-machine-safety", "no-dual-leaders", "linearizable"],
        scenario: "raft-storage-faults",
        summary:
            "a disk that cannot be read at boot is taken for an empty one: the node forgets its term, vote and log",
    },
    Bug {
        id: "fsync-error-ignored",
        kind: "safety",
        invariants: &["state-machine-safety", "no-dual-leaders", "linearizable", "liveness"],
        scenario: "raft-storage-faults",
        summary:
            "a failed fsync is taken for a durable one: votes and acknowledgements rest on writes that may be gone",
    },
    Bug {
        id: "commit-old-term-by-count",
        kind: "safety",
        invariants: &["state-machine-safety", "liveness"],
        scenario: "raft-figure8",
        summary: "a leader commits an earlier term's entry by counting replicas and appends no no-op: Raft's Figure 8",
    },
];

pub const GOALS: &[(&str, &str)] = &[
    ("leader-deposed", "a leader stepped down or was replaced"),
    (
        "disk-read-error",
        "a node found its disk unreadable or a record rotten at boot",
    ),
    ("fsync-failed", "an fsync failed under a storage fault"),
    ("disk-full", "a write was refused for lack of space"),
    ("restart-with-log", "a node restarted with a non-empty log on disk"),
    ("compaction", "a node compacted its log into a snapshot"),
    (
        "install-snapshot",
        "a lagging node installed a snapshot from the leader",
    ),
    ("prevote-rejected", "a pre-vote was refused"),
    ("check-quorum-stepdown", "a leader that heard no quorum stepped down"),
    ("read-index-read", "a read was served through ReadIndex"),
    ("lease-read", "a read was served under the leader lease"),
    ("follower-read", "a follower served a bounded-staleness read"),
    (
        "vote-refused-by-lease",
        "a vote was refused because a leader lease may still hold",
    ),
    (
        "hlc-refused",
        "a timestamp beyond MAX_CLOCK_SKEW was refused by a node's HLC",
    ),
    ("lease-acquired", "a node was granted a descriptor lease"),
    ("lease-handover", "a descriptor lease moved to another holder"),
    (
        "rejoined-membership",
        "a node declared dead rejoined the membership view",
    ),
];

pub fn model() -> ModelDef {
    ModelDef::new(
        "raft",
        "a Raft cluster: durable HardState, pre-vote, check-quorum, compaction, InstallSnapshot, read paths, HLC, leases, SWIM",
        configure,
    )
    .bugs(BUGS)
    .goals(GOALS)
}

fn configure(setup: Setup<'_, RaftConfig>) -> Result<impl Fn(sim::NodeId) -> Raft, String> {
    let scenario = setup.scenario;
    let mut cfg = setup.config;
    cfg.nodes = scenario.nodes;
    cfg.max_clock_skew_ms = scenario.max_clock_skew_ms;
    // Unless the scenario says otherwise, the lease and the staleness bound
    // allow for the drift the scenario's faults inject.
    if scenario.faults.clock && scenario.config.get("clock_drift_ppm_max").is_none() {
        cfg.clock_drift_ppm_max = cfg
            .clock_drift_ppm_max
            .max(scenario.faults.drift_ppm_max.unsigned_abs());
    }
    cfg.bugs = RaftBugs::from_ids(setup.bugs)?;
    cfg.validate()?;
    Ok(move |id| Raft::new(id, cfg.clone()))
}
