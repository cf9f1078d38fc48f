//! Systematic exploration at small scope: every run of a scenario within
//! bounds, instead of the runs a seed samples.
//!
//! A run is a deterministic function of its seed and of the choices the
//! world makes along the way. Under exploration the world draws none of
//! them: each time more than one thing may happen next, it takes the next
//! entry of a [`Tape`] as the index of the move to make. What may happen
//! next is what time allows. Every delay the seed would draw (a message's
//! flight, an fsync, a client's think time) is kept as a window instead,
//! and an event may come next only if it can come before every other
//! event's window closes; timers fire exactly when their clocks say. So a
//! model whose safety rests on timing (a lease, a clock bound) never sees
//! an order time forbids. The faults are moves too, each within its
//! [`Bounds`]: drop a message, deliver it twice, crash a node (losing what
//! its disk had not synced) and restart it, cut one node off and heal.
//!
//! Move 0 is always the natural one: the event whose window opens first
//! happens as early as it can. A tape that runs out goes on with move 0,
//! so a tape names only where a run departs from the natural order, and
//! [`Bounds::deviations`] bounds how many departures a run makes, as
//! delay-bounded schedulers do: a bug that needs three exact turns is
//! found at three deviations however long the run around them.
//!
//! [`search`] walks the tree of tapes by fewest deviations first (or
//! depth first). Each run reports the digest of every state it passes
//! ([`crate::Machine::digest`]), so one run visits a whole
//! natural path, and stops at the first state the walk has expanded
//! ([`Known`]). States meet again across time: a node that gives a digest
//! draws from a stream keyed by its state, and the world's digest is
//! relative to now where every node, message and record gives a relative
//! one ([`crate::Machine::digest_at`]). A
//! violation is an ordinary run whose report carries its tape, so
//! `replay`, `view` and `export` read it like any other.

pub mod search;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex};

/// How far exploration goes: how many choices a run may make, and how
/// many of each fault it may inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bounds {
    /// Choices per run (moves where more than one was possible).
    pub depth: u32,
    /// Choices per run that take another move than the natural one.
    pub deviations: u32,
    /// Node crashes (each loses the node's unsynced writes and memory); the
    /// node restarts at a later move or where the run settles, or, as a
    /// bounce, a millisecond later in the same move.
    pub crashes: u32,
    /// Messages dropped.
    pub drops: u32,
    /// Messages delivered twice.
    pub duplicates: u32,
    /// Times one node is cut off from the others, or made deaf where the
    /// profile has one-way cuts, or one direction of one link cut where it
    /// cuts links one at a time (healed by a later move, by cutting off a
    /// node, or where the run settles).
    pub partitions: u32,
    /// Times a node stops handling anything for a while (what reached it
    /// meanwhile is handed over when it resumes).
    pub pauses: u32,
    /// Clock faults: a node's wall clock set to the profile's skew bound
    /// ahead or behind, or beyond it where the profile leaps; its clocks
    /// drifting fast or slow at the drift bound.
    pub clocks: u32,
    /// Storage faults: an fsync that fails as it completes, or on one node
    /// for a while a full disk, a slow disk, or reads that fail at its
    /// next boot (with a crash).
    pub disks: u32,
    /// Client operations invoked, over all clients.
    pub ops: u32,
    /// Where a run's choices end, it settles (every fault heals, events
    /// go on in their natural order to the liveness deadline) and every
    /// checker judges it there. Off, the run is cut where its choices end
    /// and only what broke on the way counts: safety alone, at a fraction
    /// of the cost (a settle simulates seconds for every run that ends).
    pub liveness: bool,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            depth: 200,
            deviations: 3,
            crashes: 1,
            drops: 1,
            duplicates: 0,
            partitions: 0,
            pauses: 0,
            clocks: 0,
            disks: 0,
            ops: 1,
            liveness: true,
        }
    }
}

/// What makes an explored run replayable: its bounds (which decide what
/// moves are offered) and the index of the move taken at each choice, up
/// to the last that is not move 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tape {
    /// The bounds the run was explored under.
    pub bounds: Bounds,
    /// The move taken at each choice, in order (0: the natural one); a
    /// choice past the end takes move 0.
    pub choices: Vec<u32>,
}

/// A state an explored run passed after its tape ran out, where it had a
/// choice: the state's digest and how many moves it offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The digest of the whole world in that state (of the choices that led
    /// there, for a choice in the middle of a node's step).
    pub digest: u64,
    /// How many moves it offered; a tape picks one by index.
    pub moves: u32,
    /// The state as the protocol sees it, relative to the cluster: each
    /// node's role, its epoch and log tail ranked among the live nodes',
    /// how far its log and commit point trail the longest and highest
    /// (from its generic events), who is down, cut off or paused. Many
    /// states share one; the guided order
    /// ([`search::Order::Guided`]) branches first where one is new.
    pub shape: u64,
}

/// Digest -> the most (deviations, choices) left it was expanded with.
/// Digests are hashes already: a fixed hasher, so nothing depends on a
/// per-process seed (the map is only looked up, never iterated).
type Seen = HashMap<u64, (u32, u32), BuildHasherDefault<crate::hash::StableHasher>>;

/// The states a walk has expanded, shared with the run it is making, so
/// that the run stops where it reaches one of them: what follows was
/// explored from there already, with at least as much budget. (Behind
/// a lock only because what a run is handed must be `Send`.)
#[derive(Clone, Default)]
pub struct Known {
    seen: Arc<Mutex<Seen>>,
    /// States that differ only by which interchangeable node is which are
    /// told apart (symmetry reduction off).
    pub asymmetric: bool,
}

impl Known {
    /// What a walk knows before its first run; `symmetry`: states that
    /// differ only by which interchangeable node is which count as one,
    /// where the model declares such nodes.
    pub fn new(symmetry: bool) -> Known {
        Known {
            seen: Arc::default(),
            asymmetric: !symmetry,
        }
    }

    /// One walk uses it, from one thread: a poisoned lock is still its map.
    fn map(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What its table takes, counted by capacity.
    pub(crate) fn table_bytes(&self) -> u64 {
        search::hashed_bytes::<(u64, (u32, u32))>(self.map().capacity())
    }

    /// Whether `digest` was expanded with at least `left` (deviations,
    /// choices) to spare.
    pub fn covers(&self, digest: u64, left: (u32, u32)) -> bool {
        self.map().get(&digest).is_some_and(|&had| Self::within(had, left))
    }

    /// The walk meets `digest` with `left` to spare: whether it was
    /// covered already, and if not, what it now counts as expanded with.
    pub(crate) fn meet(&self, digest: u64, left: (u32, u32)) -> Meeting {
        let mut map = self.map();
        match map.get_mut(&digest) {
            Some(had) if Self::within(*had, left) => Meeting::Covered,
            Some(had) => {
                *had = (had.0.max(left.0), had.1.max(left.1));
                Meeting::Widened
            }
            None => {
                map.insert(digest, left);
                Meeting::New
            }
        }
    }

    fn within(had: (u32, u32), left: (u32, u32)) -> bool {
        had.0 >= left.0 && had.1 >= left.1
    }
}

/// What meeting a state told the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Meeting {
    /// Expanded before with as much budget: nothing new follows.
    Covered,
    /// Expanded before with less of some budget.
    Widened,
    New,
}

impl std::fmt::Debug for Known {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Known({} states)", self.map().len())
    }
}

/// One walk's knowledge is the same knowledge wherever it is shared.
impl PartialEq for Known {
    fn eq(&self, other: &Known) -> bool {
        Arc::ptr_eq(&self.seen, &other.seen)
    }
}
