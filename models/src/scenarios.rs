//! The built-in scenarios of the built-in models: JSON files in
//! scenarios/, compiled in and added to the registry by name.

/// Each scenario's name and its JSON text.
pub const BUILTIN: &[(&str, &str)] = &[
    ("raft-partitions", include_str!("../../scenarios/raft-partitions.json")),
    ("raft-streams", include_str!("../../scenarios/raft-streams.json")),
    (
        "raft-crash-restart",
        include_str!("../../scenarios/raft-crash-restart.json"),
    ),
    ("raft-snapshot", include_str!("../../scenarios/raft-snapshot.json")),
    ("raft-seven", include_str!("../../scenarios/raft-seven.json")),
    ("raft-swarm", include_str!("../../scenarios/raft-swarm.json")),
    (
        "raft-crash-restart-targeted",
        include_str!("../../scenarios/raft-crash-restart-targeted.json"),
    ),
    (
        "raft-partitions-targeted",
        include_str!("../../scenarios/raft-partitions-targeted.json"),
    ),
    (
        "raft-clock-skew-targeted",
        include_str!("../../scenarios/raft-clock-skew-targeted.json"),
    ),
    ("raft-clock-skew", include_str!("../../scenarios/raft-clock-skew.json")),
    (
        "raft-skew-beyond-bound",
        include_str!("../../scenarios/raft-skew-beyond-bound.json"),
    ),
    ("raft-membership", include_str!("../../scenarios/raft-membership.json")),
    ("raft-read-index", include_str!("../../scenarios/raft-read-index.json")),
    (
        "raft-lease-reads",
        include_str!("../../scenarios/raft-lease-reads.json"),
    ),
    (
        "raft-lease-votes",
        include_str!("../../scenarios/raft-lease-votes.json"),
    ),
    (
        "raft-check-quorum-reads",
        include_str!("../../scenarios/raft-check-quorum-reads.json"),
    ),
    ("raft-drift", include_str!("../../scenarios/raft-drift.json")),
    (
        "raft-follower-reads",
        include_str!("../../scenarios/raft-follower-reads.json"),
    ),
    (
        "snapshot-handover",
        include_str!("../../scenarios/snapshot-handover.json"),
    ),
    ("snapshot-swarm", include_str!("../../scenarios/snapshot-swarm.json")),
    (
        "snapshot-replay-window",
        include_str!("../../scenarios/snapshot-replay-window.json"),
    ),
    (
        "snapshot-events-recovery",
        include_str!("../../scenarios/snapshot-events-recovery.json"),
    ),
    (
        "snapshot-ttl-limit",
        include_str!("../../scenarios/snapshot-ttl-limit.json"),
    ),
    (
        "snapshot-ttl-safe",
        include_str!("../../scenarios/snapshot-ttl-safe.json"),
    ),
    (
        "snapshot-guard-expired",
        include_str!("../../scenarios/snapshot-guard-expired.json"),
    ),
    (
        "snapshot-storage-faults",
        include_str!("../../scenarios/snapshot-storage-faults.json"),
    ),
    (
        "raft-storage-faults",
        include_str!("../../scenarios/raft-storage-faults.json"),
    ),
    ("raft-figure8", include_str!("../../scenarios/raft-figure8.json")),
    ("cluster-ddl", include_str!("../../scenarios/cluster-ddl.json")),
    ("cluster-epochs", include_str!("../../scenarios/cluster-epochs.json")),
    ("cluster-boot", include_str!("../../scenarios/cluster-boot.json")),
    ("cluster-gather", include_str!("../../scenarios/cluster-gather.json")),
    (
        "cluster-triggers",
        include_str!("../../scenarios/cluster-triggers.json"),
    ),
    (
        "cluster-readiness",
        include_str!("../../scenarios/cluster-readiness.json"),
    ),
];
