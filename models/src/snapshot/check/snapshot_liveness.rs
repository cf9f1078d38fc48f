use crate::snapshot::events::SnapEvent;
use sim::{Event, EventKind, Invariant, Violation};
use std::collections::BTreeMap;

/// Liveness of the snapshot store: by the end of the liveness phase every
/// key's stored offset has reached its last journal offset before the
/// heal, so no owner fenced itself for good. A row the TTL reaped counts
/// as stored at the offset it carried: the store had got there, and the
/// TTL, not a stuck owner, took it away. A key whose record due, or whose
/// last record, is a delete has also converged when the store holds no
/// live value for it (its guard expired and the delete was a no-op, or it
/// was never persisted). Producers may outlive the fault phase (as in an
/// explored run that heals where its choices end): a record appended in
/// the first half of the liveness phase is due too, with at least the
/// second half to become durable, and one appended later need not be
/// durable by the deadline. What is judged is that no key stays stuck on
/// what it had time to catch up with.
///
/// A store whose commit log rotted is down for good (it halts at every
/// boot, and nothing rewrites its disk): like a Raft node that cannot boot,
/// it is left out, and with it the whole check, since no key can move on.
#[derive(Default)]
pub struct SnapshotLiveness {
    /// The heal: its event and instant.
    heal: Option<(u64, u64)>,
    /// The store's commit log rotted.
    store_lost: bool,
    /// key -> (last journal offset, is a delete, event)
    last: BTreeMap<u32, (u64, bool, u64)>,
    /// key -> (last journal offset before the heal, is a delete, event):
    /// what it must catch up with.
    due: BTreeMap<u32, (u64, bool, u64)>,
    /// key -> (offset, is a delete, event, instant) of each record
    /// appended after the heal: due if early enough in the liveness phase.
    after: BTreeMap<u32, Vec<(u64, bool, u64, u64)>>,
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
            self.heal.get_or_insert((e.i, e.t_ns));
        }
        match e.custom::<SnapEvent>() {
            Some(SnapEvent::JournalAppend {
                key, offset, update, ..
            }) => {
                match self.heal {
                    None => {
                        self.due.insert(key, (offset, update.is_none(), e.i));
                    }
                    Some(_) => self
                        .after
                        .entry(key)
                        .or_default()
                        .push((offset, update.is_none(), e.i, e.t_ns)),
                }
                self.last.insert(key, (offset, update.is_none(), e.i));
            }
            Some(SnapEvent::StoreWrite { key, offset, value, .. }) => {
                self.row.insert(key, (Some(offset), value.is_some()));
            }
            Some(SnapEvent::StoreRemove { key, .. }) => {
                self.row.remove(&key);
            }
            // Whether the whole row went or only its offset cell, the
            // store had reached `offset` before the TTL ran out.
            Some(SnapEvent::StoreReap { key, offset, .. }) => {
                self.row.insert(key, (offset, false));
            }
            Some(SnapEvent::StoreRecovered { rows, .. }) => {
                self.row = rows.iter().map(|r| (r.key, (r.offset, r.value.is_some()))).collect();
            }
            Some(SnapEvent::StoreCorrupt { .. }) => self.store_lost = true,
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_ns: u64) -> Result<(), Violation> {
        let Some((heal, heal_ns)) = self.heal else {
            return Ok(());
        };
        if self.store_lost {
            return Ok(());
        }
        let half = heal_ns + end_ns.saturating_sub(heal_ns) / 2;
        for (key, records) in &self.after {
            if let Some(&(offset, delete, at, _)) = records.iter().rev().find(|r| r.3 <= half) {
                self.due.insert(*key, (offset, delete, at));
            }
        }
        let mut first = None;
        for (key, &(want, due_delete, at)) in &self.due {
            let delete = due_delete || self.last.get(key).is_some_and(|l| l.1);
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
    use super::super::tests::{ev, store_write};
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
        store_write(i, key, offset, value, "update-if-le")
    }

    fn heal(i: u64) -> Event {
        Event {
            i,
            t_ns: i * 1_000,
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

    /// An explored run may heal early, with producers still at work: a
    /// key that went past its due record to a tombstone the TTL reaped,
    /// and was written again after the heal, has caught up; so has a key
    /// whose due delete was never persisted, written again after the heal.
    #[test]
    fn a_key_past_its_due_record_whose_tombstone_was_reaped_passes() {
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 2, Some(1))).unwrap();
        c.observe(&append(1, 2, 3, None)).unwrap();
        c.observe(&heal(2)).unwrap();
        c.observe(&write(3, 1, 2, true)).unwrap();
        c.observe(&append(4, 1, 9, None)).unwrap();
        c.observe(&write(5, 1, 9, false)).unwrap();
        let reap = SnapEvent::StoreReap {
            key: 1,
            offset: Some(9),
            row_gone: false,
        };
        c.observe(&ev(6, 0, reap)).unwrap();
        c.observe(&append(7, 1, 12, Some(2))).unwrap();
        c.observe(&append(8, 2, 13, Some(3))).unwrap();
        c.finish(10_000).unwrap();
        // Reaped below what was due is still behind.
        let mut c = SnapshotLiveness::default();
        c.observe(&append(0, 1, 2, Some(1))).unwrap();
        c.observe(&write(1, 1, 1, false)).unwrap();
        let reap = SnapEvent::StoreReap {
            key: 1,
            offset: Some(1),
            row_gone: true,
        };
        c.observe(&ev(2, 0, reap)).unwrap();
        c.observe(&heal(3)).unwrap();
        assert!(c.finish(10_000).is_err());
    }

    /// After an early heal, a record appended in the first half of the
    /// liveness phase must become durable by the deadline; one appended in
    /// the second half need not.
    #[test]
    fn a_record_appended_early_after_the_heal_is_due_and_a_late_one_is_not() {
        let run = |late: bool| {
            let mut c = SnapshotLiveness::default();
            c.observe(&append(0, 1, 2, Some(1))).unwrap();
            c.observe(&heal(1)).unwrap();
            c.observe(&write(2, 1, 2, true)).unwrap();
            let i = if late { 8 } else { 4 };
            c.observe(&append(i, 1, 5, Some(2))).unwrap();
            c.finish(10_000)
        };
        let v = run(false).unwrap_err();
        assert_eq!(v.evidence, vec![4, 1]);
        run(true).unwrap();
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
