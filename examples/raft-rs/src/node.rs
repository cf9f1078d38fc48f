//! One dst node over either raft-rs version: everything the two versions
//! share. A [`Version`] supplies the crate's types, the calls whose
//! signatures differ, and its own Ready loop; [`Node`] owns the key-value
//! state machine, the client requests in flight, the disk records, the
//! events the checkers read and the input queue of a blocked event loop.

use crate::config::RaftRsConfig;
use crate::durability::LogEvent;
use crate::kv::{Kv, Proposal};
use crate::store::{HardState, LogEntry, LogStore, Rec, SnapshotImage};
use serde::{Serialize, Serializer};
use sim::{
    ClientReply, ClientReq, Io, KvOp, KvResult, Machine, ModelEvent, MsgInfo, NodeId, Role, SyncTicket, TimerId,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Debug;

/// The periodic timer that calls `tick()`.
pub const TICK: TimerId = 1;

const NS_PER_MS: u64 = 1_000_000;

pub type NodeIo<'a, V> = Io<'a, Node<V>>;

/// What the adapter reads from the crate after every call into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    pub term: u64,
    pub role: Role,
    /// The leader's raft id, 0 if none is known.
    pub leader: u64,
    /// The crate's current randomized election timeout, in ticks.
    pub timeout: usize,
}

/// A message of either crate, as the trace sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MsgSummary {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub from: u64,
    pub to: u64,
    pub term: u64,
    pub log_term: u64,
    pub index: u64,
    pub commit: u64,
    pub entries: usize,
    pub reject: bool,
    /// The index of a snapshot the message carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<u64>,
}

/// The crate's `eraftpb::Message`, seen through what every version has.
pub trait CrateMsg: Clone + Debug {
    /// The protobuf number of its `MessageType`.
    fn type_number(&self) -> i32;
    fn summary(&self) -> MsgSummary;
    /// The raft id it goes to.
    fn to(&self) -> u64;
}

/// A short stable name per `MessageType` number (the same in both versions).
pub fn kind_name(t: i32) -> &'static str {
    match t {
        0 => "hup",
        1 => "beat",
        2 => "propose",
        3 => "append",
        4 => "append-resp",
        5 => "vote",
        6 => "vote-resp",
        7 => "snapshot",
        8 => "heartbeat",
        9 => "heartbeat-resp",
        10 => "unreachable",
        11 => "snap-status",
        12 => "check-quorum",
        13 => "transfer-leader",
        14 => "timeout-now",
        15 => "read-index",
        16 => "read-index-resp",
        17 => "pre-vote",
        18 => "pre-vote-resp",
        _ => "unknown",
    }
}

/// The message type a node sends and receives: the crate's own message.
#[derive(Clone, Debug)]
pub struct Msg<M>(pub M);

impl<M: CrateMsg> MsgInfo for Msg<M> {
    fn kind(&self) -> &'static str {
        kind_name(self.0.type_number())
    }
}

impl<M: CrateMsg> Serialize for Msg<M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.summary().serialize(s)
    }
}

/// What a version of the crate supplies. Calls return nothing the node
/// needs beyond what [`Version::status`] reads after them.
pub trait Version: Sized + 'static {
    /// The scenario's `model` name.
    const MODEL: &'static str;
    /// `RawNode` over this version's `Storage` implementation.
    type Raw;
    type Msg: CrateMsg;
    /// Readies whose persistence is under way.
    type Pending: Default;

    /// Builds the node over a store rebuilt from disk.
    fn new_raw(cfg: &RaftRsConfig, id: u64, store: LogStore) -> Self::Raw;
    fn store(raw: &mut Self::Raw) -> &mut LogStore;
    fn status(raw: &Self::Raw) -> Status;
    fn set_election_timeout(raw: &mut Self::Raw, ticks: usize);
    fn tick(raw: &mut Self::Raw);
    /// Errors (a message from a peer the node does not know) are ignored.
    fn step(raw: &mut Self::Raw, m: Self::Msg);
    /// False if the crate dropped the proposal.
    fn propose(raw: &mut Self::Raw, data: Vec<u8>) -> bool;
    fn read_index(raw: &mut Self::Raw, ctx: Vec<u8>);
    /// A snapshot message to `to` was handed to the network.
    fn report_snapshot_sent(raw: &mut Self::Raw, to: u64);
    fn is_snapshot(m: &Self::Msg) -> bool {
        m.type_number() == 7
    }
    /// The node's event loop waits for an fsync: inputs are queued.
    fn blocked(pending: &Self::Pending) -> bool;
    /// Handles readies until there are none or the event loop must wait.
    fn drive(node: &mut Node<Self>, io: &mut NodeIo<Self>);
    /// The fsync `ticket` (and every one before it) completed.
    fn synced(node: &mut Node<Self>, ticket: SyncTicket, io: &mut NodeIo<Self>);
}

/// Why the node's (role, term) may have changed, for the Role event.
#[derive(Clone, Copy, Debug)]
pub enum Cause {
    Boot,
    Tick,
    Message(NodeId),
    Client,
    /// Advancing a Ready, a persistence report, a snapshot report.
    Ready,
}

enum Input<M> {
    Tick,
    Message(NodeId, M),
    Client(ClientReq),
}

/// A linearizable get waiting for its ReadState, then for the state
/// machine to reach the read index.
#[derive(Clone, Copy, Debug)]
struct Read {
    key: u32,
    index: Option<u64>,
}

pub struct Node<V: Version> {
    id: NodeId,
    nodes: usize,
    cfg: RaftRsConfig,
    raw: Option<V::Raw>,
    pub(crate) pending: V::Pending,
    /// Inputs that arrived while the event loop waited for an fsync.
    queue: VecDeque<Input<V::Msg>>,
    kv: Kv,
    applied: u64,
    /// Client writes this node proposed as leader, by request id.
    writes: BTreeSet<u64>,
    reads: BTreeMap<u64, Read>,
    /// The (role, term) last reported.
    seen: Option<(Role, u64)>,
    /// The log tail (index, term) last reported.
    tail: Option<(u64, u64)>,
    /// The randomized election timeout this node last set.
    timeout: usize,
    /// Hard states written and not yet durable: (fsync that covers it, term, vote).
    unsynced: Vec<(Option<SyncTicket>, u64, u64)>,
    /// The (term, vote) last reported durable.
    durable: (u64, u64),
    commit: u64,
    /// Peers a snapshot message went to in the Ready being handled.
    snapshots_sent: Vec<u64>,
    /// Fsyncs in flight: (ticket, the log index they make durable), lowered
    /// when a later write rewrites entries at or below it.
    syncs: Vec<(SyncTicket, u64)>,
}

impl<V: Version> Node<V> {
    pub fn new(id: NodeId, nodes: usize, cfg: RaftRsConfig) -> Self {
        Node {
            id,
            nodes,
            cfg,
            raw: None,
            pending: V::Pending::default(),
            queue: VecDeque::new(),
            kv: Kv::default(),
            applied: 0,
            writes: BTreeSet::new(),
            reads: BTreeMap::new(),
            seen: None,
            tail: None,
            timeout: 0,
            unsynced: Vec::new(),
            durable: (0, 0),
            commit: 0,
            snapshots_sent: Vec::new(),
            syncs: Vec::new(),
        }
    }

    pub fn raw(&mut self) -> &mut V::Raw {
        self.raw.as_mut().expect("the node has booted")
    }

    /// Reports the log's tail if an input moved it (what the search reads
    /// to tell who holds the newest entry).
    fn report_tail(&mut self, io: &mut NodeIo<V>) {
        let Some(raw) = self.raw.as_mut() else { return };
        let store = V::store(raw);
        let index = store.last_index();
        let tail = (index, store.term(index).unwrap_or(0));
        if self.tail != Some(tail) {
            self.tail = Some(tail);
            io.event(ModelEvent::LogTail {
                index: tail.0,
                term: tail.1,
            });
        }
    }

    pub fn applied(&self) -> u64 {
        self.applied
    }

    /// Calls into the crate, then reports what the call changed.
    pub fn call<R>(&mut self, io: &mut NodeIo<V>, cause: Cause, f: impl FnOnce(&mut V::Raw) -> R) -> R {
        let r = f(self.raw());
        self.observe(io, cause);
        r
    }

    /// Reports a (role, term) change, answers the clients a lost leadership
    /// strands, and keeps the randomized election timeout on this node's
    /// seeded stream: the crate draws it from an unseeded thread-local
    /// generator whenever it resets its term state, which always comes with
    /// a (role, term) change; any other change is caught by its value.
    fn observe(&mut self, io: &mut NodeIo<V>, cause: Cause) {
        let s = V::status(self.raw());
        let now = (s.role, s.term);
        let prev = self.seen;
        if prev != Some(now) {
            self.seen = Some(now);
            let why = role_cause(prev, now);
            let from = match cause {
                Cause::Message(n) => Some(n),
                _ => None,
            };
            io.event(ModelEvent::Role {
                term: s.term,
                role: s.role,
                cause: why.into(),
                from,
                ballot: None,
            });
            if s.role == Role::Leader {
                io.reached("leader-elected");
            }
            if matches!(prev, Some((Role::Leader, _))) {
                match why {
                    "higher-term" => io.reached("leader-deposed"),
                    "check-quorum" => io.reached("check-quorum-stepdown"),
                    _ => {}
                }
                self.strand_clients(io, s);
            }
        }
        if prev != Some(now) || s.timeout != self.timeout {
            let (min, max) = self.cfg.election_range();
            let t = io.random_range(min as u64, max as u64 - 1) as usize;
            V::set_election_timeout(self.raw(), t);
            self.timeout = t;
        }
    }

    /// The leader this node knows, as a dst node id.
    fn hint(&self, s: Status) -> Option<NodeId> {
        (s.leader != 0 && s.leader != self.id as u64 + 1).then(|| s.leader as NodeId - 1)
    }

    /// Leadership is lost: whether a proposed write commits is unknown
    /// now; a read was not served and may go elsewhere.
    fn strand_clients(&mut self, io: &mut NodeIo<V>, s: Status) {
        for req in std::mem::take(&mut self.writes) {
            io.reply(req, ClientReply::Unknown);
        }
        let hint = self.hint(s);
        for req in std::mem::take(&mut self.reads).into_keys() {
            io.reply(req, ClientReply::NotLeader { hint });
        }
    }

    fn on_input(&mut self, input: Input<V::Msg>, io: &mut NodeIo<V>) {
        if V::blocked(&self.pending) || !self.queue.is_empty() {
            self.queue.push_back(input);
            return;
        }
        self.handle(input, io);
    }

    fn handle(&mut self, input: Input<V::Msg>, io: &mut NodeIo<V>) {
        match input {
            Input::Tick => self.call(io, Cause::Tick, V::tick),
            Input::Message(from, m) => self.call(io, Cause::Message(from), |r| V::step(r, m)),
            Input::Client(req) => self.client(req, io),
        }
        V::drive(self, io);
    }

    /// Handles queued inputs in arrival order while the loop is not blocked.
    fn drain(&mut self, io: &mut NodeIo<V>) {
        while !V::blocked(&self.pending) {
            let Some(input) = self.queue.pop_front() else { return };
            self.handle(input, io);
        }
    }

    fn client(&mut self, req: ClientReq, io: &mut NodeIo<V>) {
        let s = V::status(self.raw());
        if s.role != Role::Leader || matches!(req.op, KvOp::FollowerGet { .. }) {
            let hint = self.hint(s);
            io.reply(req.req_id, ClientReply::NotLeader { hint });
            return;
        }
        match req.op {
            KvOp::Get { key } => {
                self.reads.insert(req.req_id, Read { key, index: None });
                let ctx = req.req_id.to_le_bytes().to_vec();
                self.call(io, Cause::Client, |r| V::read_index(r, ctx));
            }
            op => {
                let data = Proposal {
                    node: self.id,
                    req: req.req_id,
                    op,
                }
                .encode();
                if self.call(io, Cause::Client, |r| V::propose(r, data)) {
                    self.writes.insert(req.req_id);
                } else {
                    let s = V::status(self.raw());
                    io.reply(req.req_id, ClientReply::NotLeader { hint: self.hint(s) });
                }
            }
        }
    }

    // ---- the parts of a Ready every version handles the same way ----

    /// Writes a Ready's snapshot, entries and hard state to the store and
    /// the disk (not yet durable). An installed snapshot rebuilds the state
    /// machine. True if anything was written.
    pub fn persist(
        &mut self,
        io: &mut NodeIo<V>,
        snapshot: Option<SnapshotImage>,
        entries: Vec<LogEntry>,
        hard_state: Option<HardState>,
    ) -> bool {
        let wrote = snapshot.is_some() || !entries.is_empty() || hard_state.is_some();
        if let Some(snap) = snapshot {
            self.kv = Kv::decode(&snap.data);
            self.applied = snap.index;
            let store = V::store(self.raw());
            store.apply_snapshot(snap);
            let image = store.image();
            let r = io.disk_replace(image);
            refused(io, r);
            self.written(io, 0, self.applied);
            io.event(ModelEvent::SmReset {
                applied: self.applied,
                digest: self.kv.digest(),
            });
            io.reached("install-snapshot");
        }
        if let (Some(first), Some(last)) = (entries.first(), entries.last()) {
            let (first, last) = (first.index, last.index);
            V::store(self.raw()).append(&entries);
            let r = io.disk_append(Rec::Entries(entries));
            refused(io, r);
            self.written(io, first, last);
        }
        if let Some(hs) = hard_state {
            V::store(self.raw()).hard_state = hs;
            let r = io.disk_append(Rec::HardState(hs));
            refused(io, r);
            self.unsynced.push((None, hs.term, hs.vote));
            if hs.commit > self.commit {
                self.commit = hs.commit;
                io.event(ModelEvent::Commit { index: hs.commit });
            }
        }
        wrote
    }

    /// Reports log entries `first..=last` written and not yet durable: no
    /// fsync in flight covers a rewritten index any more.
    fn written(&mut self, io: &mut NodeIo<V>, first: u64, last: u64) {
        for s in &mut self.syncs {
            s.1 = s.1.min(first.saturating_sub(1));
        }
        io.emit(&LogEvent::LogWritten { first, last });
    }

    /// Asks for everything written so far to become durable.
    pub fn fsync(&mut self, io: &mut NodeIo<V>) -> SyncTicket {
        let t = io.fsync();
        for u in self.unsynced.iter_mut().filter(|u| u.0.is_none()) {
            u.0 = Some(t);
        }
        let last = V::store(self.raw()).last_index();
        self.syncs.push((t, last));
        t
    }

    pub fn send(&mut self, io: &mut NodeIo<V>, msgs: Vec<V::Msg>) {
        for m in msgs {
            let to = m.to();
            if V::is_snapshot(&m) {
                self.snapshots_sent.push(to);
            }
            let s = m.summary();
            if s.kind == "append-resp" && !s.reject {
                io.emit(&LogEvent::AppendAcked {
                    index: s.index,
                    to: to as NodeId - 1,
                    term: s.term,
                });
            }
            io.send(to as NodeId - 1, Msg(m));
        }
    }

    /// Records the read indexes the crate confirmed, by request context.
    pub fn read_states(&mut self, states: impl IntoIterator<Item = (Vec<u8>, u64)>) {
        for (ctx, index) in states {
            let Ok(bytes) = <[u8; 8]>::try_from(ctx.as_slice()) else {
                continue;
            };
            if let Some(r) = self.reads.get_mut(&u64::from_le_bytes(bytes)) {
                r.index = Some(index);
            }
        }
    }

    /// Applies committed entries in order, every index (the leaders' empty
    /// entries too), and answers the writes this node proposed.
    pub fn apply(&mut self, io: &mut NodeIo<V>, entries: Vec<LogEntry>) {
        for e in entries {
            let proposal = (e.kind == 0 && !e.data.is_empty()).then(|| Proposal::decode(&e.data));
            let result = proposal.as_ref().map(|p| self.kv.apply(&p.op));
            self.applied = e.index;
            io.event(ModelEvent::Apply {
                index: e.index,
                term: e.term,
                digest: self.kv.digest(),
            });
            if let (Some(p), Some(result)) = (proposal, result) {
                if p.node == self.id && self.writes.remove(&p.req) {
                    io.reply(p.req, ClientReply::Ok(result));
                }
            }
        }
    }

    /// After the crate took a Ready back: reports sent snapshots, compacts
    /// the log when due, serves the reads the state machine has reached.
    pub fn advanced(&mut self, io: &mut NodeIo<V>) {
        for to in std::mem::take(&mut self.snapshots_sent) {
            self.call(io, Cause::Ready, |r| V::report_snapshot_sent(r, to));
        }
        self.maybe_compact(io);
        let applied = self.applied;
        let ready: Vec<(u64, u32)> = self
            .reads
            .iter()
            .filter(|(_, r)| r.index.is_some_and(|i| i <= applied))
            .map(|(req, r)| (*req, r.key))
            .collect();
        for (req, key) in ready {
            self.reads.remove(&req);
            let value = self.kv.get(key);
            io.reply(req, ClientReply::Ok(KvResult::Value { value }));
            io.reached("read-index-read");
        }
    }

    /// Every `compact_every_entries` applied entries: a snapshot of the map
    /// at the applied index, the log compacted, the disk rewritten.
    fn maybe_compact(&mut self, io: &mut NodeIo<V>) {
        let every = self.cfg.compact_every_entries;
        let applied = self.applied;
        if every == 0 || applied < V::store(self.raw()).snapshot.index + every {
            return;
        }
        let data = self.kv.encode();
        let store = V::store(self.raw());
        store.compact(applied, data);
        let image = store.image();
        let r = io.disk_replace(image);
        refused(io, r);
        io.event(ModelEvent::Compact { index: applied });
        io.reached("compaction");
        self.fsync(io);
    }
}

/// Why (role, term) went from `prev` to `now`, in the words the checkers read.
fn role_cause(prev: Option<(Role, u64)>, now: (Role, u64)) -> &'static str {
    match (prev, now.0) {
        (_, Role::Leader) => "won",
        (Some((Role::PreCandidate, _)), Role::Candidate) => "pre-vote-won",
        (_, Role::PreCandidate | Role::Candidate) => "timeout",
        (None, Role::Follower) => "boot",
        (Some((_, term)), Role::Follower) if now.1 > term => "higher-term",
        (Some((Role::Leader, _)), Role::Follower) => "check-quorum",
        (Some(_), Role::Follower) => "stepped-down",
    }
}

impl<V: Version> Machine for Node<V> {
    type Msg = Msg<V::Msg>;
    type Rec = Rec;

    fn boot(&mut self, io: &mut NodeIo<V>) {
        let store = LogStore::replay(io.disk(), self.nodes);
        self.kv = Kv::decode(&store.snapshot.data);
        self.applied = store.snapshot.index;
        self.commit = store.hard_state.commit;
        self.durable = (store.hard_state.term, store.hard_state.vote);
        if store.has_entries() {
            io.reached("restart-with-log");
        }
        io.event(ModelEvent::SmReset {
            applied: self.applied,
            digest: self.kv.digest(),
        });
        io.emit(&LogEvent::LogDurable {
            last: store.last_index(),
        });
        self.raw = Some(V::new_raw(&self.cfg, self.id as u64 + 1, store));
        io.set_timer(TICK, self.cfg.tick_ms * NS_PER_MS);
        self.observe(io, Cause::Boot);
        V::drive(self, io);
        self.report_tail(io);
    }

    fn on_message(&mut self, from: NodeId, msg: Self::Msg, io: &mut NodeIo<V>) {
        self.on_input(Input::Message(from, msg.0), io);
        self.report_tail(io);
    }

    fn on_timer(&mut self, timer: TimerId, io: &mut NodeIo<V>) {
        if timer == TICK {
            // The clock keeps its period whether or not the loop is free.
            io.set_timer(TICK, self.cfg.tick_ms * NS_PER_MS);
            self.on_input(Input::Tick, io);
            self.report_tail(io);
        }
    }

    fn on_client(&mut self, req: ClientReq, io: &mut NodeIo<V>) {
        self.on_input(Input::Client(req), io);
        self.report_tail(io);
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut NodeIo<V>) {
        let (done, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unsynced)
            .into_iter()
            .partition(|u| u.0.is_some_and(|t| t <= ticket));
        self.unsynced = rest;
        let covered = self.syncs.iter().filter(|s| s.0 <= ticket).map(|s| s.1).max();
        self.syncs.retain(|s| s.0 > ticket);
        if let Some(last) = covered {
            io.emit(&LogEvent::LogDurable { last });
        }
        for (_, term, vote) in done {
            if (term, vote) != self.durable {
                self.durable = (term, vote);
                io.event(ModelEvent::HardState {
                    term,
                    vote: (vote != 0).then(|| vote as NodeId - 1),
                });
            }
        }
        V::synced(self, ticket, io);
        self.drain(io);
        self.report_tail(io);
    }
}

/// A write the disk refused (it is full) stops the node: nothing it does
/// after may rest on that write. The world restarts it from its disk.
fn refused<M: sim::Machine>(io: &mut sim::Io<M>, r: Result<(), sim::DiskError>) {
    if let Err(e) = r {
        io.halt(&format!("cannot write: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_name_what_the_checkers_look_for() {
        use Role::*;
        assert_eq!(role_cause(None, (Follower, 1)), "boot");
        assert_eq!(role_cause(Some((Leader, 3)), (Follower, 4)), "higher-term");
        assert_eq!(role_cause(Some((Leader, 3)), (Follower, 3)), "check-quorum");
        assert_eq!(role_cause(Some((Follower, 3)), (PreCandidate, 3)), "timeout");
        assert_eq!(role_cause(Some((PreCandidate, 3)), (Candidate, 4)), "pre-vote-won");
        assert_eq!(role_cause(Some((Candidate, 4)), (Leader, 4)), "won");
    }

    #[test]
    fn message_type_names_are_distinct() {
        let names: BTreeSet<&str> = (0..19).map(kind_name).collect();
        assert_eq!(names.len(), 19);
        assert!(!names.contains("unknown"));
    }
}
