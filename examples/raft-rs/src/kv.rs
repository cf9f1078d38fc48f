//! The replicated key-value map, and what a log entry carries.

use serde::{Deserialize, Serialize};
use sim::hash::stable_hash;
use sim::{apply_to_map, KvMap, KvOp, KvResult, NodeId, Value};

pub type KvData = KvMap;

/// The state machine every node applies committed entries to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kv {
    map: KvData,
}

impl Kv {
    /// The state a snapshot's data holds (no data: the empty map).
    pub fn decode(data: &[u8]) -> Kv {
        if data.is_empty() {
            return Kv::default();
        }
        Kv {
            map: serde_json::from_slice(data).expect("snapshot data is a key-value map"),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(&self.map).expect("a map serializes")
    }

    pub fn apply(&mut self, op: &KvOp) -> KvResult {
        apply_to_map(&mut self.map, op)
    }

    pub fn get(&self, key: u32) -> Value {
        self.map.get(&key).cloned().unwrap_or_default()
    }

    /// Hashes the whole state: equal states, equal digests, on every machine.
    pub fn digest(&self) -> u64 {
        stable_hash(&self.map)
    }
}

/// The data of a normal entry: a client's write, and who proposed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub node: NodeId,
    pub req: u64,
    pub op: KvOp,
}

impl Proposal {
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a proposal serializes")
    }

    pub fn decode(data: &[u8]) -> Proposal {
        serde_json::from_slice(data).expect("entry data is a proposal")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_data_round_trips_and_keeps_the_digest() {
        let mut kv = Kv::default();
        kv.apply(&KvOp::Append { key: 2, value: 7 });
        kv.apply(&KvOp::Put { key: 0, value: 1 });
        let back = Kv::decode(&kv.encode());
        assert_eq!(back, kv);
        assert_eq!(back.digest(), kv.digest());
        assert_eq!(Kv::decode(&[]), Kv::default());
    }

    #[test]
    fn a_failed_cas_leaves_the_digest_alone() {
        let mut kv = Kv::default();
        let before = kv.digest();
        let r = kv.apply(&KvOp::Cas {
            key: 1,
            expected: vec![3],
            value: 4,
        });
        assert_eq!(r, KvResult::Cas { applied: false });
        assert_eq!(kv.digest(), before);
    }
}
