//! Jepsen's single register (Knossos' cas-register): it starts as nil (or
//! a given value); `write v`, `read` returning what it holds, `cas [old
//! new]` that succeeds iff the register holds `old`. A cas that did not
//! apply is recorded as a failure, so every completed cas applied.
//!
//! Values are integers for Jepsen's logs and any EDN value for its
//! history files: the model only compares, hashes and shows them.

use super::model::{Access, Model};
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// What a register can hold: the search memoizes states, so values
/// compare and hash by value.
pub trait RegisterValue: Clone + Eq + Hash + Debug + Display {}

impl<T: Clone + Eq + Hash + Debug + Display> RegisterValue for T {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// An operation on a register.
pub enum RegisterOp<V = i64> {
    /// Reads what it holds.
    Read,
    /// Sets it.
    Write(V),
    /// Sets it to the second value if it holds the first.
    Cas(V, V),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// What a register operation returned.
pub enum RegisterOutput<V = i64> {
    /// What a read saw (`None`: nil).
    Read(Option<V>),
    /// A write or a cas completed (and so applied).
    Done,
}

#[derive(Clone, Copy, Debug)]
/// A single register (Knossos' `register` and `cas-register`).
pub struct Register<V = i64> {
    /// What the register holds before the first op (`None`: nil).
    pub initial: Option<V>,
}

impl Register {
    /// A register of integers that starts as nil, as Jepsen's logs assume.
    pub const fn new() -> Self {
        Register { initial: None }
    }
}

impl<V> Register<V> {
    /// A register that holds `initial` before the first op (`None`: nil).
    pub const fn starting_at(initial: Option<V>) -> Self {
        Register { initial }
    }
}

impl<V> Default for Register<V> {
    fn default() -> Self {
        Register { initial: None }
    }
}

impl<V: RegisterValue> Model for Register<V> {
    type Key = ();
    type State = Option<V>;
    type Input = RegisterOp<V>;
    type Output = RegisterOutput<V>;

    fn init(&self) -> Option<V> {
        self.initial.clone()
    }

    fn key(&self, _input: &RegisterOp<V>) {}

    fn step(&self, state: &Option<V>, input: &RegisterOp<V>, output: Option<&RegisterOutput<V>>) -> Option<Option<V>> {
        let holds = |v: &V| state.as_ref() == Some(v);
        match (input, output) {
            (RegisterOp::Read, None) => Some(state.clone()),
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => (v == state).then(|| state.clone()),
            (RegisterOp::Write(v), None | Some(RegisterOutput::Done)) => Some(Some(v.clone())),
            (RegisterOp::Cas(old, new), None) => Some(if holds(old) { Some(new.clone()) } else { state.clone() }),
            (RegisterOp::Cas(old, new), Some(RegisterOutput::Done)) => holds(old).then(|| Some(new.clone())),
            _ => None,
        }
    }

    fn is_read(&self, input: &RegisterOp<V>) -> bool {
        matches!(input, RegisterOp::Read)
    }

    fn is_blind_write(&self, input: &RegisterOp<V>) -> bool {
        matches!(input, RegisterOp::Write(_))
    }

    fn access(&self, input: &RegisterOp<V>, output: Option<&RegisterOutput<V>>) -> Option<Access<Option<V>>> {
        Some(match (input, output) {
            (RegisterOp::Read, None) => Access::Nothing,
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => Access::Read(v.clone()),
            (RegisterOp::Write(v), None | Some(RegisterOutput::Done)) => Access::Write(Some(v.clone())),
            (RegisterOp::Cas(old, new), None | Some(RegisterOutput::Done)) => Access::Update {
                from: Some(old.clone()),
                to: Some(new.clone()),
            },
            // An output the op can never return: the search says so.
            _ => return None,
        })
    }

    fn describe_key(&self, _key: &()) -> String {
        "register".to_string()
    }

    fn describe_op(&self, input: &RegisterOp<V>, output: Option<&RegisterOutput<V>>) -> String {
        let unknown = if output.is_some() { "" } else { " -> ?" };
        match (input, output) {
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => format!("read -> {}", show(v)),
            (RegisterOp::Read, _) => format!("read{unknown}"),
            (RegisterOp::Write(v), _) => format!("write {v}{unknown}"),
            (RegisterOp::Cas(old, new), _) => format!("cas [{old} {new}]{unknown}"),
        }
    }

    fn describe_state(&self, state: &Option<V>) -> String {
        show(state)
    }
}

fn show<V: Display>(v: &Option<V>) -> String {
    v.as_ref().map_or_else(|| "nil".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cas_applies_only_on_a_match() {
        let m = Register::new();
        let done = Some(&RegisterOutput::Done);
        assert_eq!(m.step(&Some(1), &RegisterOp::Cas(1, 2), done), Some(Some(2)));
        assert_eq!(m.step(&Some(3), &RegisterOp::Cas(1, 2), done), None);
        assert_eq!(m.step(&None, &RegisterOp::Cas(1, 2), None), Some(None));
        let nil = RegisterOutput::Read(None);
        assert_eq!(m.step(&None, &RegisterOp::Read, Some(&nil)), Some(None));
        assert_eq!(m.step(&Some(1), &RegisterOp::Read, Some(&nil)), None);
        assert_eq!(m.step(&Some(1), &RegisterOp::Write(4), Some(&nil)), None);
    }

    #[test]
    fn it_starts_where_it_is_told_and_holds_any_value() {
        assert_eq!(Register::new().init(), None);
        let m = Register::starting_at(Some("a".to_string()));
        assert_eq!(m.init(), Some("a".to_string()));
        let cas = RegisterOp::Cas("a".to_string(), "b".to_string());
        assert_eq!(
            m.step(&m.init(), &cas, Some(&RegisterOutput::Done)),
            Some(Some("b".into()))
        );
        assert_eq!(m.describe_op(&cas, None), "cas [a b] -> ?");
    }
}
