//! The layer of a distributed database above consensus: a catalog of
//! descriptor versions changed by DDL, descriptor leases, plans that
//! dispatch writes to shard owners, a cluster epoch in every RPC header,
//! and worker incarnations kept on disk; with the bug switches catalogued
//! in docs/book/src/bugs.md ("Cluster layer").
//!
//! Node 0 is the catalog: it makes every DDL and every epoch change
//! durable on its disk before anyone hears of it, standing in for the
//! consensus group a real catalog lives in. Nodes 1.. are workers, each a
//! plan coordinator and the owner of one shard. Each is sans-IO.

mod catalog;
pub mod check;
mod config;
pub mod events;
pub mod msg;
pub mod register;
mod worker;

pub use config::{ClusterBugs, ClusterConfig};
pub use msg::ClusterMsg;

use catalog::Catalog;
use msg::Body;
use sim::{ClientReply, ClientReq, Io, Machine, NodeId, SyncTicket, TimerId};
use worker::Worker;

pub(crate) const MS: u64 = 1_000_000;

pub(crate) type ClusterIo<'a> = Io<'a, ClusterNode>;

/// Sends `body` stamped with the sender's epoch: every message but a
/// restarted worker's join carries it, and the receiver fences by it.
pub(crate) fn send(io: &mut ClusterIo, to: NodeId, epoch: u64, body: Body) {
    io.send(to, ClusterMsg { epoch, body });
}

/// A draw with probability `p` from the node's own stream.
pub(crate) fn chance(io: &mut ClusterIo, p: f64) -> bool {
    p > 0.0 && ((io.random_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
}

/// One durable record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rec {
    /// The catalog's descriptor version.
    Version(u64),
    /// The catalog's cluster epoch.
    Epoch(u64),
    /// A worker's incarnation, one per boot.
    Incarnation(u64),
}

pub enum ClusterNode {
    Catalog(Catalog),
    Worker(Worker),
}

impl ClusterNode {
    pub fn new(id: NodeId, cfg: ClusterConfig) -> ClusterNode {
        match id {
            ClusterConfig::CATALOG => ClusterNode::Catalog(Catalog::new(cfg)),
            _ => ClusterNode::Worker(Worker::new(cfg)),
        }
    }
}

impl Machine for ClusterNode {
    type Msg = ClusterMsg;
    type Rec = Rec;

    fn boot(&mut self, io: &mut Io<Self>) {
        match self {
            ClusterNode::Catalog(c) => c.boot(io),
            ClusterNode::Worker(w) => w.boot(io),
        }
    }

    fn on_message(&mut self, from: NodeId, msg: ClusterMsg, io: &mut Io<Self>) {
        match self {
            ClusterNode::Catalog(c) => c.on_message(from, msg, io),
            ClusterNode::Worker(w) => w.on_message(from, msg, io),
        }
    }

    fn on_timer(&mut self, timer: TimerId, io: &mut Io<Self>) {
        match self {
            ClusterNode::Catalog(c) => c.on_timer(timer, io),
            ClusterNode::Worker(w) => w.on_timer(timer, io),
        }
    }

    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        // Plans come from the workers themselves, not from key-value clients.
        io.reply(req.req_id, ClientReply::NotLeader { hint: None });
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        match self {
            ClusterNode::Catalog(c) => c.on_fsynced(ticket, io),
            ClusterNode::Worker(w) => w.on_fsynced(ticket, io),
        }
    }
}
