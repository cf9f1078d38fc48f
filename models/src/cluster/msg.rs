//! Messages between the catalog and the workers. Every one carries the
//! cluster epoch of its sender in its header.

use serde::Serialize;
use sim::MsgInfo;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterMsg {
    /// The sender's cluster epoch when it sent the message.
    pub epoch: u64,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Body {
    /// A restarted worker introduces its new incarnation; it knows no epoch
    /// yet, so this handshake is the one message not fenced by epoch.
    Join {
        incarnation: u64,
    },
    /// The catalog's current descriptor version, after a DDL or an epoch change.
    News {
        version: u64,
    },
    /// A message of an older epoch was refused; the header carries the current one.
    Stale,
    /// `asked_ns` is the asker's own monotonic clock when it asked; the
    /// grant carries it back, so that the asker dates the lease from the
    /// request this grant answers, not from a later retry.
    LeaseReq {
        plan: u64,
        asked_ns: u64,
    },
    LeaseGrant {
        plan: u64,
        lease: u64,
        version: u64,
        asked_ns: u64,
    },
    /// A DDL is waiting for leases to drain: ask again later.
    LeaseBusy {
        plan: u64,
    },
    Revoke {
        lease: u64,
    },
    Released {
        lease: u64,
    },
    /// One write of a plan, stamped with the descriptor version it was planned at.
    Dispatch {
        plan: u64,
        version: u64,
    },
    /// A catching-up worker asks for its group's entries from `from` on.
    CatchUp {
        from: u64,
    },
    Entries {
        from: u64,
        to: u64,
    },
    /// A scatter-gather query asks a shard for its part of an aggregate.
    Query {
        query: u64,
    },
    Partial {
        query: u64,
        count: u64,
    },
}

impl Body {
    /// Whether a receiver refuses this message when its epoch is older.
    pub fn fenced(&self) -> bool {
        !matches!(self, Body::Join { .. } | Body::Stale)
    }
}

impl MsgInfo for ClusterMsg {
    fn kind(&self) -> &'static str {
        match self.body {
            Body::Join { .. } => "join",
            Body::News { .. } => "news",
            Body::Stale => "stale",
            Body::LeaseReq { .. } => "lease-req",
            Body::LeaseGrant { .. } => "lease-grant",
            Body::LeaseBusy { .. } => "lease-busy",
            Body::Revoke { .. } => "revoke",
            Body::Released { .. } => "released",
            Body::Dispatch { .. } => "dispatch",
            Body::Query { .. } => "query",
            Body::CatchUp { .. } => "catch-up",
            Body::Entries { .. } => "entries",
            Body::Partial { .. } => "partial",
        }
    }
}
