//! Heap use per thread, for `dst bench`'s peak memory per run. A program
//! opts in by making [`Counting`] its global allocator (`dst` does):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: sim::mem::Counting = sim::mem::Counting;
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
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            add(layout.size() as i64);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        add(-(layout.size() as i64));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            add(new_size as i64 - layout.size() as i64);
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
    // The first call through `Counting` proves it is the allocator.
    let probe = std::hint::black_box(Box::new(0u64));
    let live = LIVE.with(Cell::get);
    drop(probe);
    INSTALLED.store(LIVE.with(Cell::get) != live, Ordering::Relaxed);
    let live = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(live));
    Mark(live)
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
