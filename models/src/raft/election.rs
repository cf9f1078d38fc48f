//! Pre-vote, voting, winning, and the leader's check-quorum.

use super::{Progress, Raft, RaftIo, RaftMsg, CHECK_QUORUM, ELECTION, HEARTBEAT, NS_PER_MS};
use sim::{NodeId, Role};

impl Raft {
    pub(super) fn on_election_timeout(&mut self, io: &mut RaftIo) {
        if self.role == Role::Leader {
            return;
        }
        self.reset_election_timer(io);
        // BUG(no-prevote): campaign with a real term straight away, so a node
        // cut off from the leader inflates its term and deposes it on heal.
        if self.cfg.bugs.no_prevote || !self.cfg.pre_vote {
            self.campaign(io, "timeout");
            return;
        }
        self.leader = None;
        self.votes.clear();
        self.prevotes.clear();
        self.prevotes.insert(self.id);
        self.set_role(io, Role::PreCandidate, "timeout", None);
        if self.prevotes.len() >= self.quorum() {
            self.campaign(io, "pre-vote-won");
            return;
        }
        let msg = RaftMsg::PreVote {
            term: self.term + 1,
            last_log_index: self.log.last_index(),
            last_log_term: self.log.last_term(),
        };
        for p in self.peers().collect::<Vec<_>>() {
            io.send(p, msg.clone());
        }
    }

    fn heard_leader_recently(&self, now_ns: u64) -> bool {
        self.last_leader_contact_ns
            .is_some_and(|t| now_ns.saturating_sub(t) < self.election_timeout_min_ns())
    }

    pub(super) fn on_pre_vote(&mut self, io: &mut RaftIo, from: NodeId, term: u64, last_index: u64, last_term: u64) {
        // A live leader (this node, or one it heard recently) must not be
        // disturbed by a node that merely lost touch with it.
        let leader_alive = self.role == Role::Leader || self.heard_leader_recently(io.now_mono_ns());
        if leader_alive {
            io.reached("prevote-rejected");
        }
        let granted = !leader_alive && term >= self.term && self.log.is_up_to_date(last_index, last_term);
        let term = if granted { term } else { self.term };
        io.send(from, RaftMsg::PreVoteResp { term, granted });
    }

    pub(super) fn on_pre_vote_resp(&mut self, io: &mut RaftIo, from: NodeId, term: u64, granted: bool) {
        if self.role != Role::PreCandidate || term != self.term + 1 || !granted {
            return;
        }
        self.prevotes.insert(from);
        if self.prevotes.len() >= self.quorum() {
            self.campaign(io, "pre-vote-won");
        }
    }

    /// Starts a real election: the self-vote is made durable before any
    /// request for votes leaves, so a restart cannot vote twice in the term.
    fn campaign(&mut self, io: &mut RaftIo, cause: &str) {
        self.term += 1;
        self.vote = Some(self.id);
        self.leader = None;
        self.prevotes.clear();
        self.votes.clear();
        self.votes.insert(self.id);
        self.set_role(io, Role::Candidate, cause, None);
        self.persist_hard_state(io);
        self.campaign_ticket = self.last_ticket;
        let msg = RaftMsg::Vote {
            term: self.term,
            last_log_index: self.log.last_index(),
            last_log_term: self.log.last_term(),
        };
        for p in self.peers().collect::<Vec<_>>() {
            self.send_after_sync(io, p, msg.clone());
        }
        // Requests for votes are retried for as long as the candidacy lasts
        // (Raft 5.1: RPCs are retried), so a lost request is not a lost term.
        io.set_timer(HEARTBEAT, self.cfg.heartbeat_ms * NS_PER_MS);
        if self.synced_ticket >= self.campaign_ticket && self.votes.len() >= self.quorum() {
            self.become_leader(io);
        }
    }

    /// The candidate's heartbeat: ask again whoever has not granted yet.
    pub(super) fn retry_votes(&mut self, io: &mut RaftIo) {
        // Before the self-vote is durable the first requests are still gated.
        if self.synced_ticket < self.campaign_ticket {
            io.set_timer(HEARTBEAT, self.cfg.heartbeat_ms * NS_PER_MS);
            return;
        }
        let msg = RaftMsg::Vote {
            term: self.term,
            last_log_index: self.log.last_index(),
            last_log_term: self.log.last_term(),
        };
        let silent: Vec<_> = self.peers().filter(|p| !self.votes.contains(p)).collect();
        for p in silent {
            io.send(p, msg.clone());
        }
        io.set_timer(HEARTBEAT, self.cfg.heartbeat_ms * NS_PER_MS);
    }

    pub(super) fn on_vote(&mut self, io: &mut RaftIo, from: NodeId, term: u64, last_index: u64, last_term: u64) {
        let free = self.vote.is_none() || self.vote == Some(from);
        let granted = term == self.term && free && self.log.is_up_to_date(last_index, last_term);
        if !granted {
            io.send(
                from,
                RaftMsg::VoteResp {
                    term: self.term,
                    granted: false,
                },
            );
            return;
        }
        if self.vote != Some(from) {
            self.vote = Some(from);
            self.persist_hard_state(io);
        }
        self.reset_election_timer(io);
        self.ack(io, from, RaftMsg::VoteResp { term, granted: true });
    }

    pub(super) fn on_vote_resp(&mut self, io: &mut RaftIo, from: NodeId, term: u64, granted: bool) {
        if self.role != Role::Candidate || term != self.term || !granted {
            return;
        }
        self.votes.insert(from);
        if self.votes.len() >= self.quorum() {
            self.become_leader(io);
        }
    }

    pub(super) fn become_leader(&mut self, io: &mut RaftIo) {
        self.leader = Some(self.id);
        self.votes.clear();
        self.set_role(io, Role::Leader, "won", None);
        io.cancel_timer(ELECTION);
        let now = io.now_mono_ns();
        // The first append carries the no-op, so start right after our log.
        let next = self.log.last_index() + 1;
        // Reads wait for the entry at `next` to apply: the no-op, or with
        // commit-old-term-by-count the first entry proposed in this term.
        self.read_begin_term(next);
        self.progress = self
            .peers()
            .map(|p| {
                (
                    p,
                    Progress {
                        next,
                        matched: 0,
                        last_heard_ns: now,
                    },
                )
            })
            .collect();
        // Entries of earlier terms commit only under an entry of this term
        // (5.4.2); the no-op provides one without waiting for a client.
        // BUG(commit-old-term-by-count): no no-op either (canonical/raft
        // added its own in the same fix): until something is proposed,
        // nothing of this term is in the log to mask the count.
        if !self.cfg.bugs.commit_old_term_by_count {
            self.append_local(io, super::Entry::noop(next, self.term));
        }
        self.broadcast_append(io);
        io.set_timer(HEARTBEAT, self.cfg.heartbeat_ms * NS_PER_MS);
        io.set_timer(CHECK_QUORUM, self.check_quorum_interval_ns());
        // A one-node cluster commits on its own durability.
        self.maybe_commit(io);
    }

    fn check_quorum_interval_ns(&self) -> u64 {
        (self.election_timeout_max_ns() / 2).max(1)
    }

    pub(super) fn check_quorum(&mut self, io: &mut RaftIo) {
        if self.role != Role::Leader {
            return;
        }
        io.set_timer(CHECK_QUORUM, self.check_quorum_interval_ns());
        let now = io.now_mono_ns();
        let window = self.election_timeout_max_ns();
        let answered = self
            .progress
            .values()
            .filter(|p| now.saturating_sub(p.last_heard_ns) <= window)
            .count();
        if answered + 1 >= self.quorum() {
            return;
        }
        self.lost_quorum(io);
    }

    /// Check-quorum found too few answers, or (lease-based reads) the lease
    /// ran out: step down.
    pub(super) fn lost_quorum(&mut self, io: &mut RaftIo) {
        // BUG(no-check-quorum): a leader cut off in a minority stays leader,
        // and with lease-based reads goes on answering from its state after
        // a newer leader has taken writes.
        if self.cfg.bugs.no_check_quorum {
            return;
        }
        io.reached("check-quorum-stepdown");
        let term = self.term;
        self.become_follower(io, term, None, "check-quorum", None);
    }
}
