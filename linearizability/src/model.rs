//! What the search needs to know about a system: its sequential
//! specification as a state machine, and how its operations split by key.

use super::history::Op;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// What a set or a queue holds: the search memoizes states, so elements
/// compare and hash by value, and sort, so that equal collections of them
/// are equal states.
pub trait Element: Clone + Ord + Hash + Debug + Display {}

impl<T: Clone + Ord + Hash + Debug + Display> Element for T {}

/// What the rest of the history saw of an unknown-outcome op's effect;
/// the less it could have seen, the less the search must try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// It may have been observed: every place after its invoke is tried.
    Maybe,
    /// Nothing could have observed it: it is taken never to have happened,
    /// which changes no verdict, and is left out of the search.
    Never,
    /// An unconditional write that only a refusal could have observed (a
    /// state that is not what the refusal expected). If it took effect
    /// anywhere, it may as well have taken effect right before the refusal
    /// it explains, and any such write invoked early enough would do, so
    /// the search places only the earliest one still unplaced, and only
    /// right before a refusal.
    OnlyByRefusals,
    /// A completed op returned what only this op could have written, and
    /// completed at this position: the op took effect, and before then.
    /// The search treats it as an op that returned there, output unknown.
    Before(u64),
}

/// What one op did to the state, for deciding histories in which every
/// write's value is unique (see [`Model::access`]). States stand for the
/// values: a register's state is its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access<S> {
    /// Found the state to be `S` and left it so: a read that returned it.
    Read(S),
    /// Set the state to `S` without looking at it, and its output (if any)
    /// does not depend on what was there: a register write, a put.
    Write(S),
    /// Found the state to be `from` and set it to `to`, in one step: a cas
    /// that applied. With its outcome unknown, what it did if it applied.
    Update {
        /// The state found.
        from: S,
        /// The state left.
        to: S,
    },
    /// Neither looked at the state nor changed it: a read whose output is
    /// unknown.
    Nothing,
    /// Found the state not to be `S` and left it as it was: a cas that did
    /// not apply. The other ops are decided without it, and it is placed
    /// in the order found for them, at a point its interval allows where
    /// the state is not `S`; where that order has no such point, the key
    /// is searched.
    Refused(S),
}

/// A sequential specification. The search replays candidate orders of the
/// history's operations through [`Model::step`] and memoizes the states it
/// reaches, so states must compare and hash by value.
pub trait Model {
    /// Operations on different keys never interact (P-compositionality), so
    /// each key's sub-history is checked on its own.
    type Key: Ord + Clone + Debug;
    /// The state of one key.
    type State: Clone + Eq + Hash + Debug;
    /// What an operation asks for.
    type Input: Clone + Debug;
    /// What an operation returned.
    type Output: Clone + Debug + PartialEq;

    /// The state of one key before the first operation on it.
    fn init(&self) -> Self::State;

    /// The key an operation touches.
    fn key(&self, input: &Self::Input) -> Self::Key;

    /// Apply `input` to `state`. With `output` known, return the next state
    /// only if the operation returns exactly that output from `state`. With
    /// `output` `None` (the outcome is unknown) every return value is
    /// acceptable, so this must return `Some`.
    fn step(&self, state: &Self::State, input: &Self::Input, output: Option<&Self::Output>) -> Option<Self::State>;

    /// [`Model::step`] in place: whether `input` with `output` steps from
    /// `state`, which it then leaves as the next state (as it found it if
    /// not). Replaying one order of thousands of ops steps a state that
    /// grows with them; a model whose states are collections says it here
    /// without a copy per step. Default: through `step`.
    fn step_in_place(&self, state: &mut Self::State, input: &Self::Input, output: Option<&Self::Output>) -> bool {
        match self.step(state, input, output) {
            Some(next) => {
                *state = next;
                true
            }
            None => false,
        }
    }

    /// The operation never changes the state. An unknown-outcome read
    /// constrains nothing, so the search leaves it out.
    fn is_read(&self, _input: &Self::Input) -> bool {
        false
    }

    /// The operation replaces the state without reading it and its output
    /// does not depend on it (a register write, a put). An unknown-outcome
    /// operation placed right before such an op has no visible effect, so
    /// the search never places one there: it stays free for a later point.
    fn is_blind_write(&self, _input: &Self::Input) -> bool {
        false
    }

    /// For each of `ops` (one key's, in history order), whether an
    /// unknown-outcome op's effect could have been observed. Default: all
    /// could, and the search tries every place for them.
    fn seen(&self, ops: &[&Op<Self::Input, Self::Output>]) -> Vec<Seen> {
        vec![Seen::Maybe; ops.len()]
    }

    /// A completed op whose output says only that the state was not what
    /// it expected (a cas that did not apply): the one kind of op that an
    /// [`Seen::OnlyByRefusals`] op may have affected.
    fn is_refusal(&self, _input: &Self::Input, _output: Option<&Self::Output>) -> bool {
        false
    }

    /// What `input` with `output` (`None`: outcome unknown) did to the
    /// state, as far as [`Access`] can say it; `None` when it cannot (an
    /// append, which [`Model::accesses`] dates by the reads that saw it),
    /// and then the key is searched.
    ///
    /// Where every op of a key has an access, every [`Access::Write`] and
    /// [`Access::Update`] sets a state no other op sets, and none sets the
    /// initial state, reads name their writes and the key is decided in
    /// polynomial time instead of searched. The access must agree with
    /// [`Model::step`]: a `Read(s)` steps only from `s` and stays there, a
    /// `Write(s)` steps from anywhere to `s`, an `Update` only from `from`,
    /// to `to`. A verdict of linearizable is replayed through `step` before
    /// it is given, so a wrong access costs a search, not a wrong verdict.
    fn access(&self, _input: &Self::Input, _output: Option<&Self::Output>) -> Option<Access<Self::State>> {
        None
    }

    /// [`Model::access`] of each of `ops` (one key's, in history order;
    /// outputs of ops that did not complete count as unknown), or `None`
    /// if some op has none. A model whose ops' accesses depend on the rest
    /// of the history (an append, dated by the reads that saw it) answers
    /// here instead.
    fn accesses(&self, ops: &[&Op<Self::Input, Self::Output>]) -> Option<Vec<Access<Self::State>>> {
        each_access(self, ops)
    }

    /// One key's ops (in history order; outputs of ops that did not
    /// complete count as unknown) decided in polynomial time by what the
    /// model knows of itself, where [`Model::accesses`] cannot name the
    /// state each op found (a set's adds commute, so a read pins which came
    /// before it, not their order): `Some(Some(order))`, an order of the
    /// ops that took effect, which is replayed through [`Model::step`]
    /// before it is believed; `Some(None)`, no order exists; `None`, not
    /// decided this way. Default: `None`.
    fn order(&self, _ops: &[&Op<Self::Input, Self::Output>]) -> Option<Option<Vec<usize>>> {
        None
    }

    /// The heap memory `state` holds beyond its own size (a list's
    /// elements), an estimate from its length alone so that it is the same
    /// on every machine. The search's memo keeps a copy of every state it
    /// has explored and counts this against its cap; a model whose states
    /// grow with the history (a list, a string, a set) says it here, or
    /// its states' contents go uncounted. Default: none.
    fn state_heap_bytes(&self, _state: &Self::State) -> u64 {
        0
    }

    /// A key for a human.
    fn describe_key(&self, key: &Self::Key) -> String {
        format!("{key:?}")
    }

    /// One operation for a human, with its output (`?` when unknown).
    fn describe_op(&self, input: &Self::Input, output: Option<&Self::Output>) -> String;

    /// A state for a human.
    fn describe_state(&self, state: &Self::State) -> String;

    /// Why `input` with `output` cannot follow `state`, where the two
    /// descriptions do not show it at a glance: a read of a set of
    /// thousands that lacks one element names that element. Default:
    /// nothing more than the descriptions.
    fn describe_misfit(
        &self,
        _state: &Self::State,
        _input: &Self::Input,
        _output: Option<&Self::Output>,
    ) -> Option<String> {
        None
    }
}

/// [`Model::access`] of each of `ops`, one at a time: what
/// [`Model::accesses`] answers unless a model says more.
pub(crate) fn each_access<M: Model + ?Sized>(
    model: &M,
    ops: &[&Op<M::Input, M::Output>],
) -> Option<Vec<Access<M::State>>> {
    ops.iter()
        .map(|o| model.access(&o.input, if o.is_completed() { o.output.as_ref() } else { None }))
        .collect()
}
