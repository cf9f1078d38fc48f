//! What dst does for tokio's replacement (the `tokio` crate of this
//! workspace, patched in for a whole dependency graph): a task it spawns
//! runs on the node that spawned it, its clock is the node's monotonic
//! clock, its sleeps are the node's sleeps, its random bytes the node's
//! stream. Installed for every run of async nodes.

use super::host::{self, with_core};
use super::task::NodeTask;
use super::time::{self, Sleep};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::dst::{Here, Sim};

pub(crate) struct Shim;

/// The one instance [`host::install`] installs.
pub(crate) static SHIM: Shim = Shim;

impl Sim for Shim {
    fn spawn(&self, here: Here, task: Pin<Box<dyn Future<Output = ()>>>, site: &'static std::panic::Location<'static>) {
        // madsim spawns on the node whose task runs; a handle of another
        // node (or of an incarnation gone) spawns nothing.
        let live = host::try_with_core(|c| {
            let n = &c.nodes[here.node];
            n.inc == here.inc && n.up
        });
        if live != Some(true) || tokio::dst::current() != Some(here) {
            return;
        }
        drop(madsim::task::spawn_local(NodeTask::new(
            here.node,
            here.inc,
            task,
            Some(site),
        )));
    }

    fn mono_ns(&self, here: Here) -> u64 {
        time::mono_ns(here.node, here.inc)
    }

    fn sleep_poll(&self, here: Here, slot: &mut u64, deadline_mono_ns: u64, cx: &mut Context<'_>) -> Poll<()> {
        if *slot == 0 {
            let now = time::mono_ns(here.node, here.inc);
            if now >= deadline_mono_ns {
                return Poll::Ready(());
            }
            let sleep = Sleep::after(here.node, here.inc, deadline_mono_ns - now);
            *slot = with_core(|c| {
                c.next_sleep += 1;
                c.sleeps.insert(c.next_sleep, sleep);
                c.next_sleep
            });
        }
        // Out of the table while it is polled: polling calls into dst.
        let Some(mut sleep) = with_core(|c| c.sleeps.remove(slot)) else {
            return Poll::Pending;
        };
        let polled = Pin::new(&mut sleep).poll(cx);
        if polled.is_pending() {
            with_core(|c| c.sleeps.insert(*slot, sleep));
        }
        polled
    }

    fn sleep_drop(&self, slot: u64) {
        let gone = host::try_with_core(|c| c.sleeps.remove(&slot)).flatten();
        drop(gone);
    }

    fn fill_random(&self, here: Option<Here>, dest: &mut [u8]) {
        use rand::RngCore;
        for chunk in dest.chunks_mut(8) {
            let v = match here {
                Some(h) => time::draw(h.node, h.inc),
                // madsim's generator is the run's, seeded by its seed.
                None => madsim::rand::thread_rng().next_u64(),
            };
            chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
        }
    }
}
