use crate::snapshot::events::SnapEvent;
use sim::{Event, Invariant, Violation};
use std::collections::BTreeMap;

/// A key's stored offset never decreases while the store holds it. A row
/// that is removed or whose offset cell is reaped holds no offset, so the
/// next write starts afresh (that limit is `no-tombstone-revival`'s to judge).
/// A store that recovers from its commit log must hold every offset it
/// reported, or a higher one (a write it never acknowledged may survive);
/// a row gone or an offset null there is a decrease too, since removals and
/// reaps are reported before they are durable.
#[derive(Default)]
pub struct OffsetMonotonic {
    /// key -> (stored offset, event that wrote it)
    stored: BTreeMap<u32, (u64, u64)>,
}

impl Invariant for OffsetMonotonic {
    fn id(&self) -> &'static str {
        "offset-monotonic"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<SnapEvent>() else {
            return Ok(());
        };
        match &m {
            SnapEvent::StoreWrite {
                key,
                offset,
                writer,
                generation,
                ..
            } => {
                if let Some(&(had, at)) = self.stored.get(key) {
                    if *offset < had {
                        return Err(Violation::new(
                            self.id(),
                            format!(
                                "key {key}'s stored offset went from {had} down to {offset} (written by node {writer}, generation {generation})"
                            ),
                            vec![at, e.i],
                        ));
                    }
                }
                self.stored.insert(*key, (*offset, e.i));
            }
            SnapEvent::StoreRemove { key, .. } | SnapEvent::StoreReap { key, .. } => {
                self.stored.remove(key);
            }
            SnapEvent::StoreRecovered { rows, .. } => {
                let now: BTreeMap<u32, u64> = rows.iter().filter_map(|r| Some((r.key, r.offset?))).collect();
                for (key, &(had, at)) in &self.stored {
                    let back = now.get(key).copied();
                    if back.is_none_or(|o| o < had) {
                        let back = back.map_or("none".to_string(), |o| o.to_string());
                        return Err(Violation::new(
                            self.id(),
                            format!(
                                "key {key}'s stored offset went from {had} down to {back} when the store recovered"
                            ),
                            vec![at, e.i],
                        ));
                    }
                }
                self.stored = now.into_iter().map(|(k, o)| (k, (o, e.i))).collect();
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ev, store_write};
    use super::*;
    use crate::snapshot::events::SnapValue;

    fn write(i: u64, key: u32, offset: u64) -> Event {
        let value = Some(SnapValue {
            since: 1,
            last: offset,
            digest: 0,
        });
        store_write(i, key, offset, value, "plain")
    }

    #[test]
    fn a_lower_offset_over_a_higher_one_fails() {
        let mut c = OffsetMonotonic::default();
        c.observe(&write(0, 1, 9)).unwrap();
        c.observe(&write(1, 2, 3)).unwrap();
        let v = c.observe(&write(2, 1, 4)).unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }

    fn recovered(i: u64, rows: &[(u32, Option<u64>)]) -> Event {
        let rows = rows
            .iter()
            .map(|&(key, offset)| crate::snapshot::msg::RowView {
                key,
                offset,
                value: None,
            })
            .collect();
        ev(i, 0, SnapEvent::StoreRecovered { records: 9, rows })
    }

    #[test]
    fn a_recovery_may_gain_offsets_but_never_lose_one() {
        let mut c = OffsetMonotonic::default();
        c.observe(&write(0, 1, 9)).unwrap();
        c.observe(&recovered(1, &[(1, Some(11)), (2, Some(3))])).unwrap();
        assert_eq!(
            c.observe(&recovered(2, &[(1, Some(10))])).unwrap_err().evidence,
            vec![1, 2]
        );
        let mut c = OffsetMonotonic::default();
        c.observe(&write(0, 1, 9)).unwrap();
        assert!(c.observe(&recovered(1, &[(1, None)])).is_err(), "a null offset");
        let mut c = OffsetMonotonic::default();
        c.observe(&write(0, 1, 9)).unwrap();
        assert!(c.observe(&recovered(1, &[])).is_err(), "the row gone");
    }

    #[test]
    fn equal_offsets_and_writes_after_a_reap_pass() {
        let mut c = OffsetMonotonic::default();
        c.observe(&write(0, 1, 9)).unwrap();
        c.observe(&write(1, 1, 9)).unwrap();
        c.observe(&ev(
            2,
            0,
            SnapEvent::StoreReap {
                key: 1,
                offset: Some(9),
                row_gone: true,
            },
        ))
        .unwrap();
        c.observe(&write(3, 1, 2)).unwrap();
    }
}
