//! Heap use per thread, for `dst bench`'s peak memory per run and for the
//! one memory cap of `dst check` ([`cap_from_here`]). A program
//! opts in by making [`Counting`] its global allocator (`dst` does):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: linearizability::mem::Counting = linearizability::mem::Counting;
//! ```
//!
//! Counts are per thread, because a run lives on one thread: the peak of a
//! run is the most its thread held at once above what it held when the run
//! began. Without the allocator, [`peak_since`] has nothing to report.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, counting the bytes each thread holds.
pub struct Counting;

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    // Const-initialised and without a destructor: safe to touch from
    // inside the allocator, even while a thread is being torn down.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
    // What this thread may hold (see `cap_from_here`), and whether it
    // held more at some point since the cap was set or last rearmed.
    static LIMIT: Cell<i64> = const { Cell::new(i64::MAX) };
    static CAP: Cell<u64> = const { Cell::new(0) };
    static OVER: Cell<bool> = const { Cell::new(false) };
}

fn add(bytes: i64) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
        if bytes > 0 && LIMIT.try_with(Cell::get).is_ok_and(|limit| now > limit) {
            let _ = OVER.try_with(|over| over.set(true));
        }
    });
}

/// What an allocation of `size` bytes takes from the system, as glibc's
/// malloc lays it out on 64-bit Linux: an 8-byte header, rounded up to 16
/// bytes and at least 32; from 128 KiB (its mmap threshold) whole pages.
/// Counted so, a history of millions of small values weighs what it does
/// in memory, not half of it, and every machine counts the same.
fn taken(size: usize) -> i64 {
    const MMAP_FROM: usize = 128 << 10;
    let bytes = match size {
        0..MMAP_FROM => ((size + 8 + 15) & !15).max(32),
        _ => (size + 16 + 4095) & !4095,
    };
    bytes as i64
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            add(taken(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            add(taken(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        add(-taken(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            add(taken(new_size) - taken(layout.size()));
        }
        p
    }
}

/// A point to measure a peak from: what this thread held, with its peak
/// reset to that.
#[derive(Clone, Copy, Debug)]
pub struct Mark(i64);

/// Starts measuring this thread's peak heap use.
pub fn mark() -> Mark {
    probe();
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    Mark(live)
}

/// Whether allocations go through [`Counting`]: an allocation it counts
/// proves it.
fn probe() {
    let probe = std::hint::black_box(Box::new(0u64));
    let live = LIVE.with(Cell::get);
    drop(probe);
    INSTALLED.store(LIVE.with(Cell::get) != live, Ordering::Relaxed);
}

/// The most bytes this thread held at once since `mark`, above what it
/// held then; `None` if [`Counting`] is not the global allocator.
pub fn peak_since(mark: Mark) -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| PEAK.with(Cell::get).saturating_sub(mark.0).max(0) as u64)
}

/// Counts `bytes` held above what this thread holds now toward its peak:
/// the peak of work done on another thread on this one's behalf.
pub fn note_peak(bytes: u64) {
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(p.get().max(live.saturating_add(bytes as i64))));
}

/// Caps what this thread may hold from here on at `bytes` more than it
/// holds now: once it holds more, [`over_cap`] says so until
/// [`rearm`]. Nothing is refused (an allocation that crossed the cap
/// succeeds): the work looks at [`over_cap`] where it can stop cleanly.
/// Allocations count as glibc's malloc lays them out, from the sizes
/// the program asks for, so a cap is met at the same point on every
/// machine. False if [`Counting`] is not the
/// global allocator (nothing is counted, and nothing will be over).
pub fn cap_from_here(bytes: u64) -> bool {
    probe();
    let live = LIVE.with(Cell::get);
    LIMIT.with(|l| l.set(live.saturating_add(bytes.min(i64::MAX as u64) as i64)));
    CAP.with(|c| c.set(bytes));
    OVER.with(|o| o.set(false));
    INSTALLED.load(Ordering::Relaxed)
}

/// The cap [`cap_from_here`] set on this thread, in bytes, if any.
pub fn cap() -> Option<u64> {
    (LIMIT.with(Cell::get) != i64::MAX).then(|| CAP.with(Cell::get))
}

/// What this thread may still take before it passes its cap: `None`
/// without one.
pub fn room() -> Option<u64> {
    let limit = LIMIT.with(Cell::get);
    (limit != i64::MAX).then(|| limit.saturating_sub(LIVE.with(Cell::get)).max(0) as u64)
}

/// Whether this thread held more than its cap at some point since the
/// cap was set or [`rearm`]ed.
pub fn over_cap() -> bool {
    OVER.with(Cell::get)
}

/// The most heap a parsed text may take per byte of it: a value can be as
/// short as two bytes of text (`0 0 0`, `[] []`) and an EDN or JSON value
/// takes up to 56 bytes, with the vectors holding them grown by doubling.
pub const PARSED_PER_TEXT_BYTE: u64 = 32;

/// Whether parsing `bytes` of text into values surely fits in what this
/// thread's cap leaves; true without a cap. Where it may not, the thread
/// is marked over its cap ([`over_cap`]) so that a reader that stops
/// here reports the cap, before a parse that would take many times it.
pub fn room_to_parse(bytes: usize) -> bool {
    let fits = room().is_none_or(|room| (bytes as u64).saturating_mul(PARSED_PER_TEXT_BYTE) <= room);
    if !fits {
        mark_over();
    }
    fits
}

/// Says this thread passed its cap: work that stops because going on
/// would pass it, before it does, reports as work that did.
pub fn mark_over() {
    OVER.with(|o| o.set(true));
}

/// Forgets a crossing the thread has since come back from: whether it
/// holds more than its cap now.
pub fn rearm() -> bool {
    let over = LIVE.with(Cell::get) > LIMIT.with(Cell::get);
    OVER.with(|o| o.set(over));
    over
}

/// Runs `f` with this thread's cap lifted, as work that must not be cut
/// short (a simulated run whose own checkers would see the cap); what it
/// leaves held counts again afterwards.
pub fn uncapped<T>(f: impl FnOnce() -> T) -> T {
    let limit = LIMIT.with(|l| l.replace(i64::MAX));
    let out = f();
    LIMIT.with(|l| l.set(limit));
    if LIVE.with(Cell::get) > limit {
        OVER.with(|o| o.set(true));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn without_the_allocator_there_is_no_peak() {
        // The test binary keeps the system allocator.
        let m = super::mark();
        let v = vec![0u8; 1 << 20];
        drop(v);
        assert_eq!(super::peak_since(m), None);
    }
}
