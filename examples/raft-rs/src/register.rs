//! The two releases as dst models, registered through the public registry
//! exactly as any user's model: a config type, a machine factory, coverage
//! goals, and for 0.4.3 the real bugs dst finds in it.

use crate::config::RaftRsConfig;
use crate::durability::AckAfterDurable;
use crate::node::{Node, Version};
use crate::v043::V043;
use crate::v07::V07;
use sim::{InvariantDef, ModelDef, RealBug, Registry, Setup};

/// Every coverage goal the adapter marks.
pub const GOALS: &[(&str, &str)] = &[
    ("leader-elected", "a node became leader"),
    ("leader-deposed", "a leader stepped down for a higher term"),
    ("check-quorum-stepdown", "a leader that heard no quorum stepped down"),
    ("restart-with-log", "a node restarted with entries on its disk"),
    ("read-index-read", "a read was answered through read_index"),
    (
        "compaction",
        "a node snapshotted its state machine and compacted its log",
    ),
    (
        "install-snapshot",
        "a lagging node installed a snapshot from the leader",
    ),
];

/// tikv/raft-rs#128: `Ready.must_sync` ignores new entries.
pub const MUST_SYNC_IGNORES_ENTRIES: RealBug = RealBug {
    id: "raft-rs-must-sync-entries",
    release: "raft 0.4.3",
    fixed_in: "raft 0.6.0 (tikv/raft-rs#372)",
    reference: "tikv/raft-rs#128",
    kind: "safety",
    invariants: &["state-machine-safety", "panic", "linearizable", "ack-after-durable"],
    scenario: "raft-rs-0.4.3-crash-restart",
    fixed_scenario: Some("raft-rs-0.7.0-crash-restart"),
    summary: "Ready.must_sync is false when only entries were appended, so an application that follows it \
              acknowledges entries a power loss erases: a committed, applied entry is replaced \
              (state-machine-safety), or the crate's own check panics on the lost log \
              (\"to_commit N is out of range [last_index M]\")",
};

/// Found here: `RawNode::new` bootstraps whenever the log is empty.
pub const EMPTY_LOG_RESTART: RealBug = RealBug {
    id: "raft-rs-empty-log-restart",
    release: "raft 0.4.3",
    fixed_in: "absent from raft 0.7.0, whose RawNode::new no longer bootstraps",
    reference: "found by dst: RawNode::new in src/raw_node.rs of raft 0.4.3 (etcd-io/etcd#10892 removed the same bootstrap from etcd's raft)",
    kind: "safety",
    invariants: &["no-dual-leaders"],
    scenario: "raft-rs-0.4.3-crash-restart",
    fixed_scenario: Some("raft-rs-0.7.0-crash-restart"),
    summary: "RawNode::new treats a node whose log is empty as new and resets its durable term and vote \
              to term 1: a node that voted, then lost power before any entry reached its disk, votes \
              again in the same term",
};

fn model<V: Version>(about: &str) -> ModelDef {
    ModelDef::new(V::MODEL, about, |setup: Setup<'_, RaftRsConfig>| {
        let cfg = setup.config;
        cfg.validate()?;
        let nodes = setup.scenario.nodes;
        Ok(move |id| Node::<V>::new(id, nodes, cfg.clone()))
    })
    .goals(GOALS)
    // No leases, clocks or follower reads: what the crate reports is roles,
    // commits, applies and the clients' ops.
    .generic(&[
        "no-dual-leaders",
        "state-machine-safety",
        "no-double-apply",
        "linearizable",
        "liveness",
    ])
    .invariant(InvariantDef::new(
        AckAfterDurable::ID,
        AckAfterDurable::HOLDS_WHEN,
        |_| Box::new(AckAfterDurable::default()),
    ))
}

/// Adds both releases and their scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(
        model::<V043>("tikv's raft crate, release 0.4.3, unmodified, behind a key-value state machine")
            .real_bugs(&[MUST_SYNC_IGNORES_ENTRIES, EMPTY_LOG_RESTART]),
    );
    registry.add(model::<V07>(
        "tikv's raft crate, release 0.7.0, unmodified, behind a key-value state machine",
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
