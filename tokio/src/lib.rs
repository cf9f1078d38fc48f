//! tokio, for code run under dst.
//!
//! Patched in for the whole dependency graph (`[patch.crates-io] tokio =
//! { path = ".../dst/tokio" }`), this crate is tokio to every crate that
//! names it: the same modules, types and signatures. What is pure in
//! tokio (`sync`, the `io` traits and utilities, `select!`, `join!`,
//! `pin!`, `task_local!`) is real tokio's, re-exported. What touches the
//! world is routed by where it is called:
//!
//! - inside a task of a simulated node, to that node: `spawn` and every
//!   other way to start a task runs it on the node (it dies with the
//!   node); `time` reads and sleeps on the node's own skewed, drifting
//!   monotonic clock;
//! - anywhere else, to real tokio: `#[tokio::main]` binaries and
//!   `#[tokio::test]` tests of the same graph run as they always did.
//!
//! What a node cannot do (block its one thread on a future, pause the
//! simulation's clock) stops the task with a message that names the call
//! and what to do instead; dst reports it as a finding with the seed.
//!
//! [`dst`] is the interface the simulator installs itself through; code
//! under test never names it.

#![warn(missing_docs)]
#![warn(unnameable_types)]

pub mod dst;
pub mod runtime;
pub mod task;
pub mod time;

pub use real::io;

#[cfg(feature = "sync")]
pub use real::sync;

#[cfg(feature = "net")]
pub mod net;

#[cfg(feature = "fs")]
pub mod fs;

#[cfg(feature = "process")]
pub use real::process;

#[cfg(feature = "signal")]
pub use real::signal;

pub use task::spawn;

pub use real::{join, pin, select, task_local, try_join};

#[cfg(feature = "macros")]
pub use real::{main, test};
