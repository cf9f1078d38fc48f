//! A node's disk: operations are volatile until an fsync that was issued
//! after them completes. A crash loses what is volatile, except that a torn
//! prefix of it may survive (the drive had written some of it).

use crate::machine::DiskOp;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Disk<R> {
    durable: Vec<R>,
    /// Issued, not yet durable, in issue order; `first_pending` numbers the front.
    pending: VecDeque<DiskOp<R>>,
    first_pending: u64,
}

impl<R: Clone> Default for Disk<R> {
    fn default() -> Self {
        Disk {
            durable: Vec::new(),
            pending: VecDeque::new(),
            first_pending: 0,
        }
    }
}

impl<R: Clone> Disk<R> {
    pub fn durable(&self) -> &[R] {
        &self.durable
    }

    pub fn pending_ops(&self) -> usize {
        self.pending.len()
    }

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
            DiskOp::Append(r) => self.durable.push(r),
            DiskOp::Replace(rs) => self.durable = rs,
        }
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
        lost
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
    fn replace_is_atomic_at_sync() {
        let mut d = Disk::<u32>::default();
        d.write(DiskOp::Append(1));
        d.write(DiskOp::Replace(vec![7]));
        let m = d.mark();
        d.sync_to(m);
        assert_eq!(d.durable(), &[7]);
    }
}
