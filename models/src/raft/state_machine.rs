//! The replicated key-value map.

use sim::hash::stable_hash;
use sim::workload::{apply_kv, KvOp, KvResult, Value};
use std::collections::BTreeMap;

pub type KvData = BTreeMap<u32, Value>;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KvStore {
    map: KvData,
}

impl KvStore {
    pub fn from_data(map: KvData) -> KvStore {
        KvStore { map }
    }
    pub fn data(&self) -> &KvData {
        &self.map
    }
    pub fn apply(&mut self, op: &KvOp) -> KvResult {
        let key = op.key();
        let mut value = self.map.get(&key).cloned().unwrap_or_default();
        let result = apply_kv(&mut value, op);
        // An absent key and an empty value are the same state; keeping only
        // non-empty values makes the digest independent of failed cas/gets.
        if value.is_empty() {
            self.map.remove(&key);
        } else {
            self.map.insert(key, value);
        }
        result
    }
    pub fn digest(&self) -> u64 {
        digest_of(&self.map)
    }
}

/// The digest every node reports for a state: equal states, equal digests.
pub fn digest_of(data: &KvData) -> u64 {
    stable_hash(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_failed_cas_leave_the_digest_alone() {
        let mut kv = KvStore::default();
        let empty = kv.digest();
        kv.apply(&KvOp::Get { key: 1 });
        kv.apply(&KvOp::Cas {
            key: 1,
            expected: vec![9],
            value: 3,
        });
        assert_eq!(kv.digest(), empty);
    }

    #[test]
    fn a_repeated_append_changes_the_digest() {
        let mut a = KvStore::default();
        let mut b = KvStore::default();
        let op = KvOp::Append { key: 1, value: 5 };
        a.apply(&op);
        b.apply(&op);
        assert_eq!(a.digest(), b.digest());
        b.apply(&op);
        assert_ne!(a.digest(), b.digest());
        assert_eq!(b.data()[&1], vec![5, 5]);
    }
}
