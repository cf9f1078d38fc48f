//! The store's table, as pure data: one row per key with per-cell TTLs, the
//! way Cassandra keeps them, and the lightweight-transaction statements the
//! owners use. Time is the store's wall clock, passed in.
//!
//! A row is visible while its row marker or any cell lives. A persist
//! rewrites the value, offset and metadata cells; a tombstone writes only the
//! value (null) and the offset; the first insert also writes the row marker.
//! So when a tombstone's TTL is shorter than the cells a persist left behind,
//! its offset cell dies first and the row stays visible with a null value and
//! a null offset: a guard-expired row. `IF offset <= :o` never holds on it and
//! `INSERT .. IF NOT EXISTS` loses to it; only `IF offset = null` claims it.

use super::events::SnapValue;
use super::msg::{Record, RowView, Stmt};
use sim::hash::debug_digest;
use sim::Now;
use std::collections::BTreeMap;

/// A cell and the store-clock time it expires at (`None`: never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell<T> {
    v: T,
    expires_ns: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Row {
    marker: Option<Option<u64>>,
    value: Option<Cell<SnapValue>>,
    offset: Option<Cell<u64>>,
    meta: Option<Cell<u64>>,
}

impl Row {
    fn visible(&self) -> bool {
        self.marker.is_some() || self.value.is_some() || self.offset.is_some() || self.meta.is_some()
    }
}

/// What a statement found and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub applied: bool,
    /// The row was visible before the statement.
    pub exists: bool,
    /// Its offset before the statement (`None`: no row, or a null offset).
    pub offset: Option<u64>,
    /// The statement removed the row.
    pub removed: bool,
}

/// What a purge found expired on one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reaped {
    pub offset: Option<u64>,
    pub was_tombstone: bool,
    pub row_gone: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    rows: BTreeMap<u32, Row>,
    /// Journal rows (events mode): key -> offset -> update (`None` deletes).
    events: BTreeMap<u32, BTreeMap<u64, Option<u64>>>,
}

fn expiry(now_ns: u64, ttl_ms: u64) -> Option<u64> {
    (ttl_ms > 0).then(|| now_ns + ttl_ms * 1_000_000)
}

impl Table {
    /// Drops `key`'s expired cells. Reports the change when an offset cell
    /// died or the row vanished: that is when the row's fence moved.
    pub fn purge(&mut self, key: u32, now_ns: u64) -> Option<Reaped> {
        let row = self.rows.get_mut(&key)?;
        let dead = |e: Option<u64>| e.is_some_and(|t| t <= now_ns);
        let before = row.offset.map(|c| c.v);
        let was_tombstone = row.value.is_none();
        if row.marker.is_some_and(dead) {
            row.marker = None;
        }
        if row.value.is_some_and(|c| dead(c.expires_ns)) {
            row.value = None;
        }
        let offset_died = row.offset.is_some_and(|c| dead(c.expires_ns));
        if offset_died {
            row.offset = None;
        }
        if row.meta.is_some_and(|c| dead(c.expires_ns)) {
            row.meta = None;
        }
        let row_gone = !row.visible();
        if row_gone {
            self.rows.remove(&key);
        }
        (offset_died || row_gone).then_some(Reaped {
            offset: before,
            was_tombstone,
            row_gone,
        })
    }

    /// Whether a purge of `key` at `now_ns` would drop any cell.
    pub fn expires(&self, key: u32, now_ns: u64) -> bool {
        let dead = |e: Option<u64>| e.is_some_and(|t| t <= now_ns);
        self.rows.get(&key).is_some_and(|r| {
            r.marker.is_some_and(dead)
                || r.value.is_some_and(|c| dead(c.expires_ns))
                || r.offset.is_some_and(|c| dead(c.expires_ns))
                || r.meta.is_some_and(|c| dead(c.expires_ns))
        })
    }

    /// Every key with a row, for a sweep.
    pub fn keys(&self) -> Vec<u32> {
        self.rows.keys().copied().collect()
    }

    pub fn view(&self, key: u32) -> Option<RowView> {
        self.rows.get(&key).filter(|r| r.visible()).map(|r| RowView {
            key,
            offset: r.offset.map(|c| c.v),
            value: r.value.map(|c| c.v),
        })
    }

    /// Runs one statement on `key`'s row (purge first).
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        key: u32,
        stmt: Stmt,
        offset: u64,
        value: Option<SnapValue>,
        ttl_ms: u64,
        meta: u64,
        now_ns: u64,
    ) -> Outcome {
        let row = self.rows.get(&key).filter(|r| r.visible());
        let exists = row.is_some();
        let had = row.and_then(|r| r.offset.map(|c| c.v));
        let applied = match stmt {
            Stmt::UpdateIfLe | Stmt::DeleteRow => had.is_some_and(|x| x <= offset),
            Stmt::UpdateIfLt => had.is_some_and(|x| x < offset),
            Stmt::InsertIfNotExists => !exists,
            Stmt::UpdateIfNull => had.is_none(),
            Stmt::Plain => true,
        };
        let mut out = Outcome {
            applied,
            exists,
            offset: had,
            removed: false,
        };
        if !applied {
            return out;
        }
        if stmt == Stmt::DeleteRow {
            self.rows.remove(&key);
            out.removed = true;
            return out;
        }
        let exp = expiry(now_ns, ttl_ms);
        let row = self.rows.entry(key).or_default();
        if stmt == Stmt::InsertIfNotExists {
            row.marker = Some(exp);
        }
        row.value = value.map(|v| Cell { v, expires_ns: exp });
        row.offset = Some(Cell {
            v: offset,
            expires_ns: exp,
        });
        // A tombstone by UPDATE leaves the metadata a persist wrote; an
        // INSERT writes every cell.
        if value.is_some() || stmt == Stmt::InsertIfNotExists {
            row.meta = Some(Cell {
                v: meta,
                expires_ns: exp,
            });
        }
        out
    }

    pub fn append_rows(&mut self, rows: &[Record]) {
        for r in rows {
            self.events.entry(r.key).or_default().insert(r.offset, r.update);
        }
    }

    pub fn clear_rows(&mut self, key: u32, upto: u64) {
        if let Some(rows) = self.events.get_mut(&key) {
            rows.retain(|o, _| *o > upto);
        }
    }

    /// The table with every expiry as its signed offset from the store's
    /// wall clock (see `super::digest`). Exact even once passed: an expired
    /// cell stays until a purge drops it, and should the wall clock be set
    /// back first, it lives again for as long as its expiry is ahead.
    pub fn digest_at(&self, now: &Now) -> u64 {
        let Table { rows, events } = self;
        let at = |expires_ns: Option<u64>| expires_ns.map(|t| now.wall_offset(t));
        let rows: Vec<_> = rows
            .iter()
            .map(|(key, row)| {
                let Row {
                    marker,
                    value,
                    offset,
                    meta,
                } = row;
                (
                    key,
                    marker.map(at),
                    value.map(|c| (c.v, at(c.expires_ns))),
                    offset.map(|c| (c.v, at(c.expires_ns))),
                    meta.map(|c| (c.v, at(c.expires_ns))),
                )
            })
            .collect();
        debug_digest(&(rows, events))
    }

    /// Visible rows and journal rows of the keys `pick` selects, in key order.
    pub fn read(&self, pick: impl Fn(u32) -> bool) -> (Vec<RowView>, Vec<Record>) {
        let rows = self
            .rows
            .keys()
            .filter(|k| pick(**k))
            .filter_map(|k| self.view(*k))
            .collect();
        let events = self
            .events
            .iter()
            .filter(|(k, _)| pick(**k))
            .flat_map(|(k, rs)| {
                rs.iter().map(|(o, u)| Record {
                    key: *k,
                    offset: *o,
                    update: *u,
                })
            })
            .collect();
        (rows, events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn v(since: u64, last: u64) -> Option<SnapValue> {
        Some(SnapValue { since, last, digest: 1 })
    }

    #[test]
    fn the_fence_admits_equal_and_higher_offsets_only() {
        let mut t = Table::default();
        assert!(!t.apply(1, Stmt::UpdateIfLe, 5, v(5, 5), 0, 1, 0).applied, "no row yet");
        assert!(t.apply(1, Stmt::InsertIfNotExists, 5, v(5, 5), 0, 1, 0).applied);
        assert!(!t.apply(1, Stmt::InsertIfNotExists, 6, v(5, 6), 0, 1, 0).applied);
        assert!(
            t.apply(1, Stmt::UpdateIfLe, 5, v(5, 5), 0, 1, 0).applied,
            "equal is admitted"
        );
        let lower = t.apply(1, Stmt::UpdateIfLe, 4, v(4, 4), 0, 1, 0);
        assert_eq!((lower.applied, lower.exists, lower.offset), (false, true, Some(5)));
        assert!(
            !t.apply(1, Stmt::UpdateIfLt, 5, v(5, 5), 0, 1, 0).applied,
            "strict rejects equal"
        );
        assert!(t.apply(1, Stmt::UpdateIfLe, 9, None, 0, 1, 0).applied);
        assert_eq!(
            t.view(1),
            Some(RowView {
                key: 1,
                offset: Some(9),
                value: None
            })
        );
        assert!(
            !t.apply(1, Stmt::UpdateIfLe, 8, v(5, 8), 0, 1, 0).applied,
            "the tombstone fences"
        );
    }

    #[test]
    fn a_short_tombstone_ttl_over_a_persist_leaves_a_guard_expired_row() {
        let mut t = Table::default();
        t.apply(2, Stmt::InsertIfNotExists, 3, v(3, 3), 0, 1, 0);
        t.apply(2, Stmt::UpdateIfLe, 7, None, 100, 1, 10 * MS);
        assert_eq!(t.purge(2, 50 * MS), None);
        let r = t.purge(2, 110 * MS).unwrap();
        assert_eq!((r.offset, r.row_gone, r.was_tombstone), (Some(7), false, true));
        assert_eq!(
            t.view(2),
            Some(RowView {
                key: 2,
                offset: None,
                value: None
            })
        );
        // Poison for the fence and for a first write alike ...
        assert!(!t.apply(2, Stmt::UpdateIfLe, 8, v(8, 8), 0, 1, 120 * MS).applied);
        let ins = t.apply(2, Stmt::InsertIfNotExists, 8, v(8, 8), 0, 1, 120 * MS);
        assert_eq!((ins.applied, ins.exists, ins.offset), (false, true, None));
        // ... until a persist claims it on the null guard.
        assert!(t.apply(2, Stmt::UpdateIfNull, 8, v(8, 8), 0, 1, 120 * MS).applied);
        assert_eq!(t.view(2).unwrap().offset, Some(8));
        assert!(!t.apply(2, Stmt::UpdateIfNull, 9, v(8, 9), 0, 1, 130 * MS).applied);
    }

    #[test]
    fn a_tombstone_inserted_with_a_ttl_is_reaped_whole() {
        let mut t = Table::default();
        assert!(t.apply(3, Stmt::InsertIfNotExists, 4, None, 100, 1, 0).applied);
        let r = t.purge(3, 100 * MS).unwrap();
        assert!(r.row_gone && r.was_tombstone);
        assert_eq!(t.view(3), None);
        // The documented limit: a lower offset is now a first write.
        assert!(t.apply(3, Stmt::InsertIfNotExists, 2, v(2, 2), 0, 1, 101 * MS).applied);
    }

    #[test]
    fn removing_the_row_drops_the_fence() {
        let mut t = Table::default();
        t.apply(4, Stmt::InsertIfNotExists, 4, v(4, 4), 0, 1, 0);
        let out = t.apply(4, Stmt::DeleteRow, 6, None, 0, 1, 0);
        assert!(out.applied && out.removed);
        assert!(t.apply(4, Stmt::InsertIfNotExists, 4, v(4, 4), 0, 1, 0).applied);
    }

    #[test]
    fn journal_rows_are_read_per_partition_and_cleared_up_to_an_offset() {
        let mut t = Table::default();
        let rec = |key, offset| Record {
            key,
            offset,
            update: Some(offset),
        };
        t.append_rows(&[rec(2, 1), rec(3, 2), rec(2, 3), rec(2, 5)]);
        t.clear_rows(2, 3);
        let (_, ev) = t.read(|k| k % 2 == 0);
        assert_eq!(ev, vec![rec(2, 5)]);
    }

    fn wall(ns: u64) -> Now {
        Now {
            mono_ns: 0,
            wall_ns: ns,
        }
    }

    /// Key 1 lives 100 ms from `t0`, key 2 10 ms from `t0 - early`.
    fn ttls(t0: u64, early: u64) -> Table {
        let mut t = Table::default();
        t.apply(1, Stmt::InsertIfNotExists, 3, v(3, 3), 100, 1, t0);
        t.apply(2, Stmt::InsertIfNotExists, 4, v(4, 4), 10, 1, t0 - early);
        t
    }

    #[test]
    fn expiries_digest_as_offsets_from_the_wall_clock_even_once_passed() {
        let (t0, d) = (500 * MS, 777 * MS + 3);
        let now = t0 + 50 * MS;
        assert_eq!(
            ttls(t0, 0).digest_at(&wall(now)),
            ttls(t0 + d, 0).digest_at(&wall(now + d)),
            "a shift in time"
        );
        // Key 2 expired 40 ms ago in one, 60 ms in the other ...
        let (a, b) = (ttls(t0, 0), ttls(t0, 20 * MS));
        assert_ne!(a.digest_at(&wall(now)), b.digest_at(&wall(now)));
        // ... which tells them apart once the wall clock is set back.
        let back = t0 + 5 * MS;
        assert_ne!(a.expires(2, back), b.expires(2, back));
    }
}
