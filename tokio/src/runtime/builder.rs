use super::Runtime;
use crate::dst::{self, Route};
use std::time::Duration;

/// Builds a runtime: real tokio's, configured as asked; or, inside a
/// node's task, the node itself (the configuration then has nothing to
/// say: a node is one thread, its clock and drivers are the simulator's).
pub struct Builder {
    real: real::runtime::Builder,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder").finish_non_exhaustive()
    }
}

/// Each setting passes through to real tokio's builder.
macro_rules! pass {
    ($( $(#[$m:meta])* fn $name:ident ( $( $arg:ident : $ty:ty ),* ); )*) => {
        $(
            $(#[$m])*
            pub fn $name(&mut self $(, $arg: $ty)*) -> &mut Self {
                self.real.$name($($arg),*);
                self
            }
        )*
    };
}

impl Builder {
    /// A builder of a current-thread runtime.
    pub fn new_current_thread() -> Builder {
        Builder {
            real: real::runtime::Builder::new_current_thread(),
        }
    }

    /// A builder of a multi-thread runtime.
    #[cfg(feature = "rt-multi-thread")]
    pub fn new_multi_thread() -> Builder {
        Builder {
            real: real::runtime::Builder::new_multi_thread(),
        }
    }

    pass! {
        /// Enables the I/O and time drivers.
        fn enable_all();
        /// Sets the number of worker threads.
        fn worker_threads(val: usize);
        /// Sets the most threads of the blocking pool.
        fn max_blocking_threads(val: usize);
        /// Names the runtime's threads.
        fn thread_name(val: impl Into<String>);
        /// Names the runtime.
        fn name(val: impl Into<String>);
        /// Names the runtime's threads by a function.
        fn thread_name_fn(f: impl Fn() -> String + Send + Sync + 'static);
        /// Sets the stack size of the runtime's threads.
        fn thread_stack_size(val: usize);
        /// Runs `f` as each thread starts.
        fn on_thread_start(f: impl Fn() + Send + Sync + 'static);
        /// Runs `f` as each thread stops.
        fn on_thread_stop(f: impl Fn() + Send + Sync + 'static);
        /// Runs `f` as each thread parks.
        fn on_thread_park(f: impl Fn() + Send + Sync + 'static);
        /// Runs `f` as each thread unparks.
        fn on_thread_unpark(f: impl Fn() + Send + Sync + 'static);
        /// Sets how long an idle blocking thread lives.
        fn thread_keep_alive(duration: Duration);
        /// Sets how often the global queue is polled.
        fn global_queue_interval(val: u32);
        /// Sets how often the drivers are polled.
        fn event_interval(val: u32);
    }

    #[cfg(feature = "net")]
    pass! {
        /// Enables the I/O driver.
        fn enable_io();
        /// Sets the most I/O events handled per tick.
        fn max_io_events_per_tick(capacity: usize);
    }

    #[cfg(feature = "time")]
    pass! {
        /// Enables the time driver.
        fn enable_time();
    }

    #[cfg(feature = "test-util")]
    pass! {
        /// Starts the runtime's clock paused.
        fn start_paused(start_paused: bool);
    }

    #[cfg(tokio_unstable)]
    pass! {
        /// Sets what a panicking task does to the runtime.
        fn unhandled_panic(behavior: super::UnhandledPanic);
        /// Disables the LIFO slot.
        fn disable_lifo_slot();
        /// Seeds the runtime's random choices.
        fn rng_seed(seed: super::RngSeed);
    }

    /// Builds the runtime: on a node, the node itself.
    #[track_caller]
    pub fn build(&mut self) -> std::io::Result<Runtime> {
        match dst::route("tokio::runtime::Builder::build") {
            Route::Node(here, _) => Ok(Runtime::node(here)),
            Route::Real => self.real.build().map(Runtime::real),
        }
    }
}
