//! The one event vocabulary: everything that happens in a run is one
//! [`Event`] in the trace, and checkers read nothing else.

use crate::machine::NodeId;
use crate::nemesis::Action;
use crate::workload::{KvOp, KvResult};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Event {
    /// Position in the trace; evidence in a verdict names these.
    pub i: u64,
    /// True simulated time in ns since the run began.
    pub t_ns: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub node: Option<NodeId>,
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Follower,
    PreCandidate,
    Candidate,
    Leader,
}

/// Why a message never arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropCause {
    Loss,
    Partition,
    /// The receiver was down when the message arrived.
    Down,
}

/// What the world did or saw.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EventKind {
    /// A plan entry took effect.
    Fault {
        action: Action,
    },
    /// The safety phase ended: faults stop, the liveness phase begins.
    /// `impaired` nodes stay cut off (a minority, possibly empty).
    Heal {
        impaired: Vec<NodeId>,
    },
    Boot {
        restart: bool,
    },
    Send {
        id: u64,
        to: NodeId,
        msg: String,
    },
    Deliver {
        id: u64,
        from: NodeId,
        msg: String,
    },
    Drop {
        id: u64,
        from: NodeId,
        to: NodeId,
        msg: String,
        cause: DropCause,
    },
    Duplicate {
        id: u64,
    },
    /// A crash discarded `lost` disk operations that were not yet durable;
    /// `kept` of them survived as a torn prefix.
    DiskLoss {
        lost: u64,
        kept: u64,
    },
    Invoke {
        client: u32,
        op_id: u64,
        op: KvOp,
    },
    Ok {
        client: u32,
        op_id: u64,
        result: KvResult,
    },
    Fail {
        client: u32,
        op_id: u64,
        why: String,
    },
    /// The outcome is unknown: the op may take effect at any later point.
    Info {
        client: u32,
        op_id: u64,
        why: String,
    },
    Reached {
        goal: String,
    },
    Model(ModelEvent),
    /// A node panicked; the run ends with an error verdict.
    Panic {
        message: String,
    },
}

/// What a node reports about itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ModelEvent {
    /// The node's role changed. `cause` names why ("timeout", "higher-term",
    /// "check-quorum", "won", ..); `from` is the peer whose message caused it.
    Role {
        term: u64,
        role: Role,
        cause: String,
        from: Option<NodeId>,
    },
    /// HardState made durable.
    HardState {
        term: u64,
        vote: Option<NodeId>,
    },
    Commit {
        index: u64,
    },
    /// The state machine applied `index`; `digest` hashes its whole state after.
    Apply {
        index: u64,
        term: u64,
        digest: u64,
    },
    /// The state machine was (re)built with everything up to `applied`
    /// already in it: at boot from a snapshot, or by InstallSnapshot.
    SmReset {
        applied: u64,
        digest: u64,
    },
    /// The log was compacted up to `index`.
    Compact {
        index: u64,
    },
}
