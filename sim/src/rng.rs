//! Independent random streams split from one seed, so that editing one
//! consumer (the plan, say) never reshuffles another (the workload).

use crate::hash::StableHasher;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hash::{Hash, Hasher};

/// The consumers of chance in a run, each with its own stream of one seed.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Which fault kinds a seed enables and its message chaos rates.
    Swarm,
    /// The fault plan: which faults come, when, and to whom.
    Plan,
    /// The fate of each message: loss, duplication, delay.
    Net,
    /// The clients: their ops, keys, think times and backoffs.
    Workload,
    /// Fsync times and torn writes.
    Disk,
    /// Which of the workload's read spells are read-only.
    Spells,
    /// The knobs a scenario's `vary` draws.
    Vary,
    /// The randomness node `i` draws through its `Io`.
    Node(usize),
}

impl Stream {
    fn id(self) -> u64 {
        match self {
            Stream::Swarm => 1,
            Stream::Plan => 2,
            Stream::Net => 3,
            Stream::Workload => 4,
            Stream::Disk => 5,
            Stream::Spells => 6,
            Stream::Vary => 7,
            Stream::Node(i) => 1000 + i as u64,
        }
    }
}

/// The stream `which` of the run with `seed`: the same generator for the same pair.
pub fn stream(seed: u64, which: Stream) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(which.id());
    rng
}

/// The stream `which` that a fork of the run with `seed` continues with,
/// given the stream `old` it replaces. It depends on where `old` had got
/// to, not on `seed` alone: two forks with one seed (a plan may repeat an
/// entry), or a fork with the run's own seed, would otherwise replay
/// randomness the run already drew, and a model may rightly count on its
/// random ids never repeating. Deterministic all the same: the same run up
/// to the fork, the same seed, the same continuation.
pub fn fork(old: &mut ChaCha8Rng, seed: u64, which: Stream) -> ChaCha8Rng {
    use rand::RngCore;
    let mut h = StableHasher::default();
    (seed, old.next_u64(), which.id()).hash(&mut h);
    stream(h.finish(), which)
}

/// Node `node`'s stream for one step of an explored run, keyed by the
/// node's state (its digest) instead of by the draws before it.
pub(crate) fn keyed_stream(seed: u64, node: usize, key: u64) -> ChaCha8Rng {
    let mut h = StableHasher::default();
    (seed, key).hash(&mut h);
    stream(h.finish(), Stream::Node(node))
}

/// Uniform in `lo..=hi` without modulo bias worth caring about at these sizes.
pub fn range(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    use rand::Rng;
    if hi <= lo {
        return lo;
    }
    rng.gen_range(lo..=hi)
}

/// True with probability `p`; false without a draw when `p` is 0 or less.
pub fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    use rand::Rng;
    p > 0.0 && rng.gen::<f64>() < p
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn streams_of_one_seed_differ_and_repeat() {
        let a = stream(7, Stream::Plan).next_u64();
        let b = stream(7, Stream::Workload).next_u64();
        assert_ne!(a, b);
        assert_eq!(a, stream(7, Stream::Plan).next_u64());
    }
}
