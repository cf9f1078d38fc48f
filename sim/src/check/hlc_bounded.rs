use super::{Invariant, Violation};
use crate::clock::{Clock, WALL_EPOCH_NS};
use crate::event::{Event, EventKind, ModelEvent};
use crate::machine::NodeId;
use crate::nemesis::Action;
use std::collections::BTreeMap;

const MS: i128 = 1_000_000;

/// No node's hybrid logical clock runs ahead of true time by more than the
/// skew actually injected into that node's wall clock (the most it has shown
/// so far) plus MAX_CLOCK_SKEW.
///
/// The bound is per node on purpose. An HLC only ever holds some node's
/// wall-clock reading, so it can never pass true time plus the largest skew
/// injected anywhere; that weaker bound holds with or without the refusal.
/// What the refusal guarantees is that a node adopts no timestamp more than
/// MAX_CLOCK_SKEW ahead of its own clock, so one far-future peer cannot drag
/// the others along.
///
/// The checker replays every clock fault on its own copy of each node's
/// [`Clock`], exactly as the world applied it, to know the true skew. The
/// HLC only moves ahead of its own wall clock through a reported
/// [`ModelEvent::Hlc`], and between two such moves it stays put while true
/// time advances, so checking at those events is enough.
pub(crate) struct HlcBounded {
    max_clock_skew_ns: i128,
    nodes: BTreeMap<NodeId, Track>,
}

#[derive(Default)]
struct Track {
    clock: Clock,
    /// The largest skew this node's wall clock has shown so far.
    max_skew_ns: i128,
    /// The last clock fault on this node, as evidence.
    last_fault_i: Option<u64>,
}

impl Track {
    fn note(&mut self, t_ns: u64) {
        self.max_skew_ns = self.max_skew_ns.max(self.clock.skew_ns(t_ns) as i128);
    }
}

impl HlcBounded {
    /// A checker for a system whose clock-skew bound (MAX_CLOCK_SKEW) is `max_clock_skew_ms`.
    pub fn new(max_clock_skew_ms: u64) -> Self {
        HlcBounded {
            max_clock_skew_ns: max_clock_skew_ms as i128 * MS,
            nodes: BTreeMap::new(),
        }
    }

    fn clock_fault(&mut self, action: &Action, t_ns: u64, i: u64) {
        let node = match action {
            Action::ClockOffset { node, .. } | Action::ClockDrift { node, .. } | Action::ClockJump { node, .. } => {
                *node
            }
            _ => return,
        };
        let tr = self.nodes.entry(node).or_default();
        // Between faults a wall clock only moves forward, so its highest
        // reading over that stretch is the one just before this change.
        tr.note(t_ns);
        match *action {
            Action::ClockOffset { ns, .. } => tr.clock.set_offset(t_ns, ns),
            Action::ClockDrift { ppm, .. } => tr.clock.set_drift(t_ns, ppm),
            Action::ClockJump { ns, .. } => tr.clock.jump(t_ns, ns),
            _ => {}
        }
        tr.note(t_ns);
        tr.last_fault_i = Some(i);
    }
}

impl Invariant for HlcBounded {
    fn id(&self) -> &'static str {
        "hlc-bounded"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        match (&e.kind, e.node) {
            (EventKind::Fault { action }, _) => self.clock_fault(action, e.t_ns, e.i),
            (EventKind::Model(ModelEvent::Hlc { wall_ns, from, .. }), Some(n)) => {
                let max = self.max_clock_skew_ns;
                let tr = self.nodes.entry(n).or_default();
                tr.note(e.t_ns);
                let lead = *wall_ns as i128 - (WALL_EPOCH_NS as i128 + e.t_ns as i128);
                if lead > tr.max_skew_ns + max {
                    let mut evidence: Vec<u64> =
                        self.nodes.get(from).and_then(|f| f.last_fault_i).into_iter().collect();
                    evidence.push(e.i);
                    let tr = &self.nodes[&n];
                    return Err(Violation::new(
                        self.id(),
                        format!(
                            "node {n}'s HLC runs {} ms ahead of true time after a timestamp from node {from}; \
                             its own clock was never more than {} ms ahead, and MAX_CLOCK_SKEW is {} ms",
                            lead / MS,
                            tr.max_skew_ns / MS,
                            max / MS
                        ),
                        evidence,
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
    use super::*;
    use crate::check::tests::ev;

    const S: u64 = 1_000_000_000;

    fn fault(i: u64, t_ns: u64, action: Action) -> Event {
        Event {
            i,
            t_ns,
            node: None,
            kind: EventKind::Fault { action },
        }
    }

    fn hlc(i: u64, t_ns: u64, node: usize, wall_ns: u64, from: usize) -> Event {
        let mut e = ev(
            i,
            node,
            ModelEvent::Hlc {
                wall_ns,
                logical: 0,
                from,
            },
        );
        e.t_ns = t_ns;
        e
    }

    #[test]
    fn adopting_a_peer_within_the_bound_passes() {
        let mut c = HlcBounded::new(5_000);
        c.observe(&fault(
            0,
            S,
            Action::ClockOffset {
                node: 1,
                ns: 4 * S as i64,
            },
        ))
        .unwrap();
        // Node 0 (no skew) takes node 1's time, 4 s ahead: within 0 + 5 s.
        c.observe(&hlc(1, 2 * S, 0, WALL_EPOCH_NS + 6 * S, 1)).unwrap();
    }

    #[test]
    fn adopting_a_far_future_peer_fails_even_though_that_skew_was_injected() {
        let mut c = HlcBounded::new(5_000);
        c.observe(&fault(
            0,
            S,
            Action::ClockOffset {
                node: 1,
                ns: 9 * S as i64,
            },
        ))
        .unwrap();
        let v = c.observe(&hlc(1, 2 * S, 0, WALL_EPOCH_NS + 11 * S, 1)).unwrap_err();
        assert_eq!(v.invariant, "hlc-bounded");
        assert_eq!(v.evidence, vec![0, 1]);
        assert!(v.message.contains("9000 ms ahead"), "{}", v.message);
    }

    #[test]
    fn a_node_s_own_skew_counts_even_after_its_clock_was_stepped_back() {
        let mut c = HlcBounded::new(5_000);
        c.observe(&fault(
            0,
            S,
            Action::ClockOffset {
                node: 0,
                ns: 3 * S as i64,
            },
        ))
        .unwrap();
        c.observe(&fault(
            1,
            2 * S,
            Action::ClockJump {
                node: 0,
                ns: -3 * S as i64,
            },
        ))
        .unwrap();
        // 7.5 s ahead at t = 2 s: node 0 itself was 3 s ahead, plus 5 s.
        c.observe(&hlc(2, 2 * S, 0, WALL_EPOCH_NS + 2 * S + 7_500_000_000, 2))
            .unwrap();
        let v = c.observe(&hlc(3, 2 * S, 0, WALL_EPOCH_NS + 2 * S + 8_500_000_000, 2));
        assert!(v.is_err());
    }

    #[test]
    fn drift_is_followed_between_faults() {
        let mut c = HlcBounded::new(1_000);
        // +10% from t = 0: at t = 10 s the clock is 1 s ahead.
        c.observe(&fault(0, 0, Action::ClockDrift { node: 2, ppm: 100_000 }))
            .unwrap();
        c.observe(&hlc(1, 10 * S, 2, WALL_EPOCH_NS + 10 * S + 2 * S, 0))
            .unwrap();
        assert!(c
            .observe(&hlc(2, 10 * S, 2, WALL_EPOCH_NS + 10 * S + 2 * S + 1, 0))
            .is_err());
    }
}
