//! Messages between Raft nodes.

use super::hlc::Timestamp;
use super::lease::LeaseGrant;
use super::log::Entry;
use super::state_machine::KvData;
use super::swim::SwimMsg;
use serde::Serialize;
use sim::MsgInfo;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum RaftMsg {
    /// "Would you vote for me in `term`?" `term` is the prober's term + 1;
    /// neither side changes any state because of it.
    PreVote {
        term: u64,
        last_log_index: u64,
        last_log_term: u64,
    },
    /// A grant echoes the probed term, so a late grant for an older round is
    /// recognisable. A refusal carries the responder's real term instead: a
    /// prober whose log is the most up to date but whose term fell behind
    /// (it was down while others campaigned) must learn that term, or no one
    /// could ever win (the others' logs are behind, its probes too low).
    PreVoteResp {
        term: u64,
        granted: bool,
    },
    Vote {
        term: u64,
        last_log_index: u64,
        last_log_term: u64,
    },
    VoteResp {
        term: u64,
        granted: bool,
    },
    Append {
        term: u64,
        prev_index: u64,
        prev_term: u64,
        entries: Vec<Entry>,
        commit: u64,
        /// The leader's heartbeat round this append belongs to; the answer
        /// echoes it (ReadIndex and the lease count rounds, not answers).
        round: u64,
        /// What the leader can promise about the follower's freshness.
        vouch: Option<Vouch>,
    },
    /// On success `index` is the last index known to match the leader's log
    /// (and durable); on failure it is a hint: the follower's log cannot
    /// match beyond it.
    AppendResp {
        term: u64,
        success: bool,
        index: u64,
        /// The `round` of the append this answers.
        round: u64,
        /// The follower's monotonic clock when it answered, echoed back in a
        /// later [`Vouch`].
        stamp_ns: u64,
    },
    Snapshot {
        term: u64,
        index: u64,
        last_term: u64,
        data: KvData,
        digest: u64,
    },
    /// The follower holds everything up to `index` durably.
    SnapshotResp {
        term: u64,
        index: u64,
    },
    /// Any message as it travels: stamped with the sender's HLC. Every
    /// message leaves wrapped this way and is unwrapped on arrival.
    Stamped {
        hlc: Timestamp,
        msg: Box<RaftMsg>,
    },
    /// A node asks the leader it follows to put a descriptor lease grant
    /// into the log; it learns the outcome by applying the log.
    LeaseRequest {
        grant: LeaseGrant,
    },
    /// Membership gossip beside Raft.
    Swim {
        msg: SwimMsg,
    },
}

/// A leader's promise to a follower: every write any leader had committed
/// by the time the follower's clock read `stamp_ns` is at or below `commit`.
/// The leader had that stamp in hand when it sent a heartbeat round that a
/// quorum then acknowledged, so no newer leader existed by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Hash)]
pub struct Vouch {
    pub commit: u64,
    pub stamp_ns: u64,
}

impl RaftMsg {
    pub fn term(&self) -> u64 {
        match self {
            RaftMsg::PreVote { term, .. }
            | RaftMsg::PreVoteResp { term, .. }
            | RaftMsg::Vote { term, .. }
            | RaftMsg::VoteResp { term, .. }
            | RaftMsg::Append { term, .. }
            | RaftMsg::AppendResp { term, .. }
            | RaftMsg::Snapshot { term, .. }
            | RaftMsg::SnapshotResp { term, .. } => *term,
            RaftMsg::Stamped { msg, .. } => msg.term(),
            RaftMsg::LeaseRequest { .. } | RaftMsg::Swim { .. } => 0,
        }
    }
    /// Whether `term` is the sender's real term. A pre-vote and a pre-vote
    /// grant carry a hypothetical one, which must not move anyone's term.
    pub fn carries_real_term(&self) -> bool {
        match self {
            RaftMsg::Stamped { msg, .. } => msg.carries_real_term(),
            RaftMsg::LeaseRequest { .. } | RaftMsg::Swim { .. } => false,
            _ => !matches!(
                self,
                RaftMsg::PreVote { .. } | RaftMsg::PreVoteResp { granted: true, .. }
            ),
        }
    }
    /// Stands in for a message being moved into a [`RaftMsg::Stamped`].
    pub(super) fn placeholder() -> RaftMsg {
        RaftMsg::VoteResp {
            term: 0,
            granted: false,
        }
    }
}

impl MsgInfo for RaftMsg {
    fn digest_at(&self, now: &sim::Now) -> Option<u64> {
        self.relative(now).map(|m| sim::hash::state_digest(&m))
    }

    /// No message names a node, but for leases and gossip, which give no
    /// relative digest at all.
    fn digest_renamed(&self, now: &sim::Now, _ids: &[sim::NodeId]) -> Option<u64> {
        self.digest_at(now)
    }

    fn kind(&self) -> &'static str {
        match self {
            RaftMsg::PreVote { .. } => "pre-vote",
            RaftMsg::PreVoteResp { .. } => "pre-vote-resp",
            RaftMsg::Vote { .. } => "vote",
            RaftMsg::VoteResp { .. } => "vote-resp",
            RaftMsg::Append { .. } => "append",
            RaftMsg::AppendResp { .. } => "append-resp",
            RaftMsg::Snapshot { .. } => "snapshot",
            RaftMsg::SnapshotResp { .. } => "snapshot-resp",
            RaftMsg::Stamped { msg, .. } => msg.kind(),
            RaftMsg::LeaseRequest { .. } => "lease-request",
            RaftMsg::Swim { msg } => msg.kind(),
        }
    }
}
