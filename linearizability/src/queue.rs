//! Knossos' two queues, empty at first: `enqueue v` adds `v`, `dequeue`
//! removes an element and returns it. The fifo queue must return its
//! oldest element; the unordered queue any element it holds (a multiset).
//! Dequeuing from an empty queue is inconsistent: Jepsen records an empty
//! dequeue as a failure, so it drops out of the history.

use super::history::Op;
use super::model::{Element, Model, Seen};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Display;
use std::marker::PhantomData;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// An operation on a queue.
pub enum QueueOp<V> {
    /// Adds a value.
    Enqueue(V),
    /// Takes a value out.
    Dequeue,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// What a queue operation returned.
pub enum QueueOutput<V> {
    /// An enqueue completed (and so applied).
    Enqueued,
    /// The value a dequeue took out.
    Dequeued(V),
}

#[derive(Clone, Copy, Debug)]
/// A queue that dequeues in the order enqueued (Knossos' `fifo-queue`).
pub struct FifoQueue<V> {
    values: PhantomData<fn() -> V>,
}

#[derive(Clone, Copy, Debug)]
/// A queue that dequeues any value it holds (Knossos' `unordered-queue`).
pub struct UnorderedQueue<V> {
    values: PhantomData<fn() -> V>,
}

impl<V> FifoQueue<V> {
    /// An empty queue.
    pub const fn new() -> Self {
        FifoQueue { values: PhantomData }
    }
}

impl<V> UnorderedQueue<V> {
    /// An empty queue.
    pub const fn new() -> Self {
        UnorderedQueue { values: PhantomData }
    }
}

impl<V> Default for FifoQueue<V> {
    fn default() -> Self {
        FifoQueue::new()
    }
}

impl<V> Default for UnorderedQueue<V> {
    fn default() -> Self {
        UnorderedQueue::new()
    }
}

impl<V: Element> Model for FifoQueue<V> {
    type Key = ();
    /// Oldest first.
    type State = VecDeque<V>;
    type Input = QueueOp<V>;
    type Output = QueueOutput<V>;

    fn init(&self) -> VecDeque<V> {
        VecDeque::new()
    }

    fn key(&self, _input: &QueueOp<V>) {}

    fn step(&self, state: &VecDeque<V>, input: &QueueOp<V>, output: Option<&QueueOutput<V>>) -> Option<VecDeque<V>> {
        let mut next = state.clone();
        match (input, output) {
            (QueueOp::Enqueue(v), None | Some(QueueOutput::Enqueued)) => next.push_back(v.clone()),
            // Had it happened on an empty queue it would have failed: the
            // same as not happening.
            (QueueOp::Dequeue, None) => {
                next.pop_front();
            }
            (QueueOp::Dequeue, Some(QueueOutput::Dequeued(v))) if next.front() == Some(v) => {
                next.pop_front();
            }
            _ => return None,
        }
        Some(next)
    }

    /// Enqueues no completed dequeue returned are unseen (see
    /// `unseen_enqueues`). A dequeue of unknown outcome may have taken
    /// the oldest element, which lets a younger one be dequeued next, so
    /// it is searched.
    fn seen(&self, ops: &[&Op<QueueOp<V>, QueueOutput<V>>]) -> Vec<Seen> {
        unseen_enqueues(ops)
    }

    fn describe_key(&self, _key: &()) -> String {
        "queue".to_string()
    }

    fn state_heap_bytes(&self, state: &VecDeque<V>) -> u64 {
        state.len() as u64 * std::mem::size_of::<V>() as u64
    }

    fn describe_op(&self, input: &QueueOp<V>, output: Option<&QueueOutput<V>>) -> String {
        describe(input, output)
    }

    fn describe_state(&self, state: &VecDeque<V>) -> String {
        match show(state) {
            None => "empty".to_string(),
            Some(items) => format!("{items}, oldest first"),
        }
    }
}

impl<V: Element> Model for UnorderedQueue<V> {
    type Key = ();
    /// Each element held, with how many times.
    type State = BTreeMap<V, usize>;
    type Input = QueueOp<V>;
    type Output = QueueOutput<V>;

    fn init(&self) -> BTreeMap<V, usize> {
        BTreeMap::new()
    }

    fn key(&self, _input: &QueueOp<V>) {}

    fn step(
        &self,
        state: &BTreeMap<V, usize>,
        input: &QueueOp<V>,
        output: Option<&QueueOutput<V>>,
    ) -> Option<BTreeMap<V, usize>> {
        let mut next = state.clone();
        match (input, output) {
            (QueueOp::Enqueue(v), None | Some(QueueOutput::Enqueued)) => *next.entry(v.clone()).or_default() += 1,
            // Taking an element out never lets a later op through that
            // would not have gone through anyway (see `seen`): an unknown
            // dequeue is taken to take none.
            (QueueOp::Dequeue, None) => {}
            (QueueOp::Dequeue, Some(QueueOutput::Dequeued(v))) => match next.get_mut(v) {
                Some(1) => {
                    next.remove(v);
                }
                Some(n) => *n -= 1,
                None => return None,
            },
            _ => return None,
        }
        Some(next)
    }

    /// No op needs an element to be absent, so a queue that holds more
    /// lets at least as much through: a dequeue of unknown outcome never
    /// helps, and is left out; so are the enqueues of `unseen_enqueues`.
    fn seen(&self, ops: &[&Op<QueueOp<V>, QueueOutput<V>>]) -> Vec<Seen> {
        let mut seen = unseen_enqueues(ops);
        for (s, o) in seen.iter_mut().zip(ops) {
            if o.input == QueueOp::Dequeue && !o.is_completed() {
                *s = Seen::Never;
            }
        }
        seen
    }

    fn describe_key(&self, _key: &()) -> String {
        "queue".to_string()
    }

    /// A B-tree's entries (an element and its count), with a word of node
    /// overhead each.
    fn state_heap_bytes(&self, state: &BTreeMap<V, usize>) -> u64 {
        state.len() as u64 * (std::mem::size_of::<V>() as u64 + 16)
    }

    fn describe_op(&self, input: &QueueOp<V>, output: Option<&QueueOutput<V>>) -> String {
        describe(input, output)
    }

    fn describe_state(&self, state: &BTreeMap<V, usize>) -> String {
        let items = state.iter().flat_map(|(v, n)| std::iter::repeat_n(v, *n));
        match show(items) {
            None => "empty".to_string(),
            Some(items) => format!("{items}, in any order"),
        }
    }
}

/// An enqueue of unknown outcome whose value no completed dequeue returned
/// is unseen, in either queue: wherever it took effect, only dequeues of
/// unknown outcome can have taken its element out, and leaving both out
/// leaves every other dequeue returning what it did.
fn unseen_enqueues<V: Element>(ops: &[&Op<QueueOp<V>, QueueOutput<V>>]) -> Vec<Seen> {
    let dequeued: BTreeSet<&V> = ops
        .iter()
        .filter(|o| o.is_completed())
        .filter_map(|o| match &o.output {
            Some(QueueOutput::Dequeued(v)) => Some(v),
            _ => None,
        })
        .collect();
    ops.iter()
        .map(|o| match &o.input {
            QueueOp::Enqueue(v) if !o.is_completed() && !dequeued.contains(v) => Seen::Never,
            _ => Seen::Maybe,
        })
        .collect()
}

fn describe<V: Display>(input: &QueueOp<V>, output: Option<&QueueOutput<V>>) -> String {
    match (input, output) {
        (QueueOp::Enqueue(v), Some(_)) => format!("enqueue {v}"),
        (QueueOp::Enqueue(v), None) => format!("enqueue {v} -> ?"),
        (QueueOp::Dequeue, Some(QueueOutput::Dequeued(v))) => format!("dequeue -> {v}"),
        (QueueOp::Dequeue, _) => "dequeue -> ?".to_string(),
    }
}

/// The elements in brackets, long queues cut to their ends (see
/// `brief`); `None` for none.
fn show<'a, V: Display + 'a>(items: impl IntoIterator<Item = &'a V>) -> Option<String> {
    let items: Vec<String> = items.into_iter().map(|v| v.to_string()).collect();
    (!items.is_empty()).then(|| super::brief::brief(&items, "[", "]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DONE: Option<&QueueOutput<i64>> = Some(&QueueOutput::Enqueued);

    #[test]
    fn the_fifo_queue_returns_its_oldest_element() {
        let m = FifoQueue::<i64>::new();
        let s = m.step(&m.init(), &QueueOp::Enqueue(1), DONE).unwrap();
        let s = m.step(&s, &QueueOp::Enqueue(2), None).unwrap();
        assert!(m.step(&s, &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(2))).is_none());
        let one = m.step(&s, &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(1))).unwrap();
        assert_eq!(one, VecDeque::from([2]));
        assert_eq!(m.step(&s, &QueueOp::Dequeue, None), Some(one));
        assert_eq!(m.step(&m.init(), &QueueOp::Dequeue, None), Some(m.init()));
        assert!(m
            .step(&m.init(), &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(1)))
            .is_none());
        assert!(m
            .step(&s, &QueueOp::Enqueue(3), Some(&QueueOutput::Dequeued(3)))
            .is_none());
        assert_eq!(m.describe_state(&s), "[1 2], oldest first");
        assert_eq!(m.describe_state(&m.init()), "empty");
    }

    #[test]
    fn the_unordered_queue_returns_any_element_it_holds() {
        let m = UnorderedQueue::<i64>::new();
        let mut s = m.init();
        for v in [1, 2, 1] {
            s = m.step(&s, &QueueOp::Enqueue(v), DONE).unwrap();
        }
        assert_eq!(m.describe_state(&s), "[1 1 2], in any order");
        let s = m.step(&s, &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(2))).unwrap();
        assert!(m.step(&s, &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(2))).is_none());
        let s = m.step(&s, &QueueOp::Dequeue, Some(&QueueOutput::Dequeued(1))).unwrap();
        assert_eq!(s, BTreeMap::from([(1, 1)]));
        assert_eq!(m.step(&s, &QueueOp::Dequeue, None), Some(s.clone()));
        assert_eq!(m.describe_op(&QueueOp::Dequeue, None), "dequeue -> ?");
    }
}
