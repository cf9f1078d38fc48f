use crate::snapshot::events::SnapEvent;
use sim::check::{Invariant, Violation};
use sim::event::{Event, EventKind};
use std::collections::BTreeMap;

/// Liveness of the snapshot store: by the end of the liveness phase every
/// key's stored offset has reached its last journal offset before the
/// heal, so no owner fenced itself for good. A key whose last record is a
/// delete has also converged when the store holds no live value for it
/// (its tombstone was reaped, or its guard expired and the delete was a
/// no-op). Records appended after the heal (producers that outlive the
/// fault phase, as in an explored run that heals where its choices end)
/// need not be durable by the deadline: what is judged is that no key
/// stays stuck on what it had to catch up with.
///
/// A store whose commit log rotted is down for good (it halts at every
/// boot, and nothing rewrites its disk): like a Raft node that cannot boot,
/// it is left out, and with it the whole check, since no key can move on.
#[derive(Default)]
pub struct SnapshotLiveness {
    heal: Option<u64>,
    /// The store's commit log rotted.
    store_lost: bool,
    /// key -> (last journal offset, is a delete, event)
    last: BTreeMap<u32, (u64, bool, u64)>,
    /// key -> (last journal offset before the heal, event): what it must
    /// catch up with.
    due: BTreeMap<u32, (u64, u64)>,
    /// key -> (stored offset, live)
    row: BTreeMap<u32, (Option<u64>, bool)>,
    lagging: u64,
}

impl Invariant for SnapshotLiveness {
    fn id(&self) -> &'static str {
        "snapshot-liveness"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        if let EventKind::Heal { .. } = e.kind {
            self.heal = Some(e.i);
        }
        match e.custom::<SnapEvent>() {
            Some(SnapEvent::JournalAppend {
                key, offset, update, ..
            }) => {
                if self.heal.is_none() {
                    self.due.insert(key, (offset, e.i));
                }
                self.last.insert(key, (offset, update.is_none(), e.i));
            }
            Some(SnapEvent::StoreWrite { key, offset, value, .. }) => {
                self.row.insert(key, (Some(offset), value.is_some()));
            }
            Some(SnapEvent::StoreRemove { key, .. }) => {
                self.row.remove(&key);
            }
            Some(SnapEvent::StoreReap { key, row_gone, .. }) => {
                if row_gone {
                    self.row.remove(&key);
                } else {
                    self.row.insert(key, (None, false));
                }
            }
            Some(SnapEvent::StoreRecovered { rows, .. }) => {
                self.row = rows.iter().map(|r| (r.key, (r.offset, r.value.is_some()))).collect();
            }
            Some(SnapEvent::StoreCorrupt { .. }) => self.store_lost = true,
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _end_ns: u64) -> Result<(), Violation> {
        let Some(heal) = self.heal else { return Ok(()) };
        if self.store_lost {
            return Ok(());
        }
        let mut first = None;
        for (key, &(want, at)) in &self.due {
            let delete = self.last.get(key).is_some_and(|l| l.1);
            let (stored, live) = self.row.get(key).copied().unwrap_or((None, false));
            let reached = stored.is_some_and(|o| o >= want) || (delete && !live);
            if !reached {
                self.lagging += 1;
                first.get_or_insert((*key, want, stored, at));
            }
        }
        match first {
            None => Ok(()),
            Some((key, want, stored, at)) => Err(Violation::new(
                self.id(),
                format!(
                    "{} key(s) never caught up after the heal: key {key} is stored at offset {} but its journal ends at {want}",
                    self.lagging,
                    stored.map_or("none".to_string(), |o| o.to_string())
                ),
                vec![at, heal],
            )),
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("keys_lagging", self.lagging)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;
    use crate::snapshot::events::SnapValue;

    fn append(i: u64, key: u32, offset: u64, update: Option<u64>) -> Event {
        ev(
            i,
            1,
            SnapEvent::JournalAppend {
                partition: 0,
                key,
                offset,
                update,
            },
        )
    }

    fn write(i: u64, key: u32, offset: u64, live: bool) -> Event {
        let value = live.then_some(SnapValue {
            since: 1,
            last: offset,
            digest: 0,
        });
        ev(
            i,
            0,
            SnapEvent::StoreWrite {
                key,
                offset,
                value,
                stmt: "update-if-le".into(),
                writer: 2,
                generation: 1,
            },
        )
    }

    fn heal(i: u64) -> Event {
        Event {
            i,
            t_ns: i,
            node: None,
            kind: EventKind::Heal { impaired: vec![] },
        }
    }

    #[test]
    fn every_key_caught_up_passes() {
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 3, Some(1))).unwrap();
        c.observe(&append(1, 2, 4, None)).unwrap();
        c.observe(&heal(2)).unwrap();
        c.observe(&write(3, 1, 3, true)).unwrap();
        // A delete whose tombstone was reaped has converged too.
        c.observe(&write(4, 2, 4, false)).unwrap();
        c.observe(&ev(
            5,
            0,
            SnapEvent::StoreReap {
                key: 2,
                offset: Some(4),
                row_gone: true,
            },
        ))
        .unwrap();
        c.finish(10).unwrap();
    }

    #[test]
    fn a_key_stuck_below_its_last_offset_fails() {
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 3, Some(1))).unwrap();
        c.observe(&append(1, 1, 7, Some(2))).unwrap();
        c.observe(&write(2, 1, 3, true)).unwrap();
        c.observe(&heal(3)).unwrap();
        let v = c.finish(10).unwrap_err();
        assert_eq!(v.evidence, vec![1, 3]);
        assert_eq!(c.counters(), vec![("keys_lagging", 1)]);
    }

    #[test]
    fn a_recovered_store_is_judged_as_it_recovered_and_a_rotten_one_not_at_all() {
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 3, Some(1))).unwrap();
        c.observe(&append(1, 2, 5, Some(1))).unwrap();
        c.observe(&write(2, 2, 5, true)).unwrap();
        let row = |key, offset| crate::snapshot::msg::RowView {
            key,
            offset: Some(offset),
            value: None,
        };
        let rows = vec![row(1, 3), row(2, 5)];
        c.observe(&ev(3, 0, SnapEvent::StoreRecovered { records: 2, rows }))
            .unwrap();
        c.observe(&heal(4)).unwrap();
        c.finish(10).unwrap();
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 3, Some(1))).unwrap();
        c.observe(&ev(1, 0, SnapEvent::StoreCorrupt { index: 0 })).unwrap();
        c.observe(&heal(2)).unwrap();
        c.finish(10).unwrap();
    }
}
