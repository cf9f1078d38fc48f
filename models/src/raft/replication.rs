//! Log replication: proposals, appends and their answers, commit.

use super::{Entry, Raft, RaftIo, RaftMsg, RaftRec};
use sim::{ClientReply, ClientReq, ModelEvent, NodeId, Role};

impl Raft {
    pub(super) fn propose(&mut self, io: &mut RaftIo, req: ClientReq) {
        if self.role != Role::Leader {
            io.reply(req.req_id, ClientReply::NotLeader { hint: self.leader });
            return;
        }
        // Reads go through the log too, so a read is linearized by its index.
        let index = self.log.last_index() + 1;
        let entry = Entry {
            index,
            term: self.term,
            op: Some(req.op),
            req_id: Some(req.req_id),
            lease: None,
        };
        self.append_local(io, entry);
        self.pending_clients.insert(index, (req.req_id, self.term));
        self.broadcast_append(io);
    }

    /// The leader's own append: it counts toward the quorum once durable.
    pub(super) fn append_local(&mut self, io: &mut RaftIo, entry: Entry) {
        if self.log.push(entry.clone()) {
            self.write(io, RaftRec::Entries(vec![entry]));
            self.sync_log(io);
        }
    }

    pub(super) fn broadcast_append(&mut self, io: &mut RaftIo) {
        self.open_round(io);
        for p in self.peers().collect::<Vec<_>>() {
            self.send_append(io, p);
        }
    }

    fn send_append(&mut self, io: &mut RaftIo, to: NodeId) {
        let last = self.log.last_index();
        let Some(p) = self.progress.get_mut(&to) else {
            return;
        };
        let next = p.next.clamp(1, last + 1);
        // The entry before `next` was compacted: only the snapshot can
        // bring this follower up to the log's start.
        let Some(prev_term) = self.log.term_at(next - 1) else {
            let s = &self.snapshot;
            let msg = RaftMsg::Snapshot {
                term: self.term,
                index: s.index,
                last_term: s.term,
                data: s.data.clone(),
                digest: s.digest,
            };
            io.send(to, msg);
            return;
        };
        let entries = self.log.entries_from(next, self.cfg.max_entries_per_append);
        let (round, vouch) = self.round_fields(to);
        let Some(p) = self.progress.get_mut(&to) else {
            return;
        };
        // Optimistic: the next append continues where this one ends; a
        // rejection moves `next` back.
        p.next = next + entries.len() as u64;
        let msg = RaftMsg::Append {
            term: self.term,
            prev_index: next - 1,
            prev_term,
            entries,
            commit: self.commit,
            round,
            vouch,
        };
        io.send(to, msg);
    }

    /// Accepts a message from the leader of the current term: the sender is
    /// our leader from now on, which also holds off our election.
    pub(super) fn follow(&mut self, io: &mut RaftIo, from: NodeId) {
        if self.role != Role::Follower {
            let term = self.term;
            self.become_follower(io, term, Some(from), "leader-seen", Some(from));
        }
        self.leader = Some(from);
        self.last_leader_contact_ns = Some(io.now_mono_ns());
        self.reset_election_timer(io);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_append(
        &mut self,
        io: &mut RaftIo,
        from: NodeId,
        term: u64,
        prev_index: u64,
        prev_term: u64,
        entries: Vec<Entry>,
        leader_commit: u64,
        round: u64,
    ) {
        if term < self.term {
            let resp = self.append_resp(io, false, 0, round);
            io.send(from, resp);
            return;
        }
        // Two leaders in one term only arise from a bug elsewhere; feeding
        // one from the other would only hide it.
        if self.role == Role::Leader {
            return;
        }
        self.follow(io, from);

        // Everything up to the snapshot point is committed, hence identical
        // to the leader's: skip it and check the match at the snapshot.
        let snap = self.log.snapshot_index();
        let end = prev_index + entries.len() as u64;
        let (prev_index, prev_term, entries) = if prev_index < snap {
            let rest: Vec<Entry> = entries.into_iter().filter(|e| e.index > snap).collect();
            (snap, self.log.snapshot_term(), rest)
        } else {
            (prev_index, prev_term, entries)
        };
        match self.log.term_at(prev_index) {
            Some(t) if t == prev_term => {}
            found => {
                let hint = match found {
                    None => self.log.last_index(),
                    Some(t) => self.conflict_hint(prev_index, t),
                };
                let resp = self.append_resp(io, false, hint, round);
                io.send(from, resp);
                return;
            }
        }

        let mut new: Vec<Entry> = Vec::new();
        for e in entries {
            if new.is_empty() {
                match self.log.term_at(e.index) {
                    Some(t) if t == e.term => continue,
                    Some(_) => {
                        // A committed entry never conflicts with the leader of
                        // a later term; if it does, a bug broke safety already
                        // and rewriting applied history would only mask it.
                        if e.index <= self.commit {
                            return;
                        }
                        self.log.truncate(e.index);
                        self.clamp_durable(e.index - 1);
                        self.write(io, RaftRec::TruncateFrom(e.index));
                    }
                    None => {}
                }
            }
            if !self.log.push(e.clone()) {
                break;
            }
            new.push(e);
        }
        if !new.is_empty() {
            self.write(io, RaftRec::Entries(new));
            self.sync_log(io);
        }

        let matched = end.max(prev_index).min(self.log.last_index());
        let commit = leader_commit.min(matched);
        if commit > self.commit {
            self.advance_commit(io, commit);
        }
        let resp = self.append_resp(io, true, matched, round);
        self.ack(io, from, resp);
    }

    /// An answer to an append of `round`, stamped with this node's clock.
    fn append_resp(&self, io: &RaftIo, success: bool, index: u64, round: u64) -> RaftMsg {
        RaftMsg::AppendResp {
            term: self.term,
            success,
            index,
            round,
            stamp_ns: io.now_mono_ns(),
        }
    }

    /// Where a follower whose entry at `index` has the wrong term `t` can
    /// still match: before its first entry of term `t`, never before commit.
    fn conflict_hint(&self, index: u64, t: u64) -> u64 {
        let floor = self.commit.max(self.log.snapshot_index());
        let mut i = index;
        while i > floor + 1 && self.log.term_at(i - 1) == Some(t) {
            i -= 1;
        }
        i.saturating_sub(1).max(floor)
    }

    pub(super) fn on_append_resp(&mut self, io: &mut RaftIo, from: NodeId, term: u64, success: bool, index: u64) {
        if !self.heard(io, from, term) {
            return;
        }
        if success {
            self.matched(io, from, index);
        } else if let Some(p) = self.progress.get_mut(&from) {
            // A late rejection must not undo progress made since it left.
            let next = (index + 1).max(p.matched + 1);
            if next < p.next {
                p.next = next;
                self.send_append(io, from);
            }
        }
    }

    pub(super) fn on_snapshot_resp(&mut self, io: &mut RaftIo, from: NodeId, term: u64, index: u64) {
        if self.heard(io, from, term) {
            self.matched(io, from, index);
        }
    }

    /// Notes an answer of this term from a follower (check-quorum counts
    /// it); false for a stale answer, which must change nothing.
    fn heard(&mut self, io: &mut RaftIo, from: NodeId, term: u64) -> bool {
        if self.role != Role::Leader || term != self.term {
            return false;
        }
        let now = io.now_mono_ns();
        self.progress.get_mut(&from).map(|p| p.last_heard_ns = now).is_some()
    }

    /// The follower durably holds the log up to `index`: commit what a
    /// quorum holds and keep the follower fed.
    fn matched(&mut self, io: &mut RaftIo, from: NodeId, index: u64) {
        let last = self.log.last_index();
        let Some(p) = self.progress.get_mut(&from) else {
            return;
        };
        p.matched = p.matched.max(index.min(last));
        p.next = p.next.max(p.matched + 1);
        let more = p.next <= last;
        self.maybe_commit(io);
        if more {
            self.send_append(io, from);
        }
    }

    /// Commits the highest index a quorum holds durably, if it is of this
    /// term (5.4.2). The leader counts itself only up to its own fsync.
    pub(super) fn maybe_commit(&mut self, io: &mut RaftIo) {
        if self.role != Role::Leader {
            return;
        }
        let mut held: Vec<u64> = self.progress.values().map(|p| p.matched).collect();
        held.push(self.durable_index.min(self.log.last_index()));
        held.sort_unstable_by(|a, b| b.cmp(a));
        let Some(&n) = held.get(self.quorum() - 1) else {
            return;
        };
        // BUG(commit-old-term-by-count): an entry of an earlier term counts
        // as committed once a quorum holds it, as in LogCabin before
        // logcabin/logcabin#44 and canonical/raft before #336 (Raft 5.4.2,
        // Figure 8). A node whose last entry is of a term between that
        // entry's and ours can still win a vote of that quorum and
        // overwrite the entry after it was applied.
        let countable = self.log.term_at(n) == Some(self.term) || self.cfg.bugs.commit_old_term_by_count;
        if n > self.commit && countable {
            self.advance_commit(io, n);
        }
    }

    pub(super) fn advance_commit(&mut self, io: &mut RaftIo, index: u64) {
        self.commit = index;
        io.event(ModelEvent::Commit { index });
        self.queue_commit(io);
    }
}
