//! What a node keeps: the raft log, the hard state and the latest snapshot,
//! in memory (behind each version's `Storage` implementation) and as disk
//! records. Version-neutral: each version converts its own protobuf types
//! to and from these at the boundary.

use serde::Serialize;

/// One log entry, as both versions' `eraftpb::Entry` carry it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    pub index: u64,
    pub term: u64,
    /// The crate's `EntryType` as its protobuf number (0: normal).
    pub kind: i32,
    pub data: Vec<u8>,
    pub context: Vec<u8>,
}

/// Term, vote (a raft id, 0 for none) and commit index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HardState {
    pub term: u64,
    pub vote: u64,
    pub commit: u64,
}

/// A snapshot of the state machine at `index` (whose entry had `term`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SnapshotImage {
    pub index: u64,
    pub term: u64,
    pub data: Vec<u8>,
}

/// One disk record. The disk holds a sequence of them; replaying it in
/// order rebuilds the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Rec {
    /// Entries appended at `entries[0].index`: whatever the log held from
    /// that index on is replaced.
    Entries(Vec<LogEntry>),
    HardState(HardState),
    /// The log now starts after this snapshot (what came before is gone).
    Snapshot(SnapshotImage),
}

/// Why `term` or `entries` cannot answer: the crate's two storage errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    Compacted,
    Unavailable,
}

/// The in-memory store each version's `Storage` implementation reads.
#[derive(Clone, Debug, Default)]
pub struct LogStore {
    pub hard_state: HardState,
    pub snapshot: SnapshotImage,
    /// `entries[i]` has index `snapshot.index + 1 + i`.
    entries: Vec<LogEntry>,
    /// Raft ids of the voters: fixed membership, 1..=n.
    pub voters: Vec<u64>,
}

impl LogStore {
    /// Rebuilds the store from what the disk durably holds.
    pub fn replay(records: &[Rec], nodes: usize) -> LogStore {
        let mut s = LogStore {
            voters: (1..=nodes as u64).collect(),
            ..LogStore::default()
        };
        for r in records {
            match r {
                Rec::Entries(es) => s.append(es),
                Rec::HardState(hs) => s.hard_state = *hs,
                Rec::Snapshot(snap) => s.apply_snapshot(snap.clone()),
            }
        }
        s
    }

    /// Everything the store holds, as records that replay to it: what an
    /// atomic rewrite of the disk (compaction, snapshot install) writes.
    pub fn image(&self) -> Vec<Rec> {
        let mut recs = vec![Rec::HardState(self.hard_state), Rec::Snapshot(self.snapshot.clone())];
        if !self.entries.is_empty() {
            recs.push(Rec::Entries(self.entries.clone()));
        }
        recs
    }

    pub fn has_entries(&self) -> bool {
        !self.entries.is_empty()
    }

    pub fn first_index(&self) -> u64 {
        self.snapshot.index + 1
    }

    pub fn last_index(&self) -> u64 {
        self.snapshot.index + self.entries.len() as u64
    }

    /// The term of entry `idx`, for `idx` in `[first_index() - 1, last_index()]`.
    pub fn term(&self, idx: u64) -> Result<u64, Missing> {
        if idx < self.snapshot.index {
            return Err(Missing::Compacted);
        }
        if idx == self.snapshot.index {
            return Ok(self.snapshot.term);
        }
        self.entry(idx).map(|e| e.term).ok_or(Missing::Unavailable)
    }

    fn entry(&self, idx: u64) -> Option<&LogEntry> {
        let i = idx.checked_sub(self.first_index())?;
        self.entries.get(i as usize)
    }

    /// Entries `[low, high)`. Panics if `high > last_index() + 1`, as the
    /// crate's contract allows.
    pub fn entries(&self, low: u64, high: u64) -> Result<&[LogEntry], Missing> {
        if low < self.first_index() {
            return Err(Missing::Compacted);
        }
        assert!(
            high <= self.last_index() + 1,
            "index out of bound (last: {}, high: {high})",
            self.last_index() + 1
        );
        let off = self.first_index();
        Ok(&self.entries[(low - off) as usize..(high.max(low) - off) as usize])
    }

    /// Appends `ents`, first removing whatever the log held from
    /// `ents[0].index` on. Entries the snapshot already covers are skipped.
    /// Panics on a gap after the last entry.
    pub fn append(&mut self, ents: &[LogEntry]) {
        let first = self.first_index();
        let ents: Vec<&LogEntry> = ents.iter().filter(|e| e.index >= first).collect();
        let Some(e0) = ents.first() else { return };
        assert!(
            e0.index <= self.last_index() + 1,
            "missing log entry [last: {}, append at: {}]",
            self.last_index(),
            e0.index
        );
        self.entries.truncate((e0.index - first) as usize);
        self.entries.extend(ents.into_iter().cloned());
    }

    /// Replaces the log with a snapshot: every entry goes, the snapshot's
    /// index becomes the commit floor.
    pub fn apply_snapshot(&mut self, snap: SnapshotImage) {
        self.entries.clear();
        self.hard_state.term = self.hard_state.term.max(snap.term);
        self.hard_state.commit = self.hard_state.commit.max(snap.index);
        self.snapshot = snap;
    }

    /// Takes a snapshot with `data` at `index` and drops the entries it covers.
    pub fn compact(&mut self, index: u64, data: Vec<u8>) {
        let term = self.term(index).expect("compacting to an entry the log holds");
        let drop = (index - self.snapshot.index) as usize;
        self.entries.drain(..drop);
        self.snapshot = SnapshotImage { index, term, data };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(index: u64, term: u64) -> LogEntry {
        LogEntry {
            index,
            term,
            kind: 0,
            data: vec![],
            context: vec![],
        }
    }

    #[test]
    fn a_later_append_truncates_and_replay_rebuilds_it() {
        let recs = vec![
            Rec::Entries(vec![e(1, 1), e(2, 1), e(3, 1)]),
            Rec::HardState(HardState {
                term: 2,
                vote: 1,
                commit: 1,
            }),
            Rec::Entries(vec![e(2, 2)]),
        ];
        let s = LogStore::replay(&recs, 3);
        assert_eq!(s.last_index(), 2);
        assert_eq!(s.term(2), Ok(2));
        assert_eq!(s.term(3), Err(Missing::Unavailable));
        assert_eq!(s.hard_state.vote, 1);
        assert_eq!(s.voters, vec![1, 2, 3]);
    }

    #[test]
    fn compaction_keeps_the_tail_and_its_image_replays_to_the_same_store() {
        let hs = HardState {
            term: 1,
            vote: 2,
            commit: 5,
        };
        let mut s = LogStore::replay(
            &[Rec::Entries((1..=5).map(|i| e(i, 1)).collect()), Rec::HardState(hs)],
            3,
        );
        s.compact(3, b"x".to_vec());
        assert_eq!((s.first_index(), s.last_index()), (4, 5));
        assert_eq!(s.term(3), Ok(1));
        assert_eq!(s.term(2), Err(Missing::Compacted));
        assert_eq!(s.entries(3, 5), Err(Missing::Compacted));
        assert_eq!(s.entries(4, 6).unwrap().len(), 2);
        let back = LogStore::replay(&s.image(), 3);
        assert_eq!(back.image(), s.image());
    }

    #[test]
    fn an_installed_snapshot_clears_the_log_and_raises_the_commit_floor() {
        let mut s = LogStore::replay(&[Rec::Entries(vec![e(1, 1), e(2, 1)])], 3);
        s.apply_snapshot(SnapshotImage {
            index: 9,
            term: 3,
            data: vec![],
        });
        assert!(!s.has_entries());
        assert_eq!((s.first_index(), s.last_index()), (10, 9));
        assert_eq!(s.hard_state.commit, 9);
        s.append(&[e(8, 3), e(10, 3)]);
        assert_eq!(s.last_index(), 10);
    }
}
