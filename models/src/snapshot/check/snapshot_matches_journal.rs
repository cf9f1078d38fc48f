use crate::snapshot::events::{SnapEvent, SnapValue};
use sim::{Event, Invariant, Violation};
use std::collections::BTreeMap;

/// The reference check of the snapshot store: a live value the store applies
/// at offset o equals the fold of the key's journal records up to o. The fold
/// is recomputed here from the journal alone, whatever the owners did.
#[derive(Default)]
pub struct SnapshotMatchesJournal {
    /// key -> (record offset, the fold after it, event), in offset order
    folds: BTreeMap<u32, Vec<(u64, Option<SnapValue>, u64)>>,
}

impl SnapshotMatchesJournal {
    /// The fold of `key`'s records up to `offset`, and the event of the last one.
    fn expected(&self, key: u32, offset: u64) -> (Option<SnapValue>, Option<u64>) {
        let Some(f) = self.folds.get(&key) else {
            return (None, None);
        };
        let n = f.partition_point(|(o, _, _)| *o <= offset);
        match n {
            0 => (None, None),
            n => (f[n - 1].1, Some(f[n - 1].2)),
        }
    }

    /// A live value at `offset`, written by `writer` (`None`: found by a
    /// store recovering its commit log).
    fn judge(&self, key: u32, offset: u64, v: SnapValue, writer: Option<usize>, i: u64) -> Result<(), Violation> {
        let (want, at) = self.expected(key, offset);
        if want == Some(v) {
            return Ok(());
        }
        let mut evidence: Vec<u64> = at.into_iter().collect();
        evidence.push(i);
        let by = writer.map_or("by a recovering store".to_string(), |w| format!("by node {w}"));
        Err(Violation::new(
            "snapshot-matches-journal",
            format!("key {key} stored at offset {offset} {by} holds {v:?}, but the journal folds to {want:?} there"),
            evidence,
        ))
    }
}

impl Invariant for SnapshotMatchesJournal {
    fn id(&self) -> &'static str {
        "snapshot-matches-journal"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<SnapEvent>() else {
            return Ok(());
        };
        match &m {
            SnapEvent::JournalAppend {
                key, offset, update, ..
            } => {
                let f = self.folds.entry(*key).or_default();
                let prev = f.last().and_then(|(_, v, _)| *v);
                debug_assert!(f.last().is_none_or(|(o, _, _)| o < offset));
                f.push((*offset, SnapValue::fold(prev, *offset, *update), e.i));
            }
            SnapEvent::StoreWrite {
                key,
                offset,
                value: Some(v),
                writer,
                ..
            } => return self.judge(*key, *offset, *v, Some(*writer), e.i),
            // A recovered row may hold a write never reported before.
            SnapEvent::StoreRecovered { rows, .. } => {
                for r in rows {
                    if let (Some(o), Some(v)) = (r.offset, r.value) {
                        self.judge(r.key, o, v, None, e.i)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn append(i: u64, offset: u64, update: Option<u64>) -> Event {
        ev(
            i,
            1,
            SnapEvent::JournalAppend {
                partition: 0,
                key: 3,
                offset,
                update,
            },
        )
    }

    fn write(i: u64, offset: u64, value: Option<SnapValue>) -> Event {
        ev(
            i,
            0,
            SnapEvent::StoreWrite {
                key: 3,
                offset,
                value,
                stmt: "update-if-le".into(),
                writer: 2,
                generation: 1,
            },
        )
    }

    #[test]
    fn the_fold_at_the_stored_offset_passes() {
        let mut c = SnapshotMatchesJournal::default();
        c.observe(&append(0, 1, Some(10))).unwrap();
        c.observe(&append(1, 4, Some(11))).unwrap();
        c.observe(&append(2, 6, None)).unwrap();
        c.observe(&append(3, 9, Some(12))).unwrap();
        let at4 = SnapValue::fold(SnapValue::fold(None, 1, Some(10)), 4, Some(11));
        c.observe(&write(4, 4, at4)).unwrap();
        // Between records the fold is the one of the last record below.
        c.observe(&write(5, 5, at4)).unwrap();
        c.observe(&write(6, 9, SnapValue::fold(None, 9, Some(12)))).unwrap();
    }

    #[test]
    fn a_value_carried_across_a_delete_fails() {
        let mut c = SnapshotMatchesJournal::default();
        c.observe(&append(0, 1, Some(10))).unwrap();
        c.observe(&append(1, 2, None)).unwrap();
        c.observe(&append(2, 3, Some(12))).unwrap();
        let carried = SnapValue::fold(SnapValue::fold(None, 1, Some(10)), 3, Some(12));
        let v = c.observe(&write(3, 3, carried)).unwrap_err();
        assert_eq!(v.evidence, vec![2, 3]);
    }
}
