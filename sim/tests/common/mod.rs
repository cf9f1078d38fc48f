//! What the ticket-dispensing test models share: no messages, an `issued`
//! event, and the invariant that no node hands out a ticket twice.

use serde::{Deserialize, Serialize};
use sim::check::{Invariant, Violation};
use sim::event::Event;
use sim::machine::{MsgInfo, NodeId};
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
