use crate::cluster::events::ClusterEvent;
use sim::{Event, EventKind, Invariant, NodeId, Violation};
use std::collections::BTreeMap;

/// No node changes state on a message whose header epoch is older than the
/// epoch the node had when it decoded it. A node's epoch is what it last
/// reported since its latest boot.
#[derive(Default)]
pub struct EpochFenced {
    /// node -> (epoch, the event that reported it)
    epoch: BTreeMap<NodeId, (u64, u64)>,
}

impl Invariant for EpochFenced {
    fn id(&self) -> &'static str {
        "epoch-fenced"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(node) = e.node else { return Ok(()) };
        if let EventKind::Boot { .. } = e.kind {
            self.epoch.remove(&node);
            return Ok(());
        }
        let Some(m) = e.custom::<ClusterEvent>() else {
            return Ok(());
        };
        let (header, what) = match m {
            ClusterEvent::Epoch { epoch } => {
                self.epoch.insert(node, (epoch, e.i));
                return Ok(());
            }
            ClusterEvent::Applied { plan, epoch, .. } => (epoch, format!("applied a write of plan {plan:#x}")),
            ClusterEvent::LeaseGranted { holder, epoch, .. } => (epoch, format!("granted node {holder} a lease")),
            ClusterEvent::LeaseHeld { plan, epoch, .. } => (epoch, format!("took a lease for plan {plan:#x}")),
            _ => return Ok(()),
        };
        match self.epoch.get(&node) {
            Some(&(own, at)) if header < own => Err(Violation::new(
                self.id(),
                format!("node {node} {what} from a message of epoch {header} while at epoch {own}"),
                vec![at, e.i],
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{boot, ev};
    use super::*;

    fn applied(i: u64, epoch: u64) -> Event {
        ev(
            i,
            2,
            ClusterEvent::Applied {
                plan: 1,
                version: 0,
                epoch,
            },
        )
    }

    #[test]
    fn a_write_from_an_older_epoch_fails() {
        let mut c = EpochFenced::default();
        c.observe(&ev(0, 2, ClusterEvent::Epoch { epoch: 3 })).unwrap();
        c.observe(&applied(1, 3)).unwrap();
        let v = c.observe(&applied(2, 2)).unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }

    #[test]
    fn a_restarted_node_starts_without_an_epoch() {
        let mut c = EpochFenced::default();
        c.observe(&ev(0, 2, ClusterEvent::Epoch { epoch: 3 })).unwrap();
        c.observe(&boot(1, 2)).unwrap();
        c.observe(&applied(2, 2)).unwrap();
    }
}
