//! The apply pipeline: commit advances are queued as index ranges and a
//! batch timer drains them into the state machine.

use super::{Entry, Raft, RaftIo, APPLY, NS_PER_MS};
use sim::{ClientReply, KvResult, ModelEvent, Role};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, Hash)]
pub(super) struct ApplyQueue {
    /// Inclusive index ranges, in commit order.
    ranges: VecDeque<(u64, u64)>,
    /// The highest index ever queued.
    last_queued: u64,
}

impl ApplyQueue {
    pub(super) fn starting_at(applied: u64) -> ApplyQueue {
        ApplyQueue {
            ranges: VecDeque::new(),
            last_queued: applied,
        }
    }
}

impl Raft {
    /// Queues what the latest commit advance made applicable.
    pub(super) fn queue_commit(&mut self, io: &mut RaftIo) {
        // BUG(apply-requeue): queue from what is applied, not from what is
        // queued, so a second advance before the batch runs repeats a range.
        let from = if self.cfg.bugs.apply_requeue {
            self.applied + 1
        } else {
            self.queue.last_queued + 1
        };
        if from <= self.commit {
            self.queue.ranges.push_back((from, self.commit));
        }
        self.queue.last_queued = self.queue.last_queued.max(self.commit);
        if !self.queue.ranges.is_empty() && !self.apply_armed {
            io.set_timer(APPLY, self.cfg.apply_batch_ms * NS_PER_MS);
            self.apply_armed = true;
        }
    }

    pub(super) fn drain_apply(&mut self, io: &mut RaftIo) {
        while let Some((from, to)) = self.queue.ranges.pop_front() {
            let mut i = from;
            while i <= to {
                if let Some(e) = self.log.entry(i).cloned() {
                    self.apply_entry(io, e);
                    i += 1;
                } else if i <= self.log.snapshot_index() {
                    // An installed snapshot moved the log start past what is
                    // applied: those entries exist only inside the snapshot.
                    self.apply_compacted_range(io);
                    i = i.max(self.log.snapshot_index() + 1);
                } else {
                    // Past the end of the log: only a commit index that a
                    // bug let outrun the log gets here. Requeue from what is
                    // applied once commit moves again rather than skip.
                    self.queue.ranges.clear();
                    self.queue.last_queued = self.applied;
                    break;
                }
            }
        }
        self.maybe_compact(io);
        self.serve_ready_reads(io);
    }

    fn apply_compacted_range(&mut self, io: &mut RaftIo) {
        if self.snapshot.index <= self.applied {
            return;
        }
        // BUG(skip-compacted-range): jump over the range without the data.
        if self.cfg.bugs.skip_compacted_range {
            self.applied = self.snapshot.index;
            return;
        }
        self.sm = super::KvStore::from_data(self.snapshot.data.clone());
        self.applied = self.snapshot.index;
        io.event(ModelEvent::SmReset {
            applied: self.applied,
            digest: self.sm.digest(),
        });
        io.reached("install-snapshot");
    }

    fn apply_entry(&mut self, io: &mut RaftIo, e: Entry) {
        let result = e.op.as_ref().map(|op| self.sm.apply(op));
        if let Some(g) = &e.lease {
            self.apply_grant(io, g);
        }
        self.applied = e.index;
        self.note_applied(io);
        io.event(ModelEvent::Apply {
            index: e.index,
            term: e.term,
            digest: self.sm.digest(),
        });
        let Some((req_id, term)) = self.pending_clients.remove(&e.index) else {
            return;
        };
        let ours = self.role == Role::Leader && self.term == term && e.term == term;
        let reply = if ours {
            ClientReply::Ok(result.unwrap_or(KvResult::Done))
        } else {
            ClientReply::Unknown
        };
        io.reply(req_id, reply);
    }
}
