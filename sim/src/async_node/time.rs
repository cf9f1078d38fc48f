//! A node's own time for async code: its clocks (skewed, drifting, as the
//! plan sets them), sleeps on its monotonic clock, timeouts, and its
//! random stream. Sleeps are the executor's timers at the true time the
//! node's clock reaches the deadline, ordered with everything else;
//! a clock fault that changes the rate after a sleep began does not move
//! it, as with a sans-IO node's timers.

use super::exec::{self, TimerKey};
use super::host;
use super::task::current_or_panic;
use crate::machine::NodeId;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::dst::SleepState;

/// The running node's monotonic clock, in ns (drifts, never jumps).
pub fn now_mono_ns() -> u64 {
    let (node, inc) = current_or_panic();
    mono_ns(node, inc)
}

/// The running node's wall clock, in ns (skewed, drifting, may jump).
pub fn now_wall_ns() -> u64 {
    let (node, inc) = current_or_panic();
    host::enter_call(node, inc, |c, now| c.nodes[node].clock.wall_ns(now)).unwrap_or(0)
}

pub(crate) fn mono_ns(node: NodeId, inc: u64) -> u64 {
    host::enter_call(node, inc, |c, now| c.nodes[node].clock.mono_ns(now)).unwrap_or(0)
}

/// A random u64 from the running node's own stream of the run's seed.
pub fn random_u64() -> u64 {
    let (node, inc) = current_or_panic();
    draw(node, inc)
}

pub(crate) fn draw(node: NodeId, inc: u64) -> u64 {
    use rand::RngCore;
    host::enter_call(node, inc, |c, _| c.nodes[node].rng.next_u64()).unwrap_or(0)
}

/// The running node's random stream as a [`rand::RngCore`], for code that
/// asks for a generator (a library's runtime trait).
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeRng;

impl rand::RngCore for NodeRng {
    fn next_u32(&mut self) -> u32 {
        random_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        random_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let v = random_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// Sleeps `d` of the running node's monotonic clock.
pub fn sleep(d: Duration) -> Sleep {
    let (node, inc) = current_or_panic();
    Sleep::after(node, inc, d.as_nanos().min(u64::MAX as u128) as u64)
}

/// Sleeps until the running node's monotonic clock reads `mono_ns`.
pub fn sleep_until_mono(mono_ns: u64) -> Sleep {
    let (node, inc) = current_or_panic();
    let after = mono_ns.saturating_sub(self::mono_ns(node, inc));
    Sleep::after(node, inc, after)
}

/// Runs `fut` for at most `d` of the running node's monotonic clock.
pub fn timeout<F: Future>(d: Duration, fut: F) -> Timeout<F> {
    Timeout {
        fut: Box::pin(fut),
        sleep: sleep(d),
    }
}

/// Runs `fut` until the running node's monotonic clock reads `mono_ns`.
pub fn timeout_at_mono<F: Future>(mono_ns: u64, fut: F) -> Timeout<F> {
    Timeout {
        fut: Box::pin(fut),
        sleep: sleep_until_mono(mono_ns),
    }
}

/// A sleep on a node's monotonic clock; see [`sleep`].
pub struct Sleep {
    node: NodeId,
    inc: u64,
    state: SleepState,
}

impl Sleep {
    pub(crate) fn after(node: NodeId, inc: u64, after_ns: u64) -> Sleep {
        let until =
            host::enter_call(node, inc, |c, now| c.nodes[node].clock.true_after(now, after_ns)).unwrap_or(u64::MAX);
        Sleep {
            node,
            inc,
            state: SleepState {
                until_ns: Some(until),
                ..SleepState::default()
            },
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        poll_sleep(this.node, this.inc, &mut this.state, cx)
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        release(self.node, self.inc, &mut self.state);
    }
}

/// Polls a sleep of `inc` of `node` that ends at true time
/// `state.until_ns`: arms its timer (or has it wake this task now) while it
/// is pending, and counts it as the node's sleep. A sleep of an
/// incarnation gone never ends.
pub(crate) fn poll_sleep(node: NodeId, inc: u64, state: &mut SleepState, cx: &mut Context<'_>) -> Poll<()> {
    let until = state.until_ns.unwrap_or(u64::MAX);
    let pending = host::enter_call(node, inc, |c, now| {
        if now >= until {
            return false;
        }
        match state.timer {
            Some(key) => exec::timer_rewake(TimerKey::from_bits(key), cx.waker()),
            None => state.timer = Some(exec::timer_start(until, cx.waker().clone()).to_bits()),
        }
        if !state.counted {
            state.counted = true;
            c.nodes[node].sleeping += 1;
        }
        true
    });
    match pending {
        Some(false) => {
            release(node, inc, state);
            Poll::Ready(())
        }
        _ => Poll::Pending,
    }
}

/// The sleep in `state` wakes nobody and is no longer its node's.
pub(crate) fn release(node: NodeId, inc: u64, state: &mut SleepState) {
    if let Some(key) = state.timer.take() {
        exec::timer_cancel(TimerKey::from_bits(key));
    }
    if std::mem::take(&mut state.counted) {
        host::try_with_core(|c| {
            let n = &mut c.nodes[node];
            if n.inc == inc {
                n.sleeping = n.sleeping.saturating_sub(1);
            }
        });
    }
}

/// The sleep ran out before the future finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elapsed;

impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

/// A future with a deadline on its node's monotonic clock; see [`timeout`].
pub struct Timeout<F> {
    fut: Pin<Box<F>>,
    sleep: Sleep,
}

impl<F> Timeout<F> {
    pub(crate) fn new(fut: F, sleep: Sleep) -> Self {
        Timeout {
            fut: Box::pin(fut),
            sleep,
        }
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = self.fut.as_mut().poll(cx) {
            return Poll::Ready(Ok(v));
        }
        match Pin::new(&mut self.sleep).poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed)),
            Poll::Pending => Poll::Pending,
        }
    }
}
