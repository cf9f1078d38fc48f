//! dst's own key-value store: the workload's ops, with exactly the
//! semantics of [`crate::kv_ops::apply_kv`]. Follower reads are not
//! linearizable by design; dst's history of a trace leaves them out.

use super::history::Op;
use super::model::{Access, Model, Seen};
use crate::kv_ops::{apply_kv, KvOp, KvResult, Value};
use std::collections::{BTreeMap, BTreeSet};

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

    /// Values are unique per write in dst's histories; where a value is
    /// written once, what happened to an unknown-outcome write of it shows:
    /// - a completed get that returned it, or an applied cas that expected
    ///   it, saw it: the write took effect before that op completed;
    /// - if no get returned it and no cas expected it, it stayed unseen:
    ///   until a later put or cas replaced it, the value stayed in the
    ///   state, where any get or applied cas would have seen it, and after,
    ///   the state is the same with or without the write. Only a cas that
    ///   did not apply may have been affected by it (the state was not what
    ///   it expected), so a put or append lurks while such a cas completes
    ///   after it was invoked, and is never seen otherwise.
    fn seen(&self, ops: &[&Op<KvOp, KvResult>]) -> Vec<Seen> {
        let last_refusal = ops
            .iter()
            .filter(|o| self.is_refusal(&o.input, o.output.as_ref()))
            .map(|o| o.complete.unwrap_or(u64::MAX))
            .max();
        let written = |op: &KvOp| match op {
            KvOp::Put { value, .. } | KvOp::Append { value, .. } | KvOp::Cas { value, .. } => Some(*value),
            _ => None,
        };
        let mut writes: BTreeMap<u64, usize> = BTreeMap::new();
        // Value -> where the first op that saw it completed.
        let mut saw: BTreeMap<u64, u64> = BTreeMap::new();
        // Values some op may have seen or compared against.
        let mut named: BTreeSet<u64> = BTreeSet::new();
        for o in ops {
            if let Some(v) = written(&o.input) {
                *writes.entry(v).or_default() += 1;
            }
            let seen_values: &[u64] = match (&o.input, &o.output, o.complete) {
                (_, Some(KvResult::Value { value }), Some(_)) => value,
                (KvOp::Cas { expected, .. }, Some(KvResult::Cas { applied: true }), Some(_)) => expected,
                _ => &[],
            };
            for &v in seen_values {
                let at = o.complete.unwrap_or(u64::MAX);
                saw.entry(v).and_modify(|p| *p = (*p).min(at)).or_insert(at);
            }
            named.extend(seen_values.iter().copied());
            if let KvOp::Cas { expected, .. } = &o.input {
                named.extend(expected.iter().copied());
            }
        }
        ops.iter()
            .map(|o| {
                let Some(v) = written(&o.input).filter(|v| o.output.is_none() && writes[v] == 1) else {
                    return Seen::Maybe;
                };
                if let Some(&at) = saw.get(&v) {
                    return Seen::Before(at);
                }
                if named.contains(&v) {
                    return Seen::Maybe;
                }
                // A cas may not apply, so only an unconditional write is
                // sure to leave a state no refusal expected.
                let unconditional = matches!(o.input, KvOp::Put { .. } | KvOp::Append { .. });
                match last_refusal {
                    Some(r) if r > o.invoke && unconditional => Seen::OnlyByRefusals,
                    Some(r) if r > o.invoke => Seen::Maybe,
                    _ => Seen::Never,
                }
            })
            .collect()
    }

    /// With each value written by one op, an append's value is the list it
    /// found and its own value last, so a list some op saw with that value
    /// in it says what the append found: everything before it. An append no
    /// list shows was never seen at all, and so acts as a write of a value
    /// nobody reads. A cas that did not apply says what the state was not.
    fn accesses(&self, ops: &[&Op<KvOp, KvResult>]) -> Option<Vec<Access<Value>>> {
        let known = |o: &Op<KvOp, KvResult>| o.output.clone().filter(|_| o.is_completed());
        let mut written = BTreeSet::new();
        // Lists some op that happened saw, those of completed ops first.
        let mut lists: Vec<&[u64]> = Vec::new();
        // A cas of unknown outcome by the value it would set -> what it expected.
        let mut unknown_cas: BTreeMap<u64, &[u64]> = BTreeMap::new();
        for o in ops {
            if let KvOp::Put { value, .. } | KvOp::Append { value, .. } | KvOp::Cas { value, .. } = &o.input {
                if !written.insert(*value) {
                    return None;
                }
            }
            match (&o.input, o.output.as_ref().filter(|_| o.is_completed())) {
                (KvOp::Get { .. }, Some(KvResult::Value { value })) => lists.push(value),
                (KvOp::Cas { expected, .. }, Some(KvResult::Cas { applied: true })) => lists.push(expected),
                (KvOp::Cas { expected, value, .. }, None) => {
                    unknown_cas.insert(*value, expected);
                }
                _ => {}
            }
        }
        // A value -> a list that holds it and where. A seen list that starts
        // with what a cas of unknown outcome would set shows that the cas
        // applied, so what it expected was seen too.
        let mut found_in: BTreeMap<u64, (&[u64], usize)> = BTreeMap::new();
        let mut at = 0;
        while let Some(&list) = lists.get(at) {
            at += 1;
            for (k, v) in list.iter().enumerate() {
                found_in.entry(*v).or_insert((list, k));
            }
            if let Some(expected) = list.first().and_then(|c| unknown_cas.remove(c)) {
                lists.push(expected);
            }
        }
        ops.iter()
            .map(|o| match (&o.input, known(o)) {
                (KvOp::Get { .. }, None) => Some(Access::Nothing),
                (KvOp::Get { .. }, Some(KvResult::Value { value })) => Some(Access::Read(value)),
                (KvOp::Put { value, .. }, None | Some(KvResult::Done)) => Some(Access::Write(vec![*value])),
                (KvOp::Append { value, .. }, None | Some(KvResult::Done)) => Some(match found_in.get(value) {
                    Some((list, k)) => Access::Update {
                        from: list[..*k].to_vec(),
                        to: list[..=*k].to_vec(),
                    },
                    None => Access::Write(vec![*value]),
                }),
                (KvOp::Cas { expected, .. }, Some(KvResult::Cas { applied: false })) => {
                    Some(Access::Refused(expected.clone()))
                }
                (KvOp::Cas { expected, value, .. }, None | Some(KvResult::Cas { applied: true })) => {
                    Some(Access::Update {
                        from: expected.clone(),
                        to: vec![*value],
                    })
                }
                _ => None,
            })
            .collect()
    }

    fn is_refusal(&self, input: &KvOp, output: Option<&KvResult>) -> bool {
        matches!(
            (input, output),
            (KvOp::Cas { .. }, Some(KvResult::Cas { applied: false }))
        )
    }

    fn state_heap_bytes(&self, state: &Value) -> u64 {
        8 * state.len() as u64
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
