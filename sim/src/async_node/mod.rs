//! Async nodes: a system written as async code (its own, or a library
//! driven through its runtime and I/O traits) runs under dst as it is.
//!
//! Each incarnation of a node is an async function, its main task, given a
//! [`Ctx`]: its handle on dst's network, disk, clients, clocks and random
//! stream. It and every task it spawns run on dst's executor, tagged with
//! their node and incarnation, which interleaves them in an order drawn
//! from the seed; a crash kills them all at once, memory included, and the
//! restart runs the main task again on what the disk durably held.
//! Everything else is what a sans-IO node gets: the fault plan, message
//! chaos, storage faults, clock faults and pauses, the checkers, coverage,
//! and every command.
//!
//! ```no_run
//! use sim::async_node::Ctx;
//! use sim::{ClientReply, KvResult};
//! use std::time::Duration;
//! # #[derive(Clone, Debug, serde::Serialize)] struct Ping;
//! # impl sim::MsgInfo for Ping { fn kind(&self) -> &'static str { "ping" } }
//!
//! async fn node(ctx: Ctx<Ping, ()>) {
//!     // Answer every client at once, and ping the next node each second.
//!     ctx.spawn(async move {
//!         loop {
//!             let req = ctx.client_request().await;
//!             ctx.client_reply(req.req_id, ClientReply::Ok(KvResult::Done));
//!         }
//!     });
//!     loop {
//!         ctx.sleep(Duration::from_secs(1)).await;
//!         ctx.send((ctx.id() + 1) % ctx.nodes(), Ping);
//!     }
//! }
//! ```
//!
//! Register it with [`crate::ModelDef::new_async`].
//!
//! Code with no [`Ctx`] at hand (a library's runtime trait: spawn, sleep,
//! now, random) uses this module's free functions, which act for the node
//! whose task is running. Code written against tokio runs on dst's
//! `tokio` crate, patched in for the whole dependency graph: every task it
//! spawns is the node's, and its time is the node's skewed, drifting clock.
//!
//! Limits, each a finding with the run's seed: a panic in any task; a node
//! polled more than [`POLLS_PER_SIM_MS_MAX`] times in a simulated
//! millisecond, or a task making more than [`CALLS_PER_POLL_MAX`] calls
//! into dst in one poll (it spins); a node that at the end of the run has
//! waited on nothing dst delivers for [`DEADLOCK_QUIET_MS`] while its tasks
//! live (deadlocked). A task that loops without calling into dst or
//! yielding cannot be stopped on one thread: it hangs the run.

mod ctx;
pub(crate) mod exec;
mod fs;
pub(crate) mod host;
pub(crate) mod net;
mod shim;
mod task;
pub(crate) mod time;
pub(crate) mod timer;
mod wire;

pub use ctx::{ClientRequest, Ctx, Fsync, LinkBroken, Next, Recv};
pub(crate) use host::HostMachine;
pub use host::{Message, Record, CALLS_PER_POLL_MAX, DEADLOCK_QUIET_MS, POLLS_PER_SIM_MS_MAX};
pub use task::{spawn, JoinError, JoinHandle};
pub use time::{
    now_mono_ns, now_wall_ns, random_u64, sleep, sleep_until_mono, timeout, timeout_at_mono, Elapsed, NodeRng, Sleep,
    Timeout,
};
pub use wire::{CallError, Envelope, ReplyTo};

/// Node `node`'s address on the simulated network, where dst's
/// `tokio::net` reaches it: 10.0.0.1 for node 0, 10.0.0.2 for node 1, ...
pub fn ip(node: crate::NodeId) -> std::net::IpAddr {
    net::addr_of(node)
}
