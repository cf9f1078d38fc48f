//! Clients: a key-value workload with unique values, recorded as a history
//! of invoke / ok / fail / info.

use serde::{Deserialize, Serialize};

/// A key's value is a list: `put` replaces it with one element, `append`
/// adds one, so a repeated apply shows as a repeated element.
pub type Value = Vec<u64>;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "f", rename_all = "kebab-case")]
pub enum KvOp {
    Put {
        key: u32,
        value: u64,
    },
    Append {
        key: u32,
        value: u64,
    },
    Get {
        key: u32,
    },
    Cas {
        key: u32,
        expected: Value,
        value: u64,
    },
    /// A read any replica may serve from its own state if it is fresh
    /// within the scenario's staleness bound. Not linearizable by design:
    /// `bounded-staleness` judges it, `linearizable` ignores it.
    FollowerGet {
        key: u32,
    },
}

impl KvOp {
    pub fn key(&self) -> u32 {
        match self {
            KvOp::Put { key, .. }
            | KvOp::Append { key, .. }
            | KvOp::Get { key }
            | KvOp::Cas { key, .. }
            | KvOp::FollowerGet { key } => *key,
        }
    }
    pub fn is_read(&self) -> bool {
        matches!(self, KvOp::Get { .. } | KvOp::FollowerGet { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "r", rename_all = "kebab-case")]
pub enum KvResult {
    Done,
    Value { value: Value },
    Cas { applied: bool },
}

/// A request as a node receives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientReq {
    pub req_id: u64,
    pub op: KvOp,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientReply {
    Ok(KvResult),
    /// Definitely not applied; try `hint` if known.
    NotLeader {
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

/// Applies `op` to one key's value, as every correct state machine must.
pub fn apply_kv(value: &mut Value, op: &KvOp) -> KvResult {
    match op {
        KvOp::Put { value: v, .. } => {
            value.clear();
            value.push(*v);
            KvResult::Done
        }
        KvOp::Append { value: v, .. } => {
            value.push(*v);
            KvResult::Done
        }
        KvOp::Get { .. } | KvOp::FollowerGet { .. } => KvResult::Value { value: value.clone() },
        KvOp::Cas { expected, value: v, .. } => {
            if value == expected {
                value.clear();
                value.push(*v);
                KvResult::Cas { applied: true }
            } else {
                KvResult::Cas { applied: false }
            }
        }
    }
}
