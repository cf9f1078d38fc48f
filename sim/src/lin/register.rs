//! Jepsen's single register (Knossos' cas-register): it starts as nil;
//! `write v`, `read` returning v or nil, `cas [old new]` that succeeds iff
//! the register holds `old`. A cas that did not apply is recorded as a
//! failure, so every completed cas applied.

use super::model::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterOp {
    Read,
    Write(i64),
    Cas(i64, i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterOutput {
    /// What a read saw (`None`: nil).
    Read(Option<i64>),
    /// A write or a cas completed (and so applied).
    Done,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Register;

impl Model for Register {
    type Key = ();
    type State = Option<i64>;
    type Input = RegisterOp;
    type Output = RegisterOutput;

    fn init(&self) -> Option<i64> {
        None
    }

    fn key(&self, _input: &RegisterOp) {}

    fn step(&self, state: &Option<i64>, input: &RegisterOp, output: Option<&RegisterOutput>) -> Option<Option<i64>> {
        match (input, output) {
            (RegisterOp::Read, None) => Some(*state),
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => (v == state).then_some(*state),
            (RegisterOp::Write(v), None | Some(RegisterOutput::Done)) => Some(Some(*v)),
            (RegisterOp::Cas(old, new), None) => Some(if *state == Some(*old) { Some(*new) } else { *state }),
            (RegisterOp::Cas(old, new), Some(RegisterOutput::Done)) => (*state == Some(*old)).then_some(Some(*new)),
            _ => None,
        }
    }

    fn is_read(&self, input: &RegisterOp) -> bool {
        *input == RegisterOp::Read
    }

    fn is_blind_write(&self, input: &RegisterOp) -> bool {
        matches!(input, RegisterOp::Write(_))
    }

    fn describe_key(&self, _key: &()) -> String {
        "register".to_string()
    }

    fn describe_op(&self, input: &RegisterOp, output: Option<&RegisterOutput>) -> String {
        let unknown = if output.is_some() { "" } else { " -> ?" };
        match (input, output) {
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => format!("read -> {}", show(v)),
            (RegisterOp::Read, _) => format!("read{unknown}"),
            (RegisterOp::Write(v), _) => format!("write {v}{unknown}"),
            (RegisterOp::Cas(old, new), _) => format!("cas [{old} {new}]{unknown}"),
        }
    }

    fn describe_state(&self, state: &Option<i64>) -> String {
        show(state)
    }
}

fn show(v: &Option<i64>) -> String {
    v.map_or_else(|| "nil".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cas_applies_only_on_a_match() {
        let m = Register;
        let done = Some(&RegisterOutput::Done);
        assert_eq!(m.step(&Some(1), &RegisterOp::Cas(1, 2), done), Some(Some(2)));
        assert_eq!(m.step(&Some(3), &RegisterOp::Cas(1, 2), done), None);
        assert_eq!(m.step(&None, &RegisterOp::Cas(1, 2), None), Some(None));
        let nil = RegisterOutput::Read(None);
        assert_eq!(m.step(&None, &RegisterOp::Read, Some(&nil)), Some(None));
        assert_eq!(m.step(&Some(1), &RegisterOp::Read, Some(&nil)), None);
        assert_eq!(m.step(&Some(1), &RegisterOp::Write(4), Some(&nil)), None);
    }
}
