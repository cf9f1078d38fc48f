//! Invariant checkers. Each is a small passive struct fed with every trace
//! event in order, so the same code runs online (stopping a run at the first
//! violation) and offline over a saved report.

mod bounded_staleness;
mod dst_history;
mod hlc_bounded;
mod lease_exclusive;
mod linearizable;
mod liveness;
mod no_double_apply;
mod no_dual_leaders;
mod state_machine_safety;

pub(crate) use bounded_staleness::BoundedStaleness;
pub use dst_history::DstHistory;
pub(crate) use hlc_bounded::HlcBounded;
pub(crate) use lease_exclusive::LeaseExclusive;
pub use linearizable::Linearizable;
pub use liveness::{Liveness, LivenessParams};
pub(crate) use no_double_apply::NoDoubleApply;
pub(crate) use no_dual_leaders::NoDualLeaders;
pub(crate) use state_machine_safety::StateMachineSafety;

use crate::event::Event;
use serde::{Deserialize, Serialize};

/// An invariant broken: which one, how, and by which events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The id of the invariant broken ("linearizable").
    pub invariant: String,
    /// One line saying what went wrong.
    pub message: String,
    /// Indices of the trace events that together break the invariant.
    pub evidence: Vec<u64>,
}

impl Violation {
    /// A violation of `invariant`, said by `message`, shown by the events at `evidence`.
    pub fn new(invariant: &str, message: impl Into<String>, evidence: Vec<u64>) -> Self {
        Violation {
            invariant: invariant.to_string(),
            message: message.into(),
            evidence,
        }
    }
}

/// A checker of one invariant, fed every trace event in order.
pub trait Invariant {
    /// The id scenarios name the invariant by ("no-dual-leaders").
    fn id(&self) -> &'static str;
    /// Take the next event; an error is the violation it completes.
    fn observe(&mut self, e: &Event) -> Result<(), Violation>;
    /// Called once at the end of the run, at true time `end_ns`.
    fn finish(&mut self, _end_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
    /// Numbers worth reporting even when nothing is violated.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Check a recorded trace offline, exactly as the run checked it online:
/// every event in order, stopping at the first violation, then `finish` at
/// `end_ns` if the trace got that far.
pub fn check_trace(events: &[Event], mut checkers: Vec<Box<dyn Invariant>>, end_ns: u64) -> Result<(), Violation> {
    for e in events {
        let mut first = None;
        for c in checkers.iter_mut() {
            if let Err(v) = c.observe(e) {
                first.get_or_insert(v);
            }
        }
        if let Some(v) = first {
            return Err(v);
        }
    }
    checkers.iter_mut().try_for_each(|c| c.finish(end_ns))
}

/// The invariants `sim` itself provides, for any model whose events they
/// read: id and what it holds. A model adds its own through the registry.
pub const GENERIC: &[(&str, &str)] = &[
    ("no-dual-leaders", "at most one node is leader in any term"),
    (
        "state-machine-safety",
        "no two nodes hold different state at the same applied index",
    ),
    (
        "no-double-apply",
        "each state-machine instance applies index i exactly once, in order",
    ),
    (
        "linearizable",
        "the client history of the KV store is linearizable (stale reads fail this)",
    ),
    (
        "liveness",
        "after the heal point the quorum has a leader and answers every client op within the deadline; \
         every healed node sees every other alive where membership is reported",
    ),
    (
        "bounded-staleness",
        "a follower read declared fresh within d reflects every write committed d before it",
    ),
    (
        "lease-exclusive",
        "no two nodes hold the same descriptor lease at the same true time",
    ),
    (
        "hlc-bounded",
        "no node's HLC runs ahead of true time by more than the skew injected into it plus MAX_CLOCK_SKEW",
    ),
];

#[cfg(test)]
pub(crate) mod tests {
    use crate::event::{Event, EventKind, ModelEvent};

    pub fn ev(i: u64, node: usize, m: ModelEvent) -> Event {
        Event {
            i,
            t_ns: i * 1_000,
            node: Some(node),
            kind: EventKind::Model(m),
        }
    }
}
