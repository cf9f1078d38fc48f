use crate::cluster::events::ClusterEvent;
use sim::{Event, Invariant, Violation};
use std::collections::BTreeMap;

/// A cascade of trigger writes stays within its depth bound: counted from
/// the write's lineage (each write names the write whose action made it),
/// not from what the node believes its depth is.
pub struct CascadeBounded {
    depth_max: u32,
    /// write -> (depth by lineage, the event of the chain's first write)
    depth: BTreeMap<u64, (u32, u64)>,
}

impl CascadeBounded {
    pub fn new(depth_max: u32) -> CascadeBounded {
        CascadeBounded {
            depth_max,
            depth: BTreeMap::new(),
        }
    }
}

impl Invariant for CascadeBounded {
    fn id(&self) -> &'static str {
        "cascade-bounded"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(ClusterEvent::SourceWrite { write, cause, .. }) = e.custom::<ClusterEvent>() else {
            return Ok(());
        };
        let (d, root) = match cause.and_then(|c| self.depth.get(&c)) {
            Some(&(d, root)) => (d + 1, root),
            None => (0, e.i),
        };
        if d > self.depth_max {
            return Err(Violation::new(
                self.id(),
                format!(
                    "node {} made write {write:#x} at cascade depth {d}, beyond the bound of {}",
                    e.node.unwrap_or(0),
                    self.depth_max
                ),
                vec![root, e.i],
            ));
        }
        self.depth.insert(write, (d, root));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn write(i: u64, write: u64, cause: Option<u64>) -> Event {
        // The depth the node reports is not what is judged.
        ev(i, 1, ClusterEvent::SourceWrite { write, cause, depth: 0 })
    }

    #[test]
    fn a_chain_past_the_bound_fails() {
        let mut c = CascadeBounded::new(1);
        c.observe(&write(0, 1, None)).unwrap();
        c.observe(&write(1, 2, Some(1))).unwrap();
        let v = c.observe(&write(2, 3, Some(2))).unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }
}
