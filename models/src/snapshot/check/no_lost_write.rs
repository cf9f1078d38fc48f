use crate::snapshot::events::{SnapEvent, SnapValue};
use sim::{Event, Invariant, Violation};
use std::collections::BTreeMap;

/// A value an owner marks persisted was written to the store: the store
/// applied exactly that key, offset and value (or tombstone) before the mark.
/// Anything else is state the owner will never flush again.
#[derive(Default)]
pub struct NoLostWrite {
    /// (key, offset, value) -> event of the first store write that applied it
    applied: BTreeMap<(u32, u64, Option<SnapValue>), u64>,
    /// key -> the latest applied write's event, for evidence
    latest: BTreeMap<u32, u64>,
}

impl Invariant for NoLostWrite {
    fn id(&self) -> &'static str {
        "no-lost-write"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(m) = e.custom::<SnapEvent>() else {
            return Ok(());
        };
        match &m {
            SnapEvent::StoreWrite { key, offset, value, .. } => {
                self.applied.entry((*key, *offset, *value)).or_insert(e.i);
                self.latest.insert(*key, e.i);
            }
            SnapEvent::SnapPersisted {
                key,
                offset,
                value,
                generation,
            } if !self.applied.contains_key(&(*key, *offset, *value)) => {
                let mut evidence: Vec<u64> = self.latest.get(key).copied().into_iter().collect();
                evidence.push(e.i);
                let what = match value {
                    Some(v) => format!("value {v:?}"),
                    None => "tombstone".to_string(),
                };
                return Err(Violation::new(
                    self.id(),
                    format!(
                        "key {key}: the owner of generation {generation} marked {what} at offset {offset} persisted, but the store never applied it"
                    ),
                    evidence,
                ));
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

    fn v(last: u64) -> Option<SnapValue> {
        Some(SnapValue {
            since: 1,
            last,
            digest: last * 3,
        })
    }

    fn write(i: u64, offset: u64, value: Option<SnapValue>) -> Event {
        ev(
            i,
            0,
            SnapEvent::StoreWrite {
                key: 1,
                offset,
                value,
                stmt: "update-if-le".into(),
                writer: 2,
                generation: 1,
            },
        )
    }

    fn mark(i: u64, offset: u64, value: Option<SnapValue>) -> Event {
        ev(
            i,
            2,
            SnapEvent::SnapPersisted {
                key: 1,
                offset,
                value,
                generation: 1,
            },
        )
    }

    #[test]
    fn marking_what_was_written_passes() {
        let mut c = NoLostWrite::default();
        c.observe(&write(0, 4, v(4))).unwrap();
        c.observe(&write(1, 6, None)).unwrap();
        c.observe(&mark(2, 4, v(4))).unwrap();
        c.observe(&mark(3, 6, None)).unwrap();
    }

    #[test]
    fn marking_a_newer_value_than_was_written_fails() {
        let mut c = NoLostWrite::default();
        c.observe(&write(0, 4, v(4))).unwrap();
        let err = c.observe(&mark(1, 5, v(5))).unwrap_err();
        assert_eq!(err.evidence, vec![0, 1]);
    }
}
