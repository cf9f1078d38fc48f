//! The cluster model's own event vocabulary, read only by its checkers.

use serde::{Deserialize, Serialize};
use sim::NodeId;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ClusterEvent {
    /// The catalog made descriptor version `version` durable and current.
    DdlCommitted {
        version: u64,
    },
    /// The node's cluster epoch rose to `epoch` (the catalog: committed or
    /// recovered; a worker: learned from a message header).
    Epoch {
        epoch: u64,
    },
    /// A worker came up at `incarnation`, durable on its disk.
    Booted {
        incarnation: u64,
    },
    /// The catalog granted a lease on a request of header epoch `epoch`.
    LeaseGranted {
        holder: NodeId,
        lease: u64,
        version: u64,
        epoch: u64,
    },
    /// A coordinator took a grant of header epoch `epoch` for its plan.
    LeaseHeld {
        plan: u64,
        lease: u64,
        version: u64,
        epoch: u64,
    },
    /// A plan was stamped with the catalog version its coordinator knew.
    PlanBegun {
        plan: u64,
        version: u64,
    },
    /// A coordinator sent one of its plan's writes to `shard`.
    Dispatched {
        plan: u64,
        shard: NodeId,
        version: u64,
    },
    /// A shard owner applied a plan's write from a message of header epoch `epoch`.
    Applied {
        plan: u64,
        version: u64,
        epoch: u64,
    },
    /// A plan gave up with a retryable error.
    PlanAborted {
        plan: u64,
        reason: String,
    },
    PlanDone {
        plan: u64,
    },
    /// A catching-up worker's group applied up to `index`.
    GroupApplied {
        index: u64,
    },
    /// Caught up at `index`: the worker takes part from now on.
    Ready {
        index: u64,
    },
    /// Readiness gave up on the group, stuck at applied index `index`.
    ReadinessFailed {
        index: u64,
    },
    /// A write landed in a shard's watched collection: from a plan
    /// (`cause: None`) or from the action a write `cause` fired.
    SourceWrite {
        write: u64,
        cause: Option<u64>,
        depth: u32,
    },
    TriggerFired {
        write: u64,
        trigger: u32,
    },
    /// One statement of a trigger action's body took effect.
    TriggerEffect {
        write: u64,
        trigger: u32,
        step: u32,
    },
    /// A trigger action's body failed at `step` on its `attempt`-th run.
    TriggerFailed {
        write: u64,
        trigger: u32,
        step: u32,
        attempt: u32,
    },
    /// A trigger action completed: its body has `steps` statements.
    TriggerDone {
        write: u64,
        trigger: u32,
        steps: u32,
    },
    /// A trigger action spent its retries and went to the dead-letter queue.
    DeadLettered {
        write: u64,
        trigger: u32,
    },
    /// A coordinator fanned a query out to `shards`, to be answered within `deadline_ms`.
    QueryBegun {
        query: u64,
        shards: Vec<NodeId>,
        deadline_ms: u64,
    },
    /// A shard sent its part of a query's aggregate.
    Partial {
        query: u64,
        count: u64,
    },
    /// The coordinator answered: `error: None` is a result claimed complete,
    /// summed over the parts of `answered`; otherwise a typed error naming
    /// the shards that did answer.
    Answered {
        query: u64,
        total: u64,
        answered: Vec<NodeId>,
        error: Option<String>,
    },
}
