//! The adapter, compiled once per release (`super::openraft` is that
//! release's crate): openraft's type configuration for a key-value store,
//! its runtime, network, log store and state machine on dst, and the node
//! that ties them together.

use super::openraft;

mod msg;
mod net;
mod node;
mod runtime;
mod sm;
mod store;

pub use msg::{Msg, Rec};
pub use node::node;
pub use runtime::DstRuntime;

use serde::{Deserialize, Serialize};
use sim::{KvOp, KvResult};
use std::io::Cursor;

/// Where openraft's log index `index` stands in dst's events: openraft
/// numbers entries from 0 (its first is the initial membership), dst's
/// checkers from 1, with 0 meaning nothing applied.
pub fn position(index: u64) -> u64 {
    index + 1
}

/// A client's write, as an entry of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub op: KvOp,
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.op)
    }
}

openraft::declare_raft_types!(
    /// openraft's types for a key-value store on dst.
    pub TypeConfig:
        D = Request,
        R = KvResult,
        NodeId = u64,
        Node = openraft::BasicNode,
        Entry = openraft::Entry<TypeConfig>,
        SnapshotData = Cursor<Vec<u8>>,
        AsyncRuntime = DstRuntime,
);

/// This release as a dst model.
pub fn model(about: &str) -> sim::ModelDef {
    use crate::config::OpenraftConfig;
    sim::ModelDef::new_async(super::MODEL, about, |setup: sim::Setup<'_, OpenraftConfig>| {
        setup.config.validate()?;
        if setup.config.membership_churn_ms > 0 && setup.scenario.nodes < 5 {
            return Err("membership_churn_ms needs 5 nodes or more: with fewer, a demoted voter leaves a majority of the disks that is no majority of the voters".into());
        }
        let config = std::sync::Arc::new(node::raft_config(&setup.config)?);
        let store = std::sync::Arc::new(setup.config.clone());
        Ok(move |ctx| node(ctx, config.clone(), store.clone()))
    })
    .goals(crate::register::GOALS)
    // Not no-dual-leaders: openraft's leader id is (term, node id), so a
    // term may rightly see several leaders, and a leader whose committed
    // vote survived a restart resumes its leadership at once. What makes
    // that safe is what state-machine-safety and linearizable judge.
    .generic(&[
        "state-machine-safety",
        "no-double-apply",
        "linearizable",
        "liveness",
    ])
    .invariant(sim::InvariantDef::new(
        crate::quorum::CommitOnQuorum::ID,
        crate::quorum::CommitOnQuorum::HOLDS_WHEN,
        |s| Box::new(crate::quorum::CommitOnQuorum::new(s.nodes)),
    ))
}
