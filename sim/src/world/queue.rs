//! The world's event queue: a radix heap on event time over a slab of
//! events.
//!
//! Time never goes back (the world schedules nothing before the event it
//! is handling), so the queue is monotone: every key pushed is at least the
//! key popped last. A radix heap exploits that. A key sits in the bucket
//! named by the highest bit in which it differs from the last key popped,
//! so every key of a lower bucket is smaller than every key of a higher
//! one; a pop takes from bucket 0 (keys equal to the last) or, when that is
//! empty, finds the least key of the lowest non-empty bucket and spreads
//! that bucket over the buckets below it. A key only ever moves down, so it
//! moves at most 64 times and in practice a handful; a binary heap pays a
//! logarithmic number of comparisons on every push and every pop.
//!
//! The order must be exactly (time, order of pushing), as the binary heap
//! of (time, sequence) keys this replaced gave, or traces would change.
//! Buckets keep push order: a bucket receives a spread only while it is
//! empty (every bucket below the lowest non-empty one is), and a push
//! appends the newest event. So equal times leave in push order.

/// Buckets: 0 for keys equal to the last popped, 1..=64 by highest
/// differing bit.
const BUCKETS: usize = 65;

pub(super) struct Queue<T> {
    /// Each bucket's (time, slot) entries, in push order.
    buckets: [Vec<(u64, u32)>; BUCKETS],
    /// Bucket 0 is read from the front: the entries before this are gone.
    head: usize,
    /// Bit `b - 1` set: bucket `b` (1 to 64) holds entries.
    occupied: u64,
    /// The time of the latest pop; nothing earlier may be pushed.
    last: u64,
    len: usize,
    /// The events stay put while their keys move between buckets.
    slab: Vec<Option<T>>,
    free: Vec<u32>,
}

#[inline]
fn bucket(last: u64, t: u64) -> usize {
    (u64::BITS - (t ^ last).leading_zeros()) as usize
}

/// Bucket 0 is read through `head`, not the mask.
#[inline]
fn occupied_bit(b: usize) -> u64 {
    if b == 0 {
        0
    } else {
        1 << (b - 1)
    }
}

impl<T> Queue<T> {
    pub(super) fn new() -> Self {
        Queue {
            buckets: std::array::from_fn(|_| Vec::new()),
            head: 0,
            occupied: 0,
            last: 0,
            len: 0,
            slab: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Queues `item` at time `t`, which must not be before the latest pop.
    pub(super) fn push(&mut self, t: u64, item: T) {
        assert!(
            t >= self.last,
            "queued at {t}, before the time already reached ({})",
            self.last
        );
        let slot = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = Some(item);
                i
            }
            None => {
                self.slab.push(Some(item));
                (self.slab.len() - 1) as u32
            }
        };
        let b = bucket(self.last, t);
        self.buckets[b].push((t, slot));
        self.occupied |= occupied_bit(b);
        self.len += 1;
    }

    /// The earliest item, and of equal times the first pushed.
    pub(super) fn pop(&mut self) -> Option<(u64, T)> {
        let (t, slot) = if self.head < self.buckets[0].len() {
            self.head += 1;
            self.buckets[0][self.head - 1]
        } else {
            self.buckets[0].clear();
            self.head = 0;
            if self.occupied == 0 {
                return None;
            }
            let b = self.occupied.trailing_zeros() as usize + 1;
            if self.buckets[b].len() == 1 {
                // The lowest bucket's only entry is the least (half the
                // pops of a run): no spreading, `last` just moves up to it.
                self.occupied &= !occupied_bit(b);
                let (t, slot) = self.buckets[b].pop().expect("an occupied bucket holds entries");
                self.last = t;
                (t, slot)
            } else {
                self.spread(b);
                self.head = 1;
                self.buckets[0][0]
            }
        };
        self.len -= 1;
        self.free.push(slot);
        let item = self.slab[slot as usize].take().expect("a queued slot holds its item");
        Some((t, item))
    }

    /// Moves `last` up to the least time of bucket `b` and spreads the
    /// bucket over the (empty) buckets below it, in its own order.
    fn spread(&mut self, b: usize) {
        let (below, rest) = self.buckets.split_at_mut(b);
        let from = &mut rest[0];
        let last = from
            .iter()
            .map(|&(t, _)| t)
            .min()
            .expect("an occupied bucket holds entries");
        let mut occupied = self.occupied & !occupied_bit(b);
        for &(t, slot) in from.iter() {
            let to = bucket(last, t);
            below[to].push((t, slot));
            occupied |= occupied_bit(to);
        }
        // Keeps its allocation: the bucket fills again later.
        from.clear();
        self.occupied = occupied;
        self.last = last;
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The time of the earliest item, without moving `last` up to it: a
    /// run whose nodes act between events (async nodes) may still queue
    /// something earlier.
    pub(super) fn peek_time(&self) -> Option<u64> {
        if self.head < self.buckets[0].len() {
            return Some(self.buckets[0][self.head].0);
        }
        if self.occupied == 0 {
            return None;
        }
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.buckets[b].iter().map(|&(t, _)| t).min()
    }

    /// Every waiting item with its time, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, &T)> + '_ {
        let waiting = self.buckets[0][self.head..]
            .iter()
            .chain(self.buckets[1..].iter().flatten());
        waiting.map(|&(t, slot)| {
            (
                t,
                self.slab[slot as usize].as_ref().expect("a queued slot holds its item"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Pushes and pops at random against a binary heap of (time, sequence):
    /// the queue must pop exactly the same items in the same order.
    fn against_heap(seed: u64, ops: usize, spread: u64) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut q = Queue::new();
        let mut heap = BinaryHeap::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for _ in 0..ops {
            if rng.gen_bool(0.55) {
                // Often exactly now, often a near tie, sometimes far ahead.
                let t = match rng.gen_range(0..4) {
                    0 => now,
                    1 => now.saturating_add(rng.gen_range(0..4)),
                    2 => now.saturating_add(rng.gen_range(0..=spread)),
                    _ => now.saturating_add(rng.gen::<u64>() >> rng.gen_range(0..64)),
                };
                seq += 1;
                q.push(t, seq);
                heap.push(Reverse((t, seq)));
            } else {
                let want = heap.pop().map(|Reverse(k)| k);
                assert_eq!(q.pop(), want, "seed {seed}");
                if let Some((t, _)) = want {
                    now = t;
                }
            }
            assert_eq!(q.len(), heap.len());
        }
        while let Some(Reverse(k)) = heap.pop() {
            assert_eq!(q.pop(), Some(k), "seed {seed}");
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pops_in_time_then_push_order_like_a_binary_heap() {
        for seed in 0..200 {
            against_heap(seed, 2_000, 1 << (seed % 40));
        }
    }

    #[test]
    fn equal_times_leave_in_push_order() {
        let mut q = Queue::new();
        for i in 0..10 {
            q.push(7, i);
        }
        q.push(3, 100);
        assert_eq!(q.pop(), Some((3, 100)));
        q.push(3, 101);
        q.push(7, 10);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|(_, i)| i).collect();
        assert_eq!(order, [101, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn iter_sees_every_waiting_item() {
        let mut q = Queue::new();
        for (t, i) in [(5, 'a'), (1, 'b'), (u64::MAX, 'c'), (5, 'd')] {
            q.push(t, i);
        }
        assert_eq!(q.pop(), Some((1, 'b')));
        let mut seen: Vec<(u64, char)> = q.iter().map(|(t, &i)| (t, i)).collect();
        seen.sort();
        assert_eq!(seen, [(5, 'a'), (5, 'd'), (u64::MAX, 'c')]);
    }

    #[test]
    #[should_panic(expected = "before the time already reached")]
    fn refuses_the_past() {
        let mut q = Queue::new();
        q.push(5, ());
        q.pop();
        q.push(4, ());
    }
}
