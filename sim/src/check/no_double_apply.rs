use super::{Invariant, Violation};
use crate::event::{Event, EventKind, ModelEvent};
use std::collections::BTreeMap;

/// Each state-machine instance applies index i exactly once, in order. An
/// instance begins at a reset (boot, or an installed snapshot) and must then
/// apply reset+1, reset+2, .. with no repeat and no gap.
#[derive(Default)]
pub(crate) struct NoDoubleApply {
    /// node -> (last applied index, event index that set it)
    last: BTreeMap<usize, (u64, u64)>,
}

impl Invariant for NoDoubleApply {
    fn id(&self) -> &'static str {
        "no-double-apply"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(node) = e.node else { return Ok(()) };
        match &e.kind {
            EventKind::Boot { .. } => {
                self.last.remove(&node);
            }
            EventKind::Model(ModelEvent::SmReset { applied, .. }) => {
                if let Some(&(last, at)) = self.last.get(&node) {
                    if *applied < last {
                        return Err(Violation::new(
                            self.id(),
                            format!("node {node} reset its state machine back to {applied} after applying {last}"),
                            vec![at, e.i],
                        ));
                    }
                }
                self.last.insert(node, (*applied, e.i));
            }
            EventKind::Model(ModelEvent::Apply { index, .. }) => {
                let (last, at) = self.last.get(&node).copied().unwrap_or((0, e.i));
                if *index <= last {
                    return Err(Violation::new(
                        self.id(),
                        format!("node {node} applied index {index} again (already applied up to {last})"),
                        vec![at, e.i],
                    ));
                }
                if *index > last + 1 {
                    return Err(Violation::new(
                        self.id(),
                        format!("node {node} applied index {index} but never applied {}", last + 1),
                        vec![at, e.i],
                    ));
                }
                self.last.insert(node, (*index, e.i));
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tests::ev;

    fn apply(i: u64, node: usize, index: u64) -> Event {
        ev(
            i,
            node,
            ModelEvent::Apply {
                index,
                term: 1,
                digest: 0,
            },
        )
    }

    #[test]
    fn repeated_index_fails() {
        let mut c = NoDoubleApply::default();
        c.observe(&apply(0, 0, 1)).unwrap();
        c.observe(&apply(1, 0, 2)).unwrap();
        assert!(c.observe(&apply(2, 0, 2)).unwrap_err().message.contains("again"));
    }

    #[test]
    fn gap_fails() {
        let mut c = NoDoubleApply::default();
        c.observe(&ev(0, 1, ModelEvent::SmReset { applied: 4, digest: 0 }))
            .unwrap();
        assert!(c
            .observe(&apply(1, 1, 6))
            .unwrap_err()
            .message
            .contains("never applied 5"));
    }

    #[test]
    fn restart_begins_a_new_instance() {
        let mut c = NoDoubleApply::default();
        c.observe(&apply(0, 0, 1)).unwrap();
        c.observe(&apply(1, 0, 2)).unwrap();
        let boot = Event {
            i: 2,
            t_ns: 0,
            node: Some(0),
            kind: EventKind::Boot { restart: true },
        };
        c.observe(&boot).unwrap();
        c.observe(&ev(3, 0, ModelEvent::SmReset { applied: 0, digest: 0 }))
            .unwrap();
        c.observe(&apply(4, 0, 1)).unwrap();
    }
}
