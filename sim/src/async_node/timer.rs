//! One timer of the run's executor, as both the world and the nodes'
//! sleeps use it: a deadline in true time that wakes whichever task polled
//! it last. Dropping it cancels it.

use super::exec::{self, TimerKey};
use std::task::Context;

/// A timer at a true time, waking the task that last polled it.
pub(crate) struct Timer {
    key: Option<TimerKey>,
}

impl Timer {
    /// Arms a timer at true time `at_ns` for the task polling `cx`; None if
    /// that time has come already.
    pub(crate) fn start(at_ns: u64, cx: &Context<'_>) -> Option<Timer> {
        if at_ns <= exec::now_ns() {
            return None;
        }
        Some(Timer {
            key: Some(exec::timer_start(at_ns, cx.waker().clone())),
        })
    }

    /// The timer rings at `at_ns` instead, for the task polling `cx`; None
    /// (and stopped) if that time has come already.
    pub(crate) fn restart(mut self, at_ns: u64, cx: &Context<'_>) -> Option<Timer> {
        if at_ns <= exec::now_ns() {
            return None;
        }
        let key = match self.key.take() {
            Some(k) => exec::timer_move(k, at_ns, cx.waker()),
            None => exec::timer_start(at_ns, cx.waker().clone()),
        };
        Some(Timer { key: Some(key) })
    }

    /// The timer wakes the task polling `cx` from now on.
    pub(crate) fn rewake(&self, cx: &Context<'_>) {
        if let Some(k) = self.key {
            exec::timer_rewake(k, cx.waker());
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            exec::timer_cancel(k);
        }
    }
}
