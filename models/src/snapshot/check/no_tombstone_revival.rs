use crate::snapshot::events::{SnapEvent, SnapValue};
use sim::{Event, Invariant, Violation};
use std::collections::BTreeMap;

/// A key deleted at offset X never reads back live with a value from offset
/// <= X (the snapshot store's fencing promise).
///
/// A key counts as deleted at X once the store applied a tombstone at X or
/// removed the row at X, or once a committed offset passed a delete record at
/// X in the journal (the system then claims the delete durable, whatever the
/// owner wrote for it). A live value is "from offset <= X" when the life it
/// belongs to began (`since`) at or before X: a stale writer's buffered value
/// or a pre-delete record folded again. The store's row is judged as it is
/// whenever either fact changes, so the order of the two does not matter.
#[derive(Default)]
pub struct NoTombstoneRevival {
    /// key -> (highest deleted offset, event that made it so)
    deleted: BTreeMap<u32, (u64, u64)>,
    /// key -> (the live value the store holds, event that wrote it)
    live: BTreeMap<u32, (SnapValue, u64)>,
    /// partition -> delete records not yet below the committed offset
    uncommitted: BTreeMap<u32, Vec<(u64, u32, u64)>>,
}

impl NoTombstoneRevival {
    fn delete(&mut self, key: u32, offset: u64, i: u64) {
        let d = self.deleted.entry(key).or_insert((offset, i));
        if offset > d.0 {
            *d = (offset, i);
        }
    }

    fn judge(&self, key: u32) -> Result<(), Violation> {
        let (Some(&(v, vi)), Some(&(d, di))) = (self.live.get(&key), self.deleted.get(&key)) else {
            return Ok(());
        };
        if v.since > d {
            return Ok(());
        }
        let mut evidence = vec![di, vi];
        evidence.sort_unstable();
        Err(Violation::new(
            self.id(),
            format!(
                "key {key} was deleted at offset {d} but reads back live with a value begun at offset {} (last update {})",
                v.since, v.last
            ),
            evidence,
        ))
    }
}

impl Invariant for NoTombstoneRevival {
    fn id(&self) -> &'static str {
        "no-tombstone-revival"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<SnapEvent>() else {
            return Ok(());
        };
        match &m {
            SnapEvent::StoreWrite { key, offset, value, .. } => {
                match value {
                    Some(v) => {
                        self.live.insert(*key, (*v, e.i));
                    }
                    None => {
                        self.live.remove(key);
                        self.delete(*key, *offset, e.i);
                    }
                }
                self.judge(*key)
            }
            SnapEvent::StoreRemove { key, offset, .. } => {
                self.live.remove(key);
                self.delete(*key, *offset, e.i);
                Ok(())
            }
            SnapEvent::StoreReap { key, .. } => {
                // Whatever was reaped, no live value is left behind: persists
                // write value and offset with one TTL.
                self.live.remove(key);
                Ok(())
            }
            SnapEvent::StoreRecovered { rows, .. } => {
                // A recovered row may hold a write never reported before.
                self.live.clear();
                for r in rows {
                    match (r.value, r.offset) {
                        (Some(v), _) => {
                            self.live.insert(r.key, (v, e.i));
                        }
                        (None, Some(o)) => self.delete(r.key, o, e.i),
                        (None, None) => {}
                    }
                }
                rows.iter().try_for_each(|r| self.judge(r.key))
            }
            SnapEvent::JournalAppend {
                partition,
                key,
                offset,
                update: None,
            } => {
                self.uncommitted
                    .entry(*partition)
                    .or_default()
                    .push((*offset, *key, e.i));
                Ok(())
            }
            SnapEvent::JournalCommit { partition, offset, .. } => {
                let Some(list) = self.uncommitted.get_mut(partition) else {
                    return Ok(());
                };
                let (done, rest): (Vec<_>, Vec<_>) = list.iter().partition(|(o, _, _)| o < offset);
                *list = rest;
                for (o, key, _) in done {
                    self.delete(key, o, e.i);
                    self.judge(key)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ev, store_write};
    use super::*;

    fn write(i: u64, key: u32, offset: u64, value: Option<SnapValue>) -> Event {
        store_write(i, key, offset, value, "update-if-le")
    }

    fn val(since: u64, last: u64) -> Option<SnapValue> {
        Some(SnapValue { since, last, digest: 7 })
    }

    #[test]
    fn a_stale_value_landing_after_the_tombstone_fails() {
        let mut c = NoTombstoneRevival::default();
        c.observe(&write(0, 1, 5, val(5, 5))).unwrap();
        c.observe(&write(1, 1, 8, None)).unwrap();
        let v = c.observe(&write(2, 1, 5, val(5, 5))).unwrap_err();
        assert_eq!(v.evidence, vec![1, 2]);
    }

    #[test]
    fn a_new_life_after_the_tombstone_passes() {
        let mut c = NoTombstoneRevival::default();
        c.observe(&write(0, 1, 8, None)).unwrap();
        c.observe(&write(1, 1, 9, val(9, 9))).unwrap();
        c.observe(&write(2, 1, 12, val(9, 12))).unwrap();
    }

    #[test]
    fn a_committed_delete_that_was_never_written_still_counts() {
        let mut c = NoTombstoneRevival::default();
        let append = |i, offset, update| {
            ev(
                i,
                1,
                SnapEvent::JournalAppend {
                    partition: 0,
                    key: 4,
                    offset,
                    update,
                },
            )
        };
        c.observe(&append(0, 3, Some(1))).unwrap();
        c.observe(&append(1, 6, None)).unwrap();
        c.observe(&write(2, 4, 3, val(3, 3))).unwrap();
        let commit = ev(
            3,
            1,
            SnapEvent::JournalCommit {
                partition: 0,
                offset: 7,
                generation: 2,
            },
        );
        let v = c.observe(&commit).unwrap_err();
        assert!(v.message.contains("deleted at offset 6"), "{}", v.message);
    }

    #[test]
    fn a_removed_row_fences_nothing_and_the_checker_sees_it() {
        let mut c = NoTombstoneRevival::default();
        c.observe(&write(0, 2, 4, val(4, 4))).unwrap();
        c.observe(&ev(
            1,
            0,
            SnapEvent::StoreRemove {
                key: 2,
                offset: 6,
                writer: 3,
                generation: 2,
            },
        ))
        .unwrap();
        assert!(c.observe(&write(2, 2, 4, val(4, 4))).is_err());
    }
}
