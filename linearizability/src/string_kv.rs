//! A string key-value store (the model of porcupine's and Jepsen's kv
//! histories): every key starts as "", `put` sets it, `append` concatenates,
//! `get` returns it.

use super::history::Op;
use super::model::{Access, Model};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// An operation on one key of a string store.
pub enum StrKvOp {
    /// Reads the key.
    Get(String),
    /// Sets the key.
    Put(String, String),
    /// Appends to the key.
    Append(String, String),
}

impl StrKvOp {
    /// The key it touches.
    pub fn key(&self) -> &str {
        match self {
            StrKvOp::Get(k) | StrKvOp::Put(k, _) | StrKvOp::Append(k, _) => k,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// What a string store operation returned.
pub enum StrKvOutput {
    /// What a get read.
    Value(String),
    /// A put or an append applied.
    Done,
}

#[derive(Clone, Copy, Debug, Default)]
/// The string store's model.
pub struct StringKv;

impl Model for StringKv {
    type Key = String;
    type State = String;
    type Input = StrKvOp;
    type Output = StrKvOutput;

    fn init(&self) -> String {
        String::new()
    }

    fn key(&self, input: &StrKvOp) -> String {
        input.key().to_string()
    }

    fn step(&self, state: &String, input: &StrKvOp, output: Option<&StrKvOutput>) -> Option<String> {
        match (input, output) {
            (StrKvOp::Get(_), None) => Some(state.clone()),
            (StrKvOp::Get(_), Some(StrKvOutput::Value(v))) => (v == state).then(|| state.clone()),
            (StrKvOp::Put(_, v), None | Some(StrKvOutput::Done)) => Some(v.clone()),
            (StrKvOp::Append(_, v), None | Some(StrKvOutput::Done)) => Some(format!("{state}{v}")),
            _ => None,
        }
    }

    fn is_read(&self, input: &StrKvOp) -> bool {
        matches!(input, StrKvOp::Get(_))
    }

    fn is_blind_write(&self, input: &StrKvOp) -> bool {
        matches!(input, StrKvOp::Put(..))
    }

    /// Puts and gets alone; a key with appends is read by
    /// [`Model::accesses`].
    fn access(&self, input: &StrKvOp, output: Option<&StrKvOutput>) -> Option<Access<String>> {
        match (input, output) {
            (StrKvOp::Get(_), None) => Some(Access::Nothing),
            (StrKvOp::Get(_), Some(StrKvOutput::Value(v))) => Some(Access::Read(v.clone())),
            (StrKvOp::Put(_, v), None | Some(StrKvOutput::Done)) => Some(Access::Write(v.clone())),
            _ => None,
        }
    }

    /// An append's value is the state it found and more: with every value
    /// unique, a read splits into the values appended, which date each
    /// append (the module `string_kv_appends` says how).
    fn accesses(&self, ops: &[&Op<StrKvOp, StrKvOutput>]) -> Option<Vec<Access<String>>> {
        if ops.iter().any(|o| matches!(o.input, StrKvOp::Append(..))) {
            return super::string_kv_appends::accesses(ops);
        }
        super::model::each_access(self, ops)
    }

    fn state_heap_bytes(&self, state: &String) -> u64 {
        state.len() as u64
    }

    fn describe_op(&self, input: &StrKvOp, output: Option<&StrKvOutput>) -> String {
        let unknown = if output.is_some() { "" } else { " -> ?" };
        match (input, output) {
            (StrKvOp::Get(_), Some(StrKvOutput::Value(v))) => format!("get -> {v:?}"),
            (StrKvOp::Get(_), _) => format!("get{unknown}"),
            (StrKvOp::Put(_, v), _) => format!("put {v:?}{unknown}"),
            (StrKvOp::Append(_, v), _) => format!("append {v:?}{unknown}"),
        }
    }

    fn describe_state(&self, state: &String) -> String {
        format!("{state:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_concatenates() {
        let m = StringKv;
        let s = m
            .step(&"a".into(), &StrKvOp::Append("k".into(), "b".into()), None)
            .unwrap();
        assert_eq!(s, "ab");
        let get = StrKvOp::Get("k".into());
        assert!(m.step(&s, &get, Some(&StrKvOutput::Value("ab".into()))).is_some());
        assert!(m.step(&s, &get, Some(&StrKvOutput::Value("a".into()))).is_none());
    }
}
