//! The trace: every event of a run, in order, with a hash that is the same
//! on every machine and build for the same seed and inputs.

use crate::event::{Event, EventKind};
use crate::hash::StableHasher;
use crate::machine::NodeId;
use std::hash::{Hash, Hasher};

#[derive(Clone, Debug, Default)]
pub struct Trace {
    events: Vec<Event>,
    hasher: StableHasher,
}

impl Trace {
    pub fn push(&mut self, t_ns: u64, node: Option<NodeId>, kind: EventKind) -> &Event {
        let e = Event {
            i: self.events.len() as u64,
            t_ns,
            node,
            kind,
        };
        e.hash(&mut self.hasher);
        self.events.push(e);
        self.events.last().expect("just pushed")
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn into_events(self) -> Vec<Event> {
        self.events
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Hex of the running stable hash over every event so far.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hasher.finish())
    }

    /// The hash a list of events would have: used to verify a saved report.
    pub fn hash_of(events: &[Event]) -> String {
        let mut h = StableHasher::default();
        for e in events {
            e.hash(&mut h);
        }
        format!("{:016x}", h.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_covers_every_field() {
        let mut a = Trace::default();
        a.push(5, Some(1), EventKind::Boot { restart: false });
        let mut b = Trace::default();
        b.push(5, Some(2), EventKind::Boot { restart: false });
        assert_ne!(a.hash_hex(), b.hash_hex());
        assert_eq!(a.hash_hex(), Trace::hash_of(a.events()));
    }
}
