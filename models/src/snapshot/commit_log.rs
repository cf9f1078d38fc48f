//! The store's commit log (`config.store_durable`): every change to the
//! table, in the order the store made it, each record under a checksum.
//!
//! A record holds a statement's inputs, not its effect: replaying the
//! records in order through the same pure [`Table`] functions rebuilds the
//! table exactly, and a prefix of them (what a crash or a failed fsync
//! leaves) rebuilds the table as it was after the last record kept. So a
//! purge is logged with the time it ran at whenever it drops a cell, and
//! only statements that applied are logged.

use super::events::SnapValue;
use super::msg::{Record, Stmt};
use super::table::Table;
use sim::hash::{debug_digest, StableHasher};
use sim::{DiskError, Now};
use std::hash::{Hash, Hasher};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// A statement that applied, as the store ran it.
    Apply {
        key: u32,
        stmt: Stmt,
        offset: u64,
        value: Option<SnapValue>,
        ttl_ms: u64,
        meta: u64,
        now_ns: u64,
    },
    /// A purge of `key` at the store's `now_ns` that dropped cells.
    Purge { key: u32, now_ns: u64 },
    /// Journal rows appended (events mode).
    Rows(Vec<Record>),
    /// Journal rows of `key` up to `upto` cleared (events mode).
    ClearRows { key: u32, upto: u64 },
}

/// One record on the store's disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRec {
    pub entry: Entry,
    /// Over `entry`; a record that fails it is treated as rotten.
    pub sum: u64,
}

fn checksum(entry: &Entry) -> u64 {
    let mut h = StableHasher::default();
    entry.hash(&mut h);
    h.finish()
}

impl LogRec {
    pub fn new(entry: Entry) -> LogRec {
        let sum = checksum(&entry);
        LogRec { entry, sum }
    }
}

impl LogRec {
    /// The record with the wall time it ran at as an offset from the
    /// store's wall clock `now`, exact as the table's expiries are (see
    /// `Table::digest_at`): a replay puts its cells' expiries there. Of
    /// the checksum, only whether it holds matters to a replay.
    pub fn digest_at(&self, now: &Now) -> u64 {
        let LogRec { entry, sum } = self;
        let verifies = *sum == checksum(entry);
        let mut entry = entry.clone();
        match &mut entry {
            Entry::Apply { now_ns, .. } | Entry::Purge { now_ns, .. } => *now_ns = now.wall_offset(*now_ns) as u64,
            Entry::Rows(_) | Entry::ClearRows { .. } => {}
        }
        debug_digest(&(entry, verifies))
    }
}

/// Rebuilds the table from the log, or names the first record whose
/// checksum fails: nothing after a rotten record can be trusted, and
/// dropping it could drop a write the store acknowledged.
pub fn replay(recs: &[LogRec]) -> Result<Table, DiskError> {
    let mut t = Table::default();
    for (index, r) in recs.iter().enumerate() {
        if r.sum != checksum(&r.entry) {
            return Err(DiskError::Corrupt { index });
        }
        r.entry.redo(&mut t);
    }
    Ok(t)
}

impl Entry {
    /// Makes this change to `t` again, as the store made it; false if it
    /// changed nothing (a logged statement always applied, a logged purge
    /// always dropped cells, so false means `t` is not the table it was).
    fn redo(&self, t: &mut Table) -> bool {
        match self {
            &Entry::Apply {
                key,
                stmt,
                offset,
                value,
                ttl_ms,
                meta,
                now_ns,
            } => t.apply(key, stmt, offset, value, ttl_ms, meta, now_ns).applied,
            &Entry::Purge { key, now_ns } => t.purge(key, now_ns).is_some(),
            Entry::Rows(rows) => {
                t.append_rows(rows);
                true
            }
            &Entry::ClearRows { key, upto } => {
                t.clear_rows(key, upto);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn put(key: u32, stmt: Stmt, offset: u64, ttl_ms: u64, now_ns: u64) -> LogRec {
        let value = Some(SnapValue {
            since: offset,
            last: offset,
            digest: 7,
        });
        LogRec::new(Entry::Apply {
            key,
            stmt,
            offset,
            value,
            ttl_ms,
            meta: 1,
            now_ns,
        })
    }

    /// Runs the same records live, checking every prefix replays to the
    /// table as it stood after that record.
    #[test]
    fn every_prefix_replays_to_the_table_after_its_last_record() {
        let recs = [
            put(1, Stmt::InsertIfNotExists, 3, 0, 0),
            put(2, Stmt::InsertIfNotExists, 4, 100, 0),
            put(1, Stmt::UpdateIfLe, 6, 0, 10 * MS),
            LogRec::new(Entry::Purge {
                key: 2,
                now_ns: 150 * MS,
            }),
            put(2, Stmt::InsertIfNotExists, 2, 0, 160 * MS),
            LogRec::new(Entry::Rows(vec![Record {
                key: 1,
                offset: 7,
                update: Some(1),
            }])),
            LogRec::new(Entry::ClearRows { key: 1, upto: 7 }),
        ];
        let mut live = Table::default();
        for (n, r) in recs.iter().enumerate() {
            assert!(r.entry.redo(&mut live), "record {n} changes the live table");
            let t = replay(&recs[..=n]).unwrap();
            assert_eq!(t.read(|_| true), live.read(|_| true), "prefix of {} records", n + 1);
        }
        assert_eq!(
            live.view(2).unwrap().offset,
            Some(2),
            "reaped, then a first write again"
        );
    }

    #[test]
    fn a_record_that_fails_its_checksum_stops_the_replay() {
        let mut recs = vec![
            put(1, Stmt::InsertIfNotExists, 3, 0, 0),
            put(1, Stmt::UpdateIfLe, 5, 0, 0),
        ];
        recs[1].sum ^= 1;
        assert_eq!(replay(&recs).unwrap_err(), DiskError::Corrupt { index: 1 });
    }

    #[test]
    fn a_record_digests_its_wall_time_relative_and_only_whether_its_checksum_holds() {
        let wall = |ns| Now {
            mono_ns: 0,
            wall_ns: ns,
        };
        let d = 5 * MS + 1;
        let rec = |now_ns| put(1, Stmt::InsertIfNotExists, 3, 100, now_ns);
        let purge = |now_ns| LogRec::new(Entry::Purge { key: 1, now_ns });
        let base = rec(10 * MS).digest_at(&wall(30 * MS));
        assert_eq!(base, rec(10 * MS + d).digest_at(&wall(30 * MS + d)));
        assert_eq!(
            purge(10 * MS).digest_at(&wall(30 * MS)),
            purge(10 * MS + d).digest_at(&wall(30 * MS + d))
        );
        assert_ne!(base, rec(11 * MS).digest_at(&wall(30 * MS)));
        let mut rotten = rec(10 * MS);
        rotten.sum ^= 1;
        assert_ne!(base, rotten.digest_at(&wall(30 * MS)));
    }
}
