use crate::dst::{self, Here, Route};
use crate::task::JoinHandle;
use std::future::Future;
use std::marker::PhantomData;

/// A handle on a runtime: real tokio's, or a simulated node's.
#[derive(Clone, Debug)]
pub struct Handle(pub(crate) Repr);

#[derive(Clone, Debug)]
pub(crate) enum Repr {
    Real(real::runtime::Handle),
    Node(Here),
}

/// Keeps a runtime's context entered; see [`Handle::enter`].
#[derive(Debug)]
#[must_use = "the context is left when the guard drops"]
pub struct EnterGuard<'a> {
    _real: Option<real::runtime::EnterGuard<'a>>,
    _handle: PhantomData<&'a Handle>,
}

impl Handle {
    /// The handle of the runtime (or node) whose task calls it.
    #[track_caller]
    pub fn current() -> Handle {
        match dst::route("tokio::runtime::Handle::current") {
            Route::Node(here, _) => Handle(Repr::Node(here)),
            Route::Real => Handle(Repr::Real(real::runtime::Handle::current())),
        }
    }

    /// [`Handle::current`], or why there is none.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        match dst::current() {
            Some(here) => Ok(Handle(Repr::Node(here))),
            None => real::runtime::Handle::try_current().map(|h| Handle(Repr::Real(h))),
        }
    }

    /// Enters the runtime's context (a node's needs none).
    pub fn enter(&self) -> EnterGuard<'_> {
        EnterGuard {
            _real: match &self.0 {
                Repr::Real(h) => Some(h.enter()),
                Repr::Node(_) => None,
            },
            _handle: PhantomData,
        }
    }

    /// Spawns a task on this runtime (on the node it stands for).
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match &self.0 {
            Repr::Real(h) => JoinHandle::real(h.spawn(future)),
            Repr::Node(here) => crate::task::spawn_on(*here, "Handle::spawn", future),
        }
    }

    /// Runs `func` on this runtime's blocking pool (on a node: as a task).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        match &self.0 {
            Repr::Real(h) => JoinHandle::real(h.spawn_blocking(func)),
            Repr::Node(here) => crate::task::spawn_on(*here, "Handle::spawn_blocking", async move { func() }),
        }
    }

    /// Blocks the thread on `future`; refused on a node.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        match &self.0 {
            Repr::Real(h) => h.block_on(future),
            Repr::Node(_) => dst::refuse("Handle::block_on", "await the future instead"),
        }
    }

    /// The runtime's flavor: a node is one thread.
    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        match &self.0 {
            Repr::Real(h) => h.runtime_flavor(),
            Repr::Node(_) => RuntimeFlavor::CurrentThread,
        }
    }

    /// The runtime's id; refused for a node's.
    #[track_caller]
    pub fn id(&self) -> Id {
        match &self.0 {
            Repr::Real(h) => h.id(),
            Repr::Node(_) => dst::refuse("Handle::id", "a node's runtime has no tokio id"),
        }
    }

    /// The runtime's name, if it was given one.
    pub fn name(&self) -> Option<&str> {
        match &self.0 {
            Repr::Real(h) => h.name(),
            Repr::Node(_) => None,
        }
    }

    /// The runtime's metrics; refused for a node's.
    #[track_caller]
    pub fn metrics(&self) -> RuntimeMetrics {
        match &self.0 {
            Repr::Real(h) => h.metrics(),
            Repr::Node(_) => dst::refuse("Handle::metrics", "a node's runtime keeps no tokio metrics"),
        }
    }
}

use super::{Id, RuntimeFlavor, RuntimeMetrics, TryCurrentError};
