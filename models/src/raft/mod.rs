//! A Raft cluster: durable HardState, pre-vote, check-quorum, log compaction
//! and InstallSnapshot over a key-value state machine, with the bug switches
//! catalogued in docs/book/src/bugs.md ("Raft cluster"). Beside the protocol: a hybrid
//! logical clock stamped on every message ([`hlc`]), descriptor leases
//! granted through the log ([`lease`]) and SWIM-style membership ([`swim`]).
//!
//! The node is sans-IO: [`Raft`] implements [`Machine`], and every output
//! goes through [`Io`]. The calling rule it relies on: a message handed to
//! `Io::send` after an fsync request is sent by this model only once
//! `on_fsynced` reports that ticket, so nothing leaves before the state it
//! promises is durable.

mod apply;
mod config;
mod digest;
mod durability;
mod election;
pub mod hlc;
pub mod lease;
pub mod log;
pub mod msg;
mod read;
pub mod register;
mod replication;
mod snapshot;
pub mod state_machine;
pub mod storage;
pub mod swim;

pub use config::{RaftBugs, RaftConfig, ReadMode};
pub use log::Entry;
pub use msg::RaftMsg;
pub use storage::{RaftRec, Snapshot};

use apply::ApplyQueue;
use log::Log;
use sim::{ClientReply, ClientReq, DiskError, Io, Machine, ModelEvent, NodeId, Now, Role, SyncTicket, TimerId};
use state_machine::KvStore;
use std::collections::{BTreeMap, BTreeSet};

/// Fires when no leader was heard for a randomized election timeout.
pub const ELECTION: TimerId = 1;
/// Every `heartbeat_ms`: a leader's append (possibly empty) to each peer, a
/// candidate's repeated request to each peer that has not granted its vote.
pub const HEARTBEAT: TimerId = 2;
/// Armed while the apply queue is non-empty; drains it every `apply_batch_ms`.
pub const APPLY: TimerId = 3;
/// Leader only: every `election_timeout_ms_max / 2`, counts recent answers.
pub const CHECK_QUORUM: TimerId = 4;
/// Leader only, with `check-quorum-lease` reads: fires when the lease runs
/// out, and the leader steps down unless a newer round has moved it.
pub const LEASE_DEADLINE: TimerId = 5;

const NS_PER_MS: u64 = 1_000_000;

type RaftIo<'a> = Io<'a, Raft>;

/// What the leader knows about one follower.
#[derive(Clone, Debug)]
struct Progress {
    /// The next index to send; advanced optimistically when an append leaves.
    next: u64,
    /// The highest index known to be durably replicated on the follower.
    matched: u64,
    /// Monotonic time of the last answer in the current term (check-quorum).
    last_heard_ns: u64,
}

/// A message that may leave only once `ticket` is durable.
#[derive(Clone, Debug)]
struct Gated {
    ticket: SyncTicket,
    to: NodeId,
    msg: RaftMsg,
}

#[derive(Debug)]
pub struct Raft {
    id: NodeId,
    cfg: RaftConfig,

    // Mirrors of durable state (HardState, log, snapshot).
    term: u64,
    vote: Option<NodeId>,
    log: Log,
    /// Always the image at `log.snapshot_index()`.
    snapshot: Snapshot,

    role: Role,
    /// The (role, term) last reported in a Role event.
    reported: Option<(Role, u64)>,
    /// The log tail (index, term) last reported in a LogTail event.
    reported_tail: Option<(u64, u64)>,
    leader: Option<NodeId>,
    last_leader_contact_ns: Option<u64>,
    prevotes: BTreeSet<NodeId>,
    votes: BTreeSet<NodeId>,
    /// The fsync that makes this candidacy's self-vote durable.
    campaign_ticket: SyncTicket,
    progress: BTreeMap<NodeId, Progress>,
    /// Leader only: log index -> (client request id, term it was taken in).
    pending_clients: BTreeMap<u64, (u64, u64)>,

    commit: u64,
    sm: KvStore,
    applied: u64,
    queue: ApplyQueue,
    apply_armed: bool,

    // Durability bookkeeping.
    last_ticket: SyncTicket,
    synced_ticket: SyncTicket,
    gated: Vec<Gated>,
    /// (ticket, last log index that write leaves in memory).
    unsynced_log: Vec<(SyncTicket, u64)>,
    /// Every entry up to here is on disk as it is in memory.
    durable_index: u64,
    unsynced_hard_state: Vec<(SyncTicket, u64, Option<NodeId>)>,

    /// ReadIndex, lease and follower-read state.
    read: read::Reads,

    /// The hybrid logical clock, descriptor leases and membership.
    hlc: hlc::HlcState,
    leases: lease::Leases,
    swim: swim::Swim,
}

impl Raft {
    pub fn new(id: NodeId, cfg: RaftConfig) -> Raft {
        Raft {
            id,
            cfg,
            term: 0,
            vote: None,
            log: Log::default(),
            snapshot: Snapshot::empty(),
            role: Role::Follower,
            reported: None,
            reported_tail: None,
            leader: None,
            last_leader_contact_ns: None,
            prevotes: BTreeSet::new(),
            votes: BTreeSet::new(),
            campaign_ticket: 0,
            progress: BTreeMap::new(),
            pending_clients: BTreeMap::new(),
            commit: 0,
            sm: KvStore::default(),
            applied: 0,
            queue: ApplyQueue::default(),
            apply_armed: false,
            last_ticket: 0,
            synced_ticket: 0,
            gated: Vec::new(),
            unsynced_log: Vec::new(),
            durable_index: 0,
            unsynced_hard_state: Vec::new(),
            read: read::Reads::default(),
            hlc: hlc::HlcState::default(),
            leases: lease::Leases::default(),
            swim: swim::Swim::default(),
        }
    }

    fn quorum(&self) -> usize {
        self.cfg.nodes / 2 + 1
    }
    fn peers(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.cfg.nodes).filter(move |p| *p != self.id)
    }
    fn election_timeout_min_ns(&self) -> u64 {
        self.cfg.election_timeout_ms_min * NS_PER_MS
    }
    fn election_timeout_max_ns(&self) -> u64 {
        self.cfg.election_timeout_ms_max * NS_PER_MS
    }

    fn reset_election_timer(&mut self, io: &mut RaftIo) {
        let after_ns = io.random_range(self.election_timeout_min_ns(), self.election_timeout_max_ns());
        io.set_timer(ELECTION, after_ns);
    }

    /// What every input ends with: the log's tail reported if it moved, and
    /// the HLC stamp on what the step sent.
    fn after_step(&mut self, io: &mut RaftIo) {
        let tail = (self.log.last_index(), self.log.last_term());
        if self.reported_tail != Some(tail) {
            self.reported_tail = Some(tail);
            io.event(ModelEvent::LogTail {
                index: tail.0,
                term: tail.1,
            });
        }
        self.stamp_sent(io);
    }

    /// Reports the role whenever it or the term changes, so the trace shows
    /// every term a node was leader, candidate or follower in.
    fn set_role(&mut self, io: &mut RaftIo, role: Role, cause: &str, from: Option<NodeId>) {
        self.role = role;
        if self.reported == Some((role, self.term)) {
            return;
        }
        self.reported = Some((role, self.term));
        io.event(ModelEvent::Role {
            term: self.term,
            role,
            cause: cause.into(),
            from,
            ballot: None,
        });
    }

    /// Becomes a follower of `term` (clearing the vote if the term is new).
    fn become_follower(
        &mut self,
        io: &mut RaftIo,
        term: u64,
        leader: Option<NodeId>,
        cause: &str,
        from: Option<NodeId>,
    ) {
        let was_leader = self.role == Role::Leader;
        if term > self.term {
            self.term = term;
            self.vote = None;
            self.persist_hard_state(io);
        }
        self.leader = leader;
        self.prevotes.clear();
        self.votes.clear();
        if was_leader {
            io.cancel_timer(HEARTBEAT);
            io.cancel_timer(CHECK_QUORUM);
            io.cancel_timer(LEASE_DEADLINE);
            self.progress.clear();
            // Whether those entries commit later is unknown to this node now.
            for (_, (req_id, _)) in std::mem::take(&mut self.pending_clients) {
                io.reply(req_id, ClientReply::Unknown);
            }
            self.drop_reads(io);
        }
        self.set_role(io, Role::Follower, cause, from);
        self.reset_election_timer(io);
    }
}

impl Machine for Raft {
    type Msg = RaftMsg;
    type Rec = RaftRec;

    /// Everything the node holds: its state has no hidden part (no
    /// handle, no cache), so equal text is equal future.
    fn digest(&self) -> Option<u64> {
        Some(sim::hash::debug_digest(self))
    }

    fn digest_at(&self, now: &Now) -> Option<u64> {
        self.relative_digest(now)
    }

    /// Every node plays the same part: peers are every other node, and
    /// nothing compares node ids.
    fn interchangeable(nodes: usize) -> Vec<Vec<NodeId>> {
        vec![(0..nodes).collect()]
    }

    fn digest_renamed(&self, now: &Now, ids: &[NodeId]) -> Option<u64> {
        self.renamed_digest(now, &|x| ids.get(x).copied().unwrap_or(x))
    }

    fn record_digest_renamed(rec: &RaftRec, now: &Now, ids: &[NodeId]) -> Option<u64> {
        match rec {
            RaftRec::HardState { term, vote } => Some(sim::hash::state_digest(&RaftRec::HardState {
                term: *term,
                vote: vote.map(|x| ids.get(x).copied().unwrap_or(x)),
            })),
            _ => Self::record_digest_at(rec, now),
        }
    }

    /// Records hold no instant but a descriptor lease's expiry.
    fn record_digest_at(rec: &RaftRec, _now: &Now) -> Option<u64> {
        let leased = match rec {
            RaftRec::Entries(es) => es.iter().any(|e| e.lease.is_some()),
            _ => false,
        };
        (!leased).then(|| sim::hash::state_digest(rec))
    }

    fn boot(&mut self, io: &mut Io<Self>) {
        let r = match io.read_disk().map(storage::replay) {
            Ok(r) => r,
            // BUG(read-error-as-empty): an unreadable disk taken for an
            // empty one: the node comes back at term 0 with no vote and no
            // log, free to vote again and to forget what it acknowledged.
            Err(DiskError::Read) if self.cfg.bugs.read_error_as_empty => {
                io.reached("disk-read-error");
                storage::replay(&[])
            }
            Err(e) => {
                io.reached("disk-read-error");
                io.halt(&format!("cannot read the disk at boot: {e}"));
                return;
            }
        };
        self.term = r.term;
        self.vote = r.vote;
        self.log = r.log;
        self.snapshot = r.snapshot;
        self.commit = self.snapshot.index;
        self.applied = self.snapshot.index;
        self.queue = ApplyQueue::starting_at(self.snapshot.index);
        self.sm = KvStore::from_data(self.snapshot.data.clone());
        self.durable_index = self.log.last_index();
        self.read_boot(io, r.term > 0);
        io.event(ModelEvent::SmReset {
            applied: self.applied,
            digest: self.sm.digest(),
        });
        self.reported = None;
        self.reported_tail = None;
        self.set_role(io, Role::Follower, "boot", None);
        if r.had_entries {
            io.reached("restart-with-log");
        }
        self.reset_election_timer(io);
        self.lease_boot(io);
        self.swim_boot(io, r.incarnation);
        self.after_step(io);
    }

    fn on_message(&mut self, from: NodeId, msg: RaftMsg, io: &mut Io<Self>) {
        if from == self.id || from >= self.cfg.nodes {
            return;
        }
        self.step_message(from, msg, io);
        self.after_step(io);
    }

    fn on_timer(&mut self, timer: TimerId, io: &mut Io<Self>) {
        self.step_timer(timer, io);
        self.after_step(io);
    }

    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        self.step_client(req, io);
        self.after_step(io);
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        self.fsynced(io, ticket);
        self.swim_synced(ticket);
        self.after_step(io);
    }

    fn on_fsync_failed(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        self.fsync_failed(io, ticket);
        if self.cfg.bugs.fsync_error_ignored {
            self.swim_synced(ticket);
        }
        self.after_step(io);
    }
}

/// The inputs as the protocol sees them: the HLC stamp is merged and
/// removed on the way in and added on the way out by the [`Machine`] impl.
impl Raft {
    fn step_message(&mut self, from: NodeId, msg: RaftMsg, io: &mut RaftIo) {
        let msg = match msg {
            RaftMsg::Stamped { hlc, msg } => {
                self.merge_clock(io, from, hlc);
                *msg
            }
            msg => msg,
        };
        if matches!(msg, RaftMsg::Vote { .. }) && self.refuses_vote(io) {
            return;
        }
        if msg.carries_real_term() && msg.term() > self.term {
            let deposed = self.role == Role::Leader;
            let leader = match msg {
                RaftMsg::Append { .. } | RaftMsg::Snapshot { .. } => Some(from),
                _ => None,
            };
            self.become_follower(io, msg.term(), leader, "higher-term", Some(from));
            if deposed {
                io.reached("leader-deposed");
            }
        }
        match &msg {
            RaftMsg::Append { vouch: Some(v), .. } => self.note_vouch(*v, io.now_mono_ns()),
            RaftMsg::AppendResp {
                term, round, stamp_ns, ..
            } => self.note_round_answer(io, from, *term, *round, *stamp_ns),
            _ => {}
        }
        match msg {
            RaftMsg::PreVote {
                term,
                last_log_index,
                last_log_term,
            } => self.on_pre_vote(io, from, term, last_log_index, last_log_term),
            RaftMsg::PreVoteResp { term, granted } => self.on_pre_vote_resp(io, from, term, granted),
            RaftMsg::Vote {
                term,
                last_log_index,
                last_log_term,
            } => self.on_vote(io, from, term, last_log_index, last_log_term),
            RaftMsg::VoteResp { term, granted } => self.on_vote_resp(io, from, term, granted),
            RaftMsg::Append {
                term,
                prev_index,
                prev_term,
                entries,
                commit,
                round,
                ..
            } => self.on_append(io, from, term, prev_index, prev_term, entries, commit, round),
            RaftMsg::AppendResp {
                term, success, index, ..
            } => self.on_append_resp(io, from, term, success, index),
            RaftMsg::Snapshot {
                term,
                index,
                last_term,
                data,
                digest,
            } => self.on_snapshot(
                io,
                from,
                term,
                Snapshot {
                    index,
                    term: last_term,
                    data,
                    digest,
                },
            ),
            RaftMsg::SnapshotResp { term, index } => self.on_snapshot_resp(io, from, term, index),
            RaftMsg::LeaseRequest { grant } => self.on_lease_request(io, from, grant),
            RaftMsg::Swim { msg } => self.on_swim(io, from, msg),
            // Stamped once on the way out, unwrapped once on the way in.
            RaftMsg::Stamped { .. } => {}
        }
    }

    fn step_timer(&mut self, timer: TimerId, io: &mut RaftIo) {
        match timer {
            ELECTION => self.on_election_timeout(io),
            HEARTBEAT if self.role == Role::Leader => {
                self.broadcast_append(io);
                io.set_timer(HEARTBEAT, self.cfg.heartbeat_ms * NS_PER_MS);
            }
            HEARTBEAT if self.role == Role::Candidate => self.retry_votes(io),
            APPLY => {
                self.apply_armed = false;
                self.drain_apply(io);
            }
            CHECK_QUORUM => self.check_quorum(io),
            LEASE_DEADLINE => self.on_lease_deadline(io),
            lease::LEASE_TICK => self.on_lease_tick(io),
            swim::SWIM_PROBE => self.on_swim_probe(io),
            _ => {}
        }
    }

    fn step_client(&mut self, req: ClientReq, io: &mut RaftIo) {
        if let Some(req) = self.on_read(io, req) {
            self.propose(io, req);
        }
    }
}
