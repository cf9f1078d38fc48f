//! Both releases as dst models, registered through the public registry as
//! any user's model, with 0.9.24's real bug.

use sim::registry::{RealBug, Registry};

/// Every coverage goal the adapter marks.
pub const GOALS: &[(&str, &str)] = &[
    ("leader-elected", "a node became leader"),
    ("leader-deposed", "a leader stepped down"),
    ("restart-with-log", "a node restarted with entries on its disk"),
    ("linearizable-read", "a read was answered after ensure_linearizable"),
    ("log-truncated", "a follower truncated entries a new leader overwrote"),
    ("snapshot-built", "a node built a snapshot of its state machine"),
    ("log-purged", "a node purged its log behind a snapshot"),
    ("snapshot-installed", "a lagging node installed a snapshot from the leader"),
];

/// databendlabs/openraft#1802: the leader's progress vector loses its
/// descending order, and the commit index moves on a sub-quorum.
pub const COMMIT_WITHOUT_QUORUM: RealBug = RealBug {
    id: "openraft-commit-without-quorum",
    release: "openraft 0.9.24",
    fixed_in: "openraft 0.9.25 (VecProgress::update_with moves a voter up even when it was already above the granted value)",
    reference: "databendlabs/openraft#1802",
    kind: "safety",
    invariants: &["commit-on-quorum", "state-machine-safety", "linearizable", "panic"],
    scenario: "openraft-0.9.24-partitions",
    fixed_scenario: "openraft-0.9.25-partitions",
    summary: "VecProgress::update_with skips the move-up of a voter whose matched index was already above the \
              quorum-granted value, so the vector is no longer sorted and the leader commits an entry a minority \
              holds (five voters): a new leader elected without it overwrites a committed, applied entry",
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
    fixed_scenario: "openraft-0.9.25-three",
    summary: "a replication stream asks its log for entries the log no longer holds, and panics on the empty \
              answer (replication/mod.rs:399): after a snapshot purged what a lagging follower still needs, or \
              when a deposed leader's stream outlives the truncation that removed them",
};

/// Found here, still in 0.9.25: replication sends what the log store read,
/// from wherever the read began.
pub const APPEND_PAST_PURGED: RealBug = RealBug {
    id: "openraft-append-past-purged",
    release: "openraft 0.9.25 (and 0.9.24)",
    fixed_in: "not fixed in 0.9.25; a log store whose limited_get_log_entries answers only the run of entries from the range's first index (empty if it is gone) avoids it",
    reference: "found by dst: ReplicationCore::send_log_entries in src/replication/mod.rs takes the entries limited_get_log_entries returns as following prev_log_id without checking the first index; openraft's own memstore answers a range with whatever of it the log holds",
    kind: "safety",
    invariants: &["state-machine-safety", "linearizable", "panic", "liveness"],
    scenario: "openraft-0.9.25-reads-as-stored",
    fixed_scenario: "openraft-0.9.25-partitions",
    summary: "a leader purges its log behind a snapshot while a replication read of a lagging follower is under way; the \
              read returns the entries after the purged ones, and the leader sends them as following the follower's \
              matched entry: the follower appends past a hole, applies a different entry at the missing index \
              (state-machine-safety), and openraft's own check stops it (\"try to get log at index N but got Some(N+1)\")",
};

/// Found here, still in 0.9.25: a leader that restarts resumes its
/// leadership and reads from the commit index it saved.
pub const STALE_READ_AFTER_RESTART: RealBug = RealBug {
    id: "openraft-stale-read-after-restart",
    release: "openraft 0.9.25 (and 0.9.24)",
    fixed_in: "not fixed in 0.9.25; a log store that syncs the committed log id before save_committed returns avoids it",
    reference: "found by dst: Leader::new in src/proposer/leader.rs keeps the first log id of a leadership that survived a restart as the noop log id, and LeaderHandler::get_read_log_id reads at max(noop, committed); save_committed is documented as optional",
    kind: "safety",
    invariants: &["linearizable"],
    scenario: "openraft-0.9.25-committed-unsynced",
    fixed_scenario: "openraft-0.9.25-crash-restart",
    summary: "a leader whose committed vote survived a power loss resumes its leadership at boot without a new noop \
              entry, and ensure_linearizable reads at the larger of that leadership's first entry and the commit \
              index it read back; when the saved commit index was not durable, a read misses writes the leader \
              acknowledged before the crash",
};

/// Adds both releases and their scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(
        crate::v0924::adapter::model("openraft 0.9.24 from crates.io, unmodified, as async nodes behind a key-value store")
            .real_bugs(&[COMMIT_WITHOUT_QUORUM, REPLICATION_EMPTY_READ]),
    );
    registry.add(
        crate::v0925::adapter::model("openraft 0.9.25 from crates.io, unmodified, as async nodes behind a key-value store")
            .real_bugs(&[APPEND_PAST_PURGED, STALE_READ_AFTER_RESTART]),
    );
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
