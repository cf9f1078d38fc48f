//! Tasks. On a simulated node every task runs on that node, dies with it,
//! and is scheduled in the order the run's seed draws; elsewhere they are
//! real tokio's. A panic in a node's task is a finding with the run's
//! seed, not a [`JoinError`]: dst stops there, where tokio would go on.

mod join;
pub mod join_set;
mod local;

pub use join::{id, try_id, AbortHandle, Id, JoinError, JoinHandle};
pub use join_set::JoinSet;
pub use local::{spawn_local, LocalEnterGuard, LocalSet};
pub use real::task::{consume_budget, coop, futures, unconstrained, yield_now, LocalKey, Unconstrained};

use crate::dst::{self, Here, Route};
use std::future::Future;

/// Spawns `future` as a new task: on the running node, or on real tokio's
/// runtime outside a simulation.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match dst::route("tokio::spawn") {
        Route::Node(here, sim) => join::spawn_on_node(sim, here, future),
        Route::Real => JoinHandle::real(real::task::spawn(future)),
    }
}

/// Runs `f` where blocking is allowed. On a node it runs as one of the
/// node's tasks: simulated time does not pass while it runs.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match dst::route("tokio::task::spawn_blocking") {
        Route::Node(here, sim) => join::spawn_on_node(sim, here, async move { f() }),
        Route::Real => JoinHandle::real(real::task::spawn_blocking(f)),
    }
}

/// Runs `f` in place, telling the runtime the thread blocks; on a node it
/// simply runs (the node's clock stands still meanwhile).
#[cfg(feature = "rt-multi-thread")]
#[track_caller]
pub fn block_in_place<F, R>(f: F) -> R
where
    F: FnOnce() -> R,
{
    match dst::route("tokio::task::block_in_place") {
        Route::Node(..) => f(),
        Route::Real => real::task::block_in_place(f),
    }
}

/// Spawns on the node a handle stands for, if its simulator is this
/// thread's; a handle carried off the run's thread spawns nothing.
#[track_caller]
pub(crate) fn spawn_on<F>(here: Here, what: &str, future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match dst::sim() {
        Some(sim) => join::spawn_on_node(sim, here, future),
        None => panic!("dst: {what} on a simulated node's handle, outside its run"),
    }
}
