//! Clients: a key-value workload with unique values, recorded as a history
//! of invoke / ok / fail / info.

use serde::{Deserialize, Serialize};

pub use linearizability::{apply_kv, KvOp, KvResult, Value};

/// A request as a node receives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientReq {
    /// Unique to this request in the run (a retry is a new request); the reply names it.
    pub req_id: u64,
    /// The operation asked for.
    pub op: KvOp,
}

/// A node's answer to a [`ClientReq`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientReply {
    /// Applied, with what it returned.
    Ok(KvResult),
    /// Definitely not applied; try `hint` if known.
    NotLeader {
        /// The node the replier takes for the leader, if it knows one.
        hint: Option<usize>,
    },
    /// May or may not take effect.
    Unknown,
}

/// A whole key-value state: what a replicated state machine under this
/// workload holds.
pub type KvMap = std::collections::BTreeMap<u32, Value>;

/// Applies `op` to a whole state. An empty value and an absent key are one
/// state (the key is removed), so that reads and failed compare-and-sets
/// leave the state, and any digest of it, exactly as they found it.
pub fn apply_to_map(map: &mut KvMap, op: &KvOp) -> KvResult {
    let key = op.key();
    let mut value = map.remove(&key).unwrap_or_default();
    let result = apply_kv(&mut value, op);
    if !value.is_empty() {
        map.insert(key, value);
    }
    result
}
