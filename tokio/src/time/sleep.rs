use super::Instant;
use crate::dst::{self, Here, Route, SleepState};
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
            state: SleepState::default(),
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
    Node { here: Here, state: SleepState, done: bool },
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
            Repr::Node { here, state, done } => {
                release(*here, state);
                *done = false;
            }
        }
    }
}

/// Gives what the simulator keeps of a sleep back, if its run is still here.
fn release(here: Here, state: &mut SleepState) {
    if *state != SleepState::default() {
        if let Some(sim) = dst::sim() {
            sim.sleep_drop(here, state);
        }
        *state = SleepState::default();
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let deadline = this.deadline;
        match &mut this.repr {
            Repr::Real(s) => s.as_mut().poll(cx),
            Repr::Node { here, state, done } => {
                if *done {
                    return Poll::Ready(());
                }
                // A sleep carried off the run's thread never ends.
                let Some(sim) = dst::sim() else {
                    return Poll::Pending;
                };
                let polled = sim.sleep_poll(*here, state, deadline.mono_ns(), cx);
                *done = polled.is_ready();
                polled
            }
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Repr::Node { here, state, .. } = &mut self.repr {
            release(*here, state);
        }
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep").field("deadline", &self.deadline).finish()
    }
}
