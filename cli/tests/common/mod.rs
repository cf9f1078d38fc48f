//! What the ticket-dispensing test models share: no messages, an `issued`
//! event, the tickets waiting for their fsync, and the invariant that no
//! node hands out a ticket twice.

use serde::{Deserialize, Serialize};
use sim::{Event, Invariant, MsgInfo, NodeId, SyncTicket, Violation};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize)]
pub enum NoMsg {}

impl MsgInfo for NoMsg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum TicketEvent {
    Issued { ticket: u64 },
}

/// No node hands out the same number twice, across its restarts.
#[derive(Default)]
pub struct UniqueTickets {
    issued: BTreeMap<(NodeId, u64), u64>,
}

impl Invariant for UniqueTickets {
    fn id(&self) -> &'static str {
        "unique-tickets"
    }
    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let (Some(TicketEvent::Issued { ticket }), Some(node)) = (e.custom::<TicketEvent>(), e.node) else {
            return Ok(());
        };
        match self.issued.insert((node, ticket), e.i) {
            Some(first) => Err(Violation::new(
                self.id(),
                format!("node {node} issued ticket {ticket} twice"),
                vec![first, e.i],
            )),
            None => Ok(()),
        }
    }
}

/// Tickets written and waiting for the fsync that makes them durable, each
/// with the client request it answers.
#[derive(Default)]
pub struct Waiting(Vec<(SyncTicket, u64, u64)>);

impl Waiting {
    /// `ticket`, for request `req_id`, is durable once `sync` completes.
    pub fn push(&mut self, sync: SyncTicket, req_id: u64, ticket: u64) {
        self.0.push((sync, req_id, ticket));
    }

    /// The (request, ticket) pairs that fsync `sync` made durable, in the
    /// order written; they wait no longer.
    pub fn durable_at(&mut self, sync: SyncTicket) -> Vec<(u64, u64)> {
        let (done, rest): (Vec<_>, Vec<_>) = self.0.drain(..).partition(|w| w.0 <= sync);
        self.0 = rest;
        done.into_iter().map(|(_, req, ticket)| (req, ticket)).collect()
    }
}
