//! Bounds that turn a model which stops making progress into a finding
//! instead of a hang or an exhausted memory. The event budget bounds the
//! trace; these bound what the trace does not see: outputs of one step
//! (a handler that loops emitting), events handled without simulated time
//! moving on (a timer re-armed at zero delay, messages bounced back and
//! forth at zero latency), and events waiting in the queue. A correct model
//! stays orders of magnitude below each: the built-in scenarios peak at a
//! few dozen outputs per step and a few thousand events per simulated
//! second.

use super::{Ev, Verdict, World};
use crate::machine::{Machine, NodeId};

pub use crate::machine::STEP_OUTPUTS_MAX;

/// Most events the world may handle within one simulated second.
pub const EVENTS_PER_SIM_SECOND_MAX: u64 = 1_000_000;

/// Most events that may wait in the queue at once.
pub const PENDING_MAX: usize = 1_000_000;

const SECOND: u64 = 1_000_000_000;

/// Events handled in the current simulated second.
#[derive(Default)]
pub(super) struct Pace {
    second: u64,
    handled: u64,
}

impl<Msg> Ev<Msg> {
    /// A few words on the event, for a stall message.
    fn describe(&self) -> String {
        match self {
            Ev::Deliver { from, to, .. } => format!("a message from node {from} to node {to}"),
            Ev::Timer { node, id, .. } => format!("timer {id} of node {node}"),
            Ev::Fsync { node, .. } => format!("an fsync of node {node}"),
            Ev::ClientReq { node, .. } => format!("a client request to node {node}"),
            Ev::ClientResp { .. } | Ev::ClientTick { .. } | Ev::ClientTimeout { .. } => "a client event".into(),
            _ => "a fault".into(),
        }
    }
}

impl<M: Machine, F: Fn(NodeId) -> M> World<'_, M, F> {
    /// Counts `ev` against the pace of the current simulated second; past
    /// the bound the run ends stalled.
    pub(super) fn pace(&mut self, ev: &Ev<M::Msg>) -> bool {
        let second = self.now / SECOND;
        if second != self.pace.second {
            self.pace = Pace { second, handled: 0 };
        }
        self.pace.handled += 1;
        if self.pace.handled <= EVENTS_PER_SIM_SECOND_MAX {
            return true;
        }
        self.stalled(format!(
            "more than {EVENTS_PER_SIM_SECOND_MAX} events within simulated second {second}, the last {}",
            ev.describe()
        ));
        false
    }

    /// Ends the run stalled if the queue holds more than [`PENDING_MAX`] events.
    pub(super) fn check_pending(&mut self) {
        let pending = self.queue.len() + self.walk.as_ref().map_or(0, |w| w.len());
        if pending > PENDING_MAX {
            self.stalled(format!("more than {PENDING_MAX} events pending"));
        }
    }

    pub(super) fn stalled(&mut self, why: String) {
        if self.verdict.is_none() {
            let msg = format!("stalled at {} ms: {why}", self.now / 1_000_000);
            self.verdict = Some(Verdict::error(msg, vec![]));
        }
    }
}
