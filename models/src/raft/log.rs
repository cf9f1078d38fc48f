//! The in-memory log: entries after a snapshot point.
//!
//! Index `snapshot_index` is the last entry folded into the snapshot; its
//! term is kept so that an append whose `prev_index` is exactly the snapshot
//! point can still be checked.

use super::lease::LeaseGrant;
use serde::{Deserialize, Serialize};
use sim::KvOp;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    pub index: u64,
    pub term: u64,
    /// `None` for the no-op a new leader appends to commit its term.
    pub op: Option<KvOp>,
    /// The client request this entry answers, on the leader that took it.
    pub req_id: Option<u64>,
    /// A descriptor lease grant (with `op` empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<LeaseGrant>,
}

impl Entry {
    /// The entry a new leader appends to commit its term.
    pub fn noop(index: u64, term: u64) -> Entry {
        Entry {
            index,
            term,
            op: None,
            req_id: None,
            lease: None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Log {
    snapshot_index: u64,
    snapshot_term: u64,
    /// `entries[k].index == snapshot_index + 1 + k`, always.
    entries: Vec<Entry>,
}

impl Log {
    /// The entries held, past the snapshot.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
    pub fn snapshot_index(&self) -> u64 {
        self.snapshot_index
    }
    pub fn snapshot_term(&self) -> u64 {
        self.snapshot_term
    }
    pub fn first_index(&self) -> u64 {
        self.snapshot_index + 1
    }
    pub fn last_index(&self) -> u64 {
        self.snapshot_index + self.entries.len() as u64
    }
    pub fn last_term(&self) -> u64 {
        self.entries.last().map_or(self.snapshot_term, |e| e.term)
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The term at `index`, if the log still knows it (the snapshot point
    /// counts; anything before it was compacted away).
    pub fn term_at(&self, index: u64) -> Option<u64> {
        if index == self.snapshot_index {
            return Some(self.snapshot_term);
        }
        self.entry(index).map(|e| e.term)
    }
    pub fn entry(&self, index: u64) -> Option<&Entry> {
        if index <= self.snapshot_index {
            return None;
        }
        self.entries.get((index - self.snapshot_index - 1) as usize)
    }
    /// Up to `max` entries starting at `from` (clamped to the log start).
    pub fn entries_from(&self, from: u64, max: usize) -> Vec<Entry> {
        let start = from.max(self.first_index()) - self.first_index();
        self.entries.iter().skip(start as usize).take(max).cloned().collect()
    }
    pub fn all_entries(&self) -> &[Entry] {
        &self.entries
    }
    /// Appends `e` if it extends the log by exactly one; refuses a gap or an
    /// overlap so that the index invariant cannot be broken by a caller.
    pub fn push(&mut self, e: Entry) -> bool {
        if e.index != self.last_index() + 1 {
            return false;
        }
        self.entries.push(e);
        true
    }
    /// Removes every entry at or after `from`. The snapshot is never cut.
    pub fn truncate(&mut self, from: u64) {
        let from = from.max(self.first_index());
        let keep = (from - self.first_index()) as usize;
        self.entries.truncate(keep);
    }
    /// Folds everything up to `index` into the snapshot point. An `index`
    /// past the end leaves an empty log starting after it.
    pub fn compact(&mut self, index: u64, term: u64) {
        if index <= self.snapshot_index {
            return;
        }
        let drop = ((index - self.snapshot_index) as usize).min(self.entries.len());
        self.entries.drain(..drop);
        self.snapshot_index = index;
        self.snapshot_term = term;
    }
    /// Replaces the whole log by an empty one after the snapshot point.
    pub fn reset(&mut self, index: u64, term: u64) {
        self.entries.clear();
        self.snapshot_index = index;
        self.snapshot_term = term;
    }
    /// Raft's "at least as up to date" (5.4.1): higher last term wins, then
    /// the longer log.
    pub fn is_up_to_date(&self, last_index: u64, last_term: u64) -> bool {
        (last_term, last_index) >= (self.last_term(), self.last_index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u64, term: u64) -> Entry {
        Entry::noop(index, term)
    }

    fn log_of(terms: &[u64]) -> Log {
        let mut l = Log::default();
        for (k, t) in terms.iter().enumerate() {
            assert!(l.push(e(k as u64 + 1, *t)));
        }
        l
    }

    #[test]
    fn empty_log_knows_index_zero_at_term_zero() {
        let l = Log::default();
        assert_eq!(l.first_index(), 1);
        assert_eq!(l.last_index(), 0);
        assert_eq!(l.term_at(0), Some(0));
        assert_eq!(l.term_at(1), None);
    }

    #[test]
    fn push_refuses_gaps_and_overlaps() {
        let mut l = log_of(&[1, 1]);
        assert!(!l.push(e(4, 1)));
        assert!(!l.push(e(2, 2)));
        assert!(l.push(e(3, 2)));
        assert_eq!(l.last_index(), 3);
        assert_eq!(l.last_term(), 2);
    }

    #[test]
    fn truncate_removes_suffix_from_index() {
        let mut l = log_of(&[1, 1, 2, 2]);
        l.truncate(3);
        assert_eq!(l.last_index(), 2);
        assert_eq!(l.term_at(3), None);
        l.truncate(10);
        assert_eq!(l.last_index(), 2);
    }

    #[test]
    fn truncate_never_cuts_into_the_snapshot() {
        let mut l = log_of(&[1, 1, 2, 2]);
        l.compact(2, 1);
        l.truncate(1);
        assert_eq!(l.last_index(), 2);
        assert_eq!(l.term_at(2), Some(1));
    }

    #[test]
    fn compact_keeps_snapshot_term_and_suffix() {
        let mut l = log_of(&[1, 1, 2, 3, 3]);
        l.compact(3, 2);
        assert_eq!(l.first_index(), 4);
        assert_eq!(l.last_index(), 5);
        assert_eq!(l.term_at(3), Some(2));
        assert_eq!(l.term_at(2), None);
        assert_eq!(l.term_at(4), Some(3));
        assert_eq!(l.entries_from(1, 10).len(), 2);
        assert_eq!(l.entries_from(5, 10)[0].index, 5);
        // Compacting backwards is a no-op.
        l.compact(1, 1);
        assert_eq!(l.snapshot_index(), 3);
    }

    #[test]
    fn compact_past_the_end_leaves_an_empty_log_after_it() {
        let mut l = log_of(&[1, 1]);
        l.compact(7, 4);
        assert_eq!(l.last_index(), 7);
        assert_eq!(l.last_term(), 4);
        assert!(l.is_empty());
        assert!(l.push(e(8, 4)));
    }

    #[test]
    fn entries_from_is_bounded() {
        let l = log_of(&[1, 1, 1, 1]);
        let es = l.entries_from(2, 2);
        assert_eq!(es.iter().map(|x| x.index).collect::<Vec<_>>(), vec![2, 3]);
        assert!(l.entries_from(9, 2).is_empty());
    }

    #[test]
    fn up_to_date_compares_last_term_then_length() {
        let l = log_of(&[1, 2]);
        assert!(l.is_up_to_date(2, 2));
        assert!(l.is_up_to_date(1, 3));
        assert!(!l.is_up_to_date(5, 1));
        assert!(!l.is_up_to_date(1, 2));
    }
}
