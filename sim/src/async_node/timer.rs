//! One madsim timer, as both the world and the nodes' sleeps use it: a
//! deadline in true time, and a relay that hands the timer's wake-up to
//! whichever task polled last. madsim keeps every waker a sleep was polled
//! with (one timer per poll), so dst polls a madsim sleep once and moves
//! the waker through the relay instead. Relays are pooled: a timer that
//! fires or is stopped gives its relay back once madsim has let go of it,
//! which spares an allocation per timer, the cost that dominates a run of
//! short waits.

use super::host::{self, Core};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// Relays kept for reuse; more than a run ever has armed at once rarely.
const POOL_MAX: usize = 64;
/// Pooled relays looked at for a free one before allocating.
const POOL_SCAN: usize = 4;

pub(crate) struct Relay(Mutex<Option<Waker>>);

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let w = self.0.lock().map(|mut w| w.take()).unwrap_or(None);
        if let Some(w) = w {
            w.wake();
        }
    }
}

impl Relay {
    fn set(&self, waker: Option<Waker>) {
        if let Ok(mut w) = self.0.lock() {
            *w = waker;
        }
    }
}

/// The relays of the run, free or still held by a pending madsim timer.
#[derive(Default)]
pub(crate) struct Pool(Vec<Arc<Relay>>);

impl Pool {
    fn take(&mut self, waker: Waker) -> Arc<Relay> {
        // A relay only this pool holds is one no timer can wake any more;
        // the oldest are the likeliest to be free.
        let free = (0..self.0.len().min(POOL_SCAN)).find(|&i| Arc::strong_count(&self.0[i]) == 1);
        match free {
            Some(i) => {
                let relay = self.0.swap_remove(i);
                relay.set(Some(waker));
                relay
            }
            None => Arc::new(Relay(Mutex::new(Some(waker)))),
        }
    }

    fn give(&mut self, relay: Arc<Relay>) {
        if self.0.len() < POOL_MAX {
            self.0.push(relay);
        }
    }
}

/// A madsim timer at a true time, waking the task that last polled it.
pub(crate) struct Timer {
    relay: Option<Arc<Relay>>,
    _sleep: madsim::time::Sleep,
}

impl Timer {
    /// Arms a timer at true time `at_ns` for the task polling `cx`; None if
    /// that time has come already.
    pub(crate) fn start(c: &mut Core, at_ns: u64, cx: &Context<'_>) -> Option<Timer> {
        let at = c.base + Duration::from_nanos(at_ns);
        // madsim's sleeps last at least a millisecond; a reset one keeps
        // its deadline to the nanosecond.
        let mut sleep = c.time.sleep_until(at);
        Pin::new(&mut sleep).reset(at);
        let relay = c.relays.take(cx.waker().clone());
        let waker = Waker::from(relay.clone());
        let polled = Pin::new(&mut sleep).poll(&mut Context::from_waker(&waker));
        drop(waker);
        match polled {
            Poll::Ready(()) => {
                relay.set(None);
                c.relays.give(relay);
                None
            }
            Poll::Pending => Some(Timer {
                relay: Some(relay),
                _sleep: sleep,
            }),
        }
    }

    /// The timer wakes the task polling `cx` from now on.
    pub(crate) fn rewake(&self, cx: &Context<'_>) {
        if let Some(r) = &self.relay {
            r.set(Some(cx.waker().clone()));
        }
    }

    /// The timer, when it fires, wakes nothing. Without this it still wakes
    /// the task that polled it last, as a dropped madsim sleep does.
    pub(crate) fn stop(mut self) {
        if let Some(relay) = self.relay.take() {
            relay.set(None);
            give(relay);
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(relay) = self.relay.take() {
            give(relay);
        }
    }
}

/// Back to the pool, to be reused once madsim has let go of it; inside a
/// borrow of the shared state the relay is let go instead.
fn give(relay: Arc<Relay>) {
    let _ = host::try_with_core(move |c| c.relays.give(relay));
}
