//! Knossos' set: empty at first; `add v` puts `v` in, `read` returns
//! every element. A read must return exactly the set: an element too many,
//! one missing, or one twice is inconsistent.

use super::history::Op;
use super::model::{Element, Model, Seen};
use std::collections::BTreeSet;
use std::fmt::Display;
use std::marker::PhantomData;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// An operation on a set.
pub enum SetOp<V> {
    /// Adds an element.
    Add(V),
    /// Reads every element.
    Read,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// What a set operation returned.
pub enum SetOutput<V> {
    /// An add completed (and so applied).
    Added,
    /// What a read returned, sorted, duplicates kept: build it with
    /// [`SetOutput::read`].
    Read(Vec<V>),
}

impl<V: Ord> SetOutput<V> {
    /// A read's output from its elements in any order.
    pub fn read(elements: impl IntoIterator<Item = V>) -> Self {
        let mut elements: Vec<V> = elements.into_iter().collect();
        elements.sort();
        SetOutput::Read(elements)
    }
}

#[derive(Clone, Copy, Debug)]
/// A set that grows (Knossos' `set`): adds, and reads of all of it.
pub struct Set<V> {
    elements: PhantomData<fn() -> V>,
}

impl<V> Set<V> {
    /// An empty set.
    pub const fn new() -> Self {
        Set { elements: PhantomData }
    }
}

impl<V> Default for Set<V> {
    fn default() -> Self {
        Set::new()
    }
}

impl<V: Element> Model for Set<V> {
    type Key = ();
    type State = BTreeSet<V>;
    type Input = SetOp<V>;
    type Output = SetOutput<V>;

    fn init(&self) -> BTreeSet<V> {
        BTreeSet::new()
    }

    fn key(&self, _input: &SetOp<V>) {}

    fn step(&self, state: &BTreeSet<V>, input: &SetOp<V>, output: Option<&SetOutput<V>>) -> Option<BTreeSet<V>> {
        match (input, output) {
            (SetOp::Add(v), None | Some(SetOutput::Added)) => {
                let mut next = state.clone();
                next.insert(v.clone());
                Some(next)
            }
            (SetOp::Read, None) => Some(state.clone()),
            (SetOp::Read, Some(SetOutput::Read(seen))) => {
                (seen.len() == state.len() && state.iter().eq(seen)).then(|| state.clone())
            }
            _ => None,
        }
    }

    fn step_in_place(&self, state: &mut BTreeSet<V>, input: &SetOp<V>, output: Option<&SetOutput<V>>) -> bool {
        match (input, output) {
            (SetOp::Add(v), None | Some(SetOutput::Added)) => {
                state.insert(v.clone());
                true
            }
            (SetOp::Read, None) => true,
            (SetOp::Read, Some(SetOutput::Read(seen))) => seen.len() == state.len() && state.iter().eq(seen),
            _ => false,
        }
    }

    fn is_read(&self, input: &SetOp<V>) -> bool {
        *input == SetOp::Read
    }

    /// An add of unknown outcome whose element no completed read returned
    /// is unseen: a completed read placed after it would have returned the
    /// element, so only adds can follow it, and adds succeed whatever the
    /// set holds.
    fn seen(&self, ops: &[&Op<SetOp<V>, SetOutput<V>>]) -> Vec<Seen> {
        // Reads of a growing set repeat each element many times over: only
        // the elements of unknown-outcome adds are looked for.
        let unknown: BTreeSet<&V> = ops
            .iter()
            .filter(|o| !o.is_completed())
            .filter_map(|o| match &o.input {
                SetOp::Add(v) => Some(v),
                SetOp::Read => None,
            })
            .collect();
        let read: BTreeSet<&V> = match unknown.is_empty() {
            true => BTreeSet::new(),
            false => ops
                .iter()
                .filter(|o| o.is_completed())
                .filter_map(|o| match &o.output {
                    Some(SetOutput::Read(seen)) => Some(seen),
                    _ => None,
                })
                .flatten()
                .filter(|v| unknown.contains(v))
                .collect(),
        };
        ops.iter()
            .map(|o| match &o.input {
                SetOp::Add(v) if !o.is_completed() && !read.contains(v) => Seen::Never,
                _ => Seen::Maybe,
            })
            .collect()
    }

    /// With every element added once, decided level by level (see
    /// `set_order`).
    fn order(&self, ops: &[&Op<SetOp<V>, SetOutput<V>>]) -> Option<Option<Vec<usize>>> {
        super::set_order::order(ops)
    }

    fn describe_key(&self, _key: &()) -> String {
        "set".to_string()
    }

    /// A B-tree's elements, with a word of node overhead each.
    fn state_heap_bytes(&self, state: &BTreeSet<V>) -> u64 {
        state.len() as u64 * (std::mem::size_of::<V>() as u64 + 8)
    }

    fn describe_op(&self, input: &SetOp<V>, output: Option<&SetOutput<V>>) -> String {
        match (input, output) {
            (SetOp::Add(v), Some(_)) => format!("add {v}"),
            (SetOp::Add(v), None) => format!("add {v} -> ?"),
            (SetOp::Read, Some(SetOutput::Read(seen))) => format!("read -> {}", show(seen)),
            (SetOp::Read, _) => "read -> ?".to_string(),
        }
    }

    fn describe_state(&self, state: &BTreeSet<V>) -> String {
        show(state)
    }

    /// The elements a read lacks, those it has that the set has not, and
    /// those it returned twice.
    fn describe_misfit(&self, state: &BTreeSet<V>, input: &SetOp<V>, output: Option<&SetOutput<V>>) -> Option<String> {
        let (SetOp::Read, Some(SetOutput::Read(seen))) = (input, output) else {
            return None;
        };
        let returned: BTreeSet<&V> = seen.iter().collect();
        let twice: BTreeSet<&V> = seen.windows(2).filter(|w| w[0] == w[1]).map(|w| &w[0]).collect();
        let lacks: Vec<&V> = state.iter().filter(|v| !returned.contains(v)).collect();
        let extra: Vec<&V> = returned.iter().copied().filter(|v| !state.contains(*v)).collect();
        let parts: Vec<String> = [
            ("the read lacks", lacks),
            ("has what the set has not:", extra),
            ("returns twice", twice.into_iter().collect()),
        ]
        .into_iter()
        .filter(|(_, vs)| !vs.is_empty())
        .map(|(what, vs)| format!("{what} {}", show(vs)))
        .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// As EDN writes a set, long ones cut to their ends (see `brief`); a
/// read's duplicates show as they were returned.
fn show<'a, V: Display + 'a>(elements: impl IntoIterator<Item = &'a V>) -> String {
    let items: Vec<String> = elements.into_iter().map(|v| v.to_string()).collect();
    super::brief::brief(&items, "#{", "}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_returns_exactly_the_set() {
        let m = Set::<i64>::new();
        let s = m.step(&m.init(), &SetOp::Add(2), Some(&SetOutput::Added)).unwrap();
        let s = m.step(&s, &SetOp::Add(1), None).unwrap();
        assert_eq!(s, BTreeSet::from([1, 2]));
        assert!(m.step(&s, &SetOp::Read, Some(&SetOutput::read([2, 1]))).is_some());
        assert!(m.step(&s, &SetOp::Read, Some(&SetOutput::read([1]))).is_none());
        assert!(m.step(&s, &SetOp::Read, Some(&SetOutput::read([1, 2, 3]))).is_none());
        assert!(m.step(&s, &SetOp::Read, Some(&SetOutput::read([1, 2, 2]))).is_none());
        assert!(m.step(&s, &SetOp::Add(3), Some(&SetOutput::read([]))).is_none());
        assert_eq!(
            m.describe_op(&SetOp::Read, Some(&SetOutput::read([2, 1, 2]))),
            "read -> #{1 2 2}"
        );
        assert_eq!(m.describe_state(&s), "#{1 2}");
    }

    #[test]
    fn a_read_that_cannot_follow_says_which_elements_differ() {
        let m = Set::<i64>::new();
        let state: BTreeSet<i64> = (0..5_000).collect();
        let misfit = |seen: Vec<i64>| m.describe_misfit(&state, &SetOp::Read, Some(&SetOutput::read(seen)));
        let lacking: Vec<i64> = (0..5_000).filter(|&v| v != 1_234).collect();
        assert_eq!(misfit(lacking).as_deref(), Some("the read lacks #{1234}"));
        let odd: Vec<i64> = (0..5_000).chain([7, 9_999]).collect();
        assert_eq!(
            misfit(odd).as_deref(),
            Some("has what the set has not: #{9999}; returns twice #{7}")
        );
        assert_eq!(misfit((0..5_000).collect()), None);
        assert_eq!(m.describe_misfit(&state, &SetOp::Add(1), None), None);
        assert_eq!(
            m.describe_state(&state),
            "#{0 1 2 3 4 5 6 7 … 4996 4997 4998 4999} (5000 elements)"
        );
    }
}
