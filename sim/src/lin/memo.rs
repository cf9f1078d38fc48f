//! The search's memory of configurations it has explored: which ops are
//! linearized and the state they leave. Hashing uses a fixed function,
//! never std's per-process random one, so a search is the same everywhere.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A set of op indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bits(Box<[u64]>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)].into_boxed_slice())
    }
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
}

/// A multiply-rotate hash over words (the scheme of rustc's FxHasher),
/// finished with a 64-bit mix so that every bit of the result counts.
#[derive(Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 56));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }
}

/// Keys of the index are already hashes: pass them through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ *b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

/// What may be placed next from a configuration, least restricted first:
/// each level allows a subset of what the one before it allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Restriction {
    None,
    /// After an unknown-outcome op: no blind write next.
    NoBlindWrite,
    /// After a lurking op: only a refusal next (never a blind write).
    RefusalOnly,
}

struct Slot<S> {
    bits: Bits,
    state: S,
    /// How restricted the exploration from here was (see [`Restriction`]);
    /// a less restricted visit must explore again.
    restricted: Restriction,
    /// Next slot with the same hash.
    chain: u32,
}

/// Explored configurations, compared exactly (a hash collision never
/// prunes a branch). Slots with equal hashes chain through `chain`.
pub(crate) struct Memo<S> {
    index: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    slots: Vec<Slot<S>>,
}

impl<S> Default for Memo<S> {
    fn default() -> Self {
        Memo {
            index: HashMap::default(),
            slots: Vec::new(),
        }
    }
}

const END: u32 = u32::MAX;

impl<S: Clone + Eq + Hash> Memo<S> {
    /// Whether the configuration still needs exploring; records it if so.
    pub fn admit(&mut self, bits: &Bits, state: &S, restricted: Restriction) -> bool {
        let mut h = WordHasher::default();
        bits.hash(&mut h);
        state.hash(&mut h);
        let key = h.finish();
        let head = self.index.get(&key).copied().unwrap_or(END);
        let mut at = head;
        while at != END {
            let slot = &mut self.slots[at as usize];
            if slot.bits == *bits && slot.state == *state {
                if slot.restricted > restricted {
                    slot.restricted = restricted;
                    return true;
                }
                return false;
            }
            at = slot.chain;
        }
        self.index.insert(key, self.slots.len() as u32);
        self.slots.push(Slot {
            bits: bits.clone(),
            state: state.clone(),
            restricted,
            chain: head,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_each_configuration_once_unless_less_restricted() {
        let mut m: Memo<u8> = Memo::default();
        let mut b = Bits::new(70);
        b.set(69);
        use Restriction::*;
        assert!(m.admit(&b, &1, RefusalOnly));
        assert!(!m.admit(&b, &1, RefusalOnly));
        assert!(m.admit(&b, &1, NoBlindWrite));
        assert!(!m.admit(&b, &1, RefusalOnly));
        assert!(!m.admit(&b, &1, NoBlindWrite));
        assert!(m.admit(&b, &1, None));
        assert!(!m.admit(&b, &1, NoBlindWrite));
        assert!(!m.admit(&b, &1, None));
        assert!(m.admit(&b, &2, None));
        b.clear(69);
        assert!(m.admit(&b, &1, None));
    }

    #[test]
    fn the_hash_is_fixed() {
        let mut h = WordHasher::default();
        "abc".hash(&mut h);
        assert_eq!(h.finish(), {
            let mut g = WordHasher::default();
            "abc".hash(&mut g);
            g.finish()
        });
        let mut a = WordHasher::default();
        a.write(b"abcdefgh1");
        let mut b = WordHasher::default();
        b.write(b"abcdefgh2");
        assert_ne!(a.finish(), b.finish());
    }
}
