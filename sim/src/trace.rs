//! The trace: every event of a run, in order, with a hash that is the same
//! on every machine and build for the same seed and inputs.
//!
//! The hash always covers every event, but a run holds in memory only what
//! [`Keep`] asks for: by default the latest events, so a run of any length
//! fits in bounded memory. Checkers see each event as it happens and need
//! nothing held; what needs older events (a report's window, a view) gets
//! them by running the seed again, which determinism makes exact.

use crate::event::{Event, EventKind};
use crate::hash::{StableHasher, WordHasher};
use crate::machine::NodeId;
use std::hash::{Hash, Hasher};

/// Events a run holds by default: at least this many of the latest, at
/// most twice as many. Every shipped scenario's runs fit whole (the longest
/// run some 60,000 events); a run beyond it drops its oldest events.
pub const HELD_DEFAULT: u64 = 1 << 17;

/// Which events a run holds in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Every event.
    All,
    /// The latest events: at least `n` (all of them while there are fewer),
    /// at most `2n`; older ones are dropped in batches.
    Last(u64),
    /// Only the events whose positions lie in these inclusive ranges
    /// (sorted, not overlapping): a report's window.
    Ranges(Vec<(u64, u64)>),
    /// Only client operations' events: a history to check.
    Clients,
}

impl Default for Keep {
    fn default() -> Self {
        Keep::Last(HELD_DEFAULT)
    }
}

/// Which function a trace hash is. Reports of schema 4 and before hashed
/// their traces byte by byte with FNV-1a; a replay of one hashes the same
/// way, so that old reports still replay and regenerate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceHash {
    /// [`WordHasher`], a word at a time: what reports of schema 5 on store.
    #[default]
    Words,
    /// [`StableHasher`], FNV-1a byte by byte: what reports of schema 4 and before store.
    Fnv1a,
    /// No hash: for a run whose hash nothing reads (a fuzz seed that simply
    /// passes; see `run_seed_lean` in dst-runner). Its `hash_hex` is
    /// empty.
    Off,
}

impl TraceHash {
    /// The trace hash a report of `schema` stores.
    pub fn of_schema(schema: u32) -> TraceHash {
        if schema <= 4 {
            TraceHash::Fnv1a
        } else {
            TraceHash::Words
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Running {
    kind: TraceHash,
    words: WordHasher,
    fnv: StableHasher,
}

impl Running {
    fn new(kind: TraceHash) -> Self {
        Running {
            kind,
            ..Running::default()
        }
    }

    #[inline]
    fn add(&mut self, e: &Event) {
        match self.kind {
            TraceHash::Words => e.hash(&mut self.words),
            TraceHash::Fnv1a => e.hash(&mut self.fnv),
            TraceHash::Off => {}
        }
    }

    fn hex(&self) -> String {
        let h = match self.kind {
            TraceHash::Words => self.words.finish(),
            TraceHash::Fnv1a => self.fnv.finish(),
            TraceHash::Off => return String::new(),
        };
        format!("{h:016x}")
    }
}

/// The events of one run: those [`Keep`] holds, the count of all of them,
/// and the running hash over every one.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The events held, in order; each carries its own position `i`.
    events: Vec<Event>,
    /// Events recorded, held or not.
    len: u64,
    hasher: Running,
    keep: Keep,
    /// With [`Keep::Ranges`], the first range not yet passed.
    range: usize,
    /// The latest event when it is not held: checkers still see it.
    passing: Option<Event>,
}

impl Trace {
    /// An empty trace that holds what `keep` asks for and hashes with `hash`.
    pub fn new(keep: Keep, hash: TraceHash) -> Self {
        Trace {
            keep,
            hasher: Running::new(hash),
            ..Trace::default()
        }
    }

    /// The function this trace's hash is.
    pub fn hash_kind(&self) -> TraceHash {
        self.hasher.kind
    }

    /// Record the next event at simulated time `t_ns` on `node` (none for a
    /// client's or a fault's event); hands it back, held or not.
    pub fn push(&mut self, t_ns: u64, node: Option<NodeId>, kind: EventKind) -> &Event {
        let e = Event {
            i: self.len,
            t_ns,
            node,
            kind,
        };
        self.hasher.add(&e);
        self.len += 1;
        let held = match &self.keep {
            Keep::All => true,
            Keep::Last(n) => {
                let n = (*n).max(1) as usize;
                if self.events.len() >= 2 * n {
                    self.events.drain(..self.events.len() - n);
                }
                true
            }
            Keep::Ranges(ranges) => {
                while ranges.get(self.range).is_some_and(|&(_, b)| b < e.i) {
                    self.range += 1;
                }
                ranges.get(self.range).is_some_and(|&(a, _)| a <= e.i)
            }
            Keep::Clients => e.kind.is_client_op(),
        };
        if held {
            self.passing = None;
            self.events.push(e);
            self.events.last().expect("just pushed")
        } else {
            self.passing.insert(e)
        }
    }

    /// The events held (all of them when [`Trace::is_whole`]), in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events held, taken out of the trace.
    pub fn into_events(self) -> Vec<Event> {
        self.events
    }

    /// The event at position `i`, if it is held.
    pub fn get(&self, i: u64) -> Option<&Event> {
        event_at(&self.events, i)
    }

    /// The events at positions `a..=b`, if every one of them is held.
    pub fn slice(&self, a: u64, b: u64) -> Option<&[Event]> {
        let x = self.events.binary_search_by_key(&a, |e| e.i).ok()?;
        let y = self.events.binary_search_by_key(&b, |e| e.i).ok()?;
        // Held events are in order without repeats: a gap shows as fewer.
        (y >= x && (y - x) as u64 == b - a).then(|| &self.events[x..=y])
    }

    /// Whether every event of the ranges (inclusive positions) is held.
    pub fn holds(&self, ranges: &[(u64, u64)]) -> bool {
        ranges.iter().all(|&(a, b)| self.slice(a, b).is_some())
    }

    /// Whether every event recorded is held.
    pub fn is_whole(&self) -> bool {
        self.events.len() as u64 == self.len
    }

    /// Events recorded, held or not.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no event was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hex of the running stable hash over every event so far; empty for
    /// a trace made with [`TraceHash::Off`].
    pub fn hash_hex(&self) -> String {
        self.hasher.hex()
    }

    /// The hash a list of events would have: used to verify a saved report.
    pub fn hash_of(events: &[Event], kind: TraceHash) -> String {
        let mut h = EventHash::new(kind);
        for e in events {
            h.add(e);
        }
        h.hex()
    }
}

/// The hash of events handed over one at a time, as [`Trace::hash_of`]
/// gives it for all of them: for a trace read from a file without holding
/// it.
#[derive(Clone, Debug, Default)]
pub struct EventHash(Running);

impl EventHash {
    /// No events yet, hashed with `kind`.
    pub fn new(kind: TraceHash) -> Self {
        EventHash(Running::new(kind))
    }

    /// Hash the next event.
    pub fn add(&mut self, e: &Event) {
        self.0.add(e)
    }

    /// Hex of the hash so far, as [`Trace::hash_hex`] writes it.
    pub fn hex(&self) -> String {
        self.0.hex()
    }
}

/// The event numbered `i` among `events` (a whole trace, or a window of one
/// in order of `i`).
pub fn event_at(events: &[Event], i: u64) -> Option<&Event> {
    match events.get(i as usize) {
        Some(e) if e.i == i => Some(e),
        _ => events.binary_search_by_key(&i, |e| e.i).ok().map(|k| &events[k]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(keep: Keep, n: u64) -> Trace {
        let mut t = Trace::new(keep, TraceHash::Words);
        for k in 0..n {
            let e = t.push(k, Some(0), EventKind::Boot { restart: k % 2 == 0 });
            assert_eq!(e.i, k, "the event pushed is the one handed back, held or not");
        }
        t
    }

    #[test]
    fn hash_covers_every_field() {
        let mut a = Trace::default();
        a.push(5, Some(1), EventKind::Boot { restart: false });
        let mut b = Trace::default();
        b.push(5, Some(2), EventKind::Boot { restart: false });
        assert_ne!(a.hash_hex(), b.hash_hex());
        assert_eq!(a.hash_hex(), Trace::hash_of(a.events(), TraceHash::Words));
        let mut old = Trace::new(Keep::All, TraceHash::Fnv1a);
        old.push(5, Some(1), EventKind::Boot { restart: false });
        assert_ne!(old.hash_hex(), a.hash_hex());
        assert_eq!(old.hash_hex(), Trace::hash_of(old.events(), TraceHash::Fnv1a));
    }

    #[test]
    fn every_keep_hashes_every_event() {
        let all = fill(Keep::All, 1000);
        assert!(all.is_whole());
        for keep in [Keep::Last(10), Keep::Ranges(vec![(3, 5), (900, 2000)])] {
            let t = fill(keep, 1000);
            assert_eq!(t.len(), 1000);
            assert_eq!(t.hash_hex(), all.hash_hex());
            assert!(!t.is_whole());
        }
    }

    #[test]
    fn last_holds_n_to_2n_latest() {
        let t = fill(Keep::Last(10), 1000);
        let held = t.events();
        assert!((10..=20).contains(&held.len()), "{}", held.len());
        assert_eq!(held.last().map(|e| e.i), Some(999));
        assert!(t.holds(&[(990, 999)]));
        assert!(!t.holds(&[(0, 0)]));
        assert!(fill(Keep::Last(10), 15).is_whole());
    }

    #[test]
    fn ranges_hold_exactly_their_events() {
        let t = fill(Keep::Ranges(vec![(3, 5), (900, 2000)]), 1000);
        let held: Vec<u64> = t.events().iter().map(|e| e.i).collect();
        let want: Vec<u64> = (3..=5).chain(900..1000).collect();
        assert_eq!(held, want);
        assert!(t.holds(&[(3, 5), (950, 999)]));
        assert!(!t.holds(&[(3, 6)]));
        assert!(!t.holds(&[(900, 1000)]), "past the end is not held");
        assert_eq!(t.get(4).map(|e| e.i), Some(4));
        assert!(t.get(6).is_none());
    }
}
