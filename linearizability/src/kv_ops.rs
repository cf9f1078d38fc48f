//! The key-value operations dst's clients issue and what each returns: the
//! sequential semantics the checker holds a key-value history to.

use serde::{Deserialize, Serialize};

/// A key's value is a list: `put` replaces it with one element, `append`
/// adds one, so a repeated apply shows as a repeated element.
pub type Value = Vec<u64>;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "f", rename_all = "kebab-case")]
/// An operation of dst's key-value workload on one key.
pub enum KvOp {
    /// Replaces the value with `[value]`.
    Put {
        /// The key.
        key: u32,
        /// The value written; unique in dst's workload.
        value: u64,
    },
    /// Adds `value` to the end of the list.
    Append {
        /// The key.
        key: u32,
        /// The value appended; unique in dst's workload.
        value: u64,
    },
    /// Reads the whole value, linearizably.
    Get {
        /// The key.
        key: u32,
    },
    /// Replaces the value with `[value]` if it is `expected`.
    Cas {
        /// The key.
        key: u32,
        /// What the value must be for the swap to apply.
        expected: Value,
        /// The value written if it applies.
        value: u64,
    },
    /// A read any replica may serve from its own state if it is fresh
    /// within the scenario's staleness bound. Not linearizable by design:
    /// `bounded-staleness` judges it, `linearizable` ignores it.
    FollowerGet {
        /// The key.
        key: u32,
    },
}

impl KvOp {
    /// The key it touches.
    pub fn key(&self) -> u32 {
        match self {
            KvOp::Put { key, .. }
            | KvOp::Append { key, .. }
            | KvOp::Get { key }
            | KvOp::Cas { key, .. }
            | KvOp::FollowerGet { key } => *key,
        }
    }
    /// Whether it only reads.
    pub fn is_read(&self) -> bool {
        matches!(self, KvOp::Get { .. } | KvOp::FollowerGet { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "r", rename_all = "kebab-case")]
/// What a key-value operation returned.
pub enum KvResult {
    /// A put or an append applied.
    Done,
    /// What a get read.
    Value {
        /// The whole value (empty: absent).
        value: Value,
    },
    /// How a compare-and-set went.
    Cas {
        /// Whether the value was `expected`, and so replaced.
        applied: bool,
    },
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
