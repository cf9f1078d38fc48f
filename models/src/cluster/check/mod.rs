//! The cluster layer's own invariants. They read only its own events
//! ([`super::events::ClusterEvent`]) and the generic boot, halt and fault events.

mod boot_read_error;
mod cascade_bounded;
mod descriptor_fenced;
mod epoch_fenced;
mod gather_complete;
mod readiness_progress;
mod trigger_exactly_once;
mod trigger_siblings;

pub use boot_read_error::BootReadError;
pub use cascade_bounded::CascadeBounded;
pub use descriptor_fenced::DescriptorFenced;
pub use epoch_fenced::EpochFenced;
pub use gather_complete::GatherComplete;
pub use readiness_progress::ReadinessProgress;
pub use trigger_exactly_once::TriggerExactlyOnce;
pub use trigger_siblings::TriggerSiblings;

#[cfg(test)]
pub(crate) mod tests {
    use super::super::events::ClusterEvent;
    use sim::{Event, EventKind, ModelEvent};

    pub fn ev(i: u64, node: usize, m: ClusterEvent) -> Event {
        Event {
            i,
            t_ns: i * 1_000,
            node: Some(node),
            kind: EventKind::Model(ModelEvent::custom(&m)),
        }
    }

    pub fn boot(i: u64, node: usize) -> Event {
        Event {
            i,
            t_ns: i * 1_000,
            node: Some(node),
            kind: EventKind::Boot { restart: true },
        }
    }
}
