//! The one event vocabulary: everything that happens in a run is one
//! [`Event`] in the trace, and checkers read nothing else. A model reports
//! the generic kinds of [`ModelEvent`] and any of its own as [`CustomEvent`].

use crate::id::NodeId;
use crate::nemesis::Action;
use crate::workload::{KvOp, KvResult};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

mod custom;
mod hash;
pub use custom::{CustomEvent, GENERIC_KINDS};

/// Hashed as `hash.rs` says: fields added since reports were first hashed
/// do not count, so a report an earlier release wrote still matches its
/// hash and replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl Event {
    /// The model's own event this is, read as `T`; `None` for any other event.
    pub fn custom<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        match &self.kind {
            EventKind::Model(ModelEvent::Custom(c)) => c.decode(),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Follower,
    PreCandidate,
    Candidate,
    Leader,
}

/// A leadership epoch in the protocol's own order: a tuple compared
/// element by element, as Paxos compares ballots `(n, priority, pid)`. At
/// most one node may lead in each (`no-dual-leaders`), and the liveness
/// checker orders elections by it. A Raft term is the one-element ballot
/// `[term]`, which is what a role event without a ballot stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ballot(pub Vec<u64>);

impl Ballot {
    /// The epoch a role event names: its ballot, or else its term.
    pub fn of(term: u64, ballot: &Option<Ballot>) -> Ballot {
        ballot.clone().unwrap_or_else(|| Ballot(vec![term]))
    }
}

impl std::fmt::Display for Ballot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.as_slice() {
            [term] => write!(f, "term {term}"),
            parts => {
                let parts: Vec<String> = parts.iter().map(u64::to_string).collect();
                write!(f, "ballot ({})", parts.join(", "))
            }
        }
    }
}

/// Why a node's role changed. The checkers read only these meanings, the
/// same for Raft, Multi-Paxos and Omni-Paxos: `liveness` counts a healthy
/// leader deposed with [`RoleCause::HigherTerm`] by an epoch begun after
/// its election as a disruption; every other cause (a lost quorum, a
/// model's own reason) is not one. A cause of the model's own is written
/// as its text and kept as [`RoleCause::Other`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoleCause {
    /// The node (re)started in this role.
    Boot,
    /// A timer ran out: the node campaigns (a candidacy, a pre-vote, a
    /// Paxos prepare phase).
    Timeout,
    /// A pre-vote round succeeded: the real election begins.
    PreVoteWon,
    /// Elected: a quorum granted the epoch.
    Won,
    /// A message carried a higher term or ballot: the node follows it,
    /// and a leader is deposed.
    HigherTerm,
    /// A leader stepped down on its own, having heard from no quorum.
    CheckQuorum,
    /// Any other reason, in the model's words.
    #[serde(untagged)]
    Other(String),
}

impl From<&str> for RoleCause {
    fn from(s: &str) -> RoleCause {
        serde_json::from_value(serde_json::Value::from(s)).unwrap_or_else(|_| RoleCause::Other(s.to_string()))
    }
}

impl From<String> for RoleCause {
    fn from(s: String) -> RoleCause {
        RoleCause::from(s.as_str())
    }
}

impl RoleCause {
    /// The cause as written in a trace.
    pub fn as_str(&self) -> &str {
        match self {
            RoleCause::Boot => "boot",
            RoleCause::Timeout => "timeout",
            RoleCause::PreVoteWon => "pre-vote-won",
            RoleCause::Won => "won",
            RoleCause::HigherTerm => "higher-term",
            RoleCause::CheckQuorum => "check-quorum",
            RoleCause::Other(s) => s,
        }
    }
}

/// Hashed as its text, as the string it replaced was.
impl std::hash::Hash for RoleCause {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl std::fmt::Display for RoleCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a message never arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropCause {
    Loss,
    Partition,
    /// The receiver was down when the message arrived.
    Down,
    /// A stream message whose connection broke while it was in flight.
    Reset,
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
    /// Message kinds are the machine's `&'static str`s: borrowed while a run
    /// records them (no allocation per message), owned when read back.
    Send {
        id: u64,
        to: NodeId,
        msg: Cow<'static, str>,
    },
    Deliver {
        id: u64,
        from: NodeId,
        msg: Cow<'static, str>,
    },
    Drop {
        id: u64,
        from: NodeId,
        to: NodeId,
        msg: Cow<'static, str>,
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
    /// A client began an op. `to` is the node its first request went to;
    /// on an end (`ok`, `fail`, `info`), `to` is where its last request
    /// went: the node that answered, or the one that kept it waiting.
    /// (Absent only in reports of older releases.)
    Invoke {
        client: u32,
        op_id: u64,
        op: KvOp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    Ok {
        client: u32,
        op_id: u64,
        result: KvResult,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    Fail {
        client: u32,
        op_id: u64,
        why: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    /// The outcome is unknown: the op may take effect at any later point.
    Info {
        client: u32,
        op_id: u64,
        why: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    Reached {
        goal: String,
    },
    Model(ModelEvent),
    /// A node panicked; the run ends with an error verdict.
    Panic {
        message: String,
    },
    /// Fsync `ticket` failed under a storage fault: of the disk operations
    /// it covered, `kept` became durable and `dropped` are gone for good.
    FsyncFailed {
        ticket: u64,
        dropped: u64,
        kept: u64,
    },
    /// The node stopped itself ([`crate::machine::Io::halt`]); the world
    /// boots it again shortly.
    Halt {
        reason: String,
    },
    /// On a stream link: the node learned that its connection to `peer`
    /// broke, through a loss, a partition, or an end that was down (`cause`).
    LinkBroken {
        peer: NodeId,
        cause: DropCause,
    },
}

/// What a node reports about itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ModelEvent {
    /// The node's role changed, or the leadership epoch it is in did.
    /// `term` is the epoch as one number (a Raft term, a Paxos round);
    /// a protocol whose epochs are tuples (a Paxos ballot `(n, priority,
    /// pid)`) gives `ballot` too, which then orders and names epochs in
    /// its stead (see [`Ballot`]). `cause` says why (see [`RoleCause`]);
    /// `from` is the peer whose message caused it.
    Role {
        term: u64,
        role: Role,
        cause: RoleCause,
        from: Option<NodeId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ballot: Option<Ballot>,
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
    /// The node's log now ends at `index`, an entry of `term` (reported
    /// when either changes: appends, truncations, a snapshot installed, a
    /// boot). What the search reads to tell who holds the newest entry and
    /// how far each log is from the leader's.
    LogTail {
        index: u64,
        term: u64,
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
    /// An event of the model's own vocabulary (see [`CustomEvent`]): any
    /// `model` tag that is not one of the generic kinds above.
    #[serde(untagged)]
    Custom(CustomEvent),
}

/// A member's state in a SWIM-style membership view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemberState {
    Alive,
    Suspect,
    Dead,
}
