//! Linearizability checking of client histories.
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
//! every machine) turns a search that is too expensive into `Unknown`.

pub mod edn;
mod history;
mod jepsen_model;
mod jepsen_ops;
mod kv;
mod memo;
mod model;
mod mutex;
pub mod parse_dst;
pub mod parse_edn;
pub mod parse_jepsen;
pub mod parse_jepsen_edn;
mod queue;
mod register;
mod search;
mod set;
mod string_kv;

pub mod gen;

#[cfg(test)]
mod brute;
#[cfg(test)]
mod jepsen_edn_tests;
#[cfg(test)]
mod tests;

pub use history::{DstHistory, History, Op, ParseError, Recorder};
pub use jepsen_model::{JepsenModel, ModelUser};
pub use jepsen_ops::JepsenOps;
pub use kv::DstKv;
pub use model::{Element, Model, Seen};
pub use mutex::{Mutex, MutexOp};
pub use queue::{FifoQueue, QueueOp, QueueOutput, UnorderedQueue};
pub use register::{Register, RegisterOp, RegisterOutput, RegisterValue};
pub use set::{Set, SetOp, SetOutput};
pub use string_kv::{StrKvOp, StrKvOutput, StringKv};

use search::KeyResult;
use std::collections::BTreeMap;

/// Search steps allowed per key before the verdict is `Unknown`.
pub const DEFAULT_BUDGET_PER_KEY: u64 = 2_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Model steps the search may take on one key.
    pub budget_per_key: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget_per_key: DEFAULT_BUDGET_PER_KEY,
        }
    }
}

/// Why a key is not linearizable. Op numbers index `History::ops`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub key: String,
    /// The longest partial linearization the search found, in order.
    pub linearized: Vec<usize>,
    /// The op that could not be placed after it: its completion came and
    /// no order of what was left could put it there.
    pub unplaced: usize,
    /// The model state after `linearized`.
    pub state: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Linearizable,
    NotLinearizable(Failure),
    /// The budget ran out on some key and no key was found illegal.
    Unknown {
        key: String,
        reason: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub outcome: Outcome,
    /// Ops searched (unknown-outcome reads are left out: they constrain
    /// nothing; so are writes nothing could have observed).
    pub ops: usize,
    /// Keys searched before the verdict was reached.
    pub keys: usize,
    /// Model steps taken over all keys.
    pub steps: u64,
}

/// Check `history` against `model`.
pub fn check<M: Model>(model: &M, history: &History<M::Input, M::Output>, opts: &Options) -> Checked {
    let mut parts: BTreeMap<M::Key, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.ops.iter().enumerate() {
        if !op.is_completed() && model.is_read(&op.input) {
            continue;
        }
        parts.entry(model.key(&op.input)).or_default().push(i);
    }
    // Per key: the ops to search and what was seen of each.
    let mut parts: Vec<(M::Key, Vec<usize>, Vec<Seen>)> = parts
        .into_iter()
        .map(|(key, idx)| {
            let ops: Vec<&Op<M::Input, M::Output>> = idx.iter().map(|&i| &history.ops[i]).collect();
            let seen = model.seen(&ops);
            let (kept, seen): (Vec<usize>, Vec<Seen>) =
                idx.into_iter().zip(seen).filter(|(_, s)| *s != Seen::Never).unzip();
            (key, kept, seen)
        })
        .collect();
    // Cheapest first; the sort is stable, so ties keep key order.
    parts.sort_by_key(|(_, ops, _)| ops.len());
    let mut checked = Checked {
        outcome: Outcome::Linearizable,
        ops: parts.iter().map(|(_, ops, _)| ops.len()).sum(),
        keys: 0,
        steps: 0,
    };
    for (key, idx, seen) in &parts {
        checked.keys += 1;
        let ops: Vec<&Op<M::Input, M::Output>> = idx.iter().map(|&i| &history.ops[i]).collect();
        let mut steps = 0;
        let result = search::search(model, &ops, seen, &mut steps, opts.budget_per_key);
        checked.steps += steps;
        match result {
            KeyResult::Linearizable => {}
            KeyResult::Illegal {
                linearized,
                unplaced,
                state,
            } => {
                // A write dated by what saw it stands for the op that saw it.
                let unplaced = match seen[unplaced] {
                    Seen::Before(at) => ops
                        .iter()
                        .position(|o| o.is_completed() && o.complete == Some(at))
                        .unwrap_or(unplaced),
                    _ => unplaced,
                };
                checked.outcome = Outcome::NotLinearizable(Failure {
                    key: model.describe_key(key),
                    linearized: linearized.into_iter().map(|j| idx[j]).collect(),
                    unplaced: idx[unplaced],
                    state: model.describe_state(&state),
                });
                return checked;
            }
            KeyResult::GaveUp => {
                if checked.outcome == Outcome::Linearizable {
                    let unknown = ops.iter().filter(|o| !o.is_completed()).count();
                    checked.outcome = Outcome::Unknown {
                        key: model.describe_key(key),
                        reason: format!(
                            "gave up on key {} after {} search steps ({} ops, {unknown} with unknown outcome)",
                            model.describe_key(key),
                            opts.budget_per_key,
                            ops.len()
                        ),
                    };
                }
            }
        }
    }
    checked
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
        format!(
            "key {}: {} cannot be linearized {before}; the state there is {}",
            self.key,
            describe_op(model, &history.ops[self.unplaced], unit),
            self.state
        )
    }
}
