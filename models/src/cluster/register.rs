//! The cluster layer as dst knows it: its config, invariants, bug switches
//! (docs/book/src/bugs.md, "Cluster layer") and coverage goals. Nothing of it lives in `sim`.

use super::check::{
    BootReadError, CascadeBounded, DescriptorFenced, EpochFenced, GatherComplete, ReadinessProgress,
    TriggerExactlyOnce, TriggerSiblings,
};
use super::{ClusterBugs, ClusterConfig, ClusterNode};
use sim::{Bug, InvariantDef, ModelDef, Setup};

pub const BUGS: &[Bug] = &[
    Bug {
        id: "lease-after-ddl",
        kind: "safety",
        invariants: &["descriptor-fenced"],
        scenario: "cluster-ddl",
        summary: "a plan stamped at BEGIN takes its lease at COMMIT after a DDL and dispatches against the superseded version",
    },
    Bug {
        id: "fence-once",
        kind: "safety",
        invariants: &["descriptor-fenced"],
        scenario: "cluster-ddl",
        summary: "the descriptor fence runs once before the dispatch loop: a DDL committed mid-loop goes unseen",
    },
    Bug {
        id: "epoch-unchecked",
        kind: "safety",
        invariants: &["epoch-fenced"],
        scenario: "cluster-epochs",
        summary: "the epoch in an RPC header is not checked at decode: a message of an older epoch changes state",
    },
    Bug {
        id: "retry-refires-succeeded",
        kind: "safety",
        invariants: &["trigger-exactly-once"],
        scenario: "cluster-triggers",
        summary: "a failed trigger action's retry fires every trigger of its write again, those that succeeded included",
    },
    Bug {
        id: "failure-cancels-siblings",
        kind: "liveness",
        invariants: &["trigger-siblings"],
        scenario: "cluster-triggers",
        summary: "one trigger action's failure cancels the other actions its write fired: they never run nor reach the dead-letter queue",
    },
    Bug {
        id: "self-cascade",
        kind: "liveness",
        invariants: &["cascade-bounded"],
        scenario: "cluster-triggers",
        summary: "an action's write to the collection its trigger watches is not marked as caused by it: the trigger re-fires forever",
    },
    Bug {
        id: "partial-body",
        kind: "safety",
        invariants: &["trigger-exactly-once"],
        scenario: "cluster-triggers",
        summary: "a trigger body fails mid-block with its first statements landed, and the retry runs them again",
    },
    Bug {
        id: "readiness-wall-deadline",
        kind: "liveness",
        invariants: &["readiness-progress"],
        scenario: "cluster-readiness",
        summary: "readiness is a deadline from the start of the catch-up: a slow group that keeps advancing is failed as stuck",
    },
    Bug {
        id: "read-error-as-zero",
        kind: "safety",
        invariants: &["boot-read-error"],
        scenario: "cluster-boot",
        summary: "a read error at boot is taken for an empty disk: the worker restarts at incarnation 0",
    },
    Bug {
        id: "gather-no-deadline",
        kind: "liveness",
        invariants: &["gather-complete"],
        scenario: "cluster-gather",
        summary: "a scatter-gather query has no deadline: a shard that never answers leaves it hanging",
    },
    Bug {
        id: "gather-partial",
        kind: "safety",
        invariants: &["gather-complete"],
        scenario: "cluster-gather",
        summary: "at its deadline a query returns the parts that came in as a complete aggregate",
    },
];

pub const GOALS: &[(&str, &str)] = &[
    (
        "ddl-during-lease",
        "a DDL began while a plan held a lease on the version it supersedes, and committed once the lease drained",
    ),
    (
        "ddl-during-transaction",
        "a plan's lease came back at a newer version than the plan was stamped with",
    ),
    (
        "revoke-mid-dispatch",
        "a lease was revoked between two dispatches of one plan",
    ),
    ("plan-retried", "a plan gave up with a retryable error"),
    ("plan-committed", "a plan dispatched every write"),
    ("restart", "a worker came back at a later incarnation"),
    (
        "stale-epoch-arrived",
        "a message of an older epoch than its receiver's arrived",
    ),
    ("boot-read-failed", "a worker could not read its disk at boot"),
    (
        "shard-failed-mid-gather",
        "a query's deadline passed with some shard's part missing",
    ),
    ("gather-complete", "a query gathered every shard's part"),
    ("trigger-retried", "a trigger action failed and was retried"),
    (
        "trigger-dead-lettered",
        "a trigger action spent its retries and was dead-lettered",
    ),
    (
        "sibling-failed",
        "a trigger action failed while another action of the same write waited",
    ),
    ("cascade-stopped", "a cascade of trigger writes reached its depth bound"),
    (
        "slow-catch-up",
        "a group caught up in more time than its stall deadline, advancing all along",
    ),
    ("readiness-failed", "readiness failed a group that made no progress"),
];

pub fn model() -> ModelDef {
    ModelDef::new(
        "cluster",
        "the cluster layer above consensus: a durable catalog of descriptor versions, descriptor leases, plans dispatched to shard owners, epoch-stamped RPCs, scatter-gather queries, deferred triggers, readiness, incarnations on disk",
        configure,
    )
    .bugs(BUGS)
    .goals(GOALS)
    // It reports no roles, log indices, leases or client ops of the generic kinds.
    .generic(&[])
    .invariant(InvariantDef::new(
        "descriptor-fenced",
        "no write is applied under a descriptor version the catalog had superseded when it was dispatched",
        |_| Box::new(DescriptorFenced::default()),
    ))
    .invariant(InvariantDef::new(
        "epoch-fenced",
        "no node changes state on a message whose header epoch is older than its own",
        |_| Box::new(EpochFenced::default()),
    ))
    .invariant(InvariantDef::new(
        "gather-complete",
        "every scatter-gather query is answered by its deadline, with a total over every shard or a typed error",
        |_| Box::new(GatherComplete::default()),
    ))
    .invariant(InvariantDef::new(
        "trigger-exactly-once",
        "each statement of a trigger's action on a source write is applied once, and a completed action has all of them",
        |_| Box::new(TriggerExactlyOnce::default()),
    ))
    .invariant(InvariantDef::new(
        "trigger-siblings",
        "every trigger action a write fires, on a node that stays up, completes or is dead-lettered within its delay and retries",
        |s| Box::new(TriggerSiblings::new(&scenario_config(s))),
    ))
    .invariant(InvariantDef::new(
        "cascade-bounded",
        "no write is made deeper in a cascade of trigger writes (by lineage) than cascade_depth_max",
        |s| Box::new(CascadeBounded::new(scenario_config(s).cascade_depth_max)),
    ))
    .invariant(InvariantDef::new(
        "readiness-progress",
        "readiness fails only a group whose applied index did not advance within its stall deadline, naming that index",
        |s| Box::new(ReadinessProgress::new(scenario_config(s).readiness_stall_ms)),
    ))
    .invariant(InvariantDef::new(
        "boot-read-error",
        "a worker's incarnations only rise: a read error at boot never yields incarnation 0 again",
        |_| Box::new(BootReadError::default()),
    ))
}

/// The scenario's config as its checkers read it; a config the model
/// refuses never runs, so the defaults stand in for it here.
fn scenario_config(s: &sim::Scenario) -> ClusterConfig {
    match &s.config {
        serde_json::Value::Object(_) => serde_json::from_value(s.config.clone()).unwrap_or_default(),
        _ => ClusterConfig::default(),
    }
}

fn configure(setup: Setup<'_, ClusterConfig>) -> Result<impl Fn(sim::NodeId) -> ClusterNode, String> {
    let mut cfg = setup.config;
    cfg.nodes = setup.scenario.nodes;
    cfg.bugs = ClusterBugs::from_ids(setup.bugs)?;
    cfg.validate()?;
    Ok(move |id| ClusterNode::new(id, cfg.clone()))
}
