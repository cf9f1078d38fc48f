//! `!Send` tasks. A node is one thread, so on a node `spawn_local` is
//! `spawn` without the `Send` bound, and a [`LocalSet`] made there is the
//! node: what it spawns runs on the node, and it aborts those tasks when
//! dropped, as tokio's does.

use super::{AbortHandle, JoinHandle};
use crate::dst::{self, Route};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Spawns a `!Send` task: on the running node, or on the real
/// [`LocalSet`] that runs it.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    match dst::route("tokio::task::spawn_local") {
        Route::Node(here, sim) => super::join::spawn_on_node(sim, here, future),
        Route::Real => JoinHandle::real(real::task::spawn_local(future)),
    }
}

/// A set of `!Send` tasks run on one thread.
pub struct LocalSet(Repr);

enum Repr {
    Real(real::task::LocalSet),
    Node(Arc<Tracked>),
}

/// The tasks a node's set spawned, so that it can wait for them and
/// abort them.
#[derive(Default)]
struct Tracked(Mutex<TrackedInner>);

#[derive(Default)]
struct TrackedInner {
    live: usize,
    aborts: Vec<AbortHandle>,
    waiter: Option<Waker>,
}

/// Counts a task of a node's set down when it ends or is dropped.
struct Live(Arc<Tracked>);

impl Drop for Live {
    fn drop(&mut self) {
        let w = {
            let mut t = self.0 .0.lock().unwrap_or_else(|p| p.into_inner());
            t.live -= 1;
            t.waiter.take()
        };
        if let Some(w) = w {
            w.wake();
        }
    }
}

/// Keeps a [`LocalSet`]'s context entered; see [`LocalSet::enter`].
#[derive(Debug)]
pub struct LocalEnterGuard {
    _real: Option<real::task::LocalEnterGuard>,
}

impl LocalSet {
    /// An empty set; made on a node, it spawns on the node.
    pub fn new() -> LocalSet {
        match dst::current() {
            Some(_) => LocalSet(Repr::Node(Arc::default())),
            None => LocalSet(Repr::Real(real::task::LocalSet::new())),
        }
    }

    /// Enters the set's context, so that `spawn_local` spawns on it.
    pub fn enter(&self) -> LocalEnterGuard {
        match &self.0 {
            Repr::Real(s) => LocalEnterGuard { _real: Some(s.enter()) },
            Repr::Node(_) => LocalEnterGuard { _real: None },
        }
    }

    /// Spawns a `!Send` task on the set.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        match &self.0 {
            Repr::Real(s) => JoinHandle::real(s.spawn_local(future)),
            Repr::Node(t) => {
                let live = Live(t.clone());
                t.0.lock().unwrap_or_else(|p| p.into_inner()).live += 1;
                let h = spawn_local(async move {
                    let _live = live;
                    future.await
                });
                t.0.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .aborts
                    .push(h.abort_handle());
                h
            }
        }
    }

    /// Runs `future` on this thread with the set's tasks; refused on a node.
    #[track_caller]
    pub fn block_on<F: Future>(&self, rt: &crate::runtime::Runtime, future: F) -> F::Output {
        match &self.0 {
            Repr::Real(s) => match rt.real_runtime() {
                Some(rt) => s.block_on(rt, future),
                None => dst::refuse("LocalSet::block_on", "await the future instead"),
            },
            Repr::Node(_) => dst::refuse("LocalSet::block_on", "await the future instead"),
        }
    }

    /// Runs `future` while the set's tasks run.
    pub async fn run_until<F: Future>(&self, future: F) -> F::Output {
        match &self.0 {
            Repr::Real(s) => s.run_until(future).await,
            Repr::Node(_) => future.await,
        }
    }
}

impl Default for LocalSet {
    fn default() -> Self {
        LocalSet::new()
    }
}

impl std::fmt::Debug for LocalSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSet").finish_non_exhaustive()
    }
}

impl Future for LocalSet {
    type Output = ();

    /// Ends when every task of the set has ended.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll(cx),
            Repr::Node(t) => {
                let mut t = t.0.lock().unwrap_or_else(|p| p.into_inner());
                if t.live == 0 {
                    return Poll::Ready(());
                }
                t.waiter = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for LocalSet {
    fn drop(&mut self) {
        if let Repr::Node(t) = &self.0 {
            let aborts = std::mem::take(&mut t.0.lock().unwrap_or_else(|p| p.into_inner()).aborts);
            for a in aborts {
                a.abort();
            }
        }
    }
}
