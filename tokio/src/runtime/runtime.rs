use super::handle::{Handle, Repr};
use super::{EnterGuard, RuntimeMetrics};
use crate::dst;
use crate::task::JoinHandle;
use std::future::Future;
use std::time::Duration;

/// A runtime: real tokio's, or (built inside a node's task) the node
/// itself, on which it spawns.
#[derive(Debug)]
pub struct Runtime {
    handle: Handle,
    real: Option<real::runtime::Runtime>,
}

impl Runtime {
    /// A runtime with every driver, as tokio's `Runtime::new` builds it.
    #[cfg(feature = "rt-multi-thread")]
    pub fn new() -> std::io::Result<Runtime> {
        super::Builder::new_multi_thread().enable_all().build()
    }

    pub(crate) fn real(rt: real::runtime::Runtime) -> Runtime {
        Runtime {
            handle: Handle(Repr::Real(rt.handle().clone())),
            real: Some(rt),
        }
    }

    pub(crate) fn node(here: dst::Here) -> Runtime {
        Runtime {
            handle: Handle(Repr::Node(here)),
            real: None,
        }
    }

    /// Real tokio's runtime behind this one, if it is real.
    pub(crate) fn real_runtime(&self) -> Option<&real::runtime::Runtime> {
        self.real.as_ref()
    }

    /// The runtime's handle.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Spawns a task on the runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs `func` on the runtime's blocking pool (on a node: as a task).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(func)
    }

    /// Runs `future` to completion on this thread; refused on a node.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        match &self.real {
            Some(rt) => rt.block_on(future),
            None => dst::refuse("Runtime::block_on", "await the future instead"),
        }
    }

    /// Enters the runtime's context.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// Shuts the runtime down, waiting at most `duration` for its blocking tasks.
    pub fn shutdown_timeout(self, duration: Duration) {
        if let Some(rt) = self.real {
            rt.shutdown_timeout(duration);
        }
    }

    /// Shuts the runtime down without waiting.
    pub fn shutdown_background(self) {
        if let Some(rt) = self.real {
            rt.shutdown_background();
        }
    }

    /// The runtime's metrics; refused for a node's.
    #[track_caller]
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }
}
