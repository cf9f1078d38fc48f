//! What travels between async nodes: a user's message, told one way or
//! asked as a call that expects an answer. The world routes the envelope
//! like any message, so every fault of the plan applies to calls and
//! answers alike.

use crate::machine::{MsgInfo, NodeId};
use serde::Serialize;

/// A message on the wire: the user's own, with a call id when it is a
/// request or the answer to one.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Wire<M> {
    /// A message sent one way ([`super::Ctx::send`]).
    Tell(M),
    /// A request that waits for an answer ([`super::Ctx::call`]).
    Ask {
        /// The call's id, unique among the asking node's calls.
        call: u64,
        /// The request.
        msg: M,
    },
    /// The answer to an `Ask` ([`super::Ctx::answer`]).
    Answer {
        /// The id of the call answered, as the `Ask` gave it.
        call: u64,
        /// The answer.
        msg: M,
    },
    /// A TCP segment or a UDP datagram of a socket of dst's tokio.
    Net(super::net::Segment),
}

impl<M: MsgInfo> MsgInfo for Wire<M> {
    fn kind(&self) -> &'static str {
        match self {
            Wire::Tell(m) | Wire::Ask { msg: m, .. } | Wire::Answer { msg: m, .. } => m.kind(),
            Wire::Net(s) => s.kind(),
        }
    }

    fn link(&self) -> Option<crate::links::LinkMode> {
        match self {
            Wire::Net(s) => Some(s.link()),
            _ => None,
        }
    }
}

/// A message as a node receives it.
#[derive(Clone, Debug)]
pub struct Envelope<M> {
    /// The node that sent it.
    pub from: NodeId,
    /// The user's message.
    pub msg: M,
    /// Set when the sender waits for an answer ([`super::Ctx::call`]):
    /// hand it to [`super::Ctx::answer`].
    pub reply_to: Option<ReplyTo>,
}

/// Where the answer to a call goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplyTo {
    pub(crate) to: NodeId,
    pub(crate) call: u64,
}

impl ReplyTo {
    /// The node that asked.
    pub fn node(&self) -> NodeId {
        self.to
    }
}

/// Why a call got no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallError {
    /// No answer within the timeout: the request or the answer was lost,
    /// the peer is down, slow or cut off; it may still have acted on it.
    Timeout,
    /// The peer does not exist.
    NoSuchNode,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout => write!(f, "no answer within the timeout"),
            CallError::NoSuchNode => write!(f, "no such node"),
        }
    }
}

impl std::error::Error for CallError {}
