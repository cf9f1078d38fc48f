//! A task's handle, its abort handle, its id and its error, for tasks on
//! a simulated node and for real tokio's alike. A node's task is wrapped
//! so that it hands its output to its handle and stops when aborted; the
//! state both share is an `Arc`, so a handle is `Send` whenever tokio's is.

use crate::dst::{self, Here, Sim};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A task's id: unique among the tasks of one runtime (or of one run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(IdRepr);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IdRepr {
    Real(real::task::Id),
    Node(u64),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IdRepr::Real(id) => id.fmt(f),
            IdRepr::Node(id) => id.fmt(f),
        }
    }
}

impl Id {
    fn real(id: real::task::Id) -> Id {
        Id(IdRepr::Real(id))
    }
}

std::thread_local! {
    /// The id of the node task being polled, if one is.
    static CURRENT: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// The id of the task that runs now. Panics outside a task.
#[track_caller]
pub fn id() -> Id {
    try_id().expect("can't get a task id when not inside a task")
}

/// The id of the task that runs now, if a task runs.
pub fn try_id() -> Option<Id> {
    if let Some(id) = CURRENT.with(std::cell::Cell::get) {
        return Some(Id(IdRepr::Node(id)));
    }
    if dst::current().is_some() {
        // A node's main task: dst spawned it, not this crate.
        return None;
    }
    real::task::try_id().map(Id::real)
}

/// Why a task ended without its output.
pub struct JoinError(ErrorRepr);

enum ErrorRepr {
    Real(real::task::JoinError),
    Cancelled(Id),
}

impl JoinError {
    /// Whether the task was aborted (or its runtime, its node, went away).
    pub fn is_cancelled(&self) -> bool {
        match &self.0 {
            ErrorRepr::Real(e) => e.is_cancelled(),
            ErrorRepr::Cancelled(_) => true,
        }
    }

    /// Whether the task panicked. A panic on a simulated node is a finding
    /// that ends the run, so only real tokio's tasks return one.
    pub fn is_panic(&self) -> bool {
        match &self.0 {
            ErrorRepr::Real(e) => e.is_panic(),
            ErrorRepr::Cancelled(_) => false,
        }
    }

    /// The panic's payload. Panics if the error is not a panic.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic().expect("`JoinError` reason is not a panic.")
    }

    /// The panic's payload, or the error back if it is not a panic.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.0 {
            ErrorRepr::Real(e) => e.try_into_panic().map_err(|e| JoinError(ErrorRepr::Real(e))),
            other => Err(JoinError(other)),
        }
    }

    /// The id of the task that ended.
    pub fn id(&self) -> Id {
        match &self.0 {
            ErrorRepr::Real(e) => Id::real(e.id()),
            ErrorRepr::Cancelled(id) => *id,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ErrorRepr::Real(e) => e.fmt(f),
            ErrorRepr::Cancelled(id) => write!(f, "task {id} was cancelled"),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ErrorRepr::Real(e) => e.fmt(f),
            ErrorRepr::Cancelled(id) => write!(f, "JoinError::Cancelled({id:?})"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(e: JoinError) -> std::io::Error {
        std::io::Error::other(e.to_string())
    }
}

/// What a node task and its handles share, whatever its output type.
struct Control {
    id: u64,
    aborted: AtomicBool,
    finished: AtomicBool,
    /// The task's own waker, to wake it when aborted.
    task: Mutex<Option<Waker>>,
}

/// The output slot beside the control.
struct Shared<T> {
    ctl: Arc<Control>,
    out: Mutex<Slot<T>>,
}

struct Slot<T> {
    done: Option<Result<T, JoinError>>,
    joiner: Option<Waker>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A run is one thread: a poisoned lock means a panic already ended it.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<T> Shared<T> {
    fn finish(&self, result: Result<T, JoinError>) {
        self.ctl.finished.store(true, Ordering::Release);
        let joiner = {
            let mut slot = lock(&self.out);
            slot.done = Some(result);
            slot.joiner.take()
        };
        if let Some(w) = joiner {
            w.wake();
        }
    }
}

impl Control {
    fn abort(&self) {
        self.aborted.store(true, Ordering::Release);
        let task = lock(&self.task).take();
        if let Some(w) = task {
            w.wake();
        }
    }
}

/// A future run as a node's task: it hands its output to the handle and
/// stops at an abort. Dropped unfinished (its node crashed, the run
/// ended), it tells its handle it was cancelled.
struct NodeTask<F: Future> {
    fut: Option<Pin<Box<F>>>,
    shared: Arc<Shared<F::Output>>,
    /// The waker `shared` holds, as of the last poll.
    waker: Option<Waker>,
}

impl<F: Future> Future for NodeTask<F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let ctl = &this.shared.ctl;
        if ctl.aborted.load(Ordering::Acquire) {
            this.fut = None;
            this.shared
                .finish(Err(JoinError(ErrorRepr::Cancelled(Id(IdRepr::Node(ctl.id))))));
            return Poll::Ready(());
        }
        let Some(fut) = this.fut.as_mut() else {
            return Poll::Ready(());
        };
        // The lock is taken only when the waker changes (on a node, once):
        // a lock per poll showed in profiles.
        if !this.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            this.waker = Some(cx.waker().clone());
            *lock(&ctl.task) = Some(cx.waker().clone());
        }
        let prev = CURRENT.with(|c| c.replace(Some(ctl.id)));
        let polled = fut.as_mut().poll(cx);
        CURRENT.with(|c| c.set(prev));
        match polled {
            Poll::Ready(v) => {
                this.fut = None;
                this.shared.finish(Ok(v));
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<F: Future> Drop for NodeTask<F> {
    fn drop(&mut self) {
        if self.fut.take().is_some() {
            let id = Id(IdRepr::Node(self.shared.ctl.id));
            self.shared.finish(Err(JoinError(ErrorRepr::Cancelled(id))));
        }
    }
}

/// Spawns `fut` on node `here`, returning its handle.
#[track_caller]
pub(crate) fn spawn_on_node<F>(sim: &'static dyn Sim, here: Here, fut: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let ctl = Arc::new(Control {
        id: dst::next_task_id(),
        aborted: AtomicBool::new(false),
        finished: AtomicBool::new(false),
        task: Mutex::new(None),
    });
    let shared = Arc::new(Shared {
        ctl,
        out: Mutex::new(Slot {
            done: None,
            joiner: None,
        }),
    });
    let task = NodeTask {
        fut: Some(Box::pin(fut)),
        shared: shared.clone(),
        waker: None,
    };
    sim.spawn(here, Box::pin(task), std::panic::Location::caller());
    JoinHandle(JoinRepr::Node(shared))
}

/// An owned permission to join a task: awaiting it gives the task's
/// output, or why there is none. Dropping it detaches the task.
pub struct JoinHandle<T>(JoinRepr<T>);

enum JoinRepr<T> {
    Real(real::task::JoinHandle<T>),
    Node(Arc<Shared<T>>),
}

impl<T> Unpin for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    pub(crate) fn real(h: real::task::JoinHandle<T>) -> Self {
        JoinHandle(JoinRepr::Real(h))
    }

    /// Aborts the task: it stops at its next poll, and awaiting this
    /// handle then gives a cancelled [`JoinError`].
    pub fn abort(&self) {
        match &self.0 {
            JoinRepr::Real(h) => h.abort(),
            JoinRepr::Node(s) => s.ctl.abort(),
        }
    }

    /// Whether the task has ended (with its output, an abort or a panic).
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            JoinRepr::Real(h) => h.is_finished(),
            JoinRepr::Node(s) => s.ctl.finished.load(Ordering::Acquire),
        }
    }

    /// A handle that can abort the task but not join it.
    pub fn abort_handle(&self) -> AbortHandle {
        match &self.0 {
            JoinRepr::Real(h) => AbortHandle(AbortRepr::Real(h.abort_handle())),
            JoinRepr::Node(s) => AbortHandle(AbortRepr::Node(s.ctl.clone())),
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        match &self.0 {
            JoinRepr::Real(h) => Id::real(h.id()),
            JoinRepr::Node(s) => Id(IdRepr::Node(s.ctl.id)),
        }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().0 {
            JoinRepr::Real(h) => Pin::new(h).poll(cx).map_err(|e| JoinError(ErrorRepr::Real(e))),
            JoinRepr::Node(s) => {
                let mut slot = lock(&s.out);
                match slot.done.take() {
                    Some(r) => Poll::Ready(r),
                    None => {
                        slot.joiner = Some(cx.waker().clone());
                        Poll::Pending
                    }
                }
            }
        }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle").field("id", &self.id()).finish()
    }
}

/// Aborts a task without joining it.
#[derive(Clone)]
pub struct AbortHandle(AbortRepr);

#[derive(Clone)]
enum AbortRepr {
    Real(real::task::AbortHandle),
    Node(Arc<Control>),
}

impl AbortHandle {
    /// Aborts the task; see [`JoinHandle::abort`].
    pub fn abort(&self) {
        match &self.0 {
            AbortRepr::Real(h) => h.abort(),
            AbortRepr::Node(c) => c.abort(),
        }
    }

    /// Whether the task has ended.
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            AbortRepr::Real(h) => h.is_finished(),
            AbortRepr::Node(c) => c.finished.load(Ordering::Acquire),
        }
    }

    /// The task's id.
    pub fn id(&self) -> Id {
        match &self.0 {
            AbortRepr::Real(h) => Id::real(h.id()),
            AbortRepr::Node(c) => Id(IdRepr::Node(c.id)),
        }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle").field("id", &self.id()).finish()
    }
}
