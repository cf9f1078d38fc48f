//! The release as a dst model, with the defects of its own dst finds.
//! async-raft was archived after 0.6.1 (its work continued as openraft),
//! so no release of it fixes them: none has a control that must pass.

use sim::{RealBug, Registry};

/// A new leader's blank entry moves `last_applied` past the entries of
/// earlier terms it commits, and a follower applies from an entry cache
/// that every leader change empties.
pub const APPLY_SKIPS_COMMITTED: RealBug = RealBug {
    id: "async-raft-apply-skips-committed",
    release: "async-raft 0.6.1",
    fixed_in: "no async-raft release; datafuselabs' fork removed the entry cache (datafuselabs/databend#1569, \
               \"cached entries wont be applied to state machine\"), and openraft, its continuation, applies \
               from last_applied + 1 out of the log",
    reference: "src/core/client.rs:304-305 (leader), src/core/append_entries.rs:225-249 and src/core/mod.rs:289-290 \
                (follower) of async-raft 0.6.1; the follower's half is in datafuselabs/databend#1569",
    kind: "safety",
    invariants: &["no-double-apply", "state-machine-safety", "linearizable"],
    scenario: "async-raft-leader-change",
    fixed_scenario: None,
    summary: "after a leader change, committed entries of an earlier term are never applied: the new leader sets \
              last_applied to its blank entry's index when that commits, and a follower applies only the entries \
              cached from the current leader, from the first one cached; the state machines diverge and reads miss \
              acknowledged writes",
};

/// `client_read` asks fewer confirmations than a majority and counts the
/// leader itself among them.
pub const READ_QUORUM_COUNTS_SELF: RealBug = RealBug {
    id: "async-raft-read-quorum-counts-self",
    release: "async-raft 0.6.1",
    fixed_in: "no async-raft release; async-raft/async-raft#143 (open) corrects the count, and openraft's \
               ensure_linearizable waits for a quorum of heartbeats",
    reference: "async-raft/async-raft#143; src/core/client.rs:108-136 of async-raft 0.6.1",
    kind: "safety",
    invariants: &["linearizable"],
    scenario: "async-raft-stale-reads",
    fixed_scenario: None,
    summary: "client_read confirms leadership with n/2 (n/2-1 for even n) confirmations and counts the leader \
              itself, so in a cluster of 2 to 4 it answers at once without asking anyone: a leader cut off from \
              the others, which elected a new one and took writes there, serves stale reads",
};

/// `initialize` works only on a pristine node, and nothing it sets is
/// durable until a leader has written the membership as entry 1.
pub const INITIALIZE_LOST: RealBug = RealBug {
    id: "async-raft-initialize-lost",
    release: "async-raft 0.6.1",
    fixed_in: "no async-raft release; openraft persists the initial membership as log entry 0 before it campaigns",
    reference: "found by dst: src/core/admin.rs:17-47, src/core/vote.rs:44-48 and src/core/mod.rs:186-205 of \
                async-raft 0.6.1",
    kind: "liveness",
    invariants: &["liveness"],
    scenario: "async-raft-boot-crash",
    fixed_scenario: None,
    summary: "initialize keeps the membership in memory only, but the election it starts makes every node that \
              hears it save a term; if the nodes restart before a leader made entry 1 (the membership) durable, \
              each boots as a non-voter of a cluster of itself, with no election timer, and refuses initialize \
              again (term is not 0): the cluster never forms",
};

/// A follower truncates on any AppendEntries whose previous entry
/// matches, and applies again what its cache still holds.
pub const STALE_APPEND_REAPPLIES: RealBug = RealBug {
    id: "async-raft-stale-append-reapplies",
    release: "async-raft 0.6.1",
    fixed_in:
        "no async-raft release; datafuselabs' fork removed the entry cache (datafuselabs/databend#1569, \
               \"entries being applied more than once\"), and openraft truncates only at the first entry that conflicts",
    reference: "src/core/append_entries.rs:108-122 and :225-249 of async-raft 0.6.1; the double apply is in \
                datafuselabs/databend#1569",
    kind: "safety",
    invariants: &["no-double-apply", "state-machine-safety", "linearizable"],
    scenario: "async-raft-three",
    fixed_scenario: None,
    summary: "an AppendEntries delivered late or twice makes a follower delete every entry after its previous \
              entry, although those entries match the leader's and were acknowledged; the entries come back, \
              and the follower applies again the ones its cache still holds",
};

/// Every coverage goal the adapter marks.
pub const GOALS: &[(&str, &str)] = &[
    ("initialized", "a node accepted the cluster's initial membership"),
    ("leader-elected", "a node became leader"),
    ("leader-deposed", "a leader stepped down"),
    ("restart-with-log", "a node restarted with entries on its disk"),
    (
        "linearizable-read",
        "a read was answered after client_read confirmed leadership",
    ),
    ("log-truncated", "a node deleted entries from its log"),
    ("snapshot-built", "a node compacted its log into a snapshot"),
    (
        "snapshot-installed",
        "a lagging node installed a snapshot from the leader",
    ),
];

/// The scenario files, by name.
pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "async-raft-leader-change",
        include_str!("../scenarios/async-raft-leader-change.json"),
    ),
    (
        "async-raft-stale-reads",
        include_str!("../scenarios/async-raft-stale-reads.json"),
    ),
    (
        "async-raft-boot-crash",
        include_str!("../scenarios/async-raft-boot-crash.json"),
    ),
    ("async-raft-three", include_str!("../scenarios/async-raft-three.json")),
    (
        "async-raft-crash-restart",
        include_str!("../scenarios/async-raft-crash-restart.json"),
    ),
];

/// Adds the model and its scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(crate::model().real_bugs(&[
        APPLY_SKIPS_COMMITTED,
        READ_QUORUM_COUNTS_SELF,
        INITIALIZE_LOST,
        STALE_APPEND_REAPPLIES,
    ]));
    for (_, json) in SCENARIOS {
        registry.scenario(json);
    }
}

/// A registry with async-raft and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}
