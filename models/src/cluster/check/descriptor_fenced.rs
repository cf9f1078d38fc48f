use crate::cluster::events::ClusterEvent;
use sim::{Event, Invariant, NodeId, Violation};
use std::collections::BTreeMap;

/// No write is applied under a descriptor version that the catalog had
/// already superseded when its coordinator dispatched it. A write
/// dispatched in time may land after a later DDL: the fence is at dispatch.
#[derive(Default)]
pub struct DescriptorFenced {
    /// The catalog's newest committed version and the event that committed it.
    current: (u64, u64),
    /// (plan, shard) -> the dispatch event, if it went out under a superseded version.
    stale: BTreeMap<(u64, NodeId), (u64, u64, NodeId)>,
    stale_dispatches: u64,
}

impl Invariant for DescriptorFenced {
    fn id(&self) -> &'static str {
        "descriptor-fenced"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<ClusterEvent>() else {
            return Ok(());
        };
        match m {
            ClusterEvent::DdlCommitted { version } if version > self.current.0 => {
                self.current = (version, e.i);
            }
            ClusterEvent::Dispatched { plan, shard, version } if version < self.current.0 => {
                self.stale_dispatches += 1;
                self.stale.insert((plan, shard), (e.i, version, e.node.unwrap_or(0)));
            }
            ClusterEvent::Applied { plan, version, .. } => {
                let Some(shard) = e.node else { return Ok(()) };
                if let Some(&(at, _, coordinator)) = self.stale.get(&(plan, shard)) {
                    let (current, ddl) = self.current;
                    return Err(Violation::new(
                        self.id(),
                        format!(
                            "node {shard} applied a write of plan {plan:#x} under descriptor version {version}, dispatched by node {coordinator} after the catalog committed version {current}"
                        ),
                        vec![ddl.min(at), at, e.i],
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("stale_dispatches", self.stale_dispatches)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn run(events: &[(usize, ClusterEvent)]) -> Result<(), Violation> {
        let mut c = DescriptorFenced::default();
        for (i, (node, m)) in events.iter().enumerate() {
            c.observe(&ev(i as u64, *node, m.clone()))?;
        }
        Ok(())
    }

    #[test]
    fn a_write_dispatched_after_a_ddl_under_the_old_version_fails() {
        let v = run(&[
            (0, ClusterEvent::DdlCommitted { version: 1 }),
            (
                1,
                ClusterEvent::Dispatched {
                    plan: 7,
                    shard: 2,
                    version: 0,
                },
            ),
            (
                2,
                ClusterEvent::Applied {
                    plan: 7,
                    version: 0,
                    epoch: 1,
                },
            ),
        ])
        .unwrap_err();
        assert_eq!(v.evidence, vec![0, 1, 2]);
    }

    #[test]
    fn a_write_dispatched_before_the_ddl_may_land_after_it() {
        run(&[
            (
                1,
                ClusterEvent::Dispatched {
                    plan: 7,
                    shard: 2,
                    version: 0,
                },
            ),
            (0, ClusterEvent::DdlCommitted { version: 1 }),
            (
                2,
                ClusterEvent::Applied {
                    plan: 7,
                    version: 0,
                    epoch: 1,
                },
            ),
        ])
        .unwrap();
    }
}
