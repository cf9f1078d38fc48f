use super::{sleep_until, Instant, MissedTickBehavior, Sleep};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// Ticks every `period`, the first tick at once.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    interval_at(Instant::now(), period)
}

/// Ticks every `period`, the first tick at `start`.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    Interval {
        delay: sleep_until(start),
        period,
        missed_tick_behavior: MissedTickBehavior::Burst,
    }
}

/// A clock that ticks every period; see [`interval`].
#[derive(Debug)]
pub struct Interval {
    delay: Sleep,
    period: Duration,
    missed_tick_behavior: MissedTickBehavior,
}

/// A tick counts as missed when it is polled this late.
const LATE: Duration = Duration::from_millis(5);

/// When the tick after one due at `due` and seen at `now` falls.
fn next_after(behavior: MissedTickBehavior, due: Instant, now: Instant, period: Duration) -> Instant {
    match behavior {
        MissedTickBehavior::Burst => due + period,
        MissedTickBehavior::Delay => now + period,
        MissedTickBehavior::Skip => {
            let late = (now - due).as_nanos() % period.as_nanos();
            now + period - Duration::from_nanos(late as u64)
        }
    }
}

impl Interval {
    /// Waits for the next tick; returns when it was due.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        if Pin::new(&mut self.delay).poll(cx).is_pending() {
            return Poll::Pending;
        }
        let due = self.delay.deadline();
        let now = Instant::now();
        let next = if now > due + LATE {
            next_after(self.missed_tick_behavior, due, now, self.period)
        } else {
            due.checked_add(self.period).unwrap_or_else(Instant::far_future)
        };
        Pin::new(&mut self.delay).reset(next);
        Poll::Ready(due)
    }

    /// The next tick is one period from now.
    pub fn reset(&mut self) {
        Pin::new(&mut self.delay).reset(Instant::now() + self.period);
    }

    /// The next tick is now.
    pub fn reset_immediately(&mut self) {
        Pin::new(&mut self.delay).reset(Instant::now());
    }

    /// The next tick is `after` from now.
    pub fn reset_after(&mut self, after: Duration) {
        Pin::new(&mut self.delay).reset(Instant::now() + after);
    }

    /// The next tick is at `deadline`.
    pub fn reset_at(&mut self, deadline: Instant) {
        Pin::new(&mut self.delay).reset(deadline);
    }

    /// What a late tick does to the ones after it.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        self.missed_tick_behavior
    }

    /// Sets what a late tick does to the ones after it.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        self.missed_tick_behavior = behavior;
    }

    /// The period.
    pub fn period(&self) -> Duration {
        self.period
    }
}
