//! Time. On a simulated node every clock reading, sleep, interval and
//! timeout is on that node's own monotonic clock, which the run's clock
//! faults make drift; sleeps end at the true time the node's clock reaches
//! their deadline. Elsewhere, real tokio's.

mod instant;
mod interval;
mod sleep;
mod timeout;

pub use instant::Instant;
pub use interval::{interval, interval_at, Interval};
pub use real::time::MissedTickBehavior;
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};

/// Time errors.
pub mod error {
    pub use super::timeout::Elapsed;
    pub use real::time::error::Error;
}

#[cfg(feature = "test-util")]
mod test_util {
    use crate::dst::{self, Route};
    use std::time::Duration;

    /// Pauses real tokio's clock; refused on a node (its clock is the run's).
    #[track_caller]
    pub fn pause() {
        match dst::route("tokio::time::pause") {
            Route::Node(..) => dst::refuse("tokio::time::pause", "a node's clock is the simulation's"),
            Route::Real => real::time::pause(),
        }
    }

    /// Resumes real tokio's clock; refused on a node.
    #[track_caller]
    pub fn resume() {
        match dst::route("tokio::time::resume") {
            Route::Node(..) => dst::refuse("tokio::time::resume", "a node's clock is the simulation's"),
            Route::Real => real::time::resume(),
        }
    }

    /// Moves real tokio's paused clock on; refused on a node.
    pub async fn advance(duration: Duration) {
        match dst::route("tokio::time::advance") {
            Route::Node(..) => dst::refuse("tokio::time::advance", "a node's clock is the simulation's"),
            Route::Real => real::time::advance(duration).await,
        }
    }
}

#[cfg(feature = "test-util")]
pub use test_util::{advance, pause, resume};
