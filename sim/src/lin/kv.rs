//! dst's own key-value store: the workload's ops, with exactly the
//! semantics of [`crate::workload::apply_kv`]. Follower reads are not
//! linearizable by design; [`super::DstHistory`] leaves them out.

use super::model::Model;
use crate::workload::{apply_kv, KvOp, KvResult, Value};

/// Keys are `u32`, a key's value is a list (empty when absent).
#[derive(Clone, Copy, Debug, Default)]
pub struct DstKv;

impl Model for DstKv {
    type Key = u32;
    type State = Value;
    type Input = KvOp;
    type Output = KvResult;

    fn init(&self) -> Value {
        Vec::new()
    }

    fn key(&self, input: &KvOp) -> u32 {
        input.key()
    }

    fn step(&self, state: &Value, input: &KvOp, output: Option<&KvResult>) -> Option<Value> {
        // Reads are most of the steps a search takes: compare in place
        // rather than building the result apply_kv would return.
        match (input, output) {
            (KvOp::Get { .. }, Some(KvResult::Value { value })) => (value == state).then(|| state.clone()),
            (KvOp::Get { .. }, Some(_)) => None,
            _ => {
                let mut next = state.clone();
                let result = apply_kv(&mut next, input);
                output.is_none_or(|o| *o == result).then_some(next)
            }
        }
    }

    fn is_read(&self, input: &KvOp) -> bool {
        input.is_read()
    }

    fn is_blind_write(&self, input: &KvOp) -> bool {
        matches!(input, KvOp::Put { .. })
    }

    fn describe_op(&self, input: &KvOp, output: Option<&KvResult>) -> String {
        let out = match output {
            None => "?".to_string(),
            Some(KvResult::Done) => "ok".to_string(),
            Some(KvResult::Value { value }) => format!("{value:?}"),
            Some(KvResult::Cas { applied: true }) => "applied".to_string(),
            Some(KvResult::Cas { applied: false }) => "not applied".to_string(),
        };
        match input {
            KvOp::Put { value, .. } if output.is_some() => format!("put {value}"),
            KvOp::Put { value, .. } => format!("put {value} -> ?"),
            KvOp::Append { value, .. } if output.is_some() => format!("append {value}"),
            KvOp::Append { value, .. } => format!("append {value} -> ?"),
            KvOp::Get { .. } => format!("get -> {out}"),
            KvOp::FollowerGet { .. } => format!("follower-get -> {out}"),
            KvOp::Cas { expected, value, .. } => format!("cas {expected:?} to {value} -> {out}"),
        }
    }

    fn describe_state(&self, state: &Value) -> String {
        format!("{state:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_apply_kv() {
        let m = DstKv;
        let put = KvOp::Put { key: 1, value: 5 };
        let s = m.step(&vec![3], &put, Some(&KvResult::Done)).unwrap();
        assert_eq!(s, vec![5]);
        let get = KvOp::Get { key: 1 };
        assert!(m.step(&s, &get, Some(&KvResult::Value { value: vec![5] })).is_some());
        assert!(m.step(&s, &get, Some(&KvResult::Value { value: vec![] })).is_none());
        assert!(m.step(&s, &get, Some(&KvResult::Done)).is_none());
        let cas = KvOp::Cas {
            key: 1,
            expected: vec![5],
            value: 6,
        };
        assert_eq!(m.step(&s, &cas, None), Some(vec![6]));
        assert!(m.step(&s, &cas, Some(&KvResult::Cas { applied: false })).is_none());
        assert_eq!(m.step(&vec![4], &cas, None), Some(vec![4]));
    }
}
