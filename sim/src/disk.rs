//! A node's disk: operations are volatile until an fsync that was issued
//! after them completes. A crash loses what is volatile, except that a torn
//! prefix of it may survive (the drive had written some of it). A failed
//! fsync leaves a prefix of the operations it covered durable and the rest
//! gone for good: a hole, past which a recovery that checks its records
//! reads nothing, so later appends are lost too until the node restarts
//! (its recovery cuts the log at the hole) or the disk is rewritten. A
//! stored record may rot until the disk is rewritten.

use crate::machine::DiskOp;
use std::collections::VecDeque;

/// One node's disk of records `R`: a durable list and the operations still volatile.
#[derive(Clone, Debug)]
pub struct Disk<R> {
    durable: Vec<R>,
    /// Issued, not yet durable, in issue order; `first_pending` numbers the front.
    pending: VecDeque<DiskOp<R>>,
    first_pending: u64,
    /// Durable records that fail their checksum, by index.
    corrupt: std::collections::BTreeSet<usize>,
    /// A failed fsync dropped writes: appends land past a hole.
    hole: bool,
}

impl<R: Clone> Default for Disk<R> {
    fn default() -> Self {
        Disk {
            durable: Vec::new(),
            pending: VecDeque::new(),
            first_pending: 0,
            corrupt: Default::default(),
            hole: false,
        }
    }
}

impl<R: Clone> Disk<R> {
    /// The records that survive a crash, in order (rotten ones included; see
    /// [`Disk::first_corrupt`]).
    pub fn durable(&self) -> &[R] {
        &self.durable
    }

    /// Operations issued and not yet durable.
    pub fn pending_ops(&self) -> usize {
        self.pending.len()
    }

    /// Whether a failed fsync dropped writes that the disk has not had
    /// rewritten since: what is appended now is lost too.
    pub fn has_hole(&self) -> bool {
        self.hole
    }

    /// Issue `op`: volatile until an fsync issued after it completes.
    pub fn write(&mut self, op: DiskOp<R>) {
        self.pending.push_back(op);
    }

    /// The mark an fsync issued now must reach.
    pub fn mark(&self) -> u64 {
        self.first_pending + self.pending.len() as u64
    }

    /// An fsync with this mark completed: everything before it is durable.
    pub fn sync_to(&mut self, mark: u64) {
        while self.first_pending < mark {
            let Some(op) = self.pending.pop_front() else { break };
            self.first_pending += 1;
            self.apply(op);
        }
    }

    fn apply(&mut self, op: DiskOp<R>) {
        match op {
            DiskOp::Append(_) if self.hole => {}
            DiskOp::Append(r) => self.durable.push(r),
            DiskOp::Replace(rs) => {
                self.durable = rs;
                self.corrupt.clear();
                self.hole = false;
            }
        }
    }

    /// Operations an fsync issued now would cover.
    pub fn covered(&self, mark: u64) -> u64 {
        mark.saturating_sub(self.first_pending).min(self.pending.len() as u64)
    }

    /// An fsync with this mark failed: the first `keep` operations it
    /// covered are durable, the rest are gone and none is retried; if any
    /// were, what is appended later lands past the hole. Returns how many
    /// were dropped.
    pub fn fail_to(&mut self, mark: u64, keep: u64) -> u64 {
        let mut dropped = 0;
        let mut n = 0;
        while self.first_pending < mark {
            let Some(op) = self.pending.pop_front() else { break };
            self.first_pending += 1;
            if n < keep {
                self.apply(op);
            } else {
                dropped += 1;
            }
            n += 1;
        }
        self.hole |= dropped > 0;
        dropped
    }

    /// The durable record at `per_million` of the way through the disk
    /// rots; returns its index, or none on an empty disk.
    pub fn rot(&mut self, per_million: u32) -> Option<usize> {
        let n = self.durable.len();
        if n == 0 {
            return None;
        }
        let i = ((n as u64 * per_million.min(999_999) as u64) / 1_000_000) as usize;
        self.corrupt.insert(i);
        Some(i)
    }

    /// The first durable record that fails its checksum.
    pub fn first_corrupt(&self) -> Option<usize> {
        self.corrupt.first().copied()
    }

    /// Power loss: the first `keep` pending operations reach the platter, the
    /// rest are gone. Returns how many were lost.
    pub fn crash(&mut self, keep: usize) -> u64 {
        let keep = keep.min(self.pending.len());
        let lost = (self.pending.len() - keep) as u64;
        let mark = self.first_pending + keep as u64;
        self.sync_to(mark);
        self.first_pending += self.pending.len() as u64;
        self.pending.clear();
        // Recovery cuts the log at a hole: appends continue from there.
        self.hole = false;
        lost
    }

    /// A digest of what the disk holds, each record by `rec` (under
    /// exploration, a record's digest relative to the node's clocks);
    /// `None` as soon as one record gives none.
    pub(crate) fn digest_with(&self, rec: impl Fn(&R) -> Option<u64>) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let mut h = crate::hash::StableHasher::default();
        for r in &self.durable {
            rec(r)?.hash(&mut h);
        }
        for op in &self.pending {
            match op {
                DiskOp::Append(r) => (0u8, rec(r)?).hash(&mut h),
                DiskOp::Replace(rs) => {
                    1u8.hash(&mut h);
                    for r in rs {
                        rec(r)?.hash(&mut h);
                    }
                    rs.len().hash(&mut h);
                }
            }
        }
        (
            self.durable.len(),
            self.pending.len(),
            self.first_pending,
            &self.corrupt,
            self.hole,
        )
            .hash(&mut h);
        Some(h.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_loses_unsynced_writes() {
        let mut d = Disk::<u32>::default();
        d.write(DiskOp::Append(1));
        let m = d.mark();
        d.write(DiskOp::Append(2));
        d.sync_to(m);
        assert_eq!(d.crash(0), 1);
        assert_eq!(d.durable(), &[1]);
    }

    #[test]
    fn torn_prefix_survives_in_order() {
        let mut d = Disk::<u32>::default();
        for i in 0..4 {
            d.write(DiskOp::Append(i));
        }
        assert_eq!(d.crash(2), 2);
        assert_eq!(d.durable(), &[0, 1]);
        d.write(DiskOp::Append(9));
        let m = d.mark();
        d.sync_to(m);
        assert_eq!(d.durable(), &[0, 1, 9]);
    }

    #[test]
    fn a_failed_fsync_keeps_some_writes_and_retries_none() {
        let mut d = Disk::<u32>::default();
        for i in 0..4 {
            d.write(DiskOp::Append(i));
        }
        let m = d.mark();
        assert_eq!(d.covered(m), 4);
        assert_eq!(d.fail_to(m, 1), 3);
        assert_eq!(d.durable(), &[0]);
        assert_eq!(d.pending_ops(), 0);
        // Past the hole until a restart cuts the log there.
        d.write(DiskOp::Append(7));
        d.sync_to(d.mark());
        assert_eq!(d.durable(), &[0]);
        assert_eq!(d.crash(0), 0);
        d.write(DiskOp::Append(8));
        d.sync_to(d.mark());
        assert_eq!(d.durable(), &[0, 8]);
    }

    #[test]
    fn rot_lasts_until_the_disk_is_rewritten() {
        let mut d = Disk::<u32>::default();
        assert_eq!(d.rot(500_000), None);
        for i in 0..4 {
            d.write(DiskOp::Append(i));
        }
        let m = d.mark();
        d.sync_to(m);
        assert_eq!(d.rot(500_000), Some(2));
        d.write(DiskOp::Append(9));
        d.sync_to(d.mark());
        assert_eq!(d.first_corrupt(), Some(2));
        d.write(DiskOp::Replace(vec![7]));
        d.sync_to(d.mark());
        assert_eq!(d.first_corrupt(), None);
    }

    #[test]
    fn replace_is_atomic_at_sync() {
        let mut d = Disk::<u32>::default();
        d.write(DiskOp::Append(1));
        d.write(DiskOp::Replace(vec![7]));
        let m = d.mark();
        d.sync_to(m);
        assert_eq!(d.durable(), &[7]);
    }
}
