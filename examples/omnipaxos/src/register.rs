//! The two releases as dst models, registered through the public registry
//! exactly as any user's model: a config type, a machine factory, coverage
//! goals, the adapter's own invariant, and for 0.2.0 the real bugs dst
//! finds in it.

use crate::config::AdapterConfig;
use crate::node::Node;
use crate::release::Release;
use crate::v020::V020;
use crate::v024::V024;
use crate::within_log::AppendWithinLog;
use sim::{InvariantDef, ModelDef, RealBug, Registry, Setup};

/// Every coverage goal the adapter marks.
pub const GOALS: &[(&str, &str)] = &[
    ("leader-elected", "a node reached the accept phase as leader"),
    ("leader-deposed", "a leader followed a higher ballot"),
    ("restart-with-log", "a node restarted with entries on its disk"),
    (
        "reconnected",
        "a message arrived on a new connection after a broken one: reconnected() was called",
    ),
];

/// haraldng/omnipaxos#112: a new leader syncs a lagging follower from the
/// most up-to-date promise's log length instead of the follower's own.
pub const ACCEPT_SYNC_INDEX: RealBug = RealBug {
    id: "omnipaxos-accsync-sync-idx",
    release: "omnipaxos 0.2.0",
    fixed_in: "omnipaxos 0.2.1 (haraldng/omnipaxos#112)",
    reference: "haraldng/omnipaxos#112",
    kind: "safety",
    invariants: &[
        AppendWithinLog::ID,
        "state-machine-safety",
        "linearizable",
        "no-double-apply",
        "panic",
    ],
    scenario: "omnipaxos-0.2.0-partitions",
    fixed_scenario: Some("omnipaxos-0.2.4-partitions"),
    summary: "send_accsync gives a follower that accepted in the same earlier round as the most up-to-date \
              promise the suffix from that promise's accepted index, not from its own shorter one: the \
              follower's storage is asked to write past the end of its log (append-within-log), the \
              entries land at lower indexes than on the other servers, and once decided they are applied \
              there (state-machine-safety)",
};

/// Found here: a new leader puts the most up-to-date promise's suffix at
/// the highest decided index among the promises, while the promiser cut it
/// at the leader's own decided index.
pub const PROMISE_SUFFIX_INDEX: RealBug = RealBug {
    id: "omnipaxos-promise-suffix-idx",
    release: "omnipaxos 0.2.0",
    fixed_in: "absent from omnipaxos 0.2.4 (0.2.2 still has it): haraldng/omnipaxos#121, the atomic storage API, replaced the code with a LogSync that carries its own sync_idx",
    reference: "found by dst: handle_majority_promises in src/sequence_paxos/leader.rs of omnipaxos 0.2.0 (set_decided_idx to the promises' highest decided index, then append_on_decided_prefix of a suffix that handle_prepare cut at the leader's decided index)",
    kind: "safety",
    invariants: &[
        "state-machine-safety",
        AppendWithinLog::ID,
        "linearizable",
        "no-double-apply",
        "panic",
    ],
    scenario: "omnipaxos-0.2.0-crash-restart",
    fixed_scenario: Some("omnipaxos-0.2.4-crash-restart"),
    summary: "when the most up-to-date promise comes from a later round and from a server that has decided \
              more than the new leader, the leader first raises its decided index to that server's, then \
              writes the suffix, cut at its own lower decided index, from the raised one: entries are \
              duplicated in its log (or, where its log is shorter, written past its end: \
              append-within-log), and every server it syncs applies them at shifted indexes \
              (state-machine-safety)",
};

fn model<R: Release>(about: &str) -> ModelDef {
    ModelDef::new(R::MODEL, about, |setup: Setup<'_, AdapterConfig>| {
        let cfg = setup.config;
        cfg.validate()?;
        let nodes = setup.scenario.nodes;
        Ok(move |id| Node::<R>::new(id, nodes, cfg.clone()))
    })
    .goals(GOALS)
    // No leases, clocks or follower reads: what the crate reports is
    // ballots, decisions, applies and the clients' ops.
    .generic(&[
        "no-dual-leaders",
        "state-machine-safety",
        "no-double-apply",
        "linearizable",
        "liveness",
    ])
    .invariant(InvariantDef::new(
        AppendWithinLog::ID,
        AppendWithinLog::HOLDS_WHEN,
        |_| Box::new(AppendWithinLog),
    ))
}

/// Adds both releases and their scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(
        model::<V020>("omnipaxos, release 0.2.0, unmodified, behind a key-value state machine")
            .real_bugs(&[ACCEPT_SYNC_INDEX, PROMISE_SUFFIX_INDEX]),
    );
    registry.add(model::<V024>(
        "omnipaxos, release 0.2.4, unmodified, behind a key-value state machine",
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
