//! Each model under test beside a simulated atomic object of its kind,
//! written independently of the model: histories run against the object
//! are linearizable by construction, until an anomaly is injected.

use crate::jepsen_ops::JepsenOps;
use crate::parse_jepsen_edn::Value;
use crate::{
    JepsenModel, Model, Mutex, MutexOp, QueueOp, QueueOutput, Register, RegisterOp, RegisterOutput, Set, SetOp,
    SetOutput,
};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Debug;
use std::hash::Hash;

pub(super) type In<S> = <<S as Subject>::M as Model>::Input;
pub(super) type Out<S> = <<S as Subject>::M as Model>::Output;

pub(super) trait Subject {
    type M: JepsenOps;
    /// The simulated object's state.
    type Object: Clone + Eq + Hash + Debug;

    fn kind(&self) -> JepsenModel;
    fn model(&self) -> &Self::M;
    fn object(&self) -> Self::Object;
    /// A random op on values of `palette`.
    fn draw(&self, rng: &mut ChaCha8Rng, palette: &[Value]) -> In<Self>;
    /// The op done atomically: what it returns, or `None` when the object
    /// refuses it (Jepsen records a `:fail`) and stays as it was.
    fn apply(&self, object: &mut Self::Object, input: &In<Self>) -> Option<Out<Self>>;
    /// Whether the object could give `answer` to `input` now; if so it is
    /// left as giving it leaves it.
    fn could(&self, object: &mut Self::Object, input: &In<Self>, answer: &Out<Self>) -> bool {
        by_applying(self, object, input, answer)
    }
    /// An answer the object would not give to `input` now, if there is
    /// one; the object stays as it was.
    fn wrong(
        &self,
        rng: &mut ChaCha8Rng,
        object: &Self::Object,
        input: &In<Self>,
        palette: &[Value],
    ) -> Option<Out<Self>>;
    /// Every answer `input` could give, wherever it took effect, except
    /// that a read, which changes nothing, gives none.
    fn answers(&self, input: &In<Self>, palette: &[Value]) -> Vec<Out<Self>>;
    /// The `:value` an event of `input` carries: what it returned for an
    /// `:ok` (`answer`), else what it was invoked with. `form` picks one of
    /// the ways to write a collection.
    fn value(
        &self,
        input: &In<Self>,
        answer: Option<&Out<Self>>,
        form: u8,
        show: &mut dyn FnMut(&Value) -> String,
    ) -> String;
}

/// Whether doing `input` gives `answer`.
fn by_applying<S: Subject + ?Sized>(s: &S, object: &mut S::Object, input: &In<S>, answer: &Out<S>) -> bool {
    let mut next = object.clone();
    let could = s.apply(&mut next, input).as_ref() == Some(answer);
    if could {
        *object = next;
    }
    could
}

fn other(rng: &mut ChaCha8Rng, palette: &[Value], not: Option<&Value>) -> Option<Value> {
    let left: Vec<&Value> = palette.iter().filter(|v| Some(*v) != not).collect();
    left.choose(rng).map(|v| (*v).clone())
}

pub(super) struct RegisterSubject {
    pub model: Register<Value>,
    pub cas: bool,
}

impl Subject for RegisterSubject {
    type M = Register<Value>;
    type Object = Option<Value>;

    fn kind(&self) -> JepsenModel {
        if self.cas {
            JepsenModel::CasRegister
        } else {
            JepsenModel::Register
        }
    }

    fn model(&self) -> &Register<Value> {
        &self.model
    }

    fn object(&self) -> Option<Value> {
        self.model.initial.clone()
    }

    fn draw(&self, rng: &mut ChaCha8Rng, palette: &[Value]) -> RegisterOp<Value> {
        let pick = |rng: &mut ChaCha8Rng| palette[rng.gen_range(0..palette.len())].clone();
        match rng.gen_range(0..if self.cas { 3 } else { 2 }) {
            0 => RegisterOp::Read,
            1 => RegisterOp::Write(pick(rng)),
            _ => RegisterOp::Cas(pick(rng), pick(rng)),
        }
    }

    fn apply(&self, held: &mut Option<Value>, input: &RegisterOp<Value>) -> Option<RegisterOutput<Value>> {
        match input {
            RegisterOp::Read => Some(RegisterOutput::Read(held.clone())),
            RegisterOp::Write(v) => {
                *held = Some(v.clone());
                Some(RegisterOutput::Done)
            }
            RegisterOp::Cas(old, new) if held.as_ref() == Some(old) => {
                *held = Some(new.clone());
                Some(RegisterOutput::Done)
            }
            RegisterOp::Cas(..) => None,
        }
    }

    fn wrong(
        &self,
        rng: &mut ChaCha8Rng,
        held: &Option<Value>,
        input: &RegisterOp<Value>,
        palette: &[Value],
    ) -> Option<RegisterOutput<Value>> {
        match input {
            RegisterOp::Read => {
                let mut values = vec![Value::Nil];
                values.extend(palette.iter().cloned());
                let shown = held.clone().unwrap_or(Value::Nil);
                other(rng, &values, Some(&shown)).map(|v| RegisterOutput::Read(Some(v)))
            }
            RegisterOp::Cas(old, _) if held.as_ref() != Some(old) => Some(RegisterOutput::Done),
            _ => None,
        }
    }

    fn answers(&self, input: &RegisterOp<Value>, _palette: &[Value]) -> Vec<RegisterOutput<Value>> {
        match input {
            RegisterOp::Read => vec![],
            _ => vec![RegisterOutput::Done],
        }
    }

    fn value(
        &self,
        input: &RegisterOp<Value>,
        answer: Option<&RegisterOutput<Value>>,
        _form: u8,
        show: &mut dyn FnMut(&Value) -> String,
    ) -> String {
        match (input, answer) {
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) => show(v.as_ref().unwrap_or(&Value::Nil)),
            (RegisterOp::Read, _) => "nil".into(),
            (RegisterOp::Write(v), _) => show(v),
            (RegisterOp::Cas(a, b), _) => format!("[{} {}]", show(a), show(b)),
        }
    }
}

pub(super) struct MutexSubject;

impl Subject for MutexSubject {
    type M = Mutex;
    /// Held.
    type Object = bool;

    fn kind(&self) -> JepsenModel {
        JepsenModel::Mutex
    }

    fn model(&self) -> &Mutex {
        &Mutex
    }

    fn object(&self) -> bool {
        false
    }

    fn draw(&self, rng: &mut ChaCha8Rng, _palette: &[Value]) -> MutexOp {
        if rng.gen_bool(0.5) {
            MutexOp::Acquire
        } else {
            MutexOp::Release
        }
    }

    fn apply(&self, held: &mut bool, input: &MutexOp) -> Option<()> {
        let acquire = *input == MutexOp::Acquire;
        (*held != acquire).then(|| *held = acquire)
    }

    fn wrong(&self, _rng: &mut ChaCha8Rng, held: &bool, input: &MutexOp, _palette: &[Value]) -> Option<()> {
        // Granted twice, or released while free.
        (*held == (*input == MutexOp::Acquire)).then_some(())
    }

    fn answers(&self, _input: &MutexOp, _palette: &[Value]) -> Vec<()> {
        vec![()]
    }

    fn value(
        &self,
        _input: &MutexOp,
        _answer: Option<&()>,
        _form: u8,
        _show: &mut dyn FnMut(&Value) -> String,
    ) -> String {
        "nil".into()
    }
}

pub(super) struct SetSubject(pub Set<Value>);

impl Subject for SetSubject {
    type M = Set<Value>;
    /// The elements, in the order added.
    type Object = Vec<Value>;

    fn kind(&self) -> JepsenModel {
        JepsenModel::Set
    }

    fn model(&self) -> &Set<Value> {
        &self.0
    }

    fn object(&self) -> Vec<Value> {
        Vec::new()
    }

    fn draw(&self, rng: &mut ChaCha8Rng, palette: &[Value]) -> SetOp<Value> {
        match rng.gen_range(0..3) {
            0 => SetOp::Read,
            _ => SetOp::Add(palette[rng.gen_range(0..palette.len())].clone()),
        }
    }

    fn apply(&self, elements: &mut Vec<Value>, input: &SetOp<Value>) -> Option<SetOutput<Value>> {
        match input {
            SetOp::Add(v) => {
                if !elements.contains(v) {
                    elements.push(v.clone());
                }
                Some(SetOutput::Added)
            }
            SetOp::Read => Some(SetOutput::read(elements.iter().cloned())),
        }
    }

    fn wrong(
        &self,
        rng: &mut ChaCha8Rng,
        elements: &Vec<Value>,
        input: &SetOp<Value>,
        palette: &[Value],
    ) -> Option<SetOutput<Value>> {
        if *input != SetOp::Read {
            return None;
        }
        let mut read = elements.clone();
        match rng.gen_range(0..3) {
            // Lost, phantom, or returned twice.
            0 if !read.is_empty() => {
                read.remove(rng.gen_range(0..read.len()));
            }
            1 if !read.is_empty() => read.push(read[rng.gen_range(0..read.len())].clone()),
            _ => read.push(palette.iter().find(|v| !elements.contains(v))?.clone()),
        }
        Some(SetOutput::read(read))
    }

    fn answers(&self, input: &SetOp<Value>, _palette: &[Value]) -> Vec<SetOutput<Value>> {
        match input {
            SetOp::Add(_) => vec![SetOutput::Added],
            SetOp::Read => vec![],
        }
    }

    fn value(
        &self,
        input: &SetOp<Value>,
        answer: Option<&SetOutput<Value>>,
        form: u8,
        show: &mut dyn FnMut(&Value) -> String,
    ) -> String {
        match (input, answer) {
            (SetOp::Add(v), _) => show(v),
            (SetOp::Read, Some(SetOutput::Read(items))) => {
                let mut items: Vec<String> = items.iter().map(show).collect();
                // A set literal cannot hold an element twice, equal as
                // Clojure's `=` takes them (`1` and `1N` are one element).
                let unique: std::collections::BTreeSet<String> = items
                    .iter()
                    .map(|t| crate::edn::read_one(t).map_or_else(|_| t.clone(), |e| e.canonical()))
                    .collect();
                if form % 2 == 1 {
                    items.reverse();
                }
                match form {
                    0 | 1 if unique.len() == items.len() => format!("#{{{}}}", items.join(" ")),
                    2 => format!("({})", items.join(" ")),
                    _ => format!("[{}]", items.join(", ")),
                }
            }
            (SetOp::Read, _) => "nil".into(),
        }
    }
}

/// Either queue: the object keeps its elements oldest first, and only the
/// fifo one must hand out the oldest.
pub(super) struct QueueSubject<Q> {
    pub model: Q,
    pub fifo: bool,
}

impl<Q: JepsenOps<Input = QueueOp<Value>, Output = QueueOutput<Value>>> Subject for QueueSubject<Q> {
    type M = Q;
    /// Oldest first.
    type Object = Vec<Value>;

    fn kind(&self) -> JepsenModel {
        if self.fifo {
            JepsenModel::FifoQueue
        } else {
            JepsenModel::UnorderedQueue
        }
    }

    fn model(&self) -> &Q {
        &self.model
    }

    fn object(&self) -> Vec<Value> {
        Vec::new()
    }

    fn draw(&self, rng: &mut ChaCha8Rng, palette: &[Value]) -> QueueOp<Value> {
        if rng.gen_bool(0.5) {
            QueueOp::Dequeue
        } else {
            QueueOp::Enqueue(palette[rng.gen_range(0..palette.len())].clone())
        }
    }

    fn apply(&self, pending: &mut Vec<Value>, input: &QueueOp<Value>) -> Option<QueueOutput<Value>> {
        match input {
            QueueOp::Enqueue(v) => {
                pending.push(v.clone());
                Some(QueueOutput::Enqueued)
            }
            QueueOp::Dequeue if pending.is_empty() => None,
            QueueOp::Dequeue if self.fifo => Some(QueueOutput::Dequeued(pending.remove(0))),
            // The unordered queue hands out the youngest: as far from fifo
            // as it gets.
            QueueOp::Dequeue => pending.pop().map(QueueOutput::Dequeued),
        }
    }

    /// Unordered, any element held may come out.
    fn could(&self, pending: &mut Vec<Value>, input: &QueueOp<Value>, answer: &QueueOutput<Value>) -> bool {
        match (input, answer, pending.iter().position(|v| Some(v) == dequeued(answer))) {
            (QueueOp::Dequeue, QueueOutput::Dequeued(_), Some(at)) if !self.fifo => {
                pending.remove(at);
                true
            }
            (QueueOp::Dequeue, _, _) if !self.fifo => false,
            _ => by_applying(self, pending, input, answer),
        }
    }

    fn wrong(
        &self,
        rng: &mut ChaCha8Rng,
        pending: &Vec<Value>,
        input: &QueueOp<Value>,
        palette: &[Value],
    ) -> Option<QueueOutput<Value>> {
        if *input != QueueOp::Dequeue {
            return None;
        }
        // Out of order, or not there: never enqueued, or dequeued already.
        let wrong: Vec<&Value> = match (self.fifo, pending.first()) {
            (true, Some(oldest)) => palette.iter().filter(|v| *v != oldest).collect(),
            _ => palette.iter().filter(|v| !pending.contains(v)).collect(),
        };
        wrong.choose(rng).map(|v| QueueOutput::Dequeued((*v).clone()))
    }

    fn answers(&self, input: &QueueOp<Value>, palette: &[Value]) -> Vec<QueueOutput<Value>> {
        match input {
            QueueOp::Enqueue(_) => vec![QueueOutput::Enqueued],
            QueueOp::Dequeue => palette.iter().cloned().map(QueueOutput::Dequeued).collect(),
        }
    }

    fn value(
        &self,
        input: &QueueOp<Value>,
        answer: Option<&QueueOutput<Value>>,
        _form: u8,
        show: &mut dyn FnMut(&Value) -> String,
    ) -> String {
        match (input, answer) {
            (QueueOp::Enqueue(v), _) | (QueueOp::Dequeue, Some(QueueOutput::Dequeued(v))) => show(v),
            (QueueOp::Dequeue, _) => "nil".into(),
        }
    }
}

fn dequeued(answer: &QueueOutput<Value>) -> Option<&Value> {
    match answer {
        QueueOutput::Dequeued(v) => Some(v),
        QueueOutput::Enqueued => None,
    }
}
