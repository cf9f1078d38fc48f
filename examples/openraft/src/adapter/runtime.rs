//! openraft's `AsyncRuntime` on dst: spawn, sleep, timeouts, instants and
//! random numbers of the node whose task calls them.

use super::openraft;
use sim::async_node as an;
use std::future::Future;
use std::time::Duration;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct DstRuntime;

/// A point on the running node's monotonic clock, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(u64);

fn ns(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

impl std::ops::Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(ns(d)))
    }
}

impl std::ops::AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl std::ops::Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(ns(d)))
    }
}

impl std::ops::SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, d: Duration) {
        *self = *self - d;
    }
}

impl std::ops::Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

impl openraft::Instant for Instant {
    fn now() -> Self {
        Instant(an::now_mono_ns())
    }
}

/// The sending half of a oneshot channel (tokio's, which needs no runtime).
pub struct OneshotSender<T>(tokio::sync::oneshot::Sender<T>);

impl<T> std::fmt::Debug for OneshotSender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OneshotSender")
    }
}

impl<T: openraft::OptionalSend> openraft::async_runtime::AsyncOneshotSendExt<T> for OneshotSender<T> {
    fn send(self, t: T) -> Result<(), T> {
        self.0.send(t)
    }
}

impl openraft::AsyncRuntime for DstRuntime {
    type JoinError = an::JoinError;
    type JoinHandle<T: openraft::OptionalSend + 'static> = an::JoinHandle<T>;
    type Sleep = an::Sleep;
    type Instant = Instant;
    type TimeoutError = an::Elapsed;
    type Timeout<R, T: Future<Output = R> + openraft::OptionalSend> = an::Timeout<T>;
    type ThreadLocalRng = an::NodeRng;
    type OneshotSender<T: openraft::OptionalSend> = OneshotSender<T>;
    type OneshotReceiverError = tokio::sync::oneshot::error::RecvError;
    type OneshotReceiver<T: openraft::OptionalSend> = tokio::sync::oneshot::Receiver<T>;

    fn spawn<T>(future: T) -> Self::JoinHandle<T::Output>
    where
        T: Future + openraft::OptionalSend + 'static,
        T::Output: openraft::OptionalSend + 'static,
    {
        an::spawn(future)
    }

    fn sleep(duration: Duration) -> Self::Sleep {
        an::sleep(duration)
    }

    fn sleep_until(deadline: Self::Instant) -> Self::Sleep {
        an::sleep_until_mono(deadline.0)
    }

    fn timeout<R, F: Future<Output = R> + openraft::OptionalSend>(
        duration: Duration,
        future: F,
    ) -> Self::Timeout<R, F> {
        an::timeout(duration, future)
    }

    fn timeout_at<R, F: Future<Output = R> + openraft::OptionalSend>(
        deadline: Self::Instant,
        future: F,
    ) -> Self::Timeout<R, F> {
        an::timeout_at_mono(deadline.0, future)
    }

    fn is_panic(join_error: &Self::JoinError) -> bool {
        join_error.is_panic()
    }

    fn thread_rng() -> Self::ThreadLocalRng {
        an::NodeRng
    }

    fn oneshot<T>() -> (Self::OneshotSender<T>, Self::OneshotReceiver<T>)
    where
        T: openraft::OptionalSend,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        (OneshotSender(tx), rx)
    }
}
