use crate::dst;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::time::Duration;

/// A reading of a monotonic clock: on a node, the node's own (instants of
/// different nodes are readings of different clocks, as on different
/// machines); elsewhere the thread's.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

impl Instant {
    /// Now, on the running node's monotonic clock.
    pub fn now() -> Instant {
        match dst::node() {
            Some((here, sim)) => Instant::from_mono_ns(sim.mono_ns(here)),
            None => Instant {
                std: std::time::Instant::now(),
            },
        }
    }

    /// The instant a node's monotonic clock reads `ns`.
    pub(crate) fn from_mono_ns(ns: u64) -> Instant {
        Instant {
            std: dst::base() + Duration::from_nanos(ns),
        }
    }

    /// What a node's monotonic clock reads at this instant (0 before it started).
    pub(crate) fn mono_ns(self) -> u64 {
        let d = self.std.saturating_duration_since(dst::base());
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
    }

    /// About thirty years from now: a deadline nothing reaches.
    pub(crate) fn far_future() -> Instant {
        Instant::now() + Duration::from_secs(86_400 * 365 * 30)
    }

    /// The instant of a `std` instant.
    pub fn from_std(std: std::time::Instant) -> Instant {
        Instant { std }
    }

    /// This instant as a `std` instant.
    pub fn into_std(self) -> std::time::Instant {
        self.std
    }

    /// Time from `earlier` to this instant; zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time from `earlier` to this instant, if `earlier` is not later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Time from `earlier` to this instant; zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Time since this instant, on the same clock.
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// This instant plus `duration`, if it can be represented.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(Instant::from_std)
    }

    /// This instant minus `duration`, if it can be represented.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(Instant::from_std)
    }

    /// This instant as real tokio's.
    pub(crate) fn real(self) -> real::time::Instant {
        real::time::Instant::from_std(self.std)
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(i: Instant) -> std::time::Instant {
        i.into_std()
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std + rhs)
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.std.saturating_duration_since(rhs.std)
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, rhs: Duration) -> Instant {
        Instant::from_std(self.std - rhs)
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, rhs: Duration) {
        *self = *self - rhs;
    }
}

impl std::fmt::Debug for Instant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.std.fmt(f)
    }
}
