//! What the async nodes of one run share with the world: a thread-local
//! state, installed for the run and gone after it. Node tasks reach it
//! through their [`Ctx`](super::Ctx) or the free functions of this module's
//! parent; the world reaches it between its events, never while a task
//! runs (one thread, one task at a time), so a `RefCell` borrow never
//! overlaps another.
//!
//! It has an untyped part ([`Core`]: clocks, random streams, task counts,
//! budgets), which runtime glue such as openraft's `AsyncRuntime` uses
//! without knowing the model's message type, and a typed part ([`Host`]:
//! inboxes, pending calls and fsyncs, and the outbox of outputs the world
//! carries out).

use super::wire::{Envelope, Wire};
use super::Ctx;
use crate::clock::Clock;
use crate::machine::{DiskError, DiskOp, Io, Machine, MsgInfo, NodeId, Output, SyncTicket, TimerId};
use crate::workload::ClientReq;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::task::Waker;

const MS: u64 = 1_000_000;

/// Most polls of one node's tasks within one simulated millisecond. The
/// executor charges every poll 50 to 100 ns of simulated time, so a task
/// that wakes itself forever still lets time pass, a hundredth of a
/// millisecond per hundred polls; a node polled this often is busy
/// looping, not working. The built-in async models peak below a hundred.
pub const POLLS_PER_SIM_MS_MAX: u32 = 2_000;

/// Most calls into dst (clock reads, sends, ...) within one poll of a task:
/// a loop that reads the clock until it moves never yields, and time only
/// moves between polls.
pub const CALLS_PER_POLL_MAX: u32 = 1_000_000;

/// Most messages a node may hold unread.
pub(crate) const INBOX_MAX: usize = 100_000;

/// How long a node must have had nothing to wait on through dst before the
/// end of the run calls it deadlocked: a task between two waits is not.
pub const DEADLOCK_QUIET_MS: u64 = 100;

/// What unwinds a task that made more than [`CALLS_PER_POLL_MAX`] calls in
/// one poll: unwinding is the only way out of a loop that never yields.
pub(crate) struct Spin;

/// What an async node's messages must be: the world clones them
/// (duplicates), debug-prints them (a panic message may) and names them.
pub trait Message: Clone + Debug + Serialize + MsgInfo + 'static {}
impl<T: Clone + Debug + Serialize + MsgInfo + 'static> Message for T {}

/// What an async node's disk records must be.
pub trait Record: Clone + Debug + 'static {}
impl<T: Clone + Debug + 'static> Record for T {}

pub(crate) type MainFn<M, R> = Rc<dyn Fn(Ctx<M, R>) -> Pin<Box<dyn Future<Output = ()>>>>;

/// A finding a task hands the world.
#[derive(Debug)]
pub(crate) enum Note {
    Panic(String),
    Stall(String),
    /// The node's main task returned: the process exited.
    Exit,
}

pub(crate) struct Core {
    pub(crate) nodes: Vec<NodeCore>,
    /// The world task's waker, kept across its waits (cloning it per
    /// wait showed in profiles).
    pub(crate) world: Option<Waker>,
    /// Whether the world waits for its next event: the first output since
    /// wakes it, the rest find it awake.
    pub(crate) world_waits: bool,
    /// The typed part: a `Host<M, R>`.
    pub(crate) typed: Box<dyn Any>,
    /// Pushes a note into the typed outbox (monomorphized at install).
    pub(crate) note: fn(&mut dyn Any, NodeId, u64, Note),
    /// Each node's sockets (of tokio's replacement), cleared at every boot and crash.
    pub(crate) nets: Vec<super::net::NodeNet>,
    /// Each node's files (of tokio's replacement), rebuilt from its disk at every boot.
    pub(crate) fss: Vec<super::fs::NodeFs>,
    /// Pushes an output of the untyped part (a socket's segment, a file's
    /// record, its fsync) into the typed outbox (monomorphized at install).
    pub(crate) push: fn(&mut dyn Any, NodeId, u64, Raw),
}

/// An output the untyped part (sockets, files) hands the world.
pub(crate) enum Raw {
    /// A segment or datagram to node `to`.
    Segment(NodeId, super::net::Segment),
    /// A file change to append to the node's disk.
    Append(super::fs::FsRec),
    /// An fsync of the node's disk, as `ticket`.
    Fsync(SyncTicket),
}

/// What an async node's disk holds: the model's own records (what its
/// `Ctx` writes and reads) and its files' (what dst's `tokio::fs` keeps).
#[derive(Clone, Debug)]
pub(crate) enum Stored<R> {
    Model(R),
    Fs(super::fs::FsRec),
}

/// Hands `raw` to the world and wakes it.
pub(crate) fn push_raw(c: &mut Core, node: NodeId, inc: u64, raw: Raw) {
    (c.push)(&mut *c.typed, node, inc, raw);
    wake_world(c);
}

/// One node's untyped state. It outlives incarnations: call ids, fsync
/// tickets and waiter ids never repeat within a run.
pub(crate) struct NodeCore {
    pub(crate) inc: u64,
    pub(crate) up: bool,
    pub(crate) clock: Clock,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) no_space_until: u64,
    /// dst sleeps pending (timeouts among them).
    pub(crate) sleeping: u32,
    /// Live tasks dst spawned (the main task and those of `spawn`).
    pub(crate) tasks: u32,
    /// The last time a task of the node ran or called into dst.
    pub(crate) active_ns: u64,
    poll_ms: u64,
    polls: u32,
    /// Polls by spawn site, counted only once a millisecond's polls pass
    /// half the limit: what a spin's finding names.
    busy: Vec<(super::task::Site, u32)>,
    calls: u32,
    pub(crate) next_id: u64,
    /// A stall was already reported for this incarnation.
    stalled: bool,
}

impl NodeCore {
    fn new() -> Self {
        NodeCore {
            inc: 0,
            up: false,
            clock: Clock::default(),
            rng: ChaCha8Rng::seed_from_u64(0),
            no_space_until: 0,
            sleeping: 0,
            tasks: 0,
            active_ns: 0,
            poll_ms: 0,
            polls: 0,
            busy: Vec::new(),
            calls: 0,
            next_id: 0,
            stalled: false,
        }
    }

    pub(crate) fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

thread_local! {
    static CORE: RefCell<Option<Core>> = const { RefCell::new(None) };
}

/// True time of the run, in ns: the executor's clock, which moves only
/// between polls, so every call within one poll reads the same time.
pub(crate) fn now_ns() -> u64 {
    super::exec::now_ns()
}

/// The shared state; panics outside an async run (a defect of the caller).
pub(crate) fn with_core<T>(f: impl FnOnce(&mut Core) -> T) -> T {
    CORE.with(|c| {
        let mut c = c.borrow_mut();
        f(c.as_mut().expect("not inside a dst run of async nodes"))
    })
}

pub(crate) fn try_with_core<T>(f: impl FnOnce(&mut Core) -> T) -> Option<T> {
    CORE.try_with(|c| c.try_borrow_mut().ok().and_then(|mut c| c.as_mut().map(f)))
        .ok()
        .flatten()
}

/// A call into dst from incarnation `inc` of `node`: counted against the
/// poll's budget, and refused (None) if that incarnation is gone.
pub(crate) fn enter_call<T>(node: NodeId, inc: u64, f: impl FnOnce(&mut Core, u64) -> T) -> Option<T> {
    let (out, spin) = with_core(|c| {
        let now = now_ns();
        let n = &mut c.nodes[node];
        if n.inc != inc || !n.up {
            return (None, false);
        }
        n.active_ns = now;
        n.calls += 1;
        if n.calls > CALLS_PER_POLL_MAX {
            n.calls = 0;
            return (None, true);
        }
        (Some(f(c, now)), false)
    });
    if spin {
        std::panic::panic_any(Spin);
    }
    out
}

/// A poll of one of the node's tasks is about to run; false if it must
/// not (the incarnation is gone, or the node is busy looping: reported).
pub(crate) fn enter_poll(node: NodeId, inc: u64, site: super::task::Site) -> bool {
    with_core(|c| {
        let now = now_ns();
        let n = &mut c.nodes[node];
        if n.inc != inc || !n.up {
            return false;
        }
        n.active_ns = now;
        n.calls = 0;
        if now / MS != n.poll_ms {
            n.poll_ms = now / MS;
            n.polls = 0;
            n.busy.clear();
        }
        n.polls += 1;
        if n.polls > POLLS_PER_SIM_MS_MAX / 2 {
            match n.busy.iter_mut().find(|(s, _)| *s == site) {
                Some((_, count)) => *count += 1,
                None => n.busy.push((site, 1)),
            }
        }
        if n.polls <= POLLS_PER_SIM_MS_MAX {
            return true;
        }
        if !n.stalled {
            n.stalled = true;
            let (busiest, count) = n
                .busy
                .iter()
                .copied()
                .max_by_key(|(_, count)| *count)
                .unwrap_or((site, 0));
            let task = match busiest {
                Some(at) => format!("the task spawned at {}:{}", short_path(at.file()), at.line()),
                None => "its main task".to_string(),
            };
            let why = format!(
                "node {node}'s tasks were polled more than {POLLS_PER_SIM_MS_MAX} times within simulated millisecond {}: it spins without waiting (most polled, {count} of the last {}: {task})",
                now / MS,
                POLLS_PER_SIM_MS_MAX / 2
            );
            note(c, node, inc, Note::Stall(why));
        }
        false
    })
}

/// A source path as a finding shows it: a crate from a registry or a git
/// checkout by its own name and version, not by where this machine keeps
/// it, so that a report reads the same on every machine.
pub(crate) fn short_path(file: &str) -> &str {
    for marker in ["/registry/src/", "/git/checkouts/"] {
        if let Some(i) = file.find(marker) {
            let rest = &file[i + marker.len()..];
            // Past the index (or checkout) folder: `crate-1.2.3/src/...`.
            if let Some(j) = rest.find('/') {
                return &rest[j + 1..];
            }
        }
    }
    file
}

pub(crate) fn note(c: &mut Core, node: NodeId, inc: u64, what: Note) {
    if let Note::Stall(_) = what {
        c.nodes[node].stalled = true;
    }
    (c.note)(&mut *c.typed, node, inc, what);
    wake_world(c);
}

pub(crate) fn wake_world(c: &mut Core) {
    if std::mem::take(&mut c.world_waits) {
        if let Some(w) = &c.world {
            w.wake_by_ref();
        }
    }
}

/// What the world carries out for a node, in the order its tasks did it.
pub(crate) enum Entry<M: Message, R: Record> {
    Out(Output<HostMachine<M, R>>),
    Note(Note),
}

pub(crate) struct Sent<M: Message, R: Record> {
    pub(crate) node: NodeId,
    pub(crate) inc: u64,
    pub(crate) entry: Entry<M, R>,
}

pub(crate) struct Host<M: Message, R: Record> {
    pub(crate) nodes: Vec<NodeHost<M, R>>,
    pub(crate) outbox: Vec<Sent<M, R>>,
    /// The outbox's other buffer, which the world drains while tasks fill this one.
    pub(crate) spare: Vec<Sent<M, R>>,
    pub(crate) main: MainFn<M, R>,
}

pub(crate) struct Pending<T> {
    pub(crate) done: Option<T>,
    pub(crate) waker: Option<Waker>,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Pending {
            done: None,
            waker: None,
        }
    }
}

/// One node's typed state, cleared at every boot and crash.
pub(crate) struct NodeHost<M, R> {
    pub(crate) inbox: VecDeque<Envelope<M>>,
    pub(crate) recv_waiters: Waiters,
    pub(crate) calls: BTreeMap<u64, Pending<M>>,
    pub(crate) clients: VecDeque<ClientReq>,
    pub(crate) client_waiters: Waiters,
    /// Peers whose connection broke, not yet taken by a task.
    pub(crate) broken: VecDeque<NodeId>,
    pub(crate) broken_waiters: Waiters,
    pub(crate) fsyncs: BTreeMap<SyncTicket, Pending<Result<(), DiskError>>>,
    /// What the disk durably held at boot, and what reading it met.
    pub(crate) disk: Vec<R>,
    pub(crate) disk_read: Result<(), DiskError>,
}

impl<M, R> Default for NodeHost<M, R> {
    fn default() -> Self {
        NodeHost {
            inbox: VecDeque::new(),
            recv_waiters: Waiters::default(),
            calls: BTreeMap::new(),
            clients: VecDeque::new(),
            client_waiters: Waiters::default(),
            broken: VecDeque::new(),
            broken_waiters: Waiters::default(),
            fsyncs: BTreeMap::new(),
            disk: Vec::new(),
            disk_read: Ok(()),
        }
    }
}

impl<M, R> NodeHost<M, R> {
    /// Futures of the node waiting on something dst will deliver.
    pub(crate) fn waits(&self) -> usize {
        self.recv_waiters.len()
            + self.client_waiters.len()
            + self.broken_waiters.len()
            + self.calls.values().filter(|p| p.waker.is_some()).count()
            + self.fsyncs.values().filter(|p| p.waker.is_some()).count()
    }
}

fn push_raw_typed<M: Message, R: Record>(typed: &mut dyn Any, node: NodeId, inc: u64, raw: Raw) {
    let host = typed.downcast_mut::<Host<M, R>>().expect("one host type per run");
    let out = match raw {
        Raw::Segment(to, seg) => Output::Send {
            to,
            msg: Wire::Net(seg),
        },
        Raw::Append(rec) => Output::Disk(DiskOp::Append(Stored::Fs(rec))),
        Raw::Fsync(ticket) => Output::Fsync(ticket),
    };
    host.outbox.push(Sent {
        node,
        inc,
        entry: Entry::Out(out),
    });
}

fn push_note<M: Message, R: Record>(typed: &mut dyn Any, node: NodeId, inc: u64, what: Note) {
    let host = typed.downcast_mut::<Host<M, R>>().expect("one host type per run");
    host.outbox.push(Sent {
        node,
        inc,
        entry: Entry::Note(what),
    });
}

/// Installs the state of a run of `nodes` async nodes on this thread;
/// dropping the guard removes it.
pub(crate) fn install<M: Message, R: Record>(nodes: usize, main: MainFn<M, R>) -> Installed {
    let core = Core {
        nodes: (0..nodes).map(|_| NodeCore::new()).collect(),
        world: None,
        world_waits: false,
        typed: Box::new(Host::<M, R> {
            nodes: (0..nodes).map(|_| NodeHost::default()).collect(),
            outbox: Vec::new(),
            spare: Vec::new(),
            main,
        }),
        note: push_note::<M, R>,
        nets: (0..nodes).map(|_| super::net::NodeNet::default()).collect(),
        fss: (0..nodes).map(|_| super::fs::NodeFs::default()).collect(),
        push: push_raw_typed::<M, R>,
    };
    CORE.with(|c| *c.borrow_mut() = Some(core));
    Installed {
        _shim: tokio::dst::install(&super::shim::SHIM),
    }
}

pub(crate) struct Installed {
    /// tokio's replacement routes to this run's nodes while it lives.
    _shim: tokio::dst::Installed,
}

impl Drop for Installed {
    fn drop(&mut self) {
        // Taken out first: what the state holds (wakers, messages) drops
        // after the borrow ends.
        let old = CORE.with(|c| c.borrow_mut().take());
        drop(old);
    }
}

/// The typed part of the state, with the node's untyped part.
pub(crate) fn typed<M: Message, R: Record>(c: &mut Core) -> &mut Host<M, R> {
    c.typed.downcast_mut::<Host<M, R>>().expect("one host type per run")
}

/// The machine the world drives for an async node: each input is handed
/// to the node's tasks (woken, they run when the world yields), and what
/// they produce comes back through the outbox. Dropping it (a crash, a
/// halt) kills the node's tasks at once.
pub(crate) struct HostMachine<M: Message, R: Record> {
    node: NodeId,
    inc: u64,
    _types: PhantomData<fn() -> (M, R)>,
}

impl<M: Message, R: Record> HostMachine<M, R> {
    pub(crate) fn new(node: NodeId) -> Self {
        HostMachine {
            node,
            inc: 0,
            _types: PhantomData,
        }
    }
}

/// The node's main task for incarnation `inc`, wrapped as every task dst runs.
fn start_main<M: Message, R: Record>(
    node: NodeId,
    inc: u64,
) -> super::task::NodeTask<Pin<Box<dyn Future<Output = ()>>>> {
    let main = with_core(|c| typed::<M, R>(c).main.clone());
    let fut = main(Ctx::new(node, inc));
    super::task::NodeTask::new(node, inc, fut, None)
}

impl<M: Message, R: Record> HostMachine<M, R> {
    fn with_node<T>(&self, f: impl FnOnce(&mut NodeCore, &mut NodeHost<M, R>) -> T) -> Option<T> {
        with_core(|c| {
            if c.nodes[self.node].inc != self.inc || !c.nodes[self.node].up {
                return None;
            }
            let host = c.typed.downcast_mut::<Host<M, R>>().expect("one host type per run");
            let out = f(&mut c.nodes[self.node], &mut host.nodes[self.node]);
            Some(out)
        })
    }
}

/// The tasks waiting on one source (a node's inbox, its clients), each
/// under the id of the future that waits; rarely more than one.
#[derive(Default)]
pub(crate) struct Waiters(Vec<(u64, Waker)>);

impl Waiters {
    pub(crate) fn insert(&mut self, id: u64, w: Waker) {
        self.remove(&id);
        self.0.push((id, w));
    }
    pub(crate) fn remove(&mut self, id: &u64) {
        self.0.retain(|(i, _)| i != id);
    }
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

fn wake_all(waiters: &mut Waiters) {
    for (_, w) in waiters.0.drain(..) {
        w.wake();
    }
}

impl<M: Message, R: Record> Machine for HostMachine<M, R> {
    type Msg = Wire<M>;
    type Rec = Stored<R>;

    fn boot(&mut self, io: &mut Io<Self>) {
        let seed = io.random_u64();
        let (mut disk, mut files) = (Vec::new(), Vec::new());
        for rec in io.disk() {
            match rec {
                Stored::Model(r) => disk.push(r.clone()),
                Stored::Fs(f) => files.push(f.clone()),
            }
        }
        let read = io.read_disk().map(|_| ());
        let node = self.node;
        let inc = with_core(|c| {
            let now = now_ns();
            let n = &mut c.nodes[node];
            n.inc += 1;
            n.up = true;
            n.rng = ChaCha8Rng::seed_from_u64(seed);
            n.sleeping = 0;
            n.tasks = 0;
            n.active_ns = now;
            n.stalled = false;
            let inc = n.inc;
            c.nets[node] = super::net::NodeNet::default();
            c.fss[node] = super::fs::NodeFs::boot(files, read);
            let h = &mut typed::<M, R>(c).nodes[node];
            *h = NodeHost::default();
            h.disk = disk;
            h.disk_read = read;
            inc
        });
        self.inc = inc;
        super::exec::spawn((node, inc), Box::pin(start_main::<M, R>(node, inc)));
    }

    fn on_message(&mut self, from: NodeId, msg: Wire<M>, _io: &mut Io<Self>) {
        let node = self.node;
        let msg = match msg {
            Wire::Net(seg) => {
                let inc = self.inc;
                return with_core(|c| {
                    if c.nodes[node].inc == inc && c.nodes[node].up {
                        super::net::deliver(c, node, inc, from, seg);
                    }
                });
            }
            msg => msg,
        };
        let flooded = self.with_node(|_, h| {
            match msg {
                Wire::Tell(msg) => h.inbox.push_back(Envelope {
                    from,
                    msg,
                    reply_to: None,
                }),
                Wire::Ask { call, msg } => h.inbox.push_back(Envelope {
                    from,
                    msg,
                    reply_to: Some(super::wire::ReplyTo { to: from, call }),
                }),
                Wire::Net(_) => unreachable!("segments go to the node's sockets above"),
                Wire::Answer { call, msg } => {
                    // An answer to a call that timed out, or to an earlier
                    // incarnation's, finds nobody waiting.
                    if let Some(p) = h.calls.get_mut(&call) {
                        p.done = Some(msg);
                        if let Some(w) = p.waker.take() {
                            w.wake();
                        }
                    }
                    return false;
                }
            }
            wake_all(&mut h.recv_waiters);
            h.inbox.len() > INBOX_MAX
        });
        if flooded == Some(true) {
            with_core(|c| {
                if !c.nodes[node].stalled {
                    let why = format!("node {node} holds more than {INBOX_MAX} unread messages");
                    note(c, node, self.inc, Note::Stall(why));
                }
            });
        }
    }

    fn on_timer(&mut self, _timer: TimerId, _io: &mut Io<Self>) {
        // Async nodes sleep on the executor's timers; they set no world timer.
    }

    fn on_client(&mut self, req: ClientReq, _io: &mut Io<Self>) {
        self.with_node(|_, h| {
            h.clients.push_back(req);
            wake_all(&mut h.client_waiters);
        });
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, _io: &mut Io<Self>) {
        self.fsync_done(ticket, Ok(()));
    }

    fn on_fsync_failed(&mut self, ticket: SyncTicket, _io: &mut Io<Self>) {
        self.fsync_done(ticket, Err(DiskError::Fsync));
    }

    fn on_link_broken(&mut self, peer: NodeId, _io: &mut Io<Self>) {
        self.with_node(|_, h| {
            h.broken.push_back(peer);
            wake_all(&mut h.broken_waiters);
        });
    }
}

impl<M: Message, R: Record> HostMachine<M, R> {
    fn fsync_done(&self, ticket: SyncTicket, result: Result<(), DiskError>) {
        let (node, inc) = (self.node, self.inc);
        with_core(|c| {
            if c.nodes[node].inc != inc || !c.nodes[node].up {
                return;
            }
            // The model's own fsync, or else a sync of one of its files.
            let p = match typed::<M, R>(c).nodes[node].fsyncs.get_mut(&ticket) {
                Some(p) => p,
                None => match c.fss[node].syncs.get_mut(&ticket) {
                    Some(p) => p,
                    None => return,
                },
            };
            p.done = Some(result);
            if let Some(w) = p.waker.take() {
                w.wake();
            }
        });
    }
}

impl<M: Message, R: Record> Drop for HostMachine<M, R> {
    fn drop(&mut self) {
        let node = self.node;
        let inc = self.inc;
        let gone = try_with_core(|c| {
            let n = &mut c.nodes[node];
            let live = n.inc == inc && n.up;
            if live {
                n.up = false;
                n.sleeping = 0;
                n.tasks = 0;
            }
            live
        });
        if gone == Some(true) {
            clear_node::<M, R>(node);
            super::exec::kill((node, inc));
        }
    }
}

/// Clears what a crashed incarnation left in the typed state (its queued
/// messages, its waiters), outside any borrow of it.
pub(crate) fn clear_node<M: Message, R: Record>(node: NodeId) {
    let old = try_with_core(|c| {
        let sockets = std::mem::take(&mut c.nets[node]);
        let files = std::mem::take(&mut c.fss[node]);
        (std::mem::take(&mut typed::<M, R>(c).nodes[node]), sockets, files)
    });
    drop(old);
}
