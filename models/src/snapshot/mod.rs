//! A snapshot store: Kafka-style partition owners keep per-key state and
//! flush snapshots to a Cassandra-like table fenced by journal offsets, with
//! the bug switches catalogued in docs/book/src/bugs.md ("Snapshot store").
//!
//! One [`SnapNode`] type plays every part, chosen by node id: node 0 is the
//! store (one table, lightweight transactions, per-cell TTLs reaped on its
//! own wall clock), node 1 the journal with its producers and the partition
//! coordinator, nodes 2.. the partition owners. Each is sans-IO: every input
//! arrives through [`Machine`] and every output leaves through [`Io`]. The
//! journal is a service the fault profile spares from crashes and pauses (it
//! can still be cut off), and so is the store unless `config.store_durable`
//! gives it a commit log to recover from; an owner keeps nothing on disk and
//! rebuilds everything from the store and the journal when it recovers.

mod cell;
pub mod check;
mod commit_log;
mod config;
mod coordinator;
mod digest;
pub mod events;
mod journal;
pub mod msg;
mod owner;
pub mod register;
mod store;
mod table;

pub use config::{SnapBugs, SnapConfig};
pub use msg::SnapMsg;

use journal::JournalNode;
use owner::Owner;
use sim::{ClientReply, ClientReq, Io, Machine, NodeId, Now, SyncTicket, TimerId};
use store::Store;

pub(crate) const MS: u64 = 1_000_000;

pub(crate) type SnapIo<'a> = Io<'a, SnapNode>;

/// A draw with probability `p` from the node's own stream.
pub(crate) fn chance(io: &mut SnapIo, p: f64) -> bool {
    p > 0.0 && ((io.random_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
}

// One value per node, built once per boot: boxing the larger roles buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum SnapNode {
    Store(Store),
    Journal(JournalNode),
    Owner(Owner),
}

impl SnapNode {
    pub fn new(id: NodeId, cfg: SnapConfig) -> SnapNode {
        match id {
            SnapConfig::STORE => SnapNode::Store(Store::new(cfg)),
            SnapConfig::JOURNAL => SnapNode::Journal(JournalNode::new(cfg)),
            _ => SnapNode::Owner(Owner::new(cfg)),
        }
    }
}

impl Machine for SnapNode {
    type Msg = SnapMsg;

    /// Everything the node holds, as text: no part of it is hidden.
    fn digest(&self) -> Option<u64> {
        Some(sim::hash::debug_digest(self))
    }
    /// Only a durable store writes its disk: the journal is a service that
    /// outlives faults, and owners rebuild from it and the store.
    type Rec = commit_log::LogRec;

    /// Every role gives one: see `digest`.
    fn digest_at(&self, now: &Now) -> Option<u64> {
        Some(match self {
            SnapNode::Store(s) => s.digest_at(now),
            SnapNode::Journal(j) => j.digest_at(now),
            SnapNode::Owner(o) => o.digest_at(now),
        })
    }

    fn record_digest_at(rec: &commit_log::LogRec, now: &Now) -> Option<u64> {
        Some(rec.digest_at(now))
    }

    fn boot(&mut self, io: &mut Io<Self>) {
        match self {
            SnapNode::Store(s) => s.boot(io),
            SnapNode::Journal(j) => j.boot(io),
            SnapNode::Owner(o) => o.boot(io),
        }
    }

    fn on_message(&mut self, from: NodeId, msg: SnapMsg, io: &mut Io<Self>) {
        match self {
            SnapNode::Store(s) => s.on_message(from, msg, io),
            SnapNode::Journal(j) => j.on_message(from, msg, io),
            SnapNode::Owner(o) => o.on_message(from, msg, io),
        }
    }

    fn on_timer(&mut self, timer: TimerId, io: &mut Io<Self>) {
        match self {
            SnapNode::Store(s) => s.on_timer(timer, io),
            SnapNode::Journal(j) => j.on_timer(timer, io),
            SnapNode::Owner(o) => o.on_timer(timer, io),
        }
    }

    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        // This model has no key-value clients.
        io.reply(req.req_id, ClientReply::NotLeader { hint: None });
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        if let SnapNode::Store(s) = self {
            s.on_fsynced(ticket, io);
        }
    }

    fn on_fsync_failed(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        match self {
            SnapNode::Store(s) => s.on_fsync_failed(ticket, io),
            _ => io.halt("an fsync failed"),
        }
    }
}
