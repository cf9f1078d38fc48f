//! The cluster model's own event vocabulary, read only by its checkers.

use serde::{Deserialize, Serialize};
use sim::NodeId;

/// What the cluster model emits as custom events, tagged `"model"` in
/// a report's trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ClusterEvent {
    /// The catalog made descriptor version `version` durable and current.
    DdlCommitted {
        /// The descriptor version committed.
        version: u64,
    },
    /// The node's cluster epoch rose to `epoch` (the catalog: committed or
    /// recovered; a worker: learned from a message header).
    Epoch {
        /// The node's new cluster epoch.
        epoch: u64,
    },
    /// A worker came up at `incarnation`, durable on its disk.
    Booted {
        /// The worker's new incarnation.
        incarnation: u64,
    },
    /// The catalog granted a lease on a request of header epoch `epoch`.
    LeaseGranted {
        /// The node the lease is granted to.
        holder: NodeId,
        /// The lease's id.
        lease: u64,
        /// The descriptor version the lease covers.
        version: u64,
        /// The cluster epoch in the request's header.
        epoch: u64,
    },
    /// A coordinator took a grant of header epoch `epoch` for its plan.
    LeaseHeld {
        /// The plan's id.
        plan: u64,
        /// The lease's id.
        lease: u64,
        /// The descriptor version the lease covers.
        version: u64,
        /// The cluster epoch in the grant's header.
        epoch: u64,
    },
    /// A plan was stamped with the catalog version its coordinator knew.
    PlanBegun {
        /// The plan's id.
        plan: u64,
        /// The catalog version the coordinator knew.
        version: u64,
    },
    /// A coordinator sent one of its plan's writes to `shard`.
    Dispatched {
        /// The plan's id.
        plan: u64,
        /// The shard owner it went to.
        shard: NodeId,
        /// The descriptor version the plan was stamped with.
        version: u64,
    },
    /// A shard owner applied a plan's write from a message of header epoch `epoch`.
    Applied {
        /// The plan's id.
        plan: u64,
        /// The descriptor version the plan was stamped with.
        version: u64,
        /// The cluster epoch in the message's header.
        epoch: u64,
    },
    /// A plan gave up with a retryable error.
    PlanAborted {
        /// The plan's id.
        plan: u64,
        /// Why it gave up, in one line.
        reason: String,
    },
    /// A plan's writes were all sent or applied; its lease goes back.
    PlanDone {
        /// The plan's id.
        plan: u64,
    },
    /// A catching-up worker's group applied up to `index`.
    GroupApplied {
        /// The group's applied index.
        index: u64,
    },
    /// Caught up at `index`: the worker takes part from now on.
    Ready {
        /// The index it caught up to.
        index: u64,
    },
    /// Readiness gave up on the group, stuck at applied index `index`.
    ReadinessFailed {
        /// The applied index it was stuck at.
        index: u64,
    },
    /// A write landed in a shard's watched collection: from a plan
    /// (`cause: None`) or from the action a write `cause` fired.
    SourceWrite {
        /// The source write's id.
        write: u64,
        /// The write whose trigger action made this one; `None` for a plan's write.
        cause: Option<u64>,
        /// How many trigger actions deep the write is; 0 for a plan's write.
        depth: u32,
    },
    /// A source write fired a trigger: its action is queued to run.
    TriggerFired {
        /// The source write's id.
        write: u64,
        /// The trigger's index.
        trigger: u32,
    },
    /// One statement of a trigger action's body took effect.
    TriggerEffect {
        /// The source write's id.
        write: u64,
        /// The trigger's index.
        trigger: u32,
        /// The statement's position in the body.
        step: u32,
    },
    /// A trigger action's body failed at `step` on its `attempt`-th run.
    TriggerFailed {
        /// The source write's id.
        write: u64,
        /// The trigger's index.
        trigger: u32,
        /// The statement that failed.
        step: u32,
        /// Which run of the action failed, from 1.
        attempt: u32,
    },
    /// A trigger action completed: its body has `steps` statements.
    TriggerDone {
        /// The source write's id.
        write: u64,
        /// The trigger's index.
        trigger: u32,
        /// The statements in the body.
        steps: u32,
    },
    /// A trigger action spent its retries and went to the dead-letter queue.
    DeadLettered {
        /// The source write's id.
        write: u64,
        /// The trigger's index.
        trigger: u32,
    },
    /// A coordinator fanned a query out to `shards`, to be answered within `deadline_ms`.
    QueryBegun {
        /// The query's id.
        query: u64,
        /// The shards asked.
        shards: Vec<NodeId>,
        /// The answer's deadline, in ms.
        deadline_ms: u64,
    },
    /// A shard sent its part of a query's aggregate.
    Partial {
        /// The query's id.
        query: u64,
        /// The shard's part of the aggregate.
        count: u64,
    },
    /// The coordinator answered: `error: None` is a result claimed complete,
    /// summed over the parts of `answered`; otherwise a typed error naming
    /// the shards that did answer.
    Answered {
        /// The query's id.
        query: u64,
        /// The sum over the parts of `answered`.
        total: u64,
        /// The shards whose parts came back.
        answered: Vec<NodeId>,
        /// The typed error; `None` for a result claimed complete.
        error: Option<String>,
    },
}
