//! The search's memory of configurations it has explored: which ops are
//! linearized and the state they leave. Hashing uses a fixed function,
//! never std's per-process random one, so a search is the same everywhere.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A set of op indices that knows its leading run of full words and where
/// its last set bit lies. The search linearizes ops roughly in history
/// order, so a set is mostly a run of full words and a short tail: the memo
/// keys and stores only the run's length and the tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bits {
    words: Box<[u64]>,
    /// Words `..full` are all ones.
    full: usize,
    /// Words `end..` are all zeros.
    end: usize,
}

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)].into_boxed_slice(),
            full: 0,
            end: 0,
        }
    }

    pub fn set(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] |= 1 << (i % 64);
        self.end = self.end.max(w + 1);
        while self.full < self.end && self.words[self.full] == u64::MAX {
            self.full += 1;
        }
    }

    pub fn clear(&mut self, i: usize) {
        let w = i / 64;
        self.words[w] &= !(1 << (i % 64));
        self.full = self.full.min(w);
        while self.end > self.full && self.words[self.end - 1] == 0 {
            self.end -= 1;
        }
    }

    /// The words after the leading run of full ones, up to the last set bit.
    fn tail(&self) -> &[u64] {
        &self.words[self.full..self.end]
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
    state: S,
    /// How restricted the exploration from here was (see [`Restriction`]);
    /// a less restricted visit must explore again.
    restricted: Restriction,
    /// Next slot with the same hash.
    chain: u32,
    /// The set of linearized ops: `full` words of ones, then `tail_len`
    /// words of the arena from `tail_at`.
    full: u32,
    tail_len: u32,
    tail_at: usize,
}

/// What [`Memo::admit`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admit {
    /// New, or seen only under a stricter restriction: explore it.
    Explore,
    /// Explored already.
    Known,
    /// New, but the table is at its cap (or memory could not be had): the
    /// search cannot go on.
    Full,
}

/// Explored configurations, compared exactly (a hash collision never
/// prunes a branch). Slots with equal hashes chain through `chain`.
///
/// The table grows by doubling, to no more than `bytes_max` as estimated
/// from what it has reserved: the slots, the arena of set tails and the
/// index, and the heap data of the states it keeps as the model estimates
/// it (a list's elements: [`super::Model::state_heap_bytes`]). The
/// estimate depends only on the sequence of admissions, so a search stops
/// at the cap at the same place on every machine.
pub(crate) struct Memo<S> {
    index: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    slots: Vec<Slot<S>>,
    arena: Vec<u64>,
    /// The heap data of the states kept.
    heap: u64,
    /// The heap data of states held outside the table while the search
    /// needs them (those along the path it is on): the same cap bounds it.
    held: u64,
    bytes_max: u64,
}

const END: u32 = u32::MAX;
/// Slots (and arena words) reserved at first; the table doubles from there.
const FIRST_SLOTS: usize = 64;

impl<S: Clone + Eq + Hash> Memo<S> {
    /// A table allowed about `bytes_max` bytes.
    pub fn new(bytes_max: u64) -> Self {
        Memo {
            index: HashMap::default(),
            slots: Vec::new(),
            arena: Vec::new(),
            heap: 0,
            held: 0,
            bytes_max,
        }
    }

    /// Whether the configuration still needs exploring; records it if so.
    /// `heap`: the heap data `state` holds, which a copy kept here holds too.
    pub fn admit(&mut self, bits: &Bits, state: &S, heap: u64, restricted: Restriction) -> Admit {
        let tail = bits.tail();
        let mut h = WordHasher::default();
        h.write_usize(bits.full);
        for &w in tail {
            h.write_u64(w);
        }
        state.hash(&mut h);
        let key = h.finish();
        let head = self.index.get(&key).copied().unwrap_or(END);
        let mut at = head;
        while at != END {
            let slot = &mut self.slots[at as usize];
            if slot.full as usize == bits.full
                && self.arena[slot.tail_at..slot.tail_at + slot.tail_len as usize] == *tail
                && slot.state == *state
            {
                if slot.restricted > restricted {
                    slot.restricted = restricted;
                    return Admit::Explore;
                }
                return Admit::Known;
            }
            at = slot.chain;
        }
        if !self.room_for(tail.len(), heap) {
            return Admit::Full;
        }
        self.heap += heap;
        self.index.insert(key, self.slots.len() as u32);
        self.slots.push(Slot {
            state: state.clone(),
            restricted,
            chain: head,
            full: bits.full as u32,
            tail_len: tail.len() as u32,
            tail_at: self.arena.len(),
        });
        self.arena.extend_from_slice(tail);
        Admit::Explore
    }

    pub fn entries(&self) -> usize {
        self.slots.len()
    }

    /// The estimate of what the table holds now.
    pub fn bytes(&self) -> u64 {
        self.bytes_for(self.slots.capacity(), self.arena.capacity()) + self.heap + self.held
    }

    /// A state of `bytes` heap data the search holds until it lets go.
    pub fn hold(&mut self, bytes: u64) {
        self.held += bytes;
    }

    pub fn let_go(&mut self, bytes: u64) {
        self.held -= bytes;
    }

    fn bytes_for(&self, slots: usize, words: usize) -> u64 {
        // The index: buckets of a key and a slot number plus a control
        // byte, a power of two of them at most 7/8 full.
        let buckets = (slots.saturating_mul(8) / 7).max(1).next_power_of_two() as u64;
        (slots as u64).saturating_mul(std::mem::size_of::<Slot<S>>() as u64)
            + (words as u64).saturating_mul(8)
            + buckets.saturating_mul(17)
    }

    /// Room for one more slot with a tail of `words` words: the slots, the
    /// arena and the index each doubled when full, or grown by less where
    /// doubling would pass the cap (down to a sixteenth, to stay cheap),
    /// if the cap and the allocator allow.
    fn room_for(&mut self, words: usize, heap: u64) -> bool {
        let (slots, arena) = (self.slots.len(), self.arena.len());
        let slots_full = slots == self.slots.capacity();
        let arena_full = arena + words > self.arena.capacity();
        let Some((want_slots, want_words)) = (0..5).find_map(|shift| {
            let grow = |len: usize, full: bool, cap: usize, need: usize| match full {
                true => (len + (len >> shift)).max(need).max(FIRST_SLOTS),
                false => cap,
            };
            let want_slots = grow(slots, slots_full, self.slots.capacity(), slots + 1);
            let want_words = grow(arena, arena_full, self.arena.capacity(), arena + words);
            let bytes = self
                .bytes_for(want_slots, want_words)
                .saturating_add(self.heap + self.held + heap);
            let fits = want_slots <= END as usize && bytes <= self.bytes_max;
            fits.then_some((want_slots, want_words))
        }) else {
            return false;
        };
        self.slots.try_reserve_exact(want_slots - slots).is_ok()
            && self.arena.try_reserve_exact(want_words - arena).is_ok()
            && self.index.try_reserve(want_slots - self.index.len()).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_each_configuration_once_unless_less_restricted() {
        let mut m: Memo<u8> = Memo::new(u64::MAX);
        let mut b = Bits::new(70);
        b.set(69);
        use Admit::{Explore, Known};
        use Restriction::*;
        assert_eq!(m.admit(&b, &1, 0, RefusalOnly), Explore);
        assert_eq!(m.admit(&b, &1, 0, RefusalOnly), Known);
        assert_eq!(m.admit(&b, &1, 0, NoBlindWrite), Explore);
        assert_eq!(m.admit(&b, &1, 0, RefusalOnly), Known);
        assert_eq!(m.admit(&b, &1, 0, NoBlindWrite), Known);
        assert_eq!(m.admit(&b, &1, 0, None), Explore);
        assert_eq!(m.admit(&b, &1, 0, NoBlindWrite), Known);
        assert_eq!(m.admit(&b, &1, 0, None), Known);
        assert_eq!(m.admit(&b, &2, 0, None), Explore);
        b.clear(69);
        assert_eq!(m.admit(&b, &1, 0, None), Explore);
        assert_eq!(m.entries(), 3);
    }

    #[test]
    fn the_table_stops_at_its_cap_and_still_knows_what_it_holds() {
        // Two words a set: word 0 is not full, word 1 holds bit 70.
        let cap = Memo::<u32>::new(0).bytes_for(FIRST_SLOTS * 3, FIRST_SLOTS * 6);
        let mut m: Memo<u32> = Memo::new(cap);
        let mut b = Bits::new(200);
        b.set(70);
        let mut admitted = 0;
        while m.admit(&b, &admitted, 0, Restriction::None) == Admit::Explore {
            admitted += 1;
        }
        // Doubling to 128 slots fits, to 256 does not, but half again does.
        assert_eq!(admitted as usize, FIRST_SLOTS * 3);
        assert_eq!(m.entries(), FIRST_SLOTS * 3);
        assert!(m.bytes() <= cap);
        assert_eq!(m.admit(&b, &0, 0, Restriction::None), Admit::Known);
        assert_eq!(m.admit(&b, &admitted, 0, Restriction::None), Admit::Full);
        assert_eq!(Memo::<u32>::new(0).admit(&b, &0, 0, Restriction::None), Admit::Full);
    }

    /// States that hold heap data (a list) fill the cap sooner: what the
    /// table keeps of them counts, not its own slots alone.
    #[test]
    fn the_heap_data_of_the_states_kept_counts_against_the_cap() {
        let cap = Memo::<u32>::new(0).bytes_for(FIRST_SLOTS * 3, FIRST_SLOTS * 6);
        let mut b = Bits::new(200);
        b.set(70);
        let fill = |heap: u64| {
            let mut m: Memo<u32> = Memo::new(cap);
            let mut admitted = 0;
            while m.admit(&b, &admitted, heap, Restriction::None) == Admit::Explore {
                admitted += 1;
            }
            assert!(m.bytes() <= cap, "{} > {cap}", m.bytes());
            admitted
        };
        let (bare, heavy) = (fill(0), fill(cap / 20));
        assert!(heavy < 20 && heavy < bare, "{heavy} of {bare}");
    }

    #[test]
    fn sets_are_keyed_by_their_run_of_full_words_and_tail() {
        let mut a = Bits::new(300);
        for i in 0..130 {
            a.set(i);
        }
        assert_eq!((a.full, a.end, a.tail().len()), (2, 3, 1));
        a.clear(5);
        assert_eq!((a.full, a.end), (0, 3));
        a.set(5);
        a.set(299);
        assert_eq!((a.full, a.end), (2, 5));
        a.clear(299);
        assert_eq!((a.full, a.end), (2, 3));
        let mut b = Bits::new(300);
        for i in (0..130).rev() {
            b.set(i);
        }
        assert_eq!(a, b);
        let mut m: Memo<u8> = Memo::new(u64::MAX);
        assert_eq!(m.admit(&a, &0, 0, Restriction::None), Admit::Explore);
        assert_eq!(m.admit(&b, &0, 0, Restriction::None), Admit::Known);
        b.clear(129);
        assert_eq!(m.admit(&b, &0, 0, Restriction::None), Admit::Explore);
        let mut empty = Bits::new(300);
        assert_eq!(m.admit(&empty, &0, 0, Restriction::None), Admit::Explore);
        empty.set(0);
        empty.clear(0);
        assert_eq!(m.admit(&empty, &0, 0, Restriction::None), Admit::Known);
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
