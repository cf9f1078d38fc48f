//! Histories of dst's key-value store over many keys, drawn from a seeded
//! stream for benchmarks: clients run against a simulated atomic store, so
//! the history is linearizable by construction. Written values are unique,
//! as dst's own workload writes them.

use super::history::{History, Op};
use crate::kv_ops::{apply_kv, KvOp, KvResult, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The shape of a generated many-key history.
#[derive(Clone, Copy, Debug)]
pub struct KvShape {
    /// Ops in the history.
    pub ops: usize,
    /// Clients, each with at most one op open at a time.
    pub clients: usize,
    /// Keys the ops are spread over, uniformly.
    pub keys: u32,
    /// Chance in a thousand that an op ends with an unknown outcome
    /// (applied or not, at random).
    pub unknown_per_mille: u32,
    /// Chance in a thousand that a cas expects a list the key held before
    /// rather than the one it holds (and so, usually, does not apply).
    pub stale_cas_per_mille: u32,
}

/// A linearizable history of `shape`, the same for the same seed. Gets,
/// puts, appends and cas ops mix 4:2:2:2.
pub fn kv_history(seed: u64, shape: KvShape) -> History<KvOp, KvResult> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let clients = shape.clients.max(1);
    // (time, sequence) -> (client, op index, step): 0 invoke, 1 apply, 2 complete.
    let mut queue: BTreeMap<(u64, u64), (usize, usize, u8)> = BTreeMap::new();
    let mut seq = 0u64;
    for c in 0..clients {
        seq += 1;
        queue.insert((rng.gen_range(0..5), seq), (c, usize::MAX, 0));
    }
    let mut store: BTreeMap<u32, Value> = BTreeMap::new();
    let mut before: BTreeMap<u32, Value> = BTreeMap::new();
    let (mut position, mut next_value) = (0u64, 0u64);
    let mut ops: Vec<Op<KvOp, KvResult>> = Vec::with_capacity(shape.ops);
    // Per op: unknown outcome, applies, and what it returned.
    let mut fate: Vec<(bool, bool, Option<KvResult>)> = Vec::with_capacity(shape.ops);
    while let Some(((t, _), (client, id, step))) = queue.pop_first() {
        let mut at = |queue: &mut BTreeMap<(u64, u64), _>, t: u64, s| {
            seq += 1;
            queue.insert((t, seq), s);
        };
        match step {
            0 => {
                if ops.len() == shape.ops {
                    continue;
                }
                next_value += 1;
                let key = rng.gen_range(0..shape.keys.max(1));
                let input = match rng.gen_range(0..10) {
                    0..=3 => KvOp::Get { key },
                    4 | 5 => KvOp::Put { key, value: next_value },
                    6 | 7 => KvOp::Append { key, value: next_value },
                    _ => KvOp::Cas {
                        key,
                        expected: Vec::new(),
                        value: next_value,
                    },
                };
                position += 1;
                ops.push(Op {
                    client: client as u64,
                    input,
                    output: None,
                    invoke: position,
                    complete: None,
                });
                let unknown = rng.gen_range(0..1000) < shape.unknown_per_mille;
                fate.push((unknown, !unknown || rng.gen_bool(0.5), None));
                let apply = t + rng.gen_range(1..20);
                at(&mut queue, apply, (client, ops.len() - 1, 1));
                at(&mut queue, apply + rng.gen_range(1..20), (client, ops.len() - 1, 2));
            }
            1 => {
                let key = ops[id].input.key();
                let value = store.entry(key).or_default();
                if let KvOp::Cas { expected, .. } = &mut ops[id].input {
                    *expected = match rng.gen_range(0..1000) < shape.stale_cas_per_mille {
                        false => value.clone(),
                        true => before.get(&key).cloned().unwrap_or_default(),
                    };
                }
                if fate[id].1 {
                    let old = value.clone();
                    fate[id].2 = Some(apply_kv(value, &ops[id].input));
                    if old != *value {
                        before.insert(key, old);
                    }
                }
            }
            _ => {
                position += 1;
                let (unknown, _, result) = &fate[id];
                ops[id].complete = Some(position);
                ops[id].output = if *unknown { None } else { result.clone() };
                at(&mut queue, t + rng.gen_range(0..10), (client, usize::MAX, 0));
            }
        }
    }
    History { ops }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{check, DstKv, Options, Outcome};

    #[test]
    fn a_generated_history_is_linearizable_and_decided_without_a_search() {
        let shape = KvShape {
            ops: 5_000,
            clients: 8,
            keys: 50,
            unknown_per_mille: 10,
            stale_cas_per_mille: 50,
        };
        let h = kv_history(3, shape);
        assert_eq!(h.ops.len(), 5_000);
        assert_eq!(h, kv_history(3, shape));
        let c = check(&DstKv, &h, &Options::default());
        assert_eq!((&c.outcome, c.keys), (&Outcome::Linearizable, 50));
        // Stale cas ops that did not apply are placed in the order found
        // for the rest of their key.
        assert_eq!(c.keys_without_search, 50, "{c:?}");
    }
}
