use crate::cluster::events::ClusterEvent;
use sim::fault::{Action, DiskFault};
use sim::{Event, EventKind, Invariant, NodeId, Violation};
use std::collections::BTreeMap;

/// A worker's incarnation rises with every boot it completes, so a boot
/// that could not read the disk never comes up at incarnation 0 (or any
/// incarnation it already had). Read-error faults in the trace are named
/// in the verdict.
#[derive(Default)]
pub struct BootReadError {
    /// node -> (incarnation, the event that reported it)
    last: BTreeMap<NodeId, (u64, u64)>,
    /// node -> the latest read-error fault on its disk
    read_error: BTreeMap<NodeId, u64>,
}

impl Invariant for BootReadError {
    fn id(&self) -> &'static str {
        "boot-read-error"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        if let EventKind::Fault {
            action:
                Action::Disk {
                    node,
                    fault: DiskFault::ReadError,
                    ..
                },
        } = &e.kind
        {
            self.read_error.insert(*node, e.i);
        }
        let (Some(node), Some(ClusterEvent::Booted { incarnation })) = (e.node, e.custom::<ClusterEvent>()) else {
            return Ok(());
        };
        if let Some(&(had, at)) = self.last.get(&node) {
            if incarnation <= had {
                let mut evidence = vec![at, e.i];
                let mut why = String::new();
                if let Some(&f) = self.read_error.get(&node) {
                    evidence.insert(1, f);
                    why = " after a read error on its disk".to_string();
                }
                return Err(Violation::new(
                    self.id(),
                    format!("node {node} came up at incarnation {incarnation}{why}, having been at incarnation {had}"),
                    evidence,
                ));
            }
        }
        self.last.insert(node, (incarnation, e.i));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    #[test]
    fn a_boot_back_at_zero_fails_and_a_rising_one_passes() {
        let mut c = BootReadError::default();
        c.observe(&ev(0, 1, ClusterEvent::Booted { incarnation: 0 })).unwrap();
        c.observe(&ev(1, 1, ClusterEvent::Booted { incarnation: 1 })).unwrap();
        c.observe(&ev(2, 2, ClusterEvent::Booted { incarnation: 0 })).unwrap();
        let v = c
            .observe(&ev(3, 1, ClusterEvent::Booted { incarnation: 0 }))
            .unwrap_err();
        assert_eq!(v.evidence, vec![1, 3]);
    }
}
