//! The storage both releases' `Storage` implementations share: the state in
//! memory, every write also a disk record, and the replay of those records
//! at boot.
//!
//! The crate's contract is synchronous: a write is durable when the call
//! returns. dst's disk is durable only after an fsync, so the store writes
//! through to memory at once and keeps the records each call into the crate
//! made; the node hands them to the disk and holds back everything that
//! step produced until their fsync completes, as a process blocked in a
//! synchronous write would. A crash before then keeps a prefix of the
//! records, which is what a crash in the middle of the step would leave.

use crate::ballot::BallotRec;
use crate::kv::Cmd;
use std::cell::RefCell;
use std::rc::Rc;

/// One disk record; each is written whole or not at all.
#[derive(Clone, Debug, PartialEq)]
pub enum Rec {
    /// The log from index `from` on replaced by `entries`: an append when
    /// `from` is the log's length, a rewrite of a suffix when it is less.
    Entries {
        from: u64,
        entries: Vec<Cmd>,
    },
    Promise(BallotRec),
    AcceptedRound(BallotRec),
    Decided(u64),
    /// Writes the crate asked to be made atomically (`write_atomically`).
    Atomic(Vec<Rec>),
}

/// What the records describe: the log and the state the crate persists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub log: Vec<Cmd>,
    pub promise: Option<BallotRec>,
    pub accepted_round: Option<BallotRec>,
    pub decided: u64,
}

impl State {
    /// Rebuilds the state from durable records, in order.
    pub fn replay(recs: &[Rec]) -> State {
        let mut s = State::default();
        for r in recs {
            s.apply(r);
        }
        s
    }

    fn apply(&mut self, rec: &Rec) {
        match rec {
            // As the crate's reference `MemoryStorage` does it: truncate at
            // `from`, then extend. A `from` past the end truncates nothing.
            Rec::Entries { from, entries } => {
                self.log.truncate(*from as usize);
                self.log.extend(entries.iter().cloned());
            }
            Rec::Promise(b) => self.promise = Some(*b),
            Rec::AcceptedRound(b) => self.accepted_round = Some(*b),
            Rec::Decided(i) => self.decided = *i,
            Rec::Atomic(recs) => {
                for r in recs {
                    self.apply(r);
                }
            }
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    state: State,
    /// Records written since the node last took them.
    written: Vec<Rec>,
    /// Records of a `write_atomically` under way.
    atomic: Option<Vec<Rec>>,
    /// Entries written past the log's end since the node last looked:
    /// (from, the log's length then).
    gaps: Vec<(u64, u64)>,
}

/// The storage the crate owns, and the node's handle on the same state: the
/// crate takes its storage by value and gives no access back.
#[derive(Clone, Debug, Default)]
pub struct Store(Rc<RefCell<Inner>>);

/// Why a write the adapter does not support was refused. The crate panics
/// on a storage error, so reaching one is a finding, not a silent pass.
#[derive(Debug)]
pub struct Unsupported(pub &'static str);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not supported by this adapter: {}", self.0)
    }
}

impl std::error::Error for Unsupported {}

impl Store {
    pub fn new(state: State) -> Store {
        Store(Rc::new(RefCell::new(Inner {
            state,
            ..Inner::default()
        })))
    }

    /// Makes a write: in memory at once, and a record for the disk.
    pub fn write(&self, rec: Rec) {
        let mut inner = self.0.borrow_mut();
        if let Rec::Entries { from, .. } = rec {
            let len = inner.state.log.len() as u64;
            if from > len {
                inner.gaps.push((from, len));
            }
        }
        inner.state.apply(&rec);
        match inner.atomic.as_mut() {
            Some(group) => group.push(rec),
            None => inner.written.push(rec),
        }
    }

    /// Writes made inside `f` become one record.
    pub fn atomically<E>(&self, f: impl FnOnce() -> Result<(), E>) -> Result<(), E> {
        self.0.borrow_mut().atomic = Some(Vec::new());
        let r = f();
        let mut inner = self.0.borrow_mut();
        let group = inner.atomic.take().unwrap_or_default();
        if !group.is_empty() {
            inner.written.push(Rec::Atomic(group));
        }
        r
    }

    /// The records written since the last call.
    pub fn take_written(&self) -> Vec<Rec> {
        std::mem::take(&mut self.0.borrow_mut().written)
    }

    /// The writes past the log's end since the last call.
    pub fn take_gaps(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.0.borrow_mut().gaps)
    }

    pub fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.0.borrow().state)
    }

    /// Appends `entries` at the end; the new length.
    pub fn append(&self, entries: Vec<Cmd>) -> u64 {
        let from = self.len();
        self.write(Rec::Entries { from, entries });
        self.len()
    }

    /// Replaces the log from `from` on; the new length.
    pub fn append_on_prefix(&self, from: u64, entries: Vec<Cmd>) -> u64 {
        self.write(Rec::Entries { from, entries });
        self.len()
    }

    pub fn len(&self) -> u64 {
        self.read(|s| s.log.len() as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries `from..to`, or none if the log does not hold all of them
    /// (the trait's contract).
    pub fn entries(&self, from: u64, to: u64) -> Vec<Cmd> {
        self.read(|s| {
            s.log
                .get(from as usize..to as usize)
                .map(<[Cmd]>::to_vec)
                .unwrap_or_default()
        })
    }

    pub fn suffix(&self, from: u64) -> Vec<Cmd> {
        self.read(|s| s.log.get(from as usize..).map(<[Cmd]>::to_vec).unwrap_or_default())
    }

    /// The log's length and the epoch of its last entry.
    pub fn tail(&self) -> (u64, u64) {
        self.read(|s| (s.log.len() as u64, s.log.last().map_or(0, |c| c.term)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::KvOp;

    fn cmd(req: u64) -> Cmd {
        Cmd {
            node: 0,
            req,
            op: KvOp::Put { key: 0, value: req },
            term: 1,
        }
    }

    #[test]
    fn replaying_the_records_gives_the_state_in_memory() {
        let s = Store::default();
        s.append(vec![cmd(1), cmd(2), cmd(3)]);
        s.write(Rec::Promise(BallotRec {
            config_id: 1,
            n: 2,
            priority: 0,
            pid: 1,
        }));
        s.atomically(|| {
            s.write(Rec::Decided(1));
            s.append_on_prefix(1, vec![cmd(4)]);
            Ok::<(), ()>(())
        })
        .unwrap();
        s.append_on_prefix(9, vec![cmd(5)]);
        let recs = s.take_written();
        assert_eq!(recs.len(), 4);
        assert_eq!(State::replay(&recs), s.read(State::clone));
        assert_eq!(s.read(|st| st.log.clone()), vec![cmd(1), cmd(4), cmd(5)]);
        assert_eq!(s.take_gaps(), vec![(9, 2)]);
        assert!(s.take_written().is_empty());
    }

    #[test]
    fn out_of_range_reads_are_empty() {
        let s = Store::default();
        s.append(vec![cmd(1), cmd(2)]);
        assert_eq!(s.entries(1, 3), Vec::<Cmd>::new());
        assert_eq!(s.entries(0, 2).len(), 2);
        assert_eq!(s.suffix(5), Vec::<Cmd>::new());
    }
}
