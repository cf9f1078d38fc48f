//! [`JoinSet`]: tasks spawned together, joined as they finish. One
//! implementation serves nodes and real tokio alike, over [`JoinHandle`];
//! among tasks that finished since the last look it gives the one spawned
//! first, so a seed joins them in the same order every time.

use super::{AbortHandle, Id, JoinError, JoinHandle, LocalSet};
use crate::runtime::Handle;
use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// A collection of tasks, joined in the order they finish.
pub struct JoinSet<T> {
    tasks: Vec<JoinHandle<T>>,
}

impl<T> JoinSet<T> {
    /// An empty set.
    pub fn new() -> Self {
        JoinSet { tasks: Vec::new() }
    }

    /// How many tasks the set holds (finished ones not yet joined count).
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    fn insert(&mut self, h: JoinHandle<T>) -> AbortHandle {
        let abort = h.abort_handle();
        self.tasks.push(h);
        abort
    }

    /// Aborts every task; they stay in the set until joined.
    pub fn abort_all(&mut self) {
        for h in &self.tasks {
            h.abort();
        }
    }

    /// Removes every task without aborting it.
    pub fn detach_all(&mut self) {
        self.tasks.clear();
    }

    /// Polls for the next finished task's output.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx).map(|r| r.map(|r| r.map(|(_, v)| v)))
    }

    /// Polls for the next finished task's id and output.
    pub fn poll_join_next_with_id(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.tasks.is_empty() {
            return Poll::Ready(None);
        }
        for i in 0..self.tasks.len() {
            if let Poll::Ready(r) = Pin::new(&mut self.tasks[i]).poll(cx) {
                let h = self.tasks.remove(i);
                return Poll::Ready(Some(r.map(|v| (h.id(), v))));
            }
        }
        Poll::Pending
    }

    /// Waits for the next task to finish; None when the set is empty.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// [`JoinSet::join_next`], with the task's id.
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// The output of a task that has finished, if one has.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id().map(|r| r.map(|(_, v)| v))
    }

    /// [`JoinSet::try_join_next`], with the task's id.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let mut cx = Context::from_waker(Waker::noop());
        match self.poll_join_next_with_id(&mut cx) {
            Poll::Ready(r) => r,
            Poll::Pending => None,
        }
    }

    /// Aborts every task and waits for all of them to end.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// Waits for every task and returns their outputs in the order they
    /// finished; a task that panicked panics here too.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        while let Some(r) = self.join_next().await {
            match r {
                Ok(v) => out.push(v),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => panic!("{e}"),
            }
        }
        out
    }
}

impl<T: 'static> JoinSet<T> {
    /// Spawns `task` into the set (on the running node, in a simulation).
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        self.insert(super::spawn(task))
    }

    /// Spawns `task` into the set, on the runtime of `handle`.
    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn(task))
    }

    /// Spawns a `!Send` task into the set.
    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        self.insert(super::spawn_local(task))
    }

    /// Spawns a `!Send` task into the set, on `local_set`.
    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        self.insert(local_set.spawn_local(task))
    }

    /// Runs blocking `f` as a task of the set.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        self.insert(super::spawn_blocking(f))
    }

    /// Runs blocking `f` as a task of the set, on the runtime of `handle`.
    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        self.insert(handle.spawn_blocking(f))
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        self.abort_all();
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        JoinSet::new()
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

impl<T, F> std::iter::FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

impl<T, F> Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    fn extend<I: IntoIterator<Item = F>>(&mut self, iter: I) {
        for task in iter {
            self.spawn(task);
        }
    }
}
