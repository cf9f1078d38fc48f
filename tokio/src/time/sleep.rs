use super::Instant;
use crate::dst::{self, Here, Route};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Waits until `duration` has passed on the running node's clock.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let deadline = Instant::now().checked_add(duration).unwrap_or_else(Instant::far_future);
    sleep_until(deadline)
}

/// Waits until the running node's clock reads `deadline`.
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    let repr = match dst::route("tokio::time::sleep") {
        Route::Node(here, _) => Repr::Node {
            here,
            slot: 0,
            done: false,
        },
        Route::Real => Repr::Real(Box::pin(real::time::sleep_until(deadline.real()))),
    };
    Sleep { deadline, repr }
}

/// A future that ends at its deadline; see [`sleep`].
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Sleep {
    deadline: Instant,
    repr: Repr,
}

enum Repr {
    Real(Pin<Box<real::time::Sleep>>),
    /// `slot` names the simulator's timer once one is armed.
    Node {
        here: Here,
        slot: u64,
        done: bool,
    },
}

impl Sleep {
    /// When the sleep ends.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the deadline has passed.
    pub fn is_elapsed(&self) -> bool {
        match &self.repr {
            Repr::Real(s) => s.is_elapsed(),
            Repr::Node { here, done, .. } => {
                *done || dst::sim().is_some_and(|sim| sim.mono_ns(*here) >= self.deadline.mono_ns())
            }
        }
    }

    /// Moves the deadline; the sleep may end again.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let this = self.get_mut();
        this.deadline = deadline;
        match &mut this.repr {
            Repr::Real(s) => s.as_mut().reset(deadline.real()),
            Repr::Node { slot, done, .. } => {
                release(std::mem::take(slot));
                *done = false;
            }
        }
    }
}

/// Gives an armed timer back to the simulator, if its run is still here.
fn release(slot: u64) {
    if slot != 0 {
        if let Some(sim) = dst::sim() {
            sim.sleep_drop(slot);
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let deadline = this.deadline;
        match &mut this.repr {
            Repr::Real(s) => s.as_mut().poll(cx),
            Repr::Node { here, slot, done } => {
                if *done {
                    return Poll::Ready(());
                }
                // A sleep carried off the run's thread never ends.
                let Some(sim) = dst::sim() else {
                    return Poll::Pending;
                };
                let polled = sim.sleep_poll(*here, slot, deadline.mono_ns(), cx);
                if polled.is_ready() {
                    *done = true;
                    *slot = 0;
                }
                polled
            }
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Repr::Node { slot, .. } = &mut self.repr {
            release(std::mem::take(slot));
        }
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep").field("deadline", &self.deadline).finish()
    }
}
