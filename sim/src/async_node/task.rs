//! Every task dst runs for a node is wrapped: the wrapper tells the rest of
//! this module which node is running (for runtime glue that has no
//! context object, such as openraft's `AsyncRuntime`), counts polls
//! against the node's budget, and turns a panic into a finding instead of
//! letting it unwind through the executor.

use super::host::{self, Note, Spin};
use crate::machine::NodeId;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use tokio::task::{JoinError, JoinHandle};

/// The node (and incarnation) whose dst task is running now, if one is:
/// tokio's replacement keeps it, so that its calls reach the same node.
pub(crate) fn current() -> Option<(NodeId, u64)> {
    tokio::dst::current().map(|h| (h.node, h.inc))
}

pub(crate) fn current_or_panic() -> (NodeId, u64) {
    current().expect("called outside a task of a dst node (spawn tasks with sim::async_node::spawn)")
}

/// Where a task was spawned, as a spin's finding names it.
pub(crate) type Site = Option<&'static std::panic::Location<'static>>;

pub(crate) struct NodeTask<F> {
    node: NodeId,
    inc: u64,
    main: bool,
    /// Where it was spawned; `None` for the node's main task.
    site: Site,
    /// Set once the task panicked or was stopped: it never runs again.
    dead: bool,
    fut: Pin<Box<F>>,
}

impl<F> NodeTask<F> {
    pub(crate) fn new(node: NodeId, inc: u64, fut: F, site: Site) -> Self {
        host::with_core(|c| {
            let n = &mut c.nodes[node];
            if n.inc == inc && n.up {
                n.tasks += 1;
            }
        });
        NodeTask {
            node,
            inc,
            main: site.is_none(),
            site,
            dead: false,
            fut: Box::pin(fut),
        }
    }
}

impl<F> Drop for NodeTask<F> {
    fn drop(&mut self) {
        let (node, inc) = (self.node, self.inc);
        host::try_with_core(|c| {
            let n = &mut c.nodes[node];
            if n.inc == inc && n.up {
                n.tasks = n.tasks.saturating_sub(1);
            }
        });
    }
}

impl<F: Future> Future for NodeTask<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if this.dead || !host::enter_poll(this.node, this.inc, this.site) {
            this.dead = true;
            return Poll::Pending;
        }
        let entered = tokio::dst::enter(tokio::dst::Here {
            node: this.node,
            inc: this.inc,
        });
        let polled = catch_unwind(AssertUnwindSafe(|| this.fut.as_mut().poll(cx)));
        drop(entered);
        match polled {
            Ok(Poll::Ready(v)) => {
                if this.main {
                    let (node, inc) = (this.node, this.inc);
                    host::with_core(|c| host::note(c, node, inc, Note::Exit));
                }
                Poll::Ready(v)
            }
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => {
                this.dead = true;
                let (node, inc) = (this.node, this.inc);
                let what = if payload.is::<Spin>() {
                    Note::Stall(format!(
                        "a task of node {node} made more than {} calls into dst without yielding: it spins",
                        host::CALLS_PER_POLL_MAX
                    ))
                } else if payload.is::<crate::machine::OutputFlood>() {
                    Note::Stall(format!(
                        "a task of node {node} produced more than {} outputs without the world carrying them out",
                        crate::machine::STEP_OUTPUTS_MAX
                    ))
                } else {
                    Note::Panic(crate::panics::panic_text(&payload))
                };
                host::with_core(|c| host::note(c, node, inc, what));
                Poll::Pending
            }
        }
    }
}

/// Spawns a task on the node whose task calls it: it dies with the node,
/// and a panic in it is a finding with the run's seed. The future need not
/// be `Send` (a run is one thread).
///
/// Panics if called outside a task of a dst node.
#[track_caller]
pub fn spawn<F>(fut: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    let (node, inc) = current_or_panic();
    tokio::dst::spawn_on_node(tokio::dst::Here { node, inc }, fut)
}
