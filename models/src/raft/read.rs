//! Read paths that do not go through the log: ReadIndex, the leader lease,
//! and follower reads with bounded staleness.
//!
//! All three rest on heartbeat rounds. Every broadcast of appends opens a
//! round; each append carries its round and each answer echoes it, so the
//! leader knows which of its sends a quorum has answered, not merely that
//! answers arrived. A round answered by a quorum proves that no leader of a
//! newer term existed when it was sent: the quorum was still in this term
//! when the round reached it, and any newer leader's voters overlap it.
//!
//! - ReadIndex: the read waits for a round opened after it arrived, then for
//!   the state machine to reach the floor (the commit index, but never below
//!   this term's no-op: before that commits, the commit index may lag what
//!   earlier leaders committed).
//! - Lease: no newer leader can be elected while a quorum refuses votes, and
//!   each member of a round's quorum refuses votes for the minimum election
//!   timeout after it received that round. So the lease runs from the
//!   round's send time for that long, shrunk for clock drift, and reads are
//!   served from local state while it holds.
//! - Lease-based (check-quorum-lease): the same lease, but held by stepping
//!   down when it runs out, so a read needs only leadership, as in etcd.
//!   The read path rests on check-quorum; without it, it is unguarded.
//! - Follower reads: the leader vouches to each follower "everything
//!   committed anywhere by the time your clock read `stamp` is at or below
//!   `commit`", using a stamp from an answer it had received before sending
//!   a round that a quorum confirmed. The follower is fresh within d while
//!   its clock is within d of that stamp and it has applied up to `commit`.

use super::msg::Vouch;
use super::{Raft, RaftIo, ReadMode, LEASE_DEADLINE, NS_PER_MS};
use sim::{ClientReply, ClientReq, KvOp, KvResult, ModelEvent, NodeId, Now, Role};
use std::collections::{BTreeMap, VecDeque};

/// Rounds kept while waiting for a quorum. A leader cut off from its quorum
/// opens rounds it can never confirm; dropping the oldest only delays reads.
const OPEN_ROUNDS_MAX: usize = 512;

/// How long, on the leader's clock, a lease anchored at a round's send time
/// may be used. A voter refuses votes for `election_timeout_min_ns` of its
/// own clock after it received the round; with every clock's rate within
/// `drift_ppm` of true time the lease must satisfy
/// `lease / (1 - drift) <= election_timeout_min / (1 + drift)`.
pub(super) fn lease_ns(election_timeout_min_ns: u64, drift_ppm: u64) -> u64 {
    let ppm = drift_ppm.min(999_999) as u128;
    (election_timeout_min_ns as u128 * (1_000_000 - ppm) / (1_000_000 + ppm)) as u64
}

/// Where a lease from a round sent at `sent_ns` and confirmed by an answer
/// at `answered_ns` runs from. A voter's refusal runs from when it received
/// the round, which may be as early as the send; nothing bounds it by the
/// answer.
pub(super) fn lease_anchor_ns(sent_ns: u64, answered_ns: u64, anchor_on_receive: bool) -> u64 {
    // BUG(lease-anchor-on-receive): the lease runs from when the answer
    // completing the quorum arrived, so however long the round took to be
    // answered (a slow disk, a slow link, a paused leader) is added to it.
    if anchor_on_receive {
        return answered_ns;
    }
    sent_ns
}

/// How much of a node's own clock may pass since a stamp for the stamp to
/// be at most `staleness_ns` of true time old, when that clock may run slow
/// by `drift_ppm`.
pub(super) fn staleness_window_ns(staleness_ns: u64, drift_ppm: u64) -> u64 {
    let ppm = drift_ppm.min(999_999) as u128;
    (staleness_ns as u128 * (1_000_000 - ppm) / 1_000_000) as u64
}

/// A heartbeat round the leader opened.
#[derive(Clone, Debug, Hash)]
struct Round {
    round: u64,
    /// The leader's monotonic clock when the round went out.
    sent_ns: u64,
    /// The commit index then, raised to cover every earlier term's commits.
    commit: u64,
    /// Each peer's newest answer stamp the leader held when it sent the round.
    stamps: BTreeMap<NodeId, u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ReadKind {
    Linearizable,
    Follower,
}

#[derive(Clone, Debug, Hash)]
struct PendingRead {
    req_id: u64,
    key: u32,
    kind: ReadKind,
    /// Serve once the state machine has applied this far.
    floor: u64,
    /// Serve once a quorum has answered this round (or a later one).
    round: u64,
}

/// Read-path state. The leader part is reset at every election won.
#[derive(Clone, Debug, Default, Hash)]
pub(super) struct Reads {
    /// Index of this term's first entry: its no-op, or under
    /// commit-old-term-by-count (no no-op) the first entry proposed in it.
    term_start: u64,
    /// The newest round opened in this term.
    round: u64,
    /// Rounds opened and not yet confirmed, oldest first.
    open: VecDeque<Round>,
    /// Peer -> the newest round it answered in this term.
    acked: BTreeMap<NodeId, u64>,
    /// Peer -> the newest stamp among its answers in this term.
    stamps: BTreeMap<NodeId, u64>,
    /// The newest round a quorum answered.
    confirmed: Option<Round>,
    /// Where the lease runs from, on the leader's clock.
    lease_anchor_ns: Option<u64>,
    pending: Vec<PendingRead>,

    /// The newest promise a leader made to this node (any role).
    vouch: Option<Vouch>,
    /// Monotonic clock at boot; stamps from before it are not this boot's.
    boot_ns: u64,
    /// A restarted node may have answered a round it no longer remembers.
    votes_refused_until_ns: u64,
    last_apply_ns: Option<u64>,
}

impl Reads {
    /// These read-path instants relative to `now`: ages capped at
    /// `horizon_ns` (see [`super::digest`]), deadlines as the time left.
    /// The reads relative to `now`, each node named `name(node)`.
    pub(super) fn relative(&self, now: &Now, horizon_ns: u64, name: &dyn Fn(NodeId) -> NodeId) -> Reads {
        let age = |t: u64| now.mono_age(t, horizon_ns);
        let n = |r: u64| super::digest::round_at(now, r);
        let round = |r: &Round| Round {
            round: n(r.round),
            sent_ns: age(r.sent_ns),
            commit: r.commit,
            stamps: r.stamps.iter().map(|(p, t)| (name(*p), age(*t))).collect(),
        };
        Reads {
            term_start: self.term_start,
            round: n(self.round),
            open: self.open.iter().map(round).collect(),
            acked: self.acked.iter().map(|(p, a)| (name(*p), n(*a))).collect(),
            stamps: self.stamps.iter().map(|(p, t)| (name(*p), age(*t))).collect(),
            confirmed: self.confirmed.as_ref().map(round),
            lease_anchor_ns: self.lease_anchor_ns.map(age),
            pending: self
                .pending
                .iter()
                .map(|p| PendingRead {
                    round: n(p.round),
                    ..p.clone()
                })
                .collect(),
            vouch: self.vouch.map(|v| Vouch {
                commit: v.commit,
                stamp_ns: age(v.stamp_ns),
            }),
            boot_ns: age(self.boot_ns),
            votes_refused_until_ns: now.mono_until(self.votes_refused_until_ns),
            last_apply_ns: self.last_apply_ns.map(age),
        }
    }
}

impl Raft {
    /// Boot or restart. `restarted`: the disk shows an earlier life, in which
    /// this node may have answered rounds a lease still rests on.
    pub(super) fn read_boot(&mut self, io: &mut RaftIo, restarted: bool) {
        let now = io.now_mono_ns();
        self.read = Reads {
            boot_ns: now,
            ..Reads::default()
        };
        if restarted && self.cfg.read_mode.leased() {
            self.read.votes_refused_until_ns = now + self.election_timeout_max_ns();
        }
    }

    /// A new term of leadership; `term_start` is the index of its first entry.
    pub(super) fn read_begin_term(&mut self, term_start: u64) {
        let r = &mut self.read;
        r.term_start = term_start;
        r.round = 0;
        r.open.clear();
        r.acked.clear();
        r.stamps.clear();
        r.confirmed = None;
        r.lease_anchor_ns = None;
        r.pending.clear();
    }

    /// Opens a round: called for every broadcast of appends.
    pub(super) fn open_round(&mut self, io: &mut RaftIo) {
        let commit = self.commit.max(self.read.term_start.saturating_sub(1));
        let r = &mut self.read;
        // A round is named by the leader's monotonic clock when it opens
        // (one past the last within one instant): rounds keep their order,
        // and a digest relative to the clock sees the same round numbers
        // at the same phase of every heartbeat (see `super::digest`).
        r.round = (r.round + 1).max(io.now_mono_ns());
        r.open.push_back(Round {
            round: r.round,
            sent_ns: io.now_mono_ns(),
            commit,
            stamps: r.stamps.clone(),
        });
        if r.open.len() > OPEN_ROUNDS_MAX {
            r.open.pop_front();
        }
        // A one-node cluster is its own quorum.
        self.confirm_rounds(io);
    }

    /// What an append to `to` carries: its round and the newest promise.
    pub(super) fn round_fields(&self, to: NodeId) -> (u64, Option<Vouch>) {
        let vouch = self.read.confirmed.as_ref().and_then(|c| {
            c.stamps.get(&to).map(|&stamp_ns| Vouch {
                commit: c.commit,
                stamp_ns,
            })
        });
        (self.read.round, vouch)
    }

    /// A leader's promise reached this node. It holds whatever the term: a
    /// quorum confirmed it, so it is true of every leader there was.
    ///
    /// A promise older than every span a read looks back (see
    /// [`super::digest::read_horizon_ns`]) serves no read: it is refused
    /// as one from before this boot is, so that neither need be told
    /// apart from a fresh boot once the boot is that old.
    pub(super) fn note_vouch(&mut self, v: Vouch, now_ns: u64) {
        let horizon = super::digest::read_horizon_ns(self);
        if v.stamp_ns < self.read.boot_ns || now_ns.saturating_sub(v.stamp_ns) > horizon {
            return;
        }
        let newer = self.read.vouch.is_none_or(|old| {
            (v.stamp_ns, std::cmp::Reverse(v.commit)) > (old.stamp_ns, std::cmp::Reverse(old.commit))
        });
        if newer {
            self.read.vouch = Some(v);
        }
    }

    /// An answer of this term from `from`, to round `round`.
    pub(super) fn note_round_answer(&mut self, io: &mut RaftIo, from: NodeId, term: u64, round: u64, stamp_ns: u64) {
        if self.role != Role::Leader || term != self.term || !self.progress.contains_key(&from) {
            return;
        }
        let acked = self.read.acked.entry(from).or_default();
        *acked = (*acked).max(round);
        let stamp = self.read.stamps.entry(from).or_default();
        *stamp = (*stamp).max(stamp_ns);
        self.confirm_rounds(io);
    }

    /// Moves `confirmed` to the newest open round a quorum has answered.
    fn confirm_rounds(&mut self, io: &mut RaftIo) {
        let quorum = self.quorum();
        let r = &mut self.read;
        let answered = |round: u64| 1 + r.acked.values().filter(|a| **a >= round).count();
        let Some(pos) = r.open.iter().rposition(|o| answered(o.round) >= quorum) else {
            return;
        };
        let round = r.open[pos].clone();
        r.open.drain(..=pos);
        let anchor = lease_anchor_ns(round.sent_ns, io.now_mono_ns(), self.cfg.bugs.lease_anchor_on_receive);
        r.lease_anchor_ns = Some(anchor);
        r.confirmed = Some(round);
        if self.cfg.read_mode == ReadMode::CheckQuorumLease {
            let deadline = anchor + self.lease_len_ns();
            io.set_timer(LEASE_DEADLINE, deadline.saturating_sub(io.now_mono_ns()));
        }
        self.serve_ready_reads(io);
    }

    fn lease_valid(&self, now_ns: u64) -> bool {
        if self.role != Role::Leader {
            return false;
        }
        let Some(anchor) = self.read.lease_anchor_ns else {
            return false;
        };
        now_ns < anchor + self.lease_len_ns()
    }

    pub(super) fn lease_len_ns(&self) -> u64 {
        // BUG(lease-no-drift-margin): the lease lasts the whole minimum
        // election timeout, as if every clock ran at the same rate.
        if self.cfg.bugs.lease_no_drift_margin {
            return self.election_timeout_min_ns();
        }
        lease_ns(self.election_timeout_min_ns(), self.cfg.clock_drift_ppm_max)
    }

    /// With `check-quorum-lease` reads, check-quorum proper: a leader whose
    /// lease ran out steps down, since its reads trust leadership alone.
    /// Also run before each read: a stalled node may handle reads that
    /// queued up behind the deadline before the deadline itself.
    pub(super) fn on_lease_deadline(&mut self, io: &mut RaftIo) {
        let anchored = self.read.lease_anchor_ns.is_some();
        if self.role == Role::Leader && anchored && !self.lease_valid(io.now_mono_ns()) {
            self.lost_quorum(io);
        }
    }

    /// Whether a request for votes must be ignored: a lease may rest on this
    /// node's answers. Ignored, not refused, so its term does not move
    /// either (a higher term would depose the leader on its next answer).
    pub(super) fn refuses_vote(&self, io: &mut RaftIo) -> bool {
        if !self.cfg.read_mode.leased() {
            return false;
        }
        // BUG(lease-no-vote-refusal): only pre-votes check for a live leader;
        // a node that granted a pre-vote and then heard the leader again, or
        // that restarted and forgot it, votes while the lease can hold.
        if self.cfg.bugs.lease_no_vote_refusal {
            return false;
        }
        let now = io.now_mono_ns();
        let heard = self
            .last_leader_contact_ns
            .is_some_and(|t| now.saturating_sub(t) < self.election_timeout_min_ns());
        let refused = heard || now < self.read.votes_refused_until_ns;
        if refused {
            io.reached("vote-refused-by-lease");
        }
        refused
    }

    pub(super) fn note_applied(&mut self, io: &RaftIo) {
        self.read.last_apply_ns = Some(io.now_mono_ns());
    }

    /// Takes a client read that does not go through the log; hands back any
    /// other request.
    pub(super) fn on_read(&mut self, io: &mut RaftIo, req: ClientReq) -> Option<ClientReq> {
        match req.op {
            KvOp::FollowerGet { key } => self.follower_get(io, req.req_id, key),
            KvOp::Get { key } if self.cfg.read_mode != ReadMode::Log => self.linearizable_get(io, req.req_id, key),
            _ => return Some(req),
        }
        None
    }

    /// Everything committed before the read arrived is at or below this.
    fn read_floor(&self) -> u64 {
        // BUG(read-index-no-term-floor): before this term's no-op commits,
        // the commit index may not yet cover what the last leader committed.
        if self.cfg.bugs.read_index_no_term_floor {
            return self.commit;
        }
        self.commit.max(self.read.term_start)
    }

    fn linearizable_get(&mut self, io: &mut RaftIo, req_id: u64, key: u32) {
        if self.cfg.read_mode == ReadMode::CheckQuorumLease {
            self.on_lease_deadline(io);
        }
        if self.role != Role::Leader {
            io.reply(req_id, ClientReply::NotLeader { hint: self.leader });
            return;
        }
        let floor = self.read_floor();
        // BUG(read-without-quorum): believing itself leader is taken as
        // proof, so a leader cut off in a minority answers from its state.
        if self.cfg.bugs.read_without_quorum && self.applied >= floor {
            io.reached("read-index-read");
            self.reply_value(io, req_id, key);
            return;
        }
        let leased = match self.cfg.read_mode {
            ReadMode::Lease => self.lease_valid(io.now_mono_ns()),
            // Leading is proof enough once a round of this term was
            // confirmed: the deadline timer deposes a leader without a lease.
            ReadMode::CheckQuorumLease => self.read.lease_anchor_ns.is_some(),
            _ => false,
        };
        if leased && self.applied >= floor {
            io.reached("lease-read");
            self.reply_value(io, req_id, key);
            return;
        }
        self.wait_for_round(io, req_id, key, ReadKind::Linearizable, floor);
    }

    /// Opens a round for the read and holds it until the round is answered
    /// by a quorum and the state machine reaches `floor`.
    fn wait_for_round(&mut self, io: &mut RaftIo, req_id: u64, key: u32, kind: ReadKind, floor: u64) {
        self.read.pending.push(PendingRead {
            req_id,
            key,
            kind,
            floor,
            round: self.read.round + 1,
        });
        self.broadcast_append(io);
    }

    fn follower_get(&mut self, io: &mut RaftIo, req_id: u64, key: u32) {
        if self.fresh(io.now_mono_ns()) {
            self.serve_follower_read(io, req_id, key);
        } else if self.role == Role::Leader {
            // The leader can always make itself fresh with one round.
            self.wait_for_round(io, req_id, key, ReadKind::Follower, 0);
        } else {
            io.reply(req_id, ClientReply::NotLeader { hint: self.leader });
        }
    }

    pub(super) fn staleness_ns(&self) -> u64 {
        self.cfg.follower_read_staleness_ms * NS_PER_MS
    }

    /// Whether this node's state holds everything committed anywhere by
    /// `follower_read_staleness_ms` of true time ago.
    fn fresh(&self, now_ns: u64) -> bool {
        let window = staleness_window_ns(self.staleness_ns(), self.cfg.clock_drift_ppm_max);
        // BUG(staleness-by-apply-time): recent applying is taken for being
        // caught up, though a lagging follower applies steadily too.
        if self.cfg.bugs.staleness_by_apply_time {
            return self
                .read
                .last_apply_ns
                .is_some_and(|t| now_ns.saturating_sub(t) <= self.staleness_ns());
        }
        // A leader vouches for itself with its own confirmed round.
        let own = match (&self.read.confirmed, self.role) {
            (Some(c), Role::Leader) => Some(Vouch {
                commit: c.commit,
                stamp_ns: c.sent_ns,
            }),
            _ => None,
        };
        [self.read.vouch, own]
            .into_iter()
            .flatten()
            .any(|v| now_ns.saturating_sub(v.stamp_ns) <= window && self.applied >= v.commit)
    }

    fn serve_follower_read(&mut self, io: &mut RaftIo, req_id: u64, key: u32) {
        io.event(ModelEvent::FollowerRead {
            key,
            served_index: self.applied,
            staleness_ms: self.cfg.follower_read_staleness_ms,
        });
        io.reached("follower-read");
        self.reply_value(io, req_id, key);
    }

    fn reply_value(&mut self, io: &mut RaftIo, req_id: u64, key: u32) {
        let value = self.sm.data().get(&key).cloned().unwrap_or_default();
        io.reply(req_id, ClientReply::Ok(KvResult::Value { value }));
    }

    /// Serves every held read whose round and floor are reached.
    pub(super) fn serve_ready_reads(&mut self, io: &mut RaftIo) {
        if self.read.pending.is_empty() || self.role != Role::Leader {
            return;
        }
        let confirmed = self.read.confirmed.as_ref().map_or(0, |c| c.round);
        let now = io.now_mono_ns();
        for p in std::mem::take(&mut self.read.pending) {
            // BUG(read-without-quorum): reads held for their floor go out
            // without a round either.
            let round_ok = self.cfg.bugs.read_without_quorum || confirmed >= p.round;
            let ready = match p.kind {
                ReadKind::Linearizable => round_ok && self.applied >= p.floor,
                ReadKind::Follower => self.fresh(now),
            };
            match (ready, p.kind) {
                (false, _) => self.read.pending.push(p),
                (true, ReadKind::Linearizable) => {
                    io.reached("read-index-read");
                    self.reply_value(io, p.req_id, p.key);
                }
                (true, ReadKind::Follower) => self.serve_follower_read(io, p.req_id, p.key),
            }
        }
    }

    /// Leadership is lost: held reads were never served, so the client may
    /// simply try elsewhere.
    pub(super) fn drop_reads(&mut self, io: &mut RaftIo) {
        for p in std::mem::take(&mut self.read.pending) {
            io.reply(p.req_id, ClientReply::NotLeader { hint: self.leader });
        }
        self.read.confirmed = None;
        self.read.lease_anchor_ns = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn without_drift_the_lease_is_the_minimum_election_timeout() {
        assert_eq!(lease_ns(150 * MS, 0), 150 * MS);
    }

    #[test]
    fn the_drift_margin_keeps_a_slow_leader_inside_a_fast_voters_refusal() {
        for ppm in [100, 1_000, 50_000, 200_000, 400_000] {
            let lease = lease_ns(150 * MS, ppm) as f64;
            let rho = ppm as f64 / 1e6;
            // True time the leader's lease lasts on a clock running slow by
            // rho, against the true time a voter whose clock runs fast by rho
            // refuses votes after receiving the same round.
            let leader_true = lease / (1.0 - rho);
            let voter_true = 150.0 * MS as f64 / (1.0 + rho);
            assert!(
                leader_true <= voter_true + 1.0,
                "{ppm} ppm: {leader_true} > {voter_true}"
            );
            assert!(
                leader_true > voter_true - 1_000.0,
                "{ppm} ppm: margin wider than needed"
            );
        }
    }

    #[test]
    fn the_staleness_window_shrinks_for_a_slow_clock() {
        assert_eq!(staleness_window_ns(250 * MS, 0), 250 * MS);
        let w = staleness_window_ns(250 * MS, 200_000);
        assert_eq!(w, 200 * MS);
        // On a clock 20% slow, 200 ms local is 250 ms true.
        assert_eq!((w as f64 / 0.8) as u64, 250 * MS);
    }

    #[test]
    fn the_lease_runs_from_the_send_not_from_the_answer() {
        // A round sent at 1000 ms and answered 120 ms later: the voters'
        // refusal began when they received it, between the two.
        let len = lease_ns(150 * MS, 0);
        let anchor = lease_anchor_ns(1_000 * MS, 1_120 * MS, false);
        assert_eq!(anchor + len, 1_150 * MS);
        let late = lease_anchor_ns(1_000 * MS, 1_120 * MS, true);
        assert_eq!(
            late + len,
            1_270 * MS,
            "the bug stretches the lease by the answer's delay"
        );
    }

    #[test]
    fn an_absurd_drift_bound_does_not_overflow() {
        assert!(lease_ns(u64::MAX, 2_000_000) < u64::MAX / 1_000_000);
        assert_eq!(staleness_window_ns(u64::MAX, 0), u64::MAX);
    }
}
