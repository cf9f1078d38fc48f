//! What a release of the crate supplies: the calls whose signatures differ
//! between 0.2.0 and 0.2.4, and a view of its messages. Everything else is
//! [`crate::node::Node`], the same for both.

use crate::ballot::BallotRec;
use crate::config::AdapterConfig;
use crate::kv::Cmd;
use crate::store::Store;
use serde::{Serialize, Serializer};
use sim::MsgInfo;
use std::fmt::Debug;

/// A message as the trace shows it: its kind, ends, ballot and the indexes
/// it carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MsgSummary {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub from: u64,
    pub to: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<BallotRec>,
    /// (session, counter) of a leader-to-follower accept sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<(u64, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_idx: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_idx: Option<u64>,
    /// Where an AcceptSync's or a Promise's suffix goes in the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_idx: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<usize>,
}

/// A release of the crate, driven through its public API only.
pub trait Release: Sized + 'static {
    /// The scenario's `model` name.
    const MODEL: &'static str;
    /// `OmniPaxos` over [`Store`].
    type Paxos;
    type Msg: Clone + Debug;

    /// Builds a server as the crate's fail-recovery docs say: the same
    /// config, over the storage rebuilt from what was persisted.
    fn build(cfg: &AdapterConfig, pid: u64, nodes: Vec<u64>, store: Store) -> Self::Paxos;
    fn handle(p: &mut Self::Paxos, m: Self::Msg);
    fn tick(p: &mut Self::Paxos);
    /// False if the crate refused the entry.
    fn append(p: &mut Self::Paxos, c: Cmd) -> bool;
    fn reconnected(p: &mut Self::Paxos, pid: u64);
    fn outgoing(p: &mut Self::Paxos) -> Vec<Self::Msg>;
    /// The ballot this server follows or leads: its promise.
    fn promise(p: &Self::Paxos) -> Option<BallotRec>;
    fn decided_idx(p: &Self::Paxos) -> u64;
    /// The decided entries from index `from` on (0-based), as far as the
    /// log holds them.
    fn decided_suffix(p: &Self::Paxos, from: u64) -> Vec<Cmd>;
    fn summary(m: &Self::Msg) -> MsgSummary;
    /// The pid a message goes to.
    fn to(m: &Self::Msg) -> u64 {
        Self::summary(m).to
    }
}

/// The message type a node sends and receives: the crate's own message.
pub struct Msg<R: Release>(pub R::Msg);

impl<R: Release> Clone for Msg<R> {
    fn clone(&self) -> Self {
        Msg(self.0.clone())
    }
}

impl<R: Release> Debug for Msg<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<R: Release> MsgInfo for Msg<R> {
    fn kind(&self) -> &'static str {
        R::summary(&self.0).kind
    }
}

impl<R: Release> Serialize for Msg<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        R::summary(&self.0).serialize(s)
    }
}
