#![deny(missing_docs)]
#![warn(unnameable_types)]
//! Linearizability checking of client histories, as dst's `check`
//! command and its `linearizable` invariant do it, usable on its own: it
//! builds without the simulator, its runtime or any `--cfg`.
//!
//! ```
//! use linearizability::{check, Options, Outcome, Recorder, Register, RegisterOp, RegisterOutput};
//!
//! // Client 1 writes 1. Client 2 reads 1 while the write is in flight, then
//! // reads nil once it completed: the second read went back in time.
//! let mut h = Recorder::new("client", "line");
//! h.invoke(1, RegisterOp::Write(1), 1)?;
//! h.invoke(2, RegisterOp::Read, 2)?;
//! h.ok(2, RegisterOutput::Read(Some(1)), 3)?;
//! h.ok(1, RegisterOutput::Done, 4)?;
//! h.invoke(2, RegisterOp::Read, 5)?;
//! h.ok(2, RegisterOutput::Read(None), 6)?;
//! let checked = check(&Register::new(), &h.finish(), &Options::default());
//! let Outcome::NotLinearizable(why) = checked.outcome else { panic!("{:?}", checked.outcome) };
//! assert_eq!(why.unplaced, 2, "the op no order can place: the third, the stale read");
//! # Ok::<(), String>(())
//! ```
//!
//! Histories come from a [`Recorder`] as above or from the parsers:
//! Jepsen's `history.edn` ([`parse_jepsen_edn`], every model Knossos
//! checks: registers, a mutex, sets, queues), single-register logs as
//! porcupine's etcd tests read them ([`parse_jepsen`]) and EDN key-value
//! histories ([`parse_edn`]). A model is a [`Model`]; the built-in ones are
//! [`Register`], [`DstKv`], [`StringKv`], [`Set`], [`Mutex`], [`FifoQueue`]
//! and [`UnorderedQueue`].
//!
//! A history is linearizable when every operation can be given a point
//! between its invoke and its completion such that, in that order, each
//! returns what the sequential [`Model`] says. An operation that `fail`ed
//! never happened; one whose outcome is unknown (`info`, or no completion)
//! may happen at any point after its invoke, or never, and its output is
//! not checked.
//!
//! The search is Wing & Gong's, with Lowe's list of calls and returns and a
//! cache of (linearized set, state). Operations on different keys are
//! independent (P-compositionality), so each key is searched on its own,
//! the smallest first, stopping at the first key that is not linearizable.
//! A budget of search steps (never wall time, so the verdict is the same on
//! every machine) turns a search that is too expensive into `Unknown`, and
//! so does a cap on the memory its cache may take (an estimate from what
//! it has stored, again the same on every machine).
//!
//! Before searching a key, the checker tries to decide it in polynomial
//! time: where every write on the key sets a value no other op sets, each
//! read names the write it read from, and the key is decided by the order
//! those writes and reads can take (`reads_from`, for models that say how
//! their ops touch the state through [`Model::access`]).

mod brief;
pub mod edn;
mod history;
mod jepsen_events;
mod jepsen_model;
mod jepsen_ops;
mod kv;
mod kv_ops;
mod lines;
pub mod mem;
mod memo;
mod model;
mod mutex;
pub mod one_line;
pub mod parse_edn;
pub mod parse_jepsen;
pub mod parse_jepsen_edn;
mod queue;
mod reads_from;
mod register;
mod search;
mod set;
mod set_order;
pub mod stop;
mod string_kv;
mod string_kv_appends;
mod unique_values;

pub mod gen;
pub mod gen_kv;

#[cfg(test)]
mod tests;

pub use history::{History, Op, ParseError, Recorder};
pub use jepsen_events::{Collection, Events, OpValue, Shown};
pub use jepsen_model::{JepsenModel, ModelUser};
pub use jepsen_ops::JepsenOps;
pub use kv::DstKv;
pub use kv_ops::{apply_kv, KvOp, KvResult, Value};
pub use model::{Access, Element, Model, Seen};
pub use mutex::{Mutex, MutexOp};
pub use queue::{FifoQueue, QueueOp, QueueOutput, UnorderedQueue};
pub use register::{Register, RegisterOp, RegisterOutput, RegisterValue};
pub use set::{Set, SetOp, SetOutput};
pub use string_kv::{StrKvOp, StrKvOutput, StringKv};

use search::KeyResult;
use std::collections::BTreeMap;
use unique_values::KeyVerdict;

/// Search steps allowed per key before the verdict is `Unknown`, where the
/// checker runs at the end of every simulated run.
pub const DEFAULT_BUDGET_PER_KEY: u64 = 2_000_000;

/// Search steps allowed per key by `dst check`, which checks one history a
/// user waits for: about a minute of the search on a hard history (the
/// book's `dst check` chapter says how it was chosen).
pub const CHECK_BUDGET_PER_KEY: u64 = 500_000_000;

/// The memory the search's cache may take on one key, in MiB: room for
/// [`CHECK_BUDGET_PER_KEY`] steps on the hardest histories measured.
pub const DEFAULT_MEMO_MIB_MAX: u64 = 8192;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// What a check may spend, and whether a signal may cut it short.
pub struct Options {
    /// Model steps the search may take on one key.
    pub budget_per_key: u64,
    /// Bytes the search's cache of explored configurations may take on one
    /// key, as estimated from what it stores (see the book's `dst check` chapter).
    pub memo_bytes_max: u64,
    /// A signal (Ctrl-C, SIGTERM) ends the search with "unknown": for
    /// `dst check`, where the user waits for it. Off inside a campaign, so
    /// that an interruption never changes the verdict of a run it counts.
    pub interruptible: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget_per_key: DEFAULT_BUDGET_PER_KEY,
            memo_bytes_max: DEFAULT_MEMO_MIB_MAX << 20,
            interruptible: false,
        }
    }
}

/// Why a key is not linearizable. Op numbers index `History::ops`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The key, as the model describes it.
    pub key: String,
    /// The longest partial linearization the search found, in order.
    pub linearized: Vec<usize>,
    /// The op that could not be placed after it: its completion came and
    /// no order of what was left could put it there.
    pub unplaced: usize,
    /// The model state after `linearized`.
    pub state: String,
    /// Why the op cannot follow that state, where the model says more
    /// than the two descriptions show ([`Model::describe_misfit`]).
    pub why: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// The verdict on a whole history.
pub enum Outcome {
    /// Every key has an order that explains it.
    Linearizable,
    /// Some key has none: the first found, and why.
    NotLinearizable(Failure),
    /// A limit ran out on some key and no key was found illegal.
    Unknown {
        /// The key it ran out on.
        key: String,
        /// Which limit, after how many steps, in words.
        reason: String,
        /// Which limit.
        limit: Limit,
    },
}

/// What stopped a search short of a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// It took `budget_per_key` steps.
    Budget,
    /// Its cache reached `memo_bytes_max`.
    Memo,
    /// What the checking thread holds (the history, the search's cache,
    /// everything) passed the cap set by [`crate::mem::cap_from_here`].
    Memory,
    /// A signal asked it to stop ([`Options::interruptible`]).
    Interrupted,
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// The verdict and what it took to reach it.
pub struct Checked {
    /// The verdict.
    pub outcome: Outcome,
    /// Ops checked (unknown-outcome reads are left out: they constrain
    /// nothing; so are writes nothing could have observed).
    pub ops: usize,
    /// Keys checked before the verdict was reached.
    pub keys: usize,
    /// Of those, keys decided without a search because every write's
    /// value on them was unique.
    pub keys_without_search: usize,
    /// Model steps taken over all keys.
    pub steps: u64,
    /// How each key checked was settled, in the order checked.
    pub by_key: Vec<KeyCheck>,
}

/// How one key was settled: which procedure decided it, on how many ops,
/// in how many steps, and what it found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyCheck {
    /// The key, as the model describes it.
    pub key: String,
    /// Its ops, as counted in [`Checked::ops`].
    pub ops: usize,
    /// `"unique values"` (decided in polynomial time) or `"search"`.
    pub decided_by: &'static str,
    /// Model steps it took (0 when decided without a search).
    pub steps: u64,
    /// `"linearizable"`, `"not linearizable"` or `"unknown"`.
    pub result: &'static str,
}

/// One key's ops: all of them but unknown-outcome reads, and of those the
/// ones the search takes with what was seen of each.
struct Part<K> {
    key: K,
    all: Vec<usize>,
    searched: Vec<usize>,
    seen: Vec<Seen>,
}

/// One key's verdict.
enum KeyOutcome {
    Linearizable,
    Illegal(Failure),
    Unknown(String, Limit),
}

/// Check `history` against `model`.
pub fn check<M: Model>(model: &M, history: &History<M::Input, M::Output>, opts: &Options) -> Checked {
    let parts = partition(model, history);
    let mut checked = Checked {
        outcome: Outcome::Linearizable,
        ops: parts.iter().map(|p| p.searched.len()).sum(),
        keys: 0,
        keys_without_search: 0,
        steps: 0,
        by_key: Vec::new(),
    };
    for part in &parts {
        checked.keys += 1;
        let before = checked.steps;
        // A key that went over the memory cap freed what it took: the
        // next starts afresh if what is left is under it.
        crate::mem::rearm();
        let (outcome, decided_by) = match without_search(model, history, part) {
            Some(outcome) => {
                checked.keys_without_search += 1;
                (outcome, "unique values")
            }
            None => (search_key(model, history, part, opts, &mut checked.steps), "search"),
        };
        checked.by_key.push(KeyCheck {
            key: model.describe_key(&part.key),
            ops: part.searched.len(),
            decided_by,
            steps: checked.steps - before,
            result: match outcome {
                KeyOutcome::Linearizable => "linearizable",
                KeyOutcome::Illegal(_) => "not linearizable",
                KeyOutcome::Unknown(..) => "unknown",
            },
        });
        match outcome {
            KeyOutcome::Linearizable => {}
            KeyOutcome::Illegal(f) => {
                checked.outcome = Outcome::NotLinearizable(f);
                return checked;
            }
            KeyOutcome::Unknown(reason, limit) => {
                if checked.outcome == Outcome::Linearizable {
                    let key = model.describe_key(&part.key);
                    checked.outcome = Outcome::Unknown { key, reason, limit };
                }
            }
        }
    }
    checked
}

/// The history by key, cheapest to search first (ties in key order).
fn partition<M: Model>(model: &M, history: &History<M::Input, M::Output>) -> Vec<Part<M::Key>> {
    let mut by_key: BTreeMap<M::Key, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.ops.iter().enumerate() {
        if !op.is_completed() && model.is_read(&op.input) {
            continue;
        }
        by_key.entry(model.key(&op.input)).or_default().push(i);
    }
    let mut parts: Vec<Part<M::Key>> = by_key
        .into_iter()
        .map(|(key, all)| {
            let ops: Vec<&Op<M::Input, M::Output>> = all.iter().map(|&i| &history.ops[i]).collect();
            let (searched, seen) = all
                .iter()
                .copied()
                .zip(model.seen(&ops))
                .filter(|(_, s)| *s != Seen::Never)
                .unzip();
            Part {
                key,
                all,
                searched,
                seen,
            }
        })
        .collect();
    parts.sort_by_key(|p| p.searched.len());
    parts
}

/// The key decided in polynomial time, if its values are unique.
fn without_search<M: Model>(
    model: &M,
    history: &History<M::Input, M::Output>,
    part: &Part<M::Key>,
) -> Option<KeyOutcome> {
    let ops: Vec<&Op<M::Input, M::Output>> = part.all.iter().map(|&i| &history.ops[i]).collect();
    Some(match unique_values::decide(model, &ops)? {
        KeyVerdict::Linearizable => KeyOutcome::Linearizable,
        KeyVerdict::Illegal {
            linearized,
            unplaced,
            state,
        } => KeyOutcome::Illegal(Failure {
            key: model.describe_key(&part.key),
            linearized: linearized.into_iter().map(|j| part.all[j]).collect(),
            unplaced: part.all[unplaced],
            why: misfit(model, &state, &history.ops[part.all[unplaced]]),
            state: model.describe_state(&state),
        }),
    })
}

/// What the model says of why `op` cannot follow `state`.
fn misfit<M: Model>(model: &M, state: &M::State, op: &Op<M::Input, M::Output>) -> Option<String> {
    let output = if op.is_completed() { op.output.as_ref() } else { None };
    model.describe_misfit(state, &op.input, output)
}

/// The key searched; `steps` counts model steps over all keys.
fn search_key<M: Model>(
    model: &M,
    history: &History<M::Input, M::Output>,
    part: &Part<M::Key>,
    opts: &Options,
    steps: &mut u64,
) -> KeyOutcome {
    let ops: Vec<&Op<M::Input, M::Output>> = part.searched.iter().map(|&i| &history.ops[i]).collect();
    let mut taken = 0;
    let result = match crate::mem::over_cap() {
        true => KeyResult::OverCap,
        false => search::search(
            model,
            &ops,
            &part.seen,
            &mut taken,
            opts.budget_per_key,
            // The cache grows by doubling: it is given what the cap leaves,
            // so that it stops before a doubling would pass it.
            opts.memo_bytes_max.min(crate::mem::room().unwrap_or(u64::MAX)),
            opts.interruptible,
        ),
    };
    *steps += taken;
    let key = model.describe_key(&part.key);
    let unknown = ops.iter().filter(|o| !o.is_completed()).count();
    let size = format!("{} ops, {unknown} with unknown outcome", ops.len());
    match result {
        KeyResult::Linearizable => KeyOutcome::Linearizable,
        KeyResult::Illegal {
            linearized,
            unplaced,
            state,
        } => {
            // A write dated by what saw it stands for the op that saw it
            // (one returning there that is not placed: others may tie).
            let unplaced = match part.seen[unplaced] {
                Seen::Before(at) => (0..ops.len())
                    .find(|&j| ops[j].is_completed() && ops[j].complete == Some(at) && !linearized.contains(&j))
                    .unwrap_or(unplaced),
                _ => unplaced,
            };
            KeyOutcome::Illegal(Failure {
                key,
                linearized: linearized.into_iter().map(|j| part.searched[j]).collect(),
                unplaced: part.searched[unplaced],
                why: misfit(model, &state, &history.ops[part.searched[unplaced]]),
                state: model.describe_state(&state),
            })
        }
        KeyResult::GaveUp => KeyOutcome::Unknown(
            format!(
                "gave up on key {key} after {} search steps ({size})",
                opts.budget_per_key
            ),
            Limit::Budget,
        ),
        KeyResult::MemoFull { entries, bytes } => KeyOutcome::Unknown(
            format!(
                "the search's memo table reached {entries} entries (about {:.1} MiB, as much as its cap allows) on key {key} after {taken} search steps ({size})",
                bytes as f64 / (1u64 << 20) as f64,
            ),
            Limit::Memo,
        ),
        KeyResult::OverCap => KeyOutcome::Unknown(
            format!(
                "the check held more than its memory cap{} on key {key} after {taken} search steps ({size})",
                crate::mem::cap().map_or(String::new(), |b| format!(" of {} MiB", b >> 20)),
            ),
            Limit::Memory,
        ),
        KeyResult::Interrupted => KeyOutcome::Unknown(
            format!("interrupted on key {key} after {taken} search steps ({size})"),
            Limit::Interrupted,
        ),
    }
}

/// One op for a human: what it did and who did it, positions named by
/// `unit` ("event", "line").
pub fn describe_op<M: Model>(model: &M, op: &Op<M::Input, M::Output>, unit: &str) -> String {
    let what = model.describe_op(&op.input, op.output.as_ref());
    match op.complete {
        Some(c) => format!("{what} by client {} ({unit}s {}..{c})", op.client, op.invoke),
        None => format!("{what} by client {} ({unit} {}, never completed)", op.client, op.invoke),
    }
}

impl Failure {
    /// One line: the key, the op that could not be placed, and the end of
    /// the longest partial linearization with the state it leaves.
    pub fn message<M: Model>(&self, model: &M, history: &History<M::Input, M::Output>, unit: &str) -> String {
        const SHOWN: usize = 4;
        let tail: Vec<String> = self
            .linearized
            .iter()
            .rev()
            .take(SHOWN)
            .rev()
            .map(|&i| describe_op(model, &history.ops[i], unit))
            .collect();
        let before = match (self.linearized.len(), tail.is_empty()) {
            (_, true) => "with no op linearized before it".to_string(),
            (n, false) if n > SHOWN => format!("after {n} linearized ops, ending {}", tail.join(", ")),
            (_, false) => format!("after {}", tail.join(", ")),
        };
        let why = self.why.as_ref().map_or(String::new(), |w| format!(" ({w})"));
        format!(
            "key {}: {} cannot be linearized {before}; the state there is {}{why}",
            self.key,
            describe_op(model, &history.ops[self.unplaced], unit),
            self.state
        )
    }
}
