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
    /// A `follower-get` of `key` was answered from this node's state as
    /// applied up to `served_index`, which the node declared to hold every
    /// write committed `staleness_ms` or more before.
    FollowerRead {
        key: u32,
        served_index: u64,
        staleness_ms: u64,
    },
    /// A timestamp from `from` moved this node's hybrid logical clock past
    /// both its previous value and the local wall clock. Local ticks are not
    /// reported: they never run ahead of the node's own wall clock.
    Hlc {
        wall_ns: u64,
        logical: u32,
        from: NodeId,
    },
    /// A timestamp from `from` lay more than MAX_CLOCK_SKEW ahead of the
    /// local wall clock and was refused; the clock did not move. Reported
    /// when refusals from that peer begin, not for every message after.
    HlcRefused {
        remote_wall_ns: u64,
        from: NodeId,
    },
    /// The node uses descriptor lease `lease` from now until its own wall
    /// clock reads `expires_at_ns` (a renewal reports the new expiry).
    LeaseStart {
        lease: u32,
        expires_at_ns: u64,
    },
    /// The node stopped using `lease` before or at its expiry: `cause` is
    /// "expired" or "self-fence" (no leader contact for too long).
    LeaseStop {
        lease: u32,
        cause: String,
    },
    /// This node's membership view of `peer` changed state.
    Member {
        peer: NodeId,
        state: MemberState,
        incarnation: u64,
    },
    /// Snapshot store: the store applied a conditional (or, with a bug, plain)
    /// write to `key`'s row. `value: None` is an offset-carrying tombstone.
    /// `stmt` names the statement; `writer` and `generation` say who sent it.
    StoreWrite {
        key: u32,
        offset: u64,
        value: Option<SnapValue>,
        stmt: String,
        writer: NodeId,
        generation: u64,
    },
    /// Snapshot store: a delete at `offset` removed `key`'s row outright.
    StoreRemove {
        key: u32,
        offset: u64,
        writer: NodeId,
        generation: u64,
    },
    /// Snapshot store: TTLs ran out on the store's clock. `offset` is what the
    /// row carried before; `row_gone`: the whole row vanished, otherwise only
    /// its offset cell did (a guard-expired row, visible with a null offset).
    StoreReap {
        key: u32,
        offset: Option<u64>,
        row_gone: bool,
    },
    /// A partition owner took `key`'s state at `offset` as persisted.
    SnapPersisted {
        key: u32,
        offset: u64,
        value: Option<SnapValue>,
        generation: u64,
    },
    /// A record appended to a journal partition: `update: None` is a delete.
    JournalAppend {
        partition: u32,
        key: u32,
        offset: u64,
        update: Option<u64>,
    },
    /// A partition's committed offset moved: every record below `offset` is
    /// claimed persisted by the owner of `generation`.
    JournalCommit {
        partition: u32,
        offset: u64,
        generation: u64,
    },
}

/// One key's state in the snapshot-store model: the fold of its journal
/// records since its last delete. `since` is the offset of the update that
/// began this life, `last` the newest update folded in, `digest` all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SnapValue {
    pub since: u64,
    pub last: u64,
    pub digest: u64,
}

impl SnapValue {
    /// Folds the record at `offset` (`update: None` deletes) into `prev`.
    /// A record no newer than the live value's own `last` changes nothing:
    /// a live value guards itself, a tombstone (no value) cannot.
    pub fn fold(prev: Option<SnapValue>, offset: u64, update: Option<u64>) -> Option<SnapValue> {
        if prev.is_some_and(|v| offset <= v.last) {
            return prev;
        }
        let x = update?;
        let mix = |d: u64| {
            (d ^ x ^ offset.rotate_left(32))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(23)
        };
        Some(match prev {
            Some(v) => SnapValue {
                since: v.since,
                last: offset,
                digest: mix(v.digest),
            },
            None => SnapValue {
                since: offset,
                last: offset,
                digest: mix(0),
            },
        })
    }
}

/// A member's state in a SWIM-style membership view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemberState {
    Alive,
    Suspect,
    Dead,
}
