use super::{Invariant, Violation};
use crate::clock::{Clock, WALL_EPOCH_NS};
use crate::event::{Event, EventKind, ModelEvent};
use crate::machine::NodeId;
use crate::nemesis::Action;
use std::collections::BTreeMap;

/// No two nodes hold the same descriptor lease at the same true time.
///
/// A holder reports [`ModelEvent::LeaseStart`] with the expiry on its own
/// wall clock. It holds from that event until the first of: its own wall
/// clock reaching the expiry, a [`ModelEvent::LeaseStop`], a crash. The
/// checker replays every clock fault on its own copy of each node's
/// [`Clock`] to know when that clock reaches the expiry in true time, and
/// checks each new start against every other live holder of the lease.
///
/// Once a holder's clock has reached its expiry the holding is over, even if
/// the clock is later stepped back: the holder may well have looked at it
/// in between. That only ever shortens a holding, so a report of overlap is
/// always real.
#[derive(Default)]
pub(crate) struct LeaseExclusive {
    clocks: BTreeMap<NodeId, Clock>,
    /// lease -> holder -> holding
    held: BTreeMap<u32, BTreeMap<NodeId, Holding>>,
}

#[derive(Clone, Copy, Debug)]
struct Holding {
    expires_at_ns: u64,
    /// The LeaseStart event that began (or last renewed) it.
    since_i: u64,
}

impl LeaseExclusive {
    fn wall_ns(&self, node: NodeId, t_ns: u64) -> u64 {
        self.clocks.get(&node).cloned().unwrap_or_default().wall_ns(t_ns)
    }

    /// Ends every holding of `node` whose expiry its clock has reached.
    /// Between two clock faults a wall clock only moves forward, so looking
    /// at each fault and at each check misses no crossing.
    fn sweep(&mut self, node: NodeId, t_ns: u64) {
        let wall = self.wall_ns(node, t_ns);
        for holders in self.held.values_mut() {
            if holders.get(&node).is_some_and(|h| wall >= h.expires_at_ns) {
                holders.remove(&node);
            }
        }
    }

    fn drop_node(&mut self, node: NodeId) {
        for holders in self.held.values_mut() {
            holders.remove(&node);
        }
    }

    fn fault(&mut self, action: &Action, t_ns: u64) {
        match *action {
            Action::ClockOffset { node, .. } | Action::ClockDrift { node, .. } | Action::ClockJump { node, .. } => {
                self.sweep(node, t_ns);
                let c = self.clocks.entry(node).or_default();
                match *action {
                    Action::ClockOffset { ns, .. } => c.set_offset(t_ns, ns),
                    Action::ClockDrift { ppm, .. } => c.set_drift(t_ns, ppm),
                    Action::ClockJump { ns, .. } => c.jump(t_ns, ns),
                    _ => {}
                }
                self.sweep(node, t_ns);
            }
            Action::Crash { node } => self.drop_node(node),
            _ => {}
        }
    }

    fn start(&mut self, e: &Event, m: NodeId, lease: u32, expires_at_ns: u64) -> Result<(), Violation> {
        let others: Vec<NodeId> = self
            .held
            .get(&lease)
            .map(|h| h.keys().copied().filter(|n| *n != m).collect())
            .unwrap_or_default();
        for n in others {
            self.sweep(n, e.t_ns);
            let Some(h) = self.held.get(&lease).and_then(|hs| hs.get(&n)).copied() else {
                continue;
            };
            let wall = self.wall_ns(n, e.t_ns);
            return Err(Violation::new(
                "lease-exclusive",
                format!(
                    "nodes {n} and {m} both hold lease {lease} at {} ms: node {n} holds it until its clock \
                     reads {} ms, which is {} ms away",
                    e.t_ns / 1_000_000,
                    h.expires_at_ns.saturating_sub(WALL_EPOCH_NS) / 1_000_000,
                    (h.expires_at_ns - wall) / 1_000_000
                ),
                vec![h.since_i, e.i],
            ));
        }
        if self.wall_ns(m, e.t_ns) < expires_at_ns {
            self.held.entry(lease).or_default().insert(
                m,
                Holding {
                    expires_at_ns,
                    since_i: e.i,
                },
            );
        }
        Ok(())
    }
}

impl Invariant for LeaseExclusive {
    fn id(&self) -> &'static str {
        "lease-exclusive"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        match (&e.kind, e.node) {
            (EventKind::Fault { action }, _) => self.fault(action, e.t_ns),
            (EventKind::Boot { .. }, Some(n)) => self.drop_node(n),
            (EventKind::Model(ModelEvent::LeaseStop { lease, .. }), Some(n)) => {
                if let Some(h) = self.held.get_mut(lease) {
                    h.remove(&n);
                }
            }
            (EventKind::Model(ModelEvent::LeaseStart { lease, expires_at_ns }), Some(m)) => {
                return self.start(e, m, *lease, *expires_at_ns);
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

    const MS: u64 = 1_000_000;

    fn at(mut e: Event, t_ms: u64) -> Event {
        e.t_ns = t_ms * MS;
        e
    }

    fn start(i: u64, t_ms: u64, node: usize, lease: u32, expires_ms: u64) -> Event {
        at(
            ev(
                i,
                node,
                ModelEvent::LeaseStart {
                    lease,
                    expires_at_ns: WALL_EPOCH_NS + expires_ms * MS,
                },
            ),
            t_ms,
        )
    }

    fn fault(i: u64, t_ms: u64, action: Action) -> Event {
        Event {
            i,
            t_ns: t_ms * MS,
            node: None,
            kind: EventKind::Fault { action },
        }
    }

    #[test]
    fn a_handover_after_expiry_passes() {
        let mut c = LeaseExclusive::default();
        c.observe(&start(0, 0, 0, 1, 1_000)).unwrap();
        c.observe(&start(1, 999, 1, 2, 2_000)).unwrap();
        c.observe(&start(2, 1_000, 1, 1, 2_000)).unwrap();
    }

    #[test]
    fn two_holders_at_once_fail() {
        let mut c = LeaseExclusive::default();
        c.observe(&start(0, 0, 0, 1, 1_000)).unwrap();
        let v = c.observe(&start(1, 400, 2, 1, 2_000)).unwrap_err();
        assert_eq!(v.invariant, "lease-exclusive");
        assert_eq!(v.evidence, vec![0, 1]);
        assert!(v.message.contains("600 ms away"), "{}", v.message);
    }

    #[test]
    fn a_slow_holder_clock_holds_longer_in_true_time() {
        let mut c = LeaseExclusive::default();
        // Node 0's clock is 300 ms behind: expiry 1000 on it is true 1300.
        c.observe(&fault(
            0,
            0,
            Action::ClockOffset {
                node: 0,
                ns: -300 * MS as i64,
            },
        ))
        .unwrap();
        c.observe(&start(1, 0, 0, 7, 1_000)).unwrap();
        assert!(c.observe(&start(2, 1_200, 1, 7, 3_000)).is_err());
    }

    #[test]
    fn stop_and_crash_end_a_holding() {
        let mut c = LeaseExclusive::default();
        c.observe(&start(0, 0, 0, 1, 5_000)).unwrap();
        c.observe(&at(
            ev(
                1,
                0,
                ModelEvent::LeaseStop {
                    lease: 1,
                    cause: "self-fence".into(),
                },
            ),
            10,
        ))
        .unwrap();
        c.observe(&start(2, 20, 1, 1, 5_000)).unwrap();
        c.observe(&fault(3, 30, Action::Crash { node: 1 })).unwrap();
        c.observe(&start(4, 40, 2, 1, 5_000)).unwrap();
    }

    #[test]
    fn a_clock_that_reached_expiry_does_not_hold_again_after_stepping_back() {
        let mut c = LeaseExclusive::default();
        c.observe(&start(0, 0, 0, 1, 1_000)).unwrap();
        c.observe(&fault(
            1,
            1_100,
            Action::ClockJump {
                node: 0,
                ns: -500 * MS as i64,
            },
        ))
        .unwrap();
        c.observe(&start(2, 1_200, 1, 1, 3_000)).unwrap();
    }

    #[test]
    fn a_forward_jump_ends_a_holding_early() {
        let mut c = LeaseExclusive::default();
        c.observe(&start(0, 0, 0, 1, 1_000)).unwrap();
        c.observe(&fault(
            1,
            100,
            Action::ClockJump {
                node: 0,
                ns: 2_000 * MS as i64,
            },
        ))
        .unwrap();
        c.observe(&fault(
            2,
            150,
            Action::ClockJump {
                node: 0,
                ns: -2_000 * MS as i64,
            },
        ))
        .unwrap();
        c.observe(&start(3, 200, 1, 1, 3_000)).unwrap();
    }
}
