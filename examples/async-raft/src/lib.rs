//! async-raft 0.6.1 from crates.io, unmodified, under dst.
//!
//! async-raft calls tokio directly: its core, its replication streams and
//! its per-RPC tasks are `tokio::spawn`ed, its timers are `tokio::time`,
//! its loops `select!`. Nothing here adapts that: the workspace patches
//! `tokio` with dst's, so every one of those calls runs on the simulated
//! node that made it, on that node's clock, and dies with the node. The
//! adapter implements what async-raft asks of an application: its
//! network trait (each RPC a call over dst's network), its storage trait
//! (a log, a hard state and snapshots on the node's disk, fsynced before
//! each call returns) and the key-value state machine the clients use.
//!
//! Its election timeouts come from rand 0.7's `thread_rng`, seeded through
//! getrandom 0.1; the workspace patches that too, so a seed replays.

pub mod config;
mod msg;
mod net;
mod node;
mod register;
mod store;

pub use msg::{Msg, Rec};
pub use register::{
    register, registry, APPLY_SKIPS_COMMITTED, GOALS, INITIALIZE_LOST, READ_QUORUM_COUNTS_SELF, SCENARIOS,
    STALE_APPEND_REAPPLIES,
};

use serde::{Deserialize, Serialize};
use sim::{KvOp, KvResult, ModelDef, Setup};

/// The model's name.
pub const MODEL: &str = "async-raft-0.6.1";

/// A client's write, as the command of a log entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub op: KvOp,
}

/// What applying a command returned, as async-raft hands it back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response(pub KvResult);

impl async_raft::AppData for Request {}
impl async_raft::AppDataResponse for Response {}

/// The release as a dst model.
pub fn model() -> ModelDef {
    ModelDef::new_async(
        MODEL,
        "async-raft 0.6.1 from crates.io, unmodified, on dst's tokio, behind a key-value store",
        |setup: Setup<'_, config::AsyncRaftConfig>| {
            let config = std::sync::Arc::new(setup.config.raft()?);
            Ok(move |ctx| node::node(ctx, config.clone()))
        },
    )
    .goals(GOALS)
    .generic(&[
        "no-dual-leaders",
        "state-machine-safety",
        "no-double-apply",
        "linearizable",
        "liveness",
    ])
}
