//! Durability: what is written, when it is durable, and the rule that no
//! promise (vote grant, append ack, request for votes) leaves before the
//! state it rests on is.

use super::{Gated, Raft, RaftIo, RaftMsg, RaftRec};
use sim::{DiskError, ModelEvent, NodeId, Role, SyncTicket};

impl Raft {
    pub(super) fn persist_hard_state(&mut self, io: &mut RaftIo) {
        // BUG(hardstate-not-persisted): term and vote live only in memory.
        if self.cfg.bugs.hardstate_not_persisted {
            return;
        }
        self.write(
            io,
            RaftRec::HardState {
                term: self.term,
                vote: self.vote,
            },
        );
        let t = self.sync(io);
        self.unsynced_hard_state.push((t, self.term, self.vote));
    }

    /// Writes a record. A full disk stops the node: nothing it does after
    /// a lost write may rest on it, so it halts and the world restarts it
    /// from what the disk holds (what it did later in this step never
    /// leaves it).
    pub(super) fn write(&mut self, io: &mut RaftIo, rec: RaftRec) {
        if let Err(e) = io.disk_append(rec) {
            self.disk_failed(io, e);
        }
    }

    /// Replaces everything on disk (compaction, an installed snapshot), or
    /// halts as [`Raft::write`] does.
    pub(super) fn rewrite(&mut self, io: &mut RaftIo, recs: Vec<RaftRec>) {
        if let Err(e) = io.disk_replace(recs) {
            self.disk_failed(io, e);
        }
    }

    fn disk_failed(&mut self, io: &mut RaftIo, e: DiskError) {
        io.reached("disk-full");
        io.halt(&format!("cannot write: {e}"));
    }

    /// An fsync failed: its writes may be lost, so nothing may rest on them.
    pub(super) fn fsync_failed(&mut self, io: &mut RaftIo, ticket: SyncTicket) {
        io.reached("fsync-failed");
        // BUG(fsync-error-ignored): a failed fsync taken for a durable one,
        // as PostgreSQL did until 2018; what it promised may be gone.
        if self.cfg.bugs.fsync_error_ignored {
            self.fsynced(io, ticket);
            return;
        }
        io.halt("an fsync failed");
    }

    /// Requests durability of every write so far.
    pub(super) fn sync(&mut self, io: &mut RaftIo) -> SyncTicket {
        self.last_ticket = io.fsync();
        self.last_ticket
    }

    /// Records that the log writes issued so far leave `last_index` in memory.
    pub(super) fn sync_log(&mut self, io: &mut RaftIo) {
        let t = self.sync(io);
        self.unsynced_log.push((t, self.log.last_index()));
    }

    /// The log no longer holds what it held after `index` (a truncation):
    /// writes in flight can only vouch for entries up to it.
    pub(super) fn clamp_durable(&mut self, index: u64) {
        self.durable_index = self.durable_index.min(index);
        for (_, last) in self.unsynced_log.iter_mut() {
            *last = (*last).min(index);
        }
    }

    /// The whole durable image, for compaction and snapshot installation.
    pub(super) fn image_records(&self) -> Vec<RaftRec> {
        let mut recs = Vec::new();
        // BUG(hardstate-not-persisted): not even a full rewrite carries it.
        if !self.cfg.bugs.hardstate_not_persisted {
            recs.push(RaftRec::HardState {
                term: self.term,
                vote: self.vote,
            });
        }
        recs.extend(self.incarnation_record());
        recs.push(self.snapshot.to_rec());
        if !self.log.is_empty() {
            recs.push(RaftRec::Entries(self.log.all_entries().to_vec()));
        }
        recs
    }

    /// Sends `msg` once everything written so far is durable.
    pub(super) fn send_after_sync(&mut self, io: &mut RaftIo, to: NodeId, msg: RaftMsg) {
        if self.synced_ticket >= self.last_ticket {
            io.send(to, msg);
        } else {
            self.gated.push(Gated {
                ticket: self.last_ticket,
                to,
                msg,
            });
        }
    }

    /// A vote grant or append acknowledgement: a promise about durable state.
    pub(super) fn ack(&mut self, io: &mut RaftIo, to: NodeId, msg: RaftMsg) {
        // BUG(reply-before-durable): the promise leaves before the fsync.
        if self.cfg.bugs.reply_before_durable {
            io.send(to, msg);
            return;
        }
        self.send_after_sync(io, to, msg);
    }

    pub(super) fn fsynced(&mut self, io: &mut RaftIo, ticket: SyncTicket) {
        self.synced_ticket = self.synced_ticket.max(ticket);
        let synced = self.synced_ticket;
        for (_, term, vote) in drain_upto(&mut self.unsynced_hard_state, synced, |x| x.0) {
            io.event(ModelEvent::HardState { term, vote });
        }
        for (_, last) in drain_upto(&mut self.unsynced_log, synced, |x| x.0) {
            self.durable_index = self.durable_index.max(last);
        }
        for g in drain_upto(&mut self.gated, synced, |g| g.ticket) {
            // A request for votes is moot once the candidacy is over.
            if let RaftMsg::Vote { term, .. } = g.msg {
                if self.role != Role::Candidate || term != self.term {
                    continue;
                }
            }
            io.send(g.to, g.msg);
        }
        match self.role {
            Role::Leader => self.maybe_commit(io),
            // Only a one-node cluster wins on its own durable self-vote.
            Role::Candidate if synced >= self.campaign_ticket && self.votes.len() >= self.quorum() => {
                self.become_leader(io)
            }
            _ => {}
        }
    }
}

/// Removes and returns, in order, the items whose ticket is at most `upto`.
fn drain_upto<T>(v: &mut Vec<T>, upto: SyncTicket, ticket: impl Fn(&T) -> SyncTicket) -> Vec<T> {
    let (done, rest): (Vec<T>, Vec<T>) = std::mem::take(v).into_iter().partition(|x| ticket(x) <= upto);
    *v = rest;
    done
}
