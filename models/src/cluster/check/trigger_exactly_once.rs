use crate::cluster::events::ClusterEvent;
use sim::{Event, Invariant, Violation};
use std::collections::{BTreeMap, BTreeSet};

/// Each trigger's effect on a source write is applied exactly once: no
/// statement of its action's body lands twice, none lands after the action
/// completed or was dead-lettered, and a completed action has every
/// statement landed.
#[derive(Default)]
pub struct TriggerExactlyOnce {
    /// (write, trigger) -> step -> the event that applied it
    landed: BTreeMap<(u64, u32), BTreeMap<u32, u64>>,
    /// (write, trigger) -> the event that closed it
    closed: BTreeMap<(u64, u32), u64>,
    closed_order: BTreeSet<(u64, (u64, u32))>,
}

/// Closed actions remembered; an effect far later than this many closes
/// would slip by, which no switch here needs.
const CLOSED_MAX: usize = 200_000;

impl TriggerExactlyOnce {
    fn close(&mut self, key: (u64, u32), i: u64) {
        self.landed.remove(&key);
        self.closed.insert(key, i);
        self.closed_order.insert((i, key));
        if self.closed_order.len() > CLOSED_MAX {
            if let Some((_, old)) = self.closed_order.pop_first() {
                self.closed.remove(&old);
            }
        }
    }
}

impl Invariant for TriggerExactlyOnce {
    fn id(&self) -> &'static str {
        "trigger-exactly-once"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<ClusterEvent>() else {
            return Ok(());
        };
        let node = e.node.unwrap_or(0);
        match m {
            ClusterEvent::TriggerEffect { write, trigger, step } => {
                let key = (write, trigger);
                if let Some(&at) = self.closed.get(&key) {
                    return Err(Violation::new(
                        self.id(),
                        format!("node {node} applied statement {step} of trigger {trigger} on write {write:#x} again after its action had finished"),
                        vec![at, e.i],
                    ));
                }
                let steps = self.landed.entry(key).or_default();
                if let Some(&at) = steps.get(&step) {
                    return Err(Violation::new(
                        self.id(),
                        format!("node {node} applied statement {step} of trigger {trigger} on write {write:#x} twice"),
                        vec![at, e.i],
                    ));
                }
                steps.insert(step, e.i);
            }
            ClusterEvent::TriggerDone { write, trigger, steps } => {
                let key = (write, trigger);
                let have = self.landed.get(&key).map_or(0, |s| s.len());
                if have != steps as usize {
                    return Err(Violation::new(
                        self.id(),
                        format!("node {node} finished trigger {trigger} on write {write:#x} with {have} of its {steps} statements applied"),
                        vec![e.i],
                    ));
                }
                self.close(key, e.i);
            }
            ClusterEvent::DeadLettered { write, trigger } => self.close((write, trigger), e.i),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn effect(i: u64, step: u32) -> Event {
        ev(
            i,
            1,
            ClusterEvent::TriggerEffect {
                write: 5,
                trigger: 1,
                step,
            },
        )
    }

    #[test]
    fn a_statement_applied_twice_fails() {
        let mut c = TriggerExactlyOnce::default();
        c.observe(&effect(0, 0)).unwrap();
        let v = c.observe(&effect(1, 0)).unwrap_err();
        assert_eq!(v.evidence, vec![0, 1]);
    }

    #[test]
    fn an_effect_after_completion_fails_and_a_whole_body_passes() {
        let mut c = TriggerExactlyOnce::default();
        c.observe(&effect(0, 0)).unwrap();
        c.observe(&effect(1, 1)).unwrap();
        let done = ClusterEvent::TriggerDone {
            write: 5,
            trigger: 1,
            steps: 2,
        };
        c.observe(&ev(2, 1, done)).unwrap();
        assert!(c.observe(&effect(3, 0)).is_err());
    }
}
