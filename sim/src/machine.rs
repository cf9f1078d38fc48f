//! The contract between the world and a system under test.
//!
//! A node is a sans-IO state machine: the world hands it one input at a time
//! (boot, message, timer, client request, fsync completion) together with an
//! [`Io`] that collects its outputs. The node never sleeps, never reads a
//! global clock and never touches a socket or a file: everything it may know
//! about the outside comes through `Io`, so the world alone decides time,
//! faults and order.

use crate::event::ModelEvent;
use crate::workload::{ClientReply, ClientReq};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::fmt::Debug;

pub use crate::id::NodeId;

/// A model-chosen timer name. Setting a timer that is already armed re-arms
/// it; there is at most one pending firing per id and node.
pub type TimerId = u64;

/// Names one fsync request; handed back in [`Machine::on_fsynced`] once every
/// disk operation issued before the request is durable.
pub type SyncTicket = u64;

/// A storage fault as the node sees it: an error value, never a panic. A
/// scenario whose fault profile enables `disk` faults makes them happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "error", rename_all = "kebab-case")]
pub enum DiskError {
    /// The disk could not be read (at boot: nothing is known about what it holds).
    Read,
    /// A stored record fails its checksum: the `index`-th durable record.
    Corrupt {
        /// The record's place in [`Io::disk`], from 0; every record before it is intact.
        index: usize,
    },
    /// No space left: the write was not made.
    NoSpace,
    /// An fsync failed: a prefix of the writes it covered is durable, the
    /// rest are lost (what an async node's `fsync` returns).
    Fsync,
}

impl std::fmt::Display for DiskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiskError::Read => write!(f, "read error"),
            DiskError::Corrupt { index } => write!(f, "record {index} fails its checksum"),
            DiskError::NoSpace => write!(f, "no space left on the device"),
            DiskError::Fsync => write!(f, "the fsync failed"),
        }
    }
}

/// What a message tells the trace about itself, without serializing it.
pub trait MsgInfo {
    /// A short stable name of the message type ("append", "vote-req", ..).
    fn kind(&self) -> &'static str;

    /// How this message travels whatever the link's mode: `Some(Stream)`
    /// for a segment of a TCP connection, `Some(Datagram)` for a UDP
    /// datagram; `None` (the default) follows the link's mode.
    fn link(&self) -> Option<crate::links::LinkMode> {
        None
    }

    /// The message's digest with every instant it carries taken relative
    /// to `now` (true time, on both scales), for `dst explore` to fold
    /// states that differ only by when they happen; see
    /// [`Machine::digest_at`]. `None` (the default) keeps the explored
    /// world's digest absolute while this message is in flight.
    fn digest_at(&self, now: &Now) -> Option<u64> {
        let _ = now;
        None
    }

    /// [`MsgInfo::digest_at`] of the message as it would be if every node
    /// id `x` it names were `ids[x]` (see [`Machine::digest_renamed`]).
    fn digest_renamed(&self, now: &Now, ids: &[NodeId]) -> Option<u64> {
        let _ = (now, ids);
        None
    }
}

/// The instants a relative digest is taken against ([`Machine::digest_at`],
/// [`MsgInfo::digest_at`]): a node's own clocks, or true time for what is
/// in flight. Its helpers turn an instant into what a model's behaviour
/// can depend on: how long ago it was, up to the longest span the model
/// ever compares it with, or how long until it comes, down to "passed".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// The monotonic clock's reading, in ns: the node's own, or true time.
    pub mono_ns: u64,
    /// The wall clock's reading, in ns: the node's own, or true time.
    pub wall_ns: u64,
}

impl Now {
    /// How long before now the monotonic instant `t` was, capped at
    /// `horizon_ns`: older instants are alike to a model that never
    /// looks further back. An instant still to come counts as now.
    pub fn mono_age(&self, t: u64, horizon_ns: u64) -> u64 {
        self.mono_ns.saturating_sub(t).min(horizon_ns)
    }

    /// How long after now the monotonic instant `t` comes (0 once passed).
    pub fn mono_until(&self, t: u64) -> u64 {
        t.saturating_sub(self.mono_ns)
    }

    /// [`Now::mono_age`] on the wall clock.
    pub fn wall_age(&self, t: u64, horizon_ns: u64) -> u64 {
        self.wall_ns.saturating_sub(t).min(horizon_ns)
    }

    /// [`Now::mono_until`] on the wall clock.
    pub fn wall_until(&self, t: u64) -> u64 {
        t.saturating_sub(self.wall_ns)
    }

    /// The wall instant `t` as a signed offset from now, for an instant
    /// whose exact place on either side matters (a timestamp compared
    /// with others as they arrive).
    pub fn wall_offset(&self, t: u64) -> i64 {
        t.wrapping_sub(self.wall_ns) as i64
    }

    /// [`Now::wall_offset`] on the monotonic clock.
    pub fn mono_offset(&self, t: u64) -> i64 {
        t.wrapping_sub(self.mono_ns) as i64
    }
}

/// A system under test. One value is one incarnation of one node: a restart
/// throws it away and builds a new one, which must rebuild its state from
/// what [`Io::disk`] durably holds in [`Machine::boot`].
pub trait Machine {
    /// What the nodes send each other; the trace names each by [`MsgInfo::kind`].
    type Msg: Clone + Debug + Serialize + MsgInfo;
    /// One durable disk record (a write-ahead-log entry, a snapshot, ..).
    type Rec: Clone + Debug;

    /// The first input of every incarnation, at the world's start and after each
    /// restart: rebuild the state from [`Io::disk`] and arm the first timers.
    fn boot(&mut self, io: &mut Io<Self>);
    /// `msg` from node `from` arrived; a datagram link may have lost, delayed,
    /// duplicated or reordered the messages around it.
    fn on_message(&mut self, from: NodeId, msg: Self::Msg, io: &mut Io<Self>);
    /// Timer `timer` fired: the latest [`Io::set_timer`] of it in this
    /// incarnation came due and no [`Io::cancel_timer`] came after.
    fn on_timer(&mut self, timer: TimerId, io: &mut Io<Self>);
    /// A client request: answer it with [`Io::reply`] under `req.req_id`, in this
    /// step or a later one; a request left unanswered times out at the client.
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>);
    /// The fsync `ticket` ([`Io::fsync`]) completed: every disk operation issued
    /// before it is durable and survives a crash.
    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut Io<Self>);

    /// The fsync `ticket` failed: a prefix of the writes it covered is
    /// durable and the rest are lost, past a hole that later appends stay
    /// behind until a restart; none is retried (as on Linux after a failed
    /// fsync). By default the node halts and is restarted from what the
    /// disk holds, as databases do since fsync errors were understood.
    fn on_fsync_failed(&mut self, ticket: SyncTicket, io: &mut Io<Self>) {
        let _ = ticket;
        io.halt("an fsync failed");
    }

    /// On `stream` links only: the connection to `peer` broke (a loss, a
    /// partition, a crash of either end, or the peer down when a message
    /// reached it), as a reset or a timeout tells a TCP user. Messages sent
    /// to `peer` on that connection after the last one it received are
    /// lost; the next send opens a new connection, on which order holds
    /// again. Datagram links never call it.
    fn on_link_broken(&mut self, peer: NodeId, io: &mut Io<Self>) {
        let _ = (peer, io);
    }

    /// A digest of everything this incarnation's future behaviour depends
    /// on, for `dst explore` to visit each state once: two nodes with equal
    /// digests must act alike on equal inputs. [`crate::hash::state_digest`]
    /// of the node is a sound choice when its state derives `Hash`, and
    /// [`crate::hash::debug_digest`] when it derives only `Debug` (it
    /// formats the whole state at every choice: several times slower).
    ///
    /// `None` (the default) still explores, soundly: the world then tells
    /// a node's states apart by everything it was handed since it booted
    /// (its disk at boot, each input and the time it came), so two orders
    /// that lead to one state count as two, and the same bound costs more
    /// states and time.
    fn digest(&self) -> Option<u64> {
        None
    }

    /// [`Machine::digest`] with every instant the node holds taken
    /// relative to its clocks' readings `now` ([`Now`]'s helpers), so
    /// that two states that differ only by a shift in time share a
    /// digest: a heartbeat round at 50 ms and the same round at 100 ms
    /// are explored once. Sound only for a node whose behaviour depends
    /// on its instants' distances from each other and from its clocks,
    /// never on their absolute values, and whose capped ages are capped
    /// no shorter than the longest span it compares them with.
    ///
    /// The explored world's digest leaves absolute time out only while
    /// every node up, every message in flight and every disk record gives
    /// a relative digest ([`MsgInfo::digest_at`],
    /// [`Machine::record_digest_at`]); `None` (the default) keeps it in.
    fn digest_at(&self, now: &Now) -> Option<u64> {
        let _ = now;
        None
    }

    /// A disk record's digest relative to `now` (see
    /// [`Machine::digest_at`]); a record that holds no instant may give
    /// [`crate::hash::debug_digest`] of itself.
    fn record_digest_at(rec: &Self::Rec, now: &Now) -> Option<u64> {
        let _ = (rec, now);
        None
    }

    /// Nodes that play the same part, as classes of node ids, for `dst
    /// explore` to explore once the states that differ only by which of
    /// them is which (symmetry reduction): a state where node 1 leads and
    /// node 2 follows stands for the one where node 2 leads and node 1
    /// follows. A model declares it only where renaming the nodes of a
    /// class in any state gives a state that behaves as the renamed one
    /// would (nothing in it compares node ids or treats one apart), and
    /// gives [`Machine::digest_renamed`], [`MsgInfo::digest_renamed`] and
    /// [`Machine::record_digest_renamed`]. What the walk does not
    /// enumerate (the model's random draws, which node a client tries
    /// first) is then that of the state explored. Empty (the default): no
    /// symmetry.
    fn interchangeable(nodes: usize) -> Vec<Vec<NodeId>> {
        let _ = nodes;
        Vec::new()
    }

    /// [`Machine::digest_at`] of this node as it would be if every node id
    /// `x` it holds, its own included, were `ids[x]`. `ids` need not be a
    /// permutation: the walk also calls it with every id mapped to one,
    /// to sort interchangeable nodes by what they hold apart from names.
    fn digest_renamed(&self, now: &Now, ids: &[NodeId]) -> Option<u64> {
        let _ = (now, ids);
        None
    }

    /// [`Machine::record_digest_at`] with node ids renamed as in
    /// [`Machine::digest_renamed`].
    fn record_digest_renamed(rec: &Self::Rec, now: &Now, ids: &[NodeId]) -> Option<u64> {
        let _ = (rec, now, ids);
        None
    }
}

/// A disk operation, volatile until an fsync issued after it completes.
#[derive(Clone, Debug)]
pub enum DiskOp<R> {
    /// Add one record after those already written.
    Append(R),
    /// Atomically replace everything on disk (compaction, like a rename).
    Replace(Vec<R>),
}

/// An output of one step, in the order the node produced it.
#[derive(Debug)]
pub enum Output<M: Machine + ?Sized> {
    /// A message to deliver through the network (see [`Io::send`]).
    Send {
        /// The receiving node.
        to: NodeId,
        /// The message, for the receiver's [`Machine::on_message`].
        msg: M::Msg,
    },
    /// Arm or re-arm a timer (see [`Io::set_timer`]).
    SetTimer {
        /// The model's name for the timer, handed back to [`Machine::on_timer`].
        id: TimerId,
        /// The delay on the node's monotonic clock, in ns.
        after_ns: u64,
    },
    /// Disarm a timer (see [`Io::cancel_timer`]).
    CancelTimer {
        /// The timer that no longer fires.
        id: TimerId,
    },
    /// A volatile disk write (see [`Io::disk_append`], [`Io::disk_replace`]).
    Disk(DiskOp<M::Rec>),
    /// A request to make earlier disk writes durable (see [`Io::fsync`]).
    Fsync(SyncTicket),
    /// An answer to a client (see [`Io::reply`]).
    Reply {
        /// The [`ClientReq::req_id`] of the request answered.
        req_id: u64,
        /// The answer the client gets.
        reply: ClientReply,
    },
    /// An event for the trace and the invariants (see [`Io::event`], [`Io::emit`]).
    Event(ModelEvent),
    /// A `sometimes` coverage goal reached (see [`Io::reached`]).
    Reached(&'static str),
    /// The node stops itself, for this reason (see [`Io::halt`]).
    Halt(String),
}

/// The storage faults a step sees.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DiskFaults {
    pub(crate) read_error: bool,
    pub(crate) no_space: bool,
    /// The first durable record that fails its checksum.
    pub(crate) corrupt: Option<usize>,
}

/// The node's window on the world during one step.
pub struct Io<'a, M: Machine + ?Sized> {
    pub(crate) id: NodeId,
    pub(crate) nodes: usize,
    pub(crate) wall_ns: u64,
    pub(crate) mono_ns: u64,
    pub(crate) rng: &'a mut ChaCha8Rng,
    pub(crate) durable: &'a [M::Rec],
    /// Storage faults in force for this step (see [`DiskError`]).
    pub(crate) disk_faults: DiskFaults,
    pub(crate) next_ticket: &'a mut SyncTicket,
    pub(crate) out: Vec<Output<M>>,
    /// Past this many outputs the step is cut short (see
    /// [`STEP_OUTPUTS_MAX`]).
    pub(crate) outputs_max: usize,
    /// Under `dst explore`, the walk that may take another outcome of a
    /// decision than the one drawn (see [`Io::choice`]).
    pub(crate) choices: Option<&'a mut dyn Choices>,
}

/// Where [`Io::choice`] asks which outcome to take.
pub(crate) trait Choices {
    fn choose(&mut self, drawn: u32, of: u32) -> u32;
}

/// Most outputs one step (one input to one machine) may produce.
pub const STEP_OUTPUTS_MAX: usize = 100_000;

/// What a step panics with when its machine exceeds [`STEP_OUTPUTS_MAX`]
/// outputs: unwinding is the only way out of a handler that loops
/// while emitting.
pub(crate) struct OutputFlood;

impl<'a, M: Machine + ?Sized> Io<'a, M> {
    fn push(&mut self, o: Output<M>) {
        if self.out.len() >= self.outputs_max {
            std::panic::panic_any(OutputFlood);
        }
        self.out.push(o);
    }
    /// This node's id, in `0..nodes`.
    pub fn id(&self) -> NodeId {
        self.id
    }
    /// Cluster size; node ids are `0..nodes`.
    pub fn nodes(&self) -> usize {
        self.nodes
    }
    /// This node's wall clock (skewed, drifting, may jump), in ns.
    pub fn now_wall_ns(&self) -> u64 {
        self.wall_ns
    }
    /// This node's monotonic clock (drifts, never jumps), in ns since boot
    /// of the world. Timers run on it.
    pub fn now_mono_ns(&self) -> u64 {
        self.mono_ns
    }
    /// A random u64 from this node's own stream of the world's seed.
    pub fn random_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
    /// A uniform draw from `lo..=hi`.
    pub fn random_range(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        lo + self.rng.next_u64() % (hi - lo + 1)
    }
    /// A decision the environment makes for the model (what a producer
    /// appends, which key it touches), of which the model drew outcome
    /// `drawn` of `of` (`0..of`): in a sampled run it stands as drawn;
    /// under `dst explore` the drawn one is the natural outcome and every
    /// other is a departure the walk may take, so that each outcome is
    /// explored within the deviation bound rather than the one a seed
    /// happens to draw. It draws nothing itself, so a model that routes a
    /// draw through it runs every seed exactly as before.
    pub fn choice(&mut self, drawn: u32, of: u32) -> u32 {
        if of < 2 || drawn >= of {
            return drawn;
        }
        match self.choices.as_deref_mut() {
            Some(c) => c.choose(drawn, of),
            None => drawn,
        }
    }
    /// What the disk durably held when this incarnation booted.
    /// Only meaningful in [`Machine::boot`]. Storage faults never show
    /// here: a model that handles them reads through [`Io::read_disk`].
    pub fn disk(&self) -> &[M::Rec] {
        self.durable
    }
    /// [`Io::disk`], through the storage faults in force: a read error, or
    /// the first record whose checksum fails.
    pub fn read_disk(&self) -> Result<&[M::Rec], DiskError> {
        if self.disk_faults.read_error {
            return Err(DiskError::Read);
        }
        match self.disk_faults.corrupt {
            Some(index) if index < self.durable.len() => Err(DiskError::Corrupt { index }),
            _ => Ok(self.durable),
        }
    }
    /// Stop this incarnation: the world takes the node down (unsynced
    /// writes are lost, as in a crash) and boots it again a little later,
    /// as a supervisor restarts a process that exited.
    pub fn halt(&mut self, reason: &str) {
        self.push(Output::Halt(reason.to_string()));
    }
    /// Send `msg` to node `to` through the network and its faults; an id
    /// outside `0..nodes` ends the run in error.
    pub fn send(&mut self, to: NodeId, msg: M::Msg) {
        self.push(Output::Send { to, msg });
    }
    /// The messages sent so far in this step, for a model that stamps
    /// everything it sends on the way out (a clock, a signature) in one place.
    pub fn sent_mut(&mut self) -> impl Iterator<Item = &mut M::Msg> + '_ {
        self.out.iter_mut().filter_map(|o| match o {
            Output::Send { msg, .. } => Some(msg),
            _ => None,
        })
    }
    /// Fire `on_timer(id)` after `after_ns` of this node's monotonic clock.
    pub fn set_timer(&mut self, id: TimerId, after_ns: u64) {
        self.push(Output::SetTimer { id, after_ns });
    }
    /// Disarm timer `id` so that it does not fire; nothing happens if it is not armed.
    pub fn cancel_timer(&mut self, id: TimerId) {
        self.push(Output::CancelTimer { id });
    }
    /// Write a record (volatile until an fsync after it completes); refused
    /// while the disk is full.
    pub fn disk_append(&mut self, rec: M::Rec) -> Result<(), DiskError> {
        if self.disk_faults.no_space {
            return Err(DiskError::NoSpace);
        }
        self.push(Output::Disk(DiskOp::Append(rec)));
        Ok(())
    }
    /// Atomically replace everything on disk at the next fsync; refused
    /// while the disk is full.
    pub fn disk_replace(&mut self, recs: Vec<M::Rec>) -> Result<(), DiskError> {
        if self.disk_faults.no_space {
            return Err(DiskError::NoSpace);
        }
        self.push(Output::Disk(DiskOp::Replace(recs)));
        Ok(())
    }
    /// Ask for every disk operation issued so far to become durable.
    /// `on_fsynced(ticket)` follows once it is, unless the node crashes first.
    pub fn fsync(&mut self) -> SyncTicket {
        *self.next_ticket += 1;
        let t = *self.next_ticket;
        self.push(Output::Fsync(t));
        t
    }
    /// Answer the client request `req_id` ([`ClientReq::req_id`]); the client takes
    /// only the first answer, and none after its timeout.
    pub fn reply(&mut self, req_id: u64, reply: ClientReply) {
        self.push(Output::Reply { req_id, reply });
    }
    /// Report a [`ModelEvent`] (a role change, a commit, an apply, ..) for the
    /// trace and the invariants that read it.
    pub fn event(&mut self, e: ModelEvent) {
        self.push(Output::Event(e));
    }
    /// Report an event of the model's own vocabulary: a serde type that
    /// serializes to an object tagged by `model` (see [`crate::CustomEvent`]).
    pub fn emit<T: Serialize>(&mut self, e: &T) {
        self.push(Output::Event(ModelEvent::custom(e)));
    }
    /// Mark a `sometimes` coverage goal as reached.
    pub fn reached(&mut self, goal: &'static str) {
        self.push(Output::Reached(goal));
    }
}
