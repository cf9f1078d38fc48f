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
mod role_watch;
pub use custom::{CustomEvent, GENERIC_KINDS};
pub use role_watch::{RoleChange, RoleWatch};

/// Hashed as `hash.rs` says: fields added since reports were first hashed
/// do not count, so a report an earlier release wrote still matches its
/// hash and replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the trace; evidence in a verdict names these.
    pub i: u64,
    /// True simulated time in ns since the run began.
    pub t_ns: u64,
    /// The node it happened on (for a drop, where the message was lost); `None`
    /// for what no one node did: faults, the heal, client ops.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub node: Option<NodeId>,
    /// What happened; its fields sit beside these in the event's JSON.
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

/// A node's part in electing and following a leader, as a `role` event reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Follows a leader, or waits to hear from one; it neither campaigns nor leads.
    Follower,
    /// Asks its peers in a pre-vote whether it could win, before it raises its epoch.
    PreCandidate,
    /// Campaigns for an epoch it raised: a Raft candidacy, a Paxos prepare phase.
    Candidate,
    /// Won its epoch: it leads until it is deposed or steps down.
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
    /// Lost at random: message chaos or a degraded link.
    Loss,
    /// A partition cut the link, when the message was sent or while it was in flight.
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
        /// The action as it took effect, any leader it names resolved to a node.
        action: Action,
    },
    /// The safety phase ended: faults stop, the liveness phase begins.
    /// `impaired` nodes stay cut off (a minority, possibly empty).
    Heal {
        /// The nodes left cut off, by id.
        impaired: Vec<NodeId>,
    },
    /// A node booted: at the run's start, or again after a crash or a halt.
    Boot {
        /// False only for the first boot at the run's start.
        restart: bool,
    },
    /// Message kinds are the machine's `&'static str`s: borrowed while a run
    /// records them (no allocation per message), owned when read back.
    Send {
        /// The message's id, unique in the run; its delivery, drop or duplicate names it too.
        id: u64,
        /// The receiver; the event's node is the sender.
        to: NodeId,
        /// The message's kind, as [`crate::MsgInfo::kind`] names it.
        msg: Cow<'static, str>,
    },
    /// A message reached its receiver, the event's node, which handles it now.
    Deliver {
        /// The id its `send` gave it.
        id: u64,
        /// The node that sent it.
        from: NodeId,
        /// The message's kind, as its `send` recorded it.
        msg: Cow<'static, str>,
    },
    /// A message was lost and never reaches `to`. The event's node is where it was
    /// lost: the sender if it never left, else the receiver.
    Drop {
        /// The id its `send` gave it.
        id: u64,
        /// The node that sent it.
        from: NodeId,
        /// The node it was meant for.
        to: NodeId,
        /// The message's kind, as its `send` recorded it.
        msg: Cow<'static, str>,
        /// Why it never arrived.
        cause: DropCause,
    },
    /// The network duplicated message `id`, sent by the event's node: a second
    /// copy travels to the receiver with its own delay.
    Duplicate {
        /// The id its `send` gave it; both copies carry it.
        id: u64,
    },
    /// A crash discarded `lost` disk operations that were not yet durable;
    /// `kept` of them survived as a torn prefix.
    DiskLoss {
        /// Pending disk operations the crash threw away.
        lost: u64,
        /// Pending disk operations that survived: the oldest ones, a torn prefix.
        kept: u64,
    },
    /// A client began an op. `to` is the node its first request went to;
    /// on an end (`ok`, `fail`, `info`), `to` is where its last request
    /// went: the node that answered, or the one that kept it waiting.
    /// (Absent only in reports of older releases.)
    Invoke {
        /// The client, numbered from 0; it has one op open at a time.
        client: u32,
        /// The op's id, unique in the run; the event that ends the op names it too.
        op_id: u64,
        /// What the client asks the cluster to do.
        op: KvOp,
        /// The node its first request went to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    /// The op took effect: the cluster answered `result`.
    Ok {
        /// The client whose op ended.
        client: u32,
        /// The op's id, as its `invoke` gave it.
        op_id: u64,
        /// What the cluster answered.
        result: KvResult,
        /// The node that answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    /// The op failed for certain: it did not take effect and never will.
    Fail {
        /// The client whose op ended.
        client: u32,
        /// The op's id, as its `invoke` gave it.
        op_id: u64,
        /// Why, in words: "no leader" when its retries ran out on nodes that do not lead.
        why: String,
        /// The node whose refusal ended it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    /// The outcome is unknown: the op may take effect at any later point.
    Info {
        /// The client whose op ended.
        client: u32,
        /// The op's id, as its `invoke` gave it.
        op_id: u64,
        /// Why: "timeout" if no answer came in time, "unknown" if the node answered it could not tell.
        why: String,
        /// The node its last request went to: the one that answered, or kept it waiting.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<NodeId>,
    },
    /// A node reached a `sometimes` coverage goal, for the first time in the run.
    Reached {
        /// The goal's name, as the model gave it.
        goal: String,
    },
    /// A node reported an event about itself (see [`ModelEvent`]).
    Model(ModelEvent),
    /// A node panicked; the run ends with an error verdict.
    Panic {
        /// The panic's message.
        message: String,
    },
    /// Fsync `ticket` failed under a storage fault: of the disk operations
    /// it covered, `kept` became durable and `dropped` are gone for good.
    FsyncFailed {
        /// The ticket the node's `fsync` returned.
        ticket: u64,
        /// Covered disk operations lost for good.
        dropped: u64,
        /// Covered disk operations that became durable.
        kept: u64,
    },
    /// The node stopped itself ([`crate::Io::halt`]); the world
    /// boots it again shortly.
    Halt {
        /// Why, in the node's own words.
        reason: String,
    },
    /// On a stream link: the node learned that its connection to `peer`
    /// broke, through a loss, a partition, or an end that was down (`cause`).
    LinkBroken {
        /// The node at the other end of the broken connection.
        peer: NodeId,
        /// What broke it.
        cause: DropCause,
    },
}

impl EventKind {
    /// Whether this is a client operation's event (its invoke or its
    /// completion): what a history to check is made of.
    pub fn is_client_op(&self) -> bool {
        matches!(
            self,
            EventKind::Invoke { .. } | EventKind::Ok { .. } | EventKind::Fail { .. } | EventKind::Info { .. }
        )
    }
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
        /// The epoch as one number: a Raft term, a Paxos round.
        term: u64,
        /// The role the node is in now.
        role: Role,
        /// Why it changed.
        cause: RoleCause,
        /// The peer whose message caused the change; `None` when none did (a boot, a timeout).
        from: Option<NodeId>,
        /// The epoch as a tuple, where the protocol's epochs are ballots; `None` stands for `[term]`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ballot: Option<Ballot>,
    },
    /// HardState made durable.
    HardState {
        /// The node's current term, now on disk.
        term: u64,
        /// The node it voted for in `term`; `None` if it has not voted in it.
        vote: Option<NodeId>,
    },
    /// The node learned that its log is committed up to `index`.
    Commit {
        /// The highest log index the node knows to be committed.
        index: u64,
    },
    /// The state machine applied `index`; `digest` hashes its whole state after.
    Apply {
        /// The log index of the entry applied.
        index: u64,
        /// The term of that entry.
        term: u64,
        /// A hash of the whole state-machine state after applying it.
        digest: u64,
    },
    /// The state machine was (re)built with everything up to `applied`
    /// already in it: at boot from a snapshot, or by InstallSnapshot.
    SmReset {
        /// The last log index the rebuilt state includes.
        applied: u64,
        /// A hash of the rebuilt state, comparable to the `digest` of an `apply`.
        digest: u64,
    },
    /// The log was compacted up to `index`.
    Compact {
        /// The last index the snapshot now holds in place of the log.
        index: u64,
    },
    /// The node's log now ends at `index`, an entry of `term` (reported
    /// when either changes: appends, truncations, a snapshot installed, a
    /// boot). What the search reads to tell who holds the newest entry and
    /// how far each log is from the leader's.
    LogTail {
        /// The index of the log's last entry.
        index: u64,
        /// The term of that entry.
        term: u64,
    },
    /// A `follower-get` of `key` was answered from this node's state as
    /// applied up to `served_index`, which the node declared to hold every
    /// write committed `staleness_ms` or more before.
    FollowerRead {
        /// The key read.
        key: u32,
        /// The applied index the answer was read at.
        served_index: u64,
        /// The staleness bound the node declared, in ms.
        staleness_ms: u64,
    },
    /// A timestamp from `from` moved this node's hybrid logical clock past
    /// both its previous value and the local wall clock. Local ticks are not
    /// reported: they never run ahead of the node's own wall clock.
    Hlc {
        /// The clock's wall part after the move, in ns on the node's wall-clock scale.
        wall_ns: u64,
        /// The clock's logical counter after the move.
        logical: u32,
        /// The peer whose timestamp moved it.
        from: NodeId,
    },
    /// A timestamp from `from` lay more than MAX_CLOCK_SKEW ahead of the
    /// local wall clock and was refused; the clock did not move. Reported
    /// when refusals from that peer begin, not for every message after.
    HlcRefused {
        /// The wall part of the refused timestamp, in ns.
        remote_wall_ns: u64,
        /// The peer that sent it.
        from: NodeId,
    },
    /// The node uses descriptor lease `lease` from now until its own wall
    /// clock reads `expires_at_ns` (a renewal reports the new expiry).
    LeaseStart {
        /// The descriptor lease's id.
        lease: u32,
        /// Its expiry, in ns as the node's own wall clock reads.
        expires_at_ns: u64,
    },
    /// The node stopped using `lease` before or at its expiry: `cause` is
    /// "expired" or "self-fence" (no leader contact for too long).
    LeaseStop {
        /// The lease the node gave up.
        lease: u32,
        /// Why: "expired" or "self-fence".
        cause: String,
    },
    /// This node's membership view of `peer` changed state.
    Member {
        /// The member whose state changed in this node's view.
        peer: NodeId,
        /// Its state in the view now.
        state: MemberState,
        /// The incarnation the news is about; news of a higher incarnation overrides older news.
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
    /// Answers probes, as far as the view knows.
    Alive,
    /// Missed a probe and may be down; it is declared dead unless it refutes in time.
    Suspect,
    /// Declared down after a spell of suspicion; only news of a higher incarnation revives it.
    Dead,
}
