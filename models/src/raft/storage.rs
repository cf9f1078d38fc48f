//! What a node writes to its disk, and how a booting node reads it back.
//!
//! The disk is a list of records. Writes append a record; compaction and
//! snapshot installation replace the whole list at once. A crash keeps any
//! prefix of the writes not yet fsynced, so replay must turn every prefix of
//! a valid write sequence into the state the node had when it issued the
//! last write of that prefix.

use super::log::{Entry, Log};
use super::state_machine::{digest_of, KvData};
use sim::NodeId;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RaftRec {
    HardState {
        term: u64,
        vote: Option<NodeId>,
    },
    Entries(Vec<Entry>),
    /// Drops every entry at or after this index (a conflicting suffix).
    TruncateFrom(u64),
    Snapshot {
        index: u64,
        term: u64,
        data: KvData,
        digest: u64,
    },
    /// The node's membership incarnation; the highest on disk counts.
    Incarnation(u64),
}

/// A state-machine image at `index`, the term of the entry at `index`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Snapshot {
    pub index: u64,
    pub term: u64,
    pub data: KvData,
    pub digest: u64,
}

impl Snapshot {
    pub fn new(index: u64, term: u64, data: KvData) -> Snapshot {
        let digest = digest_of(&data);
        Snapshot {
            index,
            term,
            data,
            digest,
        }
    }
    pub fn empty() -> Snapshot {
        Snapshot::new(0, 0, KvData::new())
    }
    pub fn to_rec(&self) -> RaftRec {
        RaftRec::Snapshot {
            index: self.index,
            term: self.term,
            data: self.data.clone(),
            digest: self.digest,
        }
    }
}

/// The durable state a node rebuilds at boot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovered {
    pub term: u64,
    pub vote: Option<NodeId>,
    pub log: Log,
    pub snapshot: Snapshot,
    /// Whether any log entry or snapshot was found.
    pub had_entries: bool,
    /// The highest membership incarnation written, if any.
    pub incarnation: Option<u64>,
}

pub fn replay(recs: &[RaftRec]) -> Recovered {
    let mut r = Recovered {
        term: 0,
        vote: None,
        log: Log::default(),
        snapshot: Snapshot::empty(),
        had_entries: false,
        incarnation: None,
    };
    for rec in recs {
        match rec {
            RaftRec::HardState { term, vote } => {
                r.term = *term;
                r.vote = *vote;
            }
            RaftRec::Entries(es) => {
                for e in es {
                    r.had_entries = true;
                    if e.index <= r.log.snapshot_index() {
                        continue;
                    }
                    // An entry at an existing index overwrites from there on:
                    // that is what the node meant when it wrote it.
                    r.log.truncate(e.index);
                    // A gap cannot come from a prefix of our own writes; the
                    // entry is dropped rather than breaking the log.
                    let _ = r.log.push(e.clone());
                }
            }
            RaftRec::TruncateFrom(i) => r.log.truncate(*i),
            RaftRec::Incarnation(n) => r.incarnation = Some(r.incarnation.map_or(*n, |m| m.max(*n))),
            RaftRec::Snapshot {
                index,
                term,
                data,
                digest,
            } => {
                r.had_entries = true;
                if *index < r.snapshot.index {
                    continue;
                }
                if r.log.term_at(*index) == Some(*term) {
                    r.log.compact(*index, *term);
                } else {
                    r.log.reset(*index, *term);
                }
                r.snapshot = Snapshot {
                    index: *index,
                    term: *term,
                    data: data.clone(),
                    digest: *digest,
                };
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u64, term: u64) -> Entry {
        Entry::noop(index, term)
    }

    /// term, vote, and (index, term) of each log entry.
    type Durable = (u64, Option<NodeId>, Vec<(u64, u64)>);

    fn indices(l: &Log) -> Vec<(u64, u64)> {
        l.all_entries().iter().map(|x| (x.index, x.term)).collect()
    }

    #[test]
    fn empty_disk_boots_at_term_zero() {
        let r = replay(&[]);
        assert_eq!((r.term, r.vote), (0, None));
        assert_eq!(r.log.last_index(), 0);
        assert_eq!(r.snapshot, Snapshot::empty());
        assert!(!r.had_entries);
    }

    #[test]
    fn latest_hard_state_wins() {
        let r = replay(&[
            RaftRec::HardState { term: 1, vote: Some(2) },
            RaftRec::HardState { term: 3, vote: None },
            RaftRec::HardState { term: 3, vote: Some(0) },
        ]);
        assert_eq!((r.term, r.vote), (3, Some(0)));
    }

    #[test]
    fn the_highest_incarnation_on_disk_counts() {
        assert_eq!(replay(&[]).incarnation, None);
        let r = replay(&[
            RaftRec::Incarnation(1),
            RaftRec::HardState { term: 1, vote: None },
            RaftRec::Incarnation(3),
            RaftRec::Incarnation(0),
        ]);
        assert_eq!(r.incarnation, Some(3));
    }

    #[test]
    fn truncate_then_entries_replaces_a_conflicting_suffix() {
        let r = replay(&[
            RaftRec::Entries(vec![e(1, 1), e(2, 1), e(3, 1)]),
            RaftRec::TruncateFrom(2),
            RaftRec::Entries(vec![e(2, 2)]),
        ]);
        assert_eq!(indices(&r.log), vec![(1, 1), (2, 2)]);
        assert!(r.had_entries);
    }

    #[test]
    fn snapshot_keeps_a_matching_suffix_and_skips_older_entries() {
        let data: KvData = [(1u32, vec![7u64])].into_iter().collect();
        let snap = Snapshot::new(2, 1, data);
        let r = replay(&[
            RaftRec::HardState { term: 2, vote: None },
            snap.to_rec(),
            RaftRec::Entries(vec![e(3, 2)]),
            RaftRec::Entries(vec![e(2, 1), e(3, 2), e(4, 2)]),
        ]);
        assert_eq!(r.snapshot, snap);
        assert_eq!(r.log.snapshot_index(), 2);
        assert_eq!(indices(&r.log), vec![(3, 2), (4, 2)]);
    }

    #[test]
    fn snapshot_not_matching_the_log_discards_it() {
        let r = replay(&[
            RaftRec::Entries(vec![e(1, 1), e(2, 1), e(3, 1)]),
            Snapshot::new(2, 5, KvData::new()).to_rec(),
        ]);
        assert_eq!(r.log.last_index(), 2);
        assert_eq!(r.log.last_term(), 5);
        assert!(r.log.is_empty());
    }

    #[test]
    fn an_entry_after_a_gap_is_dropped() {
        let r = replay(&[RaftRec::Entries(vec![e(1, 1)]), RaftRec::Entries(vec![e(3, 1)])]);
        assert_eq!(r.log.last_index(), 1);
    }

    /// A torn write keeps a prefix of the unsynced records; every prefix of
    /// what a node wrote must replay to the state it had at that write.
    #[test]
    fn every_prefix_replays_to_the_state_at_that_write() {
        let snap = Snapshot::new(3, 2, [(4u32, vec![1u64, 2])].into_iter().collect());
        let writes = [
            RaftRec::HardState { term: 1, vote: Some(1) },
            RaftRec::Entries(vec![e(1, 1), e(2, 1)]),
            RaftRec::HardState { term: 2, vote: None },
            RaftRec::TruncateFrom(2),
            RaftRec::Entries(vec![e(2, 2), e(3, 2)]),
            RaftRec::Entries(vec![e(4, 2)]),
        ];
        let expected: Vec<Durable> = vec![
            (0, None, vec![]),
            (1, Some(1), vec![]),
            (1, Some(1), vec![(1, 1), (2, 1)]),
            (2, None, vec![(1, 1), (2, 1)]),
            (2, None, vec![(1, 1)]),
            (2, None, vec![(1, 1), (2, 2), (3, 2)]),
            (2, None, vec![(1, 1), (2, 2), (3, 2), (4, 2)]),
        ];
        for k in 0..=writes.len() {
            let r = replay(&writes[..k]);
            assert_eq!(
                (r.term, r.vote, indices(&r.log)),
                expected[k].clone(),
                "prefix of {k} records"
            );
        }
        // Compaction replaces the disk wholesale; the image boots with the
        // snapshot's data and the suffix after it, and later appends extend it.
        let mut compacted = vec![
            RaftRec::HardState { term: 2, vote: None },
            snap.to_rec(),
            RaftRec::Entries(vec![e(4, 2)]),
        ];
        compacted.push(RaftRec::Entries(vec![e(5, 2)]));
        let r = replay(&compacted);
        assert_eq!(r.snapshot.data, snap.data);
        assert_eq!(r.snapshot.digest, snap.digest);
        assert_eq!(indices(&r.log), vec![(4, 2), (5, 2)]);
        let torn = replay(&compacted[..2]);
        assert_eq!(torn.log.last_index(), 3);
        assert!(torn.log.is_empty());
    }
}
