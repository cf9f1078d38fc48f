//! `append-within-log`: the crate never asks its storage to put entries
//! past the end of the log. `Storage::append_on_prefix(from, entries)`
//! replaces the log from `from` on, which means something only when the
//! log reaches `from`; a write past its end shifts every entry to a lower
//! index. The generic invariants see the consequence once a shifted entry
//! is decided and applied; this one sees the write itself.

use crate::events::PaxosEvent;
use sim::{Event, Invariant, Violation};

#[derive(Default)]
pub struct AppendWithinLog;

impl AppendWithinLog {
    pub const ID: &'static str = "append-within-log";
    pub const HOLDS_WHEN: &'static str = "the crate asks its storage to write entries only at indexes the log reaches";
}

impl Invariant for AppendWithinLog {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        match (e.custom::<PaxosEvent>(), e.node) {
            (Some(PaxosEvent::LogGap { from, len }), Some(node)) => Err(Violation::new(
                Self::ID,
                format!("node {node} was asked to write entries from index {from} of a log {len} long"),
                vec![e.i],
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{EventKind, ModelEvent};

    fn ev(i: u64, e: PaxosEvent) -> Event {
        Event {
            i,
            t_ns: i,
            node: Some(1),
            kind: EventKind::Model(ModelEvent::custom(&e)),
        }
    }

    #[test]
    fn a_write_past_the_end_fails_and_a_reconnect_does_not() {
        let mut c = AppendWithinLog;
        c.observe(&ev(0, PaxosEvent::Reconnected { peer: 2 })).unwrap();
        let v = c.observe(&ev(1, PaxosEvent::LogGap { from: 7, len: 5 })).unwrap_err();
        assert_eq!(v.evidence, vec![1]);
        assert!(v.message.contains("from index 7 of a log 5 long"));
    }
}
