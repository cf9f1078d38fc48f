use crate::cluster::events::ClusterEvent;
use crate::cluster::ClusterConfig;
use sim::fault::Action;
use sim::{Event, EventKind, Invariant, NodeId, Violation};
use std::collections::{BTreeMap, BTreeSet};

/// Past the latest an action can finish (its delay and every backoff), a
/// node may take this much longer (its timer must come round).
const SLACK_NS: u64 = 100_000_000;

/// One trigger's failure never takes its siblings down with it: every
/// action a write fires, on a node that stays up, completes or is
/// dead-lettered within its delay and retries.
pub struct TriggerSiblings {
    within_ns: u64,
    /// (write, trigger) -> (node, due, fired event)
    open: BTreeMap<(u64, u32), (NodeId, u64, u64)>,
    due: BTreeSet<(u64, u64, u32)>,
    /// write -> the latest failure of one of its actions
    failed: BTreeMap<u64, u64>,
}

impl TriggerSiblings {
    pub fn new(cfg: &ClusterConfig) -> TriggerSiblings {
        let backoffs: u64 = (0..cfg.trigger_retries)
            .map(|r| cfg.trigger_backoff_ms << r.min(10))
            .sum();
        TriggerSiblings {
            within_ns: (cfg.trigger_delay_ms + backoffs) * 1_000_000 + SLACK_NS,
            open: BTreeMap::new(),
            due: BTreeSet::new(),
            failed: BTreeMap::new(),
        }
    }

    fn close(&mut self, key: (u64, u32)) {
        if let Some((_, due, _)) = self.open.remove(&key) {
            self.due.remove(&(due, key.0, key.1));
        }
    }
}

impl Invariant for TriggerSiblings {
    fn id(&self) -> &'static str {
        "trigger-siblings"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        if let Some(&(due, write, trigger)) = self.due.first() {
            if due < e.t_ns {
                let (node, _, fired) = self.open[&(write, trigger)];
                let mut evidence = vec![fired];
                let mut why = String::new();
                if let Some(&f) = self.failed.get(&write) {
                    evidence.push(f);
                    why = ", after an action of the same write failed".to_string();
                }
                evidence.push(e.i);
                return Err(Violation::new(
                    self.id(),
                    format!(
                        "node {node}'s trigger {trigger} on write {write:#x} neither completed nor was dead-lettered within {} ms{why}",
                        self.within_ns / 1_000_000
                    ),
                    evidence,
                ));
            }
        }
        let down = match &e.kind {
            EventKind::Boot { .. } | EventKind::Halt { .. } => e.node,
            EventKind::Fault {
                action: Action::Crash { node },
            } => Some(*node),
            _ => None,
        };
        if let Some(n) = down {
            let gone: Vec<(u64, u32)> = self.open.iter().filter(|(_, o)| o.0 == n).map(|(&k, _)| k).collect();
            for k in gone {
                self.close(k);
            }
            return Ok(());
        }
        let (Some(node), Some(m)) = (e.node, e.custom::<ClusterEvent>()) else {
            return Ok(());
        };
        match m {
            ClusterEvent::TriggerFired { write, trigger } => {
                let due = e.t_ns + self.within_ns;
                self.open.insert((write, trigger), (node, due, e.i));
                self.due.insert((due, write, trigger));
            }
            ClusterEvent::TriggerFailed { write, .. } => {
                self.failed.insert(write, e.i);
            }
            ClusterEvent::TriggerDone { write, trigger, .. } | ClusterEvent::DeadLettered { write, trigger } => {
                self.close((write, trigger));
                if !self.open.keys().any(|k| k.0 == write) {
                    self.failed.remove(&write);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_ns: u64) -> Result<(), Violation> {
        let probe = Event {
            i: u64::MAX,
            t_ns: end_ns,
            node: None,
            kind: EventKind::Heal { impaired: vec![] },
        };
        self.observe(&probe).map_err(|mut v| {
            v.evidence.retain(|&i| i != u64::MAX);
            v
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn fired(i: u64, trigger: u32) -> Event {
        ev(i, 1, ClusterEvent::TriggerFired { write: 3, trigger })
    }

    #[test]
    fn a_sibling_left_behind_by_a_failure_fails() {
        let mut c = TriggerSiblings::new(&ClusterConfig::default());
        c.observe(&fired(0, 0)).unwrap();
        c.observe(&fired(1, 1)).unwrap();
        let failed = ClusterEvent::TriggerFailed {
            write: 3,
            trigger: 0,
            step: 0,
            attempt: 1,
        };
        c.observe(&ev(2, 1, failed)).unwrap();
        c.observe(&ev(3, 1, ClusterEvent::DeadLettered { write: 3, trigger: 0 }))
            .unwrap();
        let v = c.finish(10_000_000_000).unwrap_err();
        assert_eq!(v.evidence, vec![1, 2]);
    }

    #[test]
    fn every_action_closed_passes() {
        let mut c = TriggerSiblings::new(&ClusterConfig::default());
        c.observe(&fired(0, 0)).unwrap();
        c.observe(&ev(1, 1, ClusterEvent::DeadLettered { write: 3, trigger: 0 }))
            .unwrap();
        c.finish(10_000_000_000).unwrap();
    }
}
