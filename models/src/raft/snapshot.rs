//! Compaction on every node, InstallSnapshot on a lagging follower.

use super::{Raft, RaftIo, RaftMsg, Snapshot};
use sim::{ModelEvent, NodeId};

impl Raft {
    /// Folds the applied prefix into a snapshot once it is long enough.
    pub(super) fn maybe_compact(&mut self, io: &mut RaftIo) {
        if self.applied < self.snapshot.index + self.cfg.compact_every_entries {
            return;
        }
        let Some(term) = self.log.term_at(self.applied) else {
            return;
        };
        self.snapshot = Snapshot::new(self.applied, term, self.sm.data().clone());
        self.log.compact(self.applied, term);
        self.rewrite(io, self.image_records());
        self.sync_log(io);
        io.event(ModelEvent::Compact { index: self.applied });
        io.reached("compaction");
    }

    pub(super) fn on_snapshot(&mut self, io: &mut RaftIo, from: NodeId, term: u64, snap: Snapshot) {
        if term < self.term {
            io.send(
                from,
                RaftMsg::SnapshotResp {
                    term: self.term,
                    index: 0,
                },
            );
            return;
        }
        if self.role == sim::Role::Leader {
            return;
        }
        self.follow(io, from);
        let index = snap.index;
        // Committed here already: the log has it, nothing to install.
        if index <= self.commit {
            self.ack(io, from, RaftMsg::SnapshotResp { term, index });
            return;
        }
        if self.log.term_at(index) == Some(snap.term) {
            self.log.compact(index, snap.term);
        } else {
            self.log.reset(index, snap.term);
            // Only committed entries are sure to be on disk as in memory now.
            self.clamp_durable(self.commit);
        }
        self.snapshot = snap;
        self.rewrite(io, self.image_records());
        self.sync_log(io);
        self.commit = index;
        io.event(ModelEvent::Commit { index });
        // BUG(snapshot-without-data): the indices move to the snapshot while
        // the state machine keeps its old data.
        if self.cfg.bugs.snapshot_without_data {
            self.applied = index;
            self.queue = super::ApplyQueue::starting_at(index);
            io.event(ModelEvent::SmReset {
                applied: index,
                digest: self.sm.digest(),
            });
        } else {
            // The pipeline finds the range up to `index` compacted away and
            // installs the snapshot's data in order with earlier commits.
            self.queue_commit(io);
        }
        self.ack(io, from, RaftMsg::SnapshotResp { term, index });
    }
}
