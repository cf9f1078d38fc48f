//! The replicated key-value map.

use super::lease::{LeaseGrant, LeaseRecord};
use sim::hash::stable_hash;
use sim::{apply_to_map, KvMap, KvOp, KvResult};

pub type KvData = KvMap;

/// Descriptor lease records live in the same map as client keys, under keys
/// no client uses, so that snapshots, digests and state-machine-safety
/// cover them as they cover client data. A record is `[seq, holder, expires_at_ns]`.
pub const LEASE_KEY_BASE: u32 = 0xFFFF_0000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
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
        apply_to_map(&mut self.map, op)
    }
    pub fn digest(&self) -> u64 {
        digest_of(&self.map)
    }
    pub fn lease(&self, lease: u32) -> Option<LeaseRecord> {
        let v = self.map.get(&LEASE_KEY_BASE.checked_add(lease)?)?;
        Some(LeaseRecord {
            seq: v[0],
            holder: v[1] as usize,
            expires_at_ns: v[2],
        })
    }
    /// A compare-and-set on the descriptor's record: the grant wins only if
    /// it replaces the grant its proposer saw. True if it won.
    pub fn apply_lease(&mut self, g: &LeaseGrant) -> bool {
        let Some(key) = LEASE_KEY_BASE.checked_add(g.lease) else {
            return false;
        };
        let seq = self.lease(g.lease).map_or(0, |r| r.seq);
        if seq != g.base_seq {
            return false;
        }
        self.map.insert(key, vec![seq + 1, g.holder as u64, g.expires_at_ns]);
        true
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
    fn a_lease_grant_wins_only_over_the_grant_it_names() {
        let mut kv = KvStore::default();
        let g = |holder, base_seq| LeaseGrant {
            lease: 2,
            holder,
            expires_at_ns: 100 + holder as u64,
            base_seq,
        };
        assert!(kv.apply_lease(&g(1, 0)));
        let after_first = kv.digest();
        // A racing grant made on the same (empty) view loses and changes nothing.
        assert!(!kv.apply_lease(&g(3, 0)));
        assert_eq!(kv.digest(), after_first);
        assert_eq!(kv.lease(2).unwrap().holder, 1);
        assert!(kv.apply_lease(&g(3, 1)));
        let r = kv.lease(2).unwrap();
        assert_eq!((r.seq, r.holder, r.expires_at_ns), (2, 3, 103));
        assert_eq!(kv.lease(0), None);
        // Client reads never see lease records.
        assert_eq!(kv.apply(&KvOp::Get { key: 2 }), KvResult::Value { value: vec![] });
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
