//! [`Ctx`]: an async node's handle on the world, the counterpart of a
//! sans-IO node's `Io`. It is a small `Copy` value naming the node and its
//! incarnation; every call goes to the run's shared state, so a handle
//! kept by a task of a crashed incarnation does nothing (its waits never
//! end, and the task is gone with its node anyway).

use super::host::{self, enter_call, typed, Entry, Message, NodeHost, Pending, Record, Sent, Waiters};
use super::task::JoinHandle;
use super::time::{self, Sleep};
use super::wire::{CallError, Envelope, ReplyTo, Wire};
use crate::event::ModelEvent;
use crate::machine::{DiskError, DiskOp, NodeId, Output};
use crate::workload::{ClientReply, ClientReq};
use serde::Serialize;
use std::collections::VecDeque;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// An async node's window on the world: messages and calls over dst's
/// network, its disk, the clients' requests, its clocks and random
/// stream, and the events the checkers read. `M` is the node's message
/// type, `R` its disk record type.
pub struct Ctx<M, R> {
    node: NodeId,
    inc: u64,
    _types: PhantomData<fn() -> (M, R)>,
}

impl<M, R> Clone for Ctx<M, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, R> Copy for Ctx<M, R> {}

impl<M, R> std::fmt::Debug for Ctx<M, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ctx(node {}, incarnation {})", self.node, self.inc)
    }
}

impl<M: Message, R: Record> Ctx<M, R> {
    pub(crate) fn new(node: NodeId, inc: u64) -> Self {
        Ctx {
            node,
            inc,
            _types: PhantomData,
        }
    }

    /// A call on this node's state: None once this incarnation is gone.
    fn with<T>(&self, f: impl FnOnce(&mut host::NodeCore, &mut NodeHost<M, R>, u64) -> T) -> Option<T> {
        let node = self.node;
        enter_call(node, self.inc, |c, now| {
            let host::Core { nodes, typed, .. } = c;
            let host = typed.downcast_mut::<host::Host<M, R>>().expect("one host type per run");
            f(&mut nodes[node], &mut host.nodes[node], now)
        })
    }

    /// Queues an output for the world, which carries it out next.
    fn push(&self, out: Output<super::HostMachine<M, R>>) {
        let (node, inc) = (self.node, self.inc);
        let flooded = enter_call(node, inc, |c, _| {
            let h = typed::<M, R>(c);
            h.outbox.push(Sent {
                node,
                inc,
                entry: Entry::Out(out),
            });
            let flooded = h.outbox.len() > crate::machine::STEP_OUTPUTS_MAX;
            host::wake_world(c);
            flooded
        });
        if flooded == Some(true) {
            std::panic::panic_any(crate::machine::OutputFlood);
        }
    }

    /// This node's id; nodes are `0..nodes()`.
    pub fn id(&self) -> NodeId {
        self.node
    }

    /// The cluster size.
    pub fn nodes(&self) -> usize {
        host::with_core(|c| c.nodes.len())
    }

    /// This node's incarnation: 1 at first boot, one more at every restart.
    pub fn incarnation(&self) -> u64 {
        self.inc
    }

    /// This node's wall clock (skewed, drifting, may jump), in ns.
    pub fn now_wall_ns(&self) -> u64 {
        let node = self.node;
        enter_call(node, self.inc, |c, now| c.nodes[node].clock.wall_ns(now)).unwrap_or(0)
    }

    /// This node's monotonic clock (drifts, never jumps), in ns.
    pub fn now_mono_ns(&self) -> u64 {
        time::mono_ns(self.node, self.inc)
    }

    /// Sleeps `d` of this node's monotonic clock.
    pub fn sleep(&self, d: Duration) -> Sleep {
        Sleep::after(self.node, self.inc, d.as_nanos().min(u64::MAX as u128) as u64)
    }

    /// Runs `fut` for at most `d` of this node's monotonic clock.
    pub fn timeout<F: Future>(&self, d: Duration, fut: F) -> time::Timeout<F> {
        let _ = self;
        time::timeout(d, fut)
    }

    /// A random u64 from this node's own stream of the run's seed.
    pub fn random_u64(&self) -> u64 {
        time::draw(self.node, self.inc)
    }

    /// A uniform draw from `lo..=hi`.
    pub fn random_range(&self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.random_u64() % (hi - lo + 1)
    }

    /// Spawns a task on this node (see [`super::spawn`]).
    #[track_caller]
    pub fn spawn<F>(&self, fut: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        tokio::dst::spawn_on_node(
            tokio::dst::Here {
                node: self.node,
                inc: self.inc,
            },
            fut,
        )
    }

    /// Sends `msg` one way to node `to`; the network may lose, delay,
    /// duplicate or reorder it as the scenario's faults say.
    pub fn send(&self, to: NodeId, msg: M) {
        self.push(Output::Send {
            to,
            msg: Wire::Tell(msg),
        });
    }

    /// The next message that reaches this node, told or asked.
    pub fn recv(&self) -> Recv<M, R> {
        Next::new(*self, |h| (&mut h.inbox, &mut h.recv_waiters))
    }

    /// The next peer whose connection to this node broke, on `stream`
    /// links (see [`crate::Machine::on_link_broken`]); never on
    /// datagram links.
    pub fn link_broken(&self) -> LinkBroken<M, R> {
        Next::new(*self, |h| (&mut h.broken, &mut h.broken_waiters))
    }

    /// Asks node `to` and waits at most `timeout` (of this node's
    /// monotonic clock) for its answer. The request and the answer cross
    /// the network like any message.
    pub async fn call(&self, to: NodeId, msg: M, timeout: Duration) -> Result<M, CallError> {
        if to >= self.nodes() {
            return Err(CallError::NoSuchNode);
        }
        let Some(call) = self.with(|n, h, _| {
            let call = n.fresh_id();
            h.calls.insert(call, Pending::default());
            call
        }) else {
            return std::future::pending().await;
        };
        self.push(Output::Send {
            to,
            msg: Wire::Ask { call, msg },
        });
        let answer = Answer { ctx: *self, call };
        match time::Timeout::new(answer, self.sleep(timeout)).await {
            Ok(msg) => Ok(msg),
            Err(_) => Err(CallError::Timeout),
        }
    }

    /// Answers a call received through [`Ctx::recv`].
    pub fn answer(&self, reply_to: ReplyTo, msg: M) {
        self.push(Output::Send {
            to: reply_to.to,
            msg: Wire::Answer {
                call: reply_to.call,
                msg,
            },
        });
    }

    /// The next client request sent to this node.
    pub fn client_request(&self) -> ClientRequest<M, R> {
        Next::new(*self, |h| (&mut h.clients, &mut h.client_waiters))
    }

    /// Answers client request `req_id`.
    pub fn client_reply(&self, req_id: u64, reply: ClientReply) {
        self.push(Output::Reply { req_id, reply });
    }

    /// What the disk durably held when this incarnation booted (storage
    /// faults never show here: see [`Ctx::read_disk`]).
    pub fn disk(&self) -> Vec<R> {
        self.with(|_, h, _| h.disk.clone()).unwrap_or_default()
    }

    /// [`Ctx::disk`], through the storage faults in force at boot: a read
    /// error, or the first record whose checksum fails.
    pub fn read_disk(&self) -> Result<Vec<R>, DiskError> {
        let got = self.with(|_, h, _| match &h.disk_read {
            Err(e) => Err(*e),
            Ok(()) => Ok(h.disk.clone()),
        });
        got.unwrap_or(Err(DiskError::Read))
    }

    fn no_space(&self) -> bool {
        self.with(|n, _, now| now < n.no_space_until).unwrap_or(false)
    }

    /// Writes a record (volatile until an [`Ctx::fsync`] after it
    /// completes); refused while the disk is full.
    pub fn append(&self, rec: R) -> Result<(), DiskError> {
        if self.no_space() {
            return Err(DiskError::NoSpace);
        }
        self.push(Output::Disk(DiskOp::Append(host::Stored::Model(rec))));
        Ok(())
    }

    /// Atomically replaces everything on disk at the next fsync; refused
    /// while the disk is full. The node's files (dst's `tokio::fs`) share
    /// the disk and stay as they are.
    pub fn replace(&self, recs: Vec<R>) -> Result<(), DiskError> {
        if self.no_space() {
            return Err(DiskError::NoSpace);
        }
        let node = self.node;
        let files = self
            .with(|_, _, _| ())
            .map(|()| host::with_core(|c| c.fss[node].written.clone()));
        let mut all: Vec<host::Stored<R>> = files.unwrap_or_default().into_iter().map(host::Stored::Fs).collect();
        all.extend(recs.into_iter().map(host::Stored::Model));
        self.push(Output::Disk(DiskOp::Replace(all)));
        Ok(())
    }

    /// Makes every write issued so far durable: the fsync is issued now,
    /// and the future it returns ends when it is done, so a caller may
    /// issue several in order and await them elsewhere. Under a storage
    /// fault it fails ([`DiskError::Fsync`]): a prefix of the writes it
    /// covered is durable, the rest lost, and none is retried (as on Linux).
    pub fn fsync(&self) -> Fsync<M, R> {
        let ticket = self.with(|n, h, _| {
            let t = n.fresh_id();
            h.fsyncs.insert(t, Pending::default());
            t
        });
        if let Some(t) = ticket {
            self.push(Output::Fsync(t));
        }
        Fsync { ctx: *self, ticket }
    }

    /// Reports a generic event to the checkers.
    pub fn event(&self, e: ModelEvent) {
        self.push(Output::Event(e));
    }

    /// Reports an event of the model's own vocabulary (see
    /// [`crate::CustomEvent`]).
    pub fn emit<T: Serialize>(&self, e: &T) {
        self.push(Output::Event(ModelEvent::custom(e)));
    }

    /// Marks a `sometimes` coverage goal as reached.
    pub fn reached(&self, goal: &'static str) {
        self.push(Output::Reached(goal));
    }

    /// Stops this incarnation: the world takes the node down (unsynced
    /// writes are lost, as in a crash) and boots it again a little later.
    pub fn halt(&self, reason: &str) {
        self.push(Output::Halt(reason.to_string()));
    }
}

/// Which of a node's queues a [`Next`] takes from.
type Queue<M, R, T> = fn(&mut NodeHost<M, R>) -> (&mut VecDeque<T>, &mut Waiters);

/// Waits for the next item of one of the node's queues: a message
/// ([`Recv`]), a client request ([`ClientRequest`]) or a broken link
/// ([`LinkBroken`]).
pub struct Next<M: Message, R: Record, T> {
    ctx: Ctx<M, R>,
    waiter: Option<u64>,
    queue: Queue<M, R, T>,
}

/// Waits for the next message; see [`Ctx::recv`].
pub type Recv<M, R> = Next<M, R, Envelope<M>>;
/// Waits for the next client request; see [`Ctx::client_request`].
pub type ClientRequest<M, R> = Next<M, R, ClientReq>;
/// Waits for the next connection that broke; see [`Ctx::link_broken`].
pub type LinkBroken<M, R> = Next<M, R, NodeId>;

impl<M: Message, R: Record, T> Next<M, R, T> {
    fn new(ctx: Ctx<M, R>, queue: Queue<M, R, T>) -> Self {
        Next {
            ctx,
            waiter: None,
            queue,
        }
    }
}

impl<M: Message, R: Record, T> Unpin for Next<M, R, T> {}

impl<M: Message, R: Record, T> Future for Next<M, R, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.get_mut();
        let (waiter, queue) = (this.waiter, this.queue);
        let got = this.ctx.with(|n, h, _| {
            let (items, waiters) = queue(h);
            if let Some(w) = waiter {
                waiters.remove(&w);
            }
            match items.pop_front() {
                Some(item) => (Some(item), None),
                None => {
                    let w = waiter.unwrap_or_else(|| n.fresh_id());
                    waiters.insert(w, cx.waker().clone());
                    (None, Some(w))
                }
            }
        });
        match got {
            Some((Some(item), _)) => {
                this.waiter = None;
                Poll::Ready(item)
            }
            Some((None, w)) => {
                this.waiter = w;
                Poll::Pending
            }
            None => Poll::Pending,
        }
    }
}

impl<M: Message, R: Record, T> Drop for Next<M, R, T> {
    fn drop(&mut self) {
        if let Some(w) = self.waiter {
            let queue = self.queue;
            forget_waiter::<M, R>(self.ctx.node, self.ctx.inc, |h| {
                queue(h).1.remove(&w);
            });
        }
    }
}

/// Removes a dropped future's waiter, if its incarnation is still the
/// node's (a crash cleared the rest already).
fn forget_waiter<M: Message, R: Record>(node: NodeId, inc: u64, f: impl FnOnce(&mut NodeHost<M, R>)) {
    host::try_with_core(|c| {
        if c.nodes[node].inc == inc {
            f(&mut typed::<M, R>(c).nodes[node]);
        }
    });
}

/// The answer to one call.
struct Answer<M: Message, R: Record> {
    ctx: Ctx<M, R>,
    call: u64,
}

impl<M: Message, R: Record> Future for Answer<M, R> {
    type Output = M;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<M> {
        let call = self.call;
        let got = self.ctx.with(|_, h, _| {
            let p = h.calls.get_mut(&call)?;
            match p.done.take() {
                Some(m) => {
                    h.calls.remove(&call);
                    Some(Some(m))
                }
                None => {
                    p.waker = Some(cx.waker().clone());
                    Some(None)
                }
            }
        });
        match got.flatten() {
            Some(Some(m)) => Poll::Ready(m),
            _ => Poll::Pending,
        }
    }
}

impl<M: Message, R: Record> Drop for Answer<M, R> {
    fn drop(&mut self) {
        let call = self.call;
        forget_waiter::<M, R>(self.ctx.node, self.ctx.inc, |h| {
            h.calls.remove(&call);
        });
    }
}

/// The end of one fsync; see [`Ctx::fsync`].
pub struct Fsync<M: Message, R: Record> {
    ctx: Ctx<M, R>,
    /// None if the incarnation was gone when it was asked for.
    ticket: Option<u64>,
}

impl<M: Message, R: Record> Future for Fsync<M, R> {
    type Output = Result<(), DiskError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(ticket) = self.ticket else {
            return Poll::Pending;
        };
        let got = self.ctx.with(|_, h, _| {
            let p = h.fsyncs.get_mut(&ticket)?;
            match p.done.take() {
                Some(r) => {
                    h.fsyncs.remove(&ticket);
                    Some(Some(r))
                }
                None => {
                    p.waker = Some(cx.waker().clone());
                    Some(None)
                }
            }
        });
        match got.flatten() {
            Some(Some(r)) => Poll::Ready(r),
            _ => Poll::Pending,
        }
    }
}

impl<M: Message, R: Record> Drop for Fsync<M, R> {
    fn drop(&mut self) {
        let Some(ticket) = self.ticket else { return };
        forget_waiter::<M, R>(self.ctx.node, self.ctx.inc, |h| {
            h.fsyncs.remove(&ticket);
        });
    }
}
