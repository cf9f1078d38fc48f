//! The runtime: [`Builder`], [`Runtime`] and [`Handle`]. Outside a
//! simulation they are real tokio's. Inside a node's task a runtime built
//! there, or the current handle, stands for that node: what it spawns
//! runs on the node, and blocking on it is refused (a node's tasks share
//! one thread; blocking it would stop them all).

mod builder;
mod handle;
#[allow(clippy::module_inception)]
mod runtime;

pub use builder::Builder;
pub use handle::{EnterGuard, Handle};
pub use real::runtime::{is_rt_shutdown_err, Id, RuntimeFlavor, RuntimeMetrics, TryCurrentError};
pub use runtime::Runtime;

#[cfg(tokio_unstable)]
pub use real::runtime::{RngSeed, UnhandledPanic};
