//! The replicated key-value map, and the entry every log slot holds.

use serde::Serialize;
use sim::hash::stable_hash;
use sim::{apply_to_map, KvMap, KvOp, KvResult, NodeId};

/// A log entry: a client's op, who proposed it and in which epoch. Reads go
/// through the log too, so that a get is ordered among the writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cmd {
    /// The node whose client asked: it answers when the entry applies.
    pub node: NodeId,
    pub req: u64,
    pub op: KvOp,
    /// The proposing leader's epoch as one number (see
    /// [`crate::ballot::BallotRec::term`]), what `Apply` and `LogTail` report.
    pub term: u64,
}

/// The state machine every node applies decided entries to. It is not
/// persisted: a restarted node applies its decided log again from the start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kv {
    map: KvMap,
}

impl Kv {
    pub fn apply(&mut self, op: &KvOp) -> KvResult {
        apply_to_map(&mut self.map, op)
    }

    /// Hashes the whole state: equal states, equal digests, on every machine.
    pub fn digest(&self) -> u64 {
        stable_hash(&self.map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_leaves_the_digest_alone() {
        let mut kv = Kv::default();
        kv.apply(&KvOp::Append { key: 2, value: 7 });
        let before = kv.digest();
        let r = kv.apply(&KvOp::Get { key: 2 });
        assert_eq!(r, KvResult::Value { value: vec![7] });
        assert_eq!(kv.digest(), before);
    }
}
