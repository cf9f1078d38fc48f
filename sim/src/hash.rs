//! Hashers whose output is the same on every machine and build. std's
//! `DefaultHasher` is seeded per process (and by madsim per runtime), so it
//! must never decide a trace hash or an order.
//!
//! [`StableHasher`] (FNV-1a over little-endian bytes) hashes values a model
//! or a fingerprint needs; [`WordHasher`] hashes traces, where the hash is
//! paid on every event and a word at a time is eight times cheaper.

use std::hash::{Hash, Hasher};

/// Whether `s` is a hash as dst writes one: 16 lowercase hex digits.
pub fn is_hex_hash(s: &str) -> bool {
    s.len() == 16 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// FNV-1a over little-endian bytes, the same on every machine and build.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }
    fn write_u16(&mut self, i: u16) {
        self.write(&i.to_le_bytes());
    }
    fn write_u32(&mut self, i: u32) {
        self.write(&i.to_le_bytes());
    }
    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }
    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }
    fn write_isize(&mut self, i: isize) {
        self.write(&(i as i64).to_le_bytes());
    }
    fn write_i64(&mut self, i: i64) {
        self.write(&i.to_le_bytes());
    }
}

/// The trace hash (reports of schema 5 on): 64-bit little-endian words,
/// each folded in by `s = xorshift29((s ^ w) * K)`, and MurmurHash3's
/// fmix64 on the result. Every step is a bijection of the state, so two
/// traces that differ in one word never collide; a word costs one multiply
/// where FNV-1a costs eight. Bytes (strings) go in as zero-padded words
/// followed by their length.
#[derive(Clone, Copy, Debug)]
pub struct WordHasher(u64);

const WORD_SEED: u64 = 0x6473_742d_7472_6163; // "dst-trac"
const WORD_K: u64 = 0x9e37_79b9_7f4a_7c15;

impl Default for WordHasher {
    fn default() -> Self {
        WordHasher(WORD_SEED)
    }
}

impl WordHasher {
    #[inline]
    fn word(&mut self, w: u64) {
        let s = (self.0 ^ w).wrapping_mul(WORD_K);
        self.0 = s ^ (s >> 29);
    }
}

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(last));
        }
        self.word(bytes.len() as u64);
    }
    fn write_u8(&mut self, i: u8) {
        self.word(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.word(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.word(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.word(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.word(i as i64 as u64);
    }
}

/// The stable hash of any `Hash` value.
pub fn stable_hash<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = StableHasher::default();
    v.hash(&mut h);
    h.finish()
}

/// A digest of a `Hash` value, a word at a time: for
/// [`crate::Machine::digest`] where a model's state derives
/// `Hash`, several times cheaper than [`debug_digest`] (no text is made).
pub fn state_digest<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = WordHasher::default();
    v.hash(&mut h);
    h.finish()
}

/// A digest of `v`'s `Debug` text, stable across machines and builds: the
/// cheapest sound state digest for [`crate::Machine::digest`]
/// when a model's state derives `Debug` (two states digest alike only if
/// they print alike). A field whose order is not its value's (a `HashMap`)
/// can make equal states digest apart: that costs pruning, never a bug.
pub fn debug_digest<T: std::fmt::Debug + ?Sized>(v: &T) -> u64 {
    use std::fmt::Write;
    // A word at a time: a state's text runs to kilobytes, and the digest
    // is taken at every choice of an explored run. (Hashing the pieces
    // formatting hands over one by one costs more than the formatting;
    // gathering them first would be faster, but would change every
    // digest, and with them the draws of explored runs keyed by state.)
    struct Sink(WordHasher);
    impl Write for Sink {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut sink = Sink(WordHasher::default());
    let _ = write!(sink, "{v:?}");
    sink.0.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_reference_vectors() {
        let mut h = StableHasher::default();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        let mut h = StableHasher::default();
        h.write(b"foobar");
        assert_eq!(h.finish(), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn word_hasher_reference_vectors() {
        // Fixed forever: every report of schema 5 and later stores these.
        let empty = WordHasher::default().finish();
        let mut one = WordHasher::default();
        one.write_u64(1);
        let mut text = WordHasher::default();
        text.write(b"foobar");
        assert_eq!(
            [empty, one.finish(), text.finish()],
            [0x2430_7187_9717_5658, 0xf544_ac68_c259_2eff, 0x4619_de23_fd23_619b]
        );
    }

    #[test]
    fn word_hasher_puts_the_length_after_the_bytes() {
        let mut a = WordHasher::default();
        a.write(b"abcdefghi");
        let mut b = WordHasher::default();
        b.write(b"abcdefgh");
        b.write_u8(b'i');
        assert_ne!(a.finish(), b.finish());
    }

    #[test]
    fn usize_hashes_as_u64() {
        assert_eq!(stable_hash(&7usize), stable_hash(&7u64));
    }
}
