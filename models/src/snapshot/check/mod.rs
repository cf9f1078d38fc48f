//! The snapshot store's own invariants. They read only its own events
//! ([`super::events::SnapEvent`]) and the generic heal point.

mod no_lost_write;
mod no_tombstone_revival;
mod offset_monotonic;
mod snapshot_liveness;
mod snapshot_matches_journal;

pub use no_lost_write::NoLostWrite;
pub use no_tombstone_revival::NoTombstoneRevival;
pub use offset_monotonic::OffsetMonotonic;
pub use snapshot_liveness::SnapshotLiveness;
pub use snapshot_matches_journal::SnapshotMatchesJournal;

#[cfg(test)]
pub(crate) mod tests {
    use super::super::events::{SnapEvent, SnapValue};
    use sim::{Event, EventKind, ModelEvent};

    pub fn ev(i: u64, node: usize, m: SnapEvent) -> Event {
        Event {
            i,
            t_ns: i * 1_000,
            node: Some(node),
            kind: EventKind::Model(ModelEvent::custom(&m)),
        }
    }

    /// Writer 2 of generation 1 writes `value` at `offset` with `stmt`.
    pub fn store_write(i: u64, key: u32, offset: u64, value: Option<SnapValue>, stmt: &str) -> Event {
        ev(
            i,
            0,
            SnapEvent::StoreWrite {
                key,
                offset,
                value,
                stmt: stmt.into(),
                writer: 2,
                generation: 1,
            },
        )
    }
}
