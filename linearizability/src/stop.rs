//! A request to stop, shared by every search in the process: a signal
//! handler (dst's own, or an embedding program's) sets it, and a search
//! checked with [`crate::Options::interruptible`] ends with `unknown` soon
//! after, instead of running out its budget.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Asks every interruptible search, and whatever else reads
/// [`requested`], to stop.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
