//! Both releases as dst models, registered through the public registry as
//! any user's model, with the real bug dst finds in 0.9.24.

use sim::{RealBug, Registry};

/// Every coverage goal the adapter marks.
pub const GOALS: &[(&str, &str)] = &[
    ("leader-elected", "a node became leader"),
    ("leader-deposed", "a leader stepped down"),
    ("restart-with-log", "a node restarted with entries on its disk"),
    ("linearizable-read", "a read was answered after ensure_linearizable"),
    (
        "membership-changed",
        "the leader changed the voters through a joint configuration",
    ),
    ("log-truncated", "a follower truncated entries a new leader overwrote"),
    ("snapshot-built", "a node built a snapshot of its state machine"),
    ("log-purged", "a node purged its log behind a snapshot"),
    (
        "snapshot-installed",
        "a lagging node installed a snapshot from the leader",
    ),
];

/// databendlabs/openraft#1802: the leader's sorted progress loses its
/// order when a voter already above the committed index advances, and a
/// later update then counts a voter that does not hold the entry.
pub const COMMIT_WITHOUT_QUORUM: RealBug = RealBug {
    id: "openraft-commit-without-quorum",
    release: "openraft 0.9.24",
    fixed_in: "openraft 0.9.25 (VecProgress::update_with moves every advanced voter up)",
    reference: "databendlabs/openraft#1802",
    kind: "safety",
    invariants: &["commit-on-quorum", "state-machine-safety", "linearizable"],
    scenario: "openraft-0.9.24-churn",
    fixed_scenario: Some("openraft-0.9.25-churn"),
    summary: "the leader commits an entry that only a minority of the voters holds: its progress vector, sorted \
              to find what a quorum accepted, is left out of order when a voter above the committed index \
              advances, which joint configurations make possible",
};

/// Found here: a replication stream reads log entries its leader no longer
/// has, and 0.9.24 unwraps the empty answer.
pub const REPLICATION_EMPTY_READ: RealBug = RealBug {
    id: "openraft-replication-empty-read",
    release: "openraft 0.9.24",
    fixed_in: "openraft 0.9.25 (ReplicationCore::send_log_entries treats an empty read as a heartbeat; \
               ProgressEntry::next_send sends a snapshot once the log a follower needs is purged)",
    reference: "found by dst: src/replication/mod.rs of openraft 0.9.24, `logs.first().unwrap()` in send_log_entries",
    kind: "availability",
    invariants: &["panic"],
    scenario: "openraft-0.9.24-three",
    fixed_scenario: Some("openraft-0.9.25-three"),
    summary: "a replication stream asks its log for entries the log no longer holds, and panics on the empty \
              answer (replication/mod.rs:399): after a snapshot purged what a lagging follower still needs, or \
              when a deposed leader's stream outlives the truncation that removed them",
};

/// Adds both releases and their scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(
        crate::v0924::adapter::model(
            "openraft 0.9.24 from crates.io, unmodified, as async nodes behind a key-value store",
        )
        .real_bugs(&[COMMIT_WITHOUT_QUORUM, REPLICATION_EMPTY_READ]),
    );
    registry.add(crate::v0925::adapter::model(
        "openraft 0.9.25 from crates.io, unmodified, as async nodes behind a key-value store",
    ));
    for (_, json) in crate::SCENARIOS {
        registry.scenario(json);
    }
}

/// A registry with both releases and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}
