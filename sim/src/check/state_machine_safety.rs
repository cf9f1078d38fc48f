use super::{Invariant, Violation};
use crate::event::{Event, EventKind, ModelEvent};
use std::collections::BTreeMap;

/// No two nodes hold different state at the same applied index: every
/// Apply (and every state-machine reset to a snapshot) carries a digest of
/// the whole state, and the first digest seen at an index is the reference.
#[derive(Default)]
pub(crate) struct StateMachineSafety {
    /// index -> (digest, node, event index)
    at: BTreeMap<u64, (u64, usize, u64)>,
}

impl Invariant for StateMachineSafety {
    fn id(&self) -> &'static str {
        "state-machine-safety"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let (index, digest, what) = match &e.kind {
            EventKind::Model(ModelEvent::Apply { index, digest, .. }) => (*index, *digest, "applied"),
            EventKind::Model(ModelEvent::SmReset { applied, digest }) if *applied > 0 => {
                (*applied, *digest, "reset to")
            }
            _ => return Ok(()),
        };
        let Some(node) = e.node else { return Ok(()) };
        match self.at.get(&index) {
            Some(&(d, first, at)) if d != digest => Err(Violation::new(
                self.id(),
                format!(
                    "node {node} {what} index {index} with state {digest:016x}, \
                     but node {first} had state {d:016x} there"
                ),
                vec![at, e.i],
            )),
            Some(_) => Ok(()),
            None => {
                self.at.insert(index, (digest, node, e.i));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tests::ev;

    fn apply(i: u64, node: usize, index: u64, digest: u64) -> Event {
        ev(i, node, ModelEvent::Apply { index, term: 1, digest })
    }

    #[test]
    fn diverging_state_at_an_index_fails() {
        let mut c = StateMachineSafety::default();
        c.observe(&apply(0, 0, 1, 10)).unwrap();
        c.observe(&apply(1, 1, 1, 10)).unwrap();
        let v = c
            .observe(&ev(2, 2, ModelEvent::SmReset { applied: 1, digest: 11 }))
            .unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }

    #[test]
    fn same_state_everywhere_passes() {
        let mut c = StateMachineSafety::default();
        c.observe(&ev(0, 0, ModelEvent::SmReset { applied: 0, digest: 1 }))
            .unwrap();
        c.observe(&ev(1, 1, ModelEvent::SmReset { applied: 0, digest: 2 }))
            .unwrap();
        c.observe(&ev(
            2,
            0,
            ModelEvent::Apply {
                index: 3,
                term: 1,
                digest: 5,
            },
        ))
        .unwrap();
        c.observe(&ev(3, 1, ModelEvent::SmReset { applied: 3, digest: 5 }))
            .unwrap();
    }
}
