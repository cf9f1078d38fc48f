use crate::cluster::events::ClusterEvent;
use sim::{Event, EventKind, Invariant, NodeId, Violation};
use std::collections::BTreeMap;

/// Readiness fails only a group that made no progress: none whose applied
/// index advanced within the stall deadline before the failure, and the
/// failure names the index the group stuck at.
pub struct ReadinessProgress {
    stall_ns: u64,
    /// node -> (applied index, when, event) since its latest boot
    last: BTreeMap<NodeId, (u64, u64, u64)>,
}

impl ReadinessProgress {
    pub fn new(stall_ms: u64) -> ReadinessProgress {
        ReadinessProgress {
            stall_ns: stall_ms * 1_000_000,
            last: BTreeMap::new(),
        }
    }
}

impl Invariant for ReadinessProgress {
    fn id(&self) -> &'static str {
        "readiness-progress"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(node) = e.node else { return Ok(()) };
        if let EventKind::Boot { .. } = e.kind {
            self.last.remove(&node);
            return Ok(());
        }
        match e.custom::<ClusterEvent>() {
            Some(ClusterEvent::GroupApplied { index }) => {
                self.last.insert(node, (index, e.t_ns, e.i));
            }
            Some(ClusterEvent::ReadinessFailed { index }) => {
                let (applied, at_ns, at) = self.last.get(&node).copied().unwrap_or((0, 0, e.i));
                if applied != index {
                    return Err(Violation::new(
                        self.id(),
                        format!(
                            "node {node} failed readiness naming index {index}, but its group had applied {applied}"
                        ),
                        vec![at, e.i],
                    ));
                }
                let since = e.t_ns.saturating_sub(at_ns);
                if at != e.i && since < self.stall_ns {
                    return Err(Violation::new(
                        self.id(),
                        format!(
                            "node {node} failed readiness at index {index} though its group advanced to it {} ms before (the stall deadline is {} ms)",
                            since / 1_000_000,
                            self.stall_ns / 1_000_000
                        ),
                        vec![at, e.i],
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn at(i: u64, t_ms: u64, m: ClusterEvent) -> Event {
        let mut e = ev(i, 1, m);
        e.t_ns = t_ms * 1_000_000;
        e
    }

    #[test]
    fn failing_a_group_that_advanced_recently_fails() {
        let mut c = ReadinessProgress::new(300);
        c.observe(&at(0, 100, ClusterEvent::GroupApplied { index: 5 })).unwrap();
        c.observe(&at(1, 250, ClusterEvent::GroupApplied { index: 10 }))
            .unwrap();
        let v = c
            .observe(&at(2, 300, ClusterEvent::ReadinessFailed { index: 10 }))
            .unwrap_err();
        assert_eq!(v.evidence, vec![1, 2]);
    }

    #[test]
    fn failing_a_stuck_group_naming_its_index_passes() {
        let mut c = ReadinessProgress::new(300);
        c.observe(&at(0, 100, ClusterEvent::GroupApplied { index: 5 })).unwrap();
        c.observe(&at(1, 400, ClusterEvent::ReadinessFailed { index: 5 }))
            .unwrap();
        let mut c = ReadinessProgress::new(300);
        c.observe(&at(0, 100, ClusterEvent::GroupApplied { index: 5 })).unwrap();
        assert!(c
            .observe(&at(1, 400, ClusterEvent::ReadinessFailed { index: 4 }))
            .is_err());
    }
}
