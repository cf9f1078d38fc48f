//! The snapshot store as dst knows it: its config, its own events and
//! invariants, its bug switches (docs/book/src/bugs.md, "Snapshot store") and coverage
//! goals. Nothing of it lives in `sim`.

use super::check::{NoLostWrite, NoTombstoneRevival, OffsetMonotonic, SnapshotLiveness, SnapshotMatchesJournal};
use super::{SnapBugs, SnapConfig, SnapNode};
use sim::{Bug, InvariantDef, ModelDef, Setup};

pub const BUGS: &[Bug] = &[
    Bug {
        id: "unguarded-persist",
        kind: "safety",
        invariants: &["offset-monotonic"],
        scenario: "snapshot-handover",
        summary: "persist is a plain write: a stale writer overwrites a newer snapshot with a lower offset",
    },
    Bug {
        id: "delete-removes-row",
        kind: "safety",
        invariants: &["no-tombstone-revival"],
        scenario: "snapshot-handover",
        summary: "delete removes the row, so the stale writer's insert-if-not-exists lands after it",
    },
    Bug {
        id: "skip-tombstone-unpersisted",
        kind: "safety",
        // The skipped tombstone also lets the commit pass records whose
        // effect never reached the store; a later replay then folds wrongly.
        invariants: &["no-tombstone-revival", "snapshot-matches-journal"],
        scenario: "snapshot-handover",
        summary: "a delete of a never-persisted key writes nothing; the stale writer's buffered value lands",
    },
    Bug {
        id: "unguarded-journal-fold",
        kind: "safety",
        invariants: &["no-tombstone-revival"],
        scenario: "snapshot-events-recovery",
        summary: "events recovery folds every journal row, ignoring the store floor: pre-delete rows revive the key",
    },
    Bug {
        id: "flushcell-unserialized",
        kind: "safety",
        invariants: &["no-lost-write"],
        scenario: "snapshot-handover",
        summary: "flush is get, write, mark-persisted with no per-key serialization: a newer value is marked persisted",
    },
    Bug {
        id: "tombstone-recovers-as-none",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-replay-window",
        summary: "a tombstone reads back as no snapshot, so recovery sets no floor and the owner fences itself forever",
    },
    Bug {
        id: "no-monotone-buffer",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-handover",
        summary: "the key buffer accepts offsets below the one it recovered: a self-fencing loop after a handover",
    },
    Bug {
        id: "init-persisted-bypass",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-events-recovery",
        summary: "events recovery folds the store's journal rows around the monotone cell: rows that trail the snapshot clobber its floor",
    },
    Bug {
        id: "strict-fence",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-events-recovery",
        summary: "the fence is IF offset < :o, so a legitimate re-write at the same offset is rejected forever",
    },
    Bug {
        id: "guard-expired-naive",
        kind: "liveness",
        invariants: &["snapshot-liveness"],
        scenario: "snapshot-guard-expired",
        summary: "a row whose offset expired reads as offset 0: the key conflicts forever instead of being claimed",
    },
    Bug {
        id: "store-fsync-error-ignored",
        kind: "safety",
        invariants: &["offset-monotonic"],
        scenario: "snapshot-storage-faults",
        summary: "the store acknowledges writes whose fsync failed: after a restart an acknowledged snapshot is gone",
    },
    Bug {
        id: "store-read-error-as-empty",
        kind: "safety",
        invariants: &["offset-monotonic"],
        scenario: "snapshot-storage-faults",
        summary: "a commit log unreadable at boot is taken for an empty one: the store comes back without its rows",
    },
];

pub const GOALS: &[(&str, &str)] = &[
    ("handover", "the coordinator moved a partition to another owner"),
    ("tombstone-reaped", "the store reaped a tombstone whose TTL ran out"),
    (
        "guard-expired-repaired",
        "a row whose offset cell expired was written again",
    ),
    ("stale-write-rejected", "the store refused a stale writer's write"),
    ("events-recovery", "an owner recovered a key by folding journal rows"),
    ("replay-window-flush", "an owner flushed while replaying its window"),
    (
        "tombstone-unpersisted",
        "a key was deleted before any snapshot of it was persisted",
    ),
    (
        "store-recovered",
        "a durable store rebuilt its table from its commit log",
    ),
    ("store-fsync-failed", "an fsync of the store's commit log failed"),
    ("store-disk-full", "the store could not append to its commit log"),
    ("store-read-error", "the store's commit log could not be read at boot"),
    (
        "store-corrupt",
        "a record of the store's commit log failed its checksum at boot",
    ),
];

pub fn model() -> ModelDef {
    ModelDef::new(
        "snapshot",
        "a Kafka-consumer snapshot store over a Cassandra-like table: offset-fenced CAS, tombstones, TTLs, handovers, stale writers",
        configure,
    )
    .bugs(BUGS)
    .goals(GOALS)
    // It reports no roles, log indices, leases or client ops: the generic
    // checkers would have nothing to judge.
    .generic(&[])
    .invariant(InvariantDef::new(
        "no-tombstone-revival",
        "a key deleted at offset X never reads back live with a value from offset <= X",
        |_| Box::new(NoTombstoneRevival::default()),
    ))
    .invariant(InvariantDef::new(
        "offset-monotonic",
        "a key's stored offset never decreases",
        |_| Box::new(OffsetMonotonic::default()),
    ))
    .invariant(InvariantDef::new(
        "no-lost-write",
        "a value marked persisted was written to the store",
        |_| Box::new(NoLostWrite::default()),
    ))
    .invariant(InvariantDef::new(
        "snapshot-matches-journal",
        "a live stored value equals the fold of the key's journal records up to its stored offset",
        |_| Box::new(SnapshotMatchesJournal::default()),
    ))
    .invariant(InvariantDef::new(
        "snapshot-liveness",
        "after the heal, every key's stored offset reaches its last journal offset within the deadline",
        |_| Box::new(SnapshotLiveness::default()),
    ))
}

fn configure(setup: Setup<'_, SnapConfig>) -> Result<impl Fn(sim::NodeId) -> SnapNode, String> {
    let mut cfg = setup.config;
    cfg.nodes = setup.scenario.nodes;
    cfg.bugs = SnapBugs::from_ids(setup.bugs)?;
    cfg.validate()?;
    Ok(move |id| SnapNode::new(id, cfg.clone()))
}
