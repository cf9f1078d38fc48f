//! A Jepsen history's op maps, each made compact as soon as it is read and
//! kept that way until every op is in: which model the history is of is
//! told by all its ops' `:f`s, so the ops cannot be taken as a model's
//! before the last one is read. An event keeps its process, type, `:f`
//! (interned), lines and as much of its `:value` as some model reads; the
//! EDN tree of the map is dropped at once.
//!
//! What is wrong with a map shows only once the ops are taken as a model's,
//! after the file was read whole (a bad EDN value anywhere comes first, then
//! a model that does not fit, then the first bad op in file order). So the
//! first map that is no op is kept, as what it will be refused for, and
//! nothing after it is: the ops are taken in order and never get past it.

use super::edn::{self, Edn};
use super::history::{History, ParseError, Recorder};
use super::jepsen_ops::{expected_f, may_refuse, reads_value, JepsenOps};
use super::parse_jepsen_edn::Value;
use std::collections::BTreeMap;

/// An op map's `:value`, as much of it as a model reads.
#[derive(Clone, Debug, PartialEq)]
pub enum OpValue {
    /// No model reads the value of such an op.
    Unread,
    /// A value that is not a collection.
    One(Value),
    /// A vector, list or set: its items.
    Items(Collection, Vec<Value>),
}

/// Which collection a `:value` was written as: it decides how the value
/// reads as one (a list as a vector, a set's members sorted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collection {
    /// `[...]`.
    Vector,
    /// `(...)`.
    List,
    /// `#{...}`.
    Set,
}

impl OpValue {
    /// The value of an op as read from its EDN: a collection's items, or one value.
    pub fn of(e: &Edn) -> OpValue {
        let items = |c, items: &[Edn]| OpValue::Items(c, items.iter().map(Value::from).collect());
        match e {
            Edn::Vector(v) => items(Collection::Vector, v),
            Edn::List(v) => items(Collection::List, v),
            Edn::Set(v) => items(Collection::Set, v),
            other => OpValue::One(Value::from(other)),
        }
    }

    /// The value as one, as [`Value::from`] takes the EDN it came from.
    pub fn into_value(self) -> Value {
        match self {
            OpValue::Unread => Value::Nil,
            OpValue::One(v) => v,
            OpValue::Items(c, items) => Value::Other(canonical(c, &items)),
        }
    }

    /// A vector or list of two.
    pub fn into_pair(self) -> Result<(Value, Value), OpValue> {
        match self {
            OpValue::Items(Collection::Vector | Collection::List, items) if items.len() == 2 => {
                let mut it = items.into_iter();
                match (it.next(), it.next()) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    _ => Err(OpValue::Unread),
                }
            }
            other => Err(other),
        }
    }

    /// A vector's, list's or set's items.
    pub fn into_items(self) -> Result<Vec<Value>, OpValue> {
        match self {
            OpValue::Items(_, items) => Ok(items),
            other => Err(other),
        }
    }

    pub(super) fn is_pair(&self) -> bool {
        matches!(self, OpValue::Items(Collection::Vector | Collection::List, items) if items.len() == 2)
    }

    pub(super) fn is_items(&self) -> bool {
        matches!(self, OpValue::Items(..))
    }
}

/// The canonical text of a collection (see [`Edn::canonical`]) from its
/// items': a list is written as a vector, a set's members sorted.
fn canonical(c: Collection, items: &[Value]) -> String {
    let mut texts: Vec<String> = items.iter().map(Value::to_string).collect();
    if c == Collection::Set {
        texts.sort();
        return format!("#{{{}}}", texts.join(" "));
    }
    format!("[{}]", texts.join(" "))
}

/// What a refused `:value` is shown as: as written, cut short. Kept with
/// the event only where that text is not the canonical one.
pub struct Shown<'a> {
    /// The value, as a model reads it.
    pub value: OpValue,
    written: Option<&'a str>,
}

impl Shown<'_> {
    /// The value as an error shows it: as written if that differs from
    /// its canonical text, cut short either way.
    pub fn brief(&self) -> String {
        match self.written {
            Some(w) => w.to_string(),
            None => edn::brief(self.value.clone().into_value().to_string()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Invoke,
    Ok,
    Fail,
    Info,
}

#[derive(Clone, Debug)]
struct Event {
    line: u64,
    /// Its item's index in the file, from 0, nemesis ops counted.
    index: u64,
    process: u64,
    kind: Kind,
    f: u32,
    value: OpValue,
}

/// The first map that is no op, and why.
#[derive(Clone, Debug)]
struct Bad {
    line: usize,
    why: Why,
}

#[derive(Clone, Debug)]
enum Why {
    Said(String),
    /// An `:f` that is no keyword, as written: what it is told depends on
    /// the model.
    F(String),
}

/// Events a chunk holds: 64 MiB, above the size from which the allocator
/// maps memory of its own, so a chunk dropped goes back to the system.
const CHUNK_BYTES: usize = 64 << 20;

/// A history file's op events, read but not yet taken as some model's.
#[derive(Clone, Debug, Default)]
pub struct Events {
    chunks: Vec<Vec<Event>>,
    /// Events before the first bad map, counted.
    kept: u64,
    bad: Option<Bad>,
    /// The text a refused value is shown as, by event, where it is not
    /// its canonical text.
    written: BTreeMap<u64, String>,
    /// Each `:f` of the ops (the nemesis's aside) by number, with the
    /// first line it is on.
    fs: Vec<(String, usize)>,
    f_numbers: BTreeMap<String, u32>,
    items: u64,
    last_line: usize,
    /// Every item so far starts on a line of its own.
    by_line: bool,
}

impl Events {
    /// No events yet.
    pub fn new() -> Self {
        Events {
            by_line: true,
            ..Events::default()
        }
    }

    /// Take the file's next item, read on `line`.
    pub fn push(&mut self, line: usize, item: &Edn) {
        let index = self.items;
        self.items += 1;
        if index > 0 && line <= self.last_line {
            self.by_line = false;
        }
        self.last_line = line;
        let op = op_map(item);
        let f = match op {
            Ok(op) if !is_nemesis(op) => match op.get("f") {
                Some(Edn::Keyword(f)) => Some(self.f_number(f, line)),
                _ => None,
            },
            _ => None,
        };
        if self.bad.is_some() {
            return;
        }
        match event(op, f, line, index) {
            Ok(None) => {}
            Ok(Some((e, written))) => {
                if let Some(w) = written {
                    self.written.insert(self.kept, w);
                }
                self.kept += 1;
                let per_chunk = CHUNK_BYTES / std::mem::size_of::<Event>();
                match self.chunks.last_mut() {
                    Some(chunk) if chunk.len() < per_chunk => chunk.push(e),
                    _ => {
                        let mut chunk = Vec::with_capacity(if self.chunks.is_empty() { 0 } else { per_chunk });
                        chunk.push(e);
                        self.chunks.push(chunk);
                    }
                }
            }
            Err(why) => self.bad = Some(Bad { line, why }),
        }
    }

    fn f_number(&mut self, f: &str, line: usize) -> u32 {
        if let Some(&n) = self.f_numbers.get(f) {
            return n;
        }
        let n = self.fs.len() as u32;
        self.fs.push((f.to_string(), line));
        self.f_numbers.insert(f.to_string(), n);
        n
    }

    /// What positions count: "line" when every op starts on a line of its
    /// own, else "op" (each op's index from 0, as Jepsen's `:index`).
    pub fn unit(&self) -> &'static str {
        if self.by_line {
            "line"
        } else {
            "op"
        }
    }

    /// Each `:f` of the ops (the nemesis's aside) with the first line it is
    /// on, to tell which model they are ops of. Maps that are no op are left
    /// for [`Events::into_history`] to refuse.
    pub fn fs(&self) -> BTreeMap<String, usize> {
        self.fs.iter().cloned().collect()
    }

    /// The ops as `model`'s, the events kept: for a history small enough
    /// to be taken as several models'.
    pub fn history<M: JepsenOps>(&self, model: &M) -> Result<History<M::Input, M::Output>, ParseError> {
        self.clone().into_history(model)
    }

    /// The ops as `model`'s, each chunk of events let go once taken.
    pub fn into_history<M: JepsenOps>(self, model: &M) -> Result<History<M::Input, M::Output>, ParseError> {
        let unit = self.unit();
        let mut rec = Recorder::new("process", unit);
        let mut n = 0u64;
        for chunk in self.chunks {
            for e in chunk {
                let at = if self.by_line { e.line } else { e.index };
                let line = e.line as usize;
                let f = self.fs[e.f as usize].0.as_str();
                let value = Shown {
                    value: e.value,
                    written: self.written.get(&n).map(String::as_str),
                };
                n += 1;
                record(model, &mut rec, (e.process, e.kind, f), value, at).map_err(|m| ParseError::at(line, m))?;
            }
        }
        if let Some(bad) = self.bad {
            let message = match bad.why {
                Why::Said(m) => m,
                Why::F(written) => expected_f::<M>(&written),
            };
            return Err(ParseError::at(bad.line, message));
        }
        // No op, or nemesis ops only: a history with nothing to check, as
        // Knossos and porcupine judge it.
        Ok(rec.finish())
    }
}

fn op_map(form: &Edn) -> Result<&Edn, String> {
    match form {
        Edn::Map(_) => Ok(form),
        Edn::Tagged(_, map) if matches!(**map, Edn::Map(_)) => Ok(map),
        other => Err(format!(
            "expected an op map like {{:process 0, :type :invoke, :f :read, :value nil}}, found {}",
            other.brief()
        )),
    }
}

fn is_nemesis(op: &Edn) -> bool {
    matches!(op.get("process"), Some(Edn::Keyword(k)) if k == "nemesis")
}

/// One item as an event (`None`: the nemesis's), with the text its value
/// is shown as if it may be refused and that is not its canonical text.
#[allow(clippy::type_complexity)]
fn event(
    op: Result<&Edn, String>,
    f: Option<u32>,
    line: usize,
    index: u64,
) -> Result<Option<(Event, Option<String>)>, Why> {
    let op = op.map_err(Why::Said)?;
    if is_nemesis(op) {
        return Ok(None);
    }
    let process = match op.get("process") {
        Some(Edn::Int(p)) if *p >= 0 => *p as u64,
        Some(other) => {
            return Err(Why::Said(format!(
                "expected :process to be a number or :nemesis, found {}",
                other.brief()
            )))
        }
        None => return Err(Why::Said("missing :process".into())),
    };
    let kind = match op.get("type") {
        Some(Edn::Keyword(k)) => match k.as_str() {
            "invoke" => Some(Kind::Invoke),
            "ok" => Some(Kind::Ok),
            "fail" => Some(Kind::Fail),
            "info" => Some(Kind::Info),
            _ => None,
        },
        _ => None,
    };
    let kind = match (kind, op.get("type")) {
        (Some(k), _) => k,
        (None, Some(other)) => {
            return Err(Why::Said(format!(
                "expected :type :invoke, :ok, :fail or :info, found {}",
                other.brief()
            )))
        }
        (None, None) => return Err(Why::Said("missing :type".into())),
    };
    let (f, name) = match (f, op.get("f")) {
        (Some(n), Some(Edn::Keyword(name))) => (n, name.as_str()),
        (_, Some(other)) => return Err(Why::F(other.brief())),
        (_, None) => return Err(Why::Said("missing :f".into())),
    };
    let (value, written) = kept(name, kind, op.get("value").unwrap_or(&Edn::Nil));
    let e = Event {
        line: line as u64,
        index,
        process,
        kind,
        f,
        value,
    };
    Ok(Some((e, written)))
}

/// What is kept of an op's value `v`: what some model reads of it, and the
/// text it is shown as if a model may refuse it and that text is not the
/// canonical one.
fn kept(f: &str, kind: Kind, v: &Edn) -> (OpValue, Option<String>) {
    let invoke = kind == Kind::Invoke;
    if !reads_value(f, invoke, kind == Kind::Ok) {
        return (OpValue::Unread, None);
    }
    let value = OpValue::of(v);
    let written = may_refuse(f, invoke, &value)
        .then(|| v.brief())
        .filter(|w| *w != edn::brief(value.clone().into_value().to_string()));
    (value, written)
}

/// Record one op event.
fn record<M: JepsenOps>(
    model: &M,
    rec: &mut Recorder<M::Input, M::Output>,
    (process, kind, func): (u64, Kind, &str),
    value: Shown<'_>,
    at: u64,
) -> Result<(), String> {
    if !M::FS.contains(&func) {
        return Err(expected_f::<M>(&Edn::Keyword(func.to_string()).brief()));
    }
    if kind == Kind::Invoke {
        let input = model.input(func, value)?;
        return rec.invoke(process, input, at);
    }
    let invoked = rec.open_op(process)?;
    let invoked_f = model.f(&invoked.input);
    if invoked_f != func {
        return Err(format!(
            "process {process} completes :{func} but invoked :{invoked_f} at {} {}",
            rec.unit(),
            invoked.invoke
        ));
    }
    match kind {
        Kind::Fail => rec.fail(process, at),
        Kind::Info => rec.info(process, at),
        _ => {
            let output = model.output(&invoked.input, value)?;
            rec.ok(process, output, at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_small() {
        // Twice a file's ops are kept this way: a few words each.
        assert!(std::mem::size_of::<Event>() <= 64, "{}", std::mem::size_of::<Event>());
    }

    /// Every model's every op, given each of these values as an invoke's
    /// and as an `:ok`'s: a value not kept changes nothing, and one refused
    /// is refused as its text was written.
    struct Probe;

    const VALUES: [&str; 13] = [
        "nil",
        "1",
        ":a",
        "\"s\"",
        "[1 2]",
        "(2 1)",
        "[1]",
        "#{2 1}",
        "{:b 1, :a 2}",
        "[]",
        "-0.0",
        "(1 (2))",
        "#t {:b 1 :a 2}",
    ];

    impl crate::ModelUser for Probe {
        type Output = ();

        fn with<M: JepsenOps>(self, model: &M) {
            let shown = |kind: Kind, f: &str, text: &str| {
                let (value, written) = kept(f, kind, &edn::read_one(text).unwrap());
                (value, written)
            };
            for f in M::FS {
                let unread = || Shown {
                    value: OpValue::Unread,
                    written: None,
                };
                let (v, w) = shown(Kind::Invoke, f, "[1 2]");
                let input = model
                    .input(
                        f,
                        Shown {
                            value: v,
                            written: w.as_deref(),
                        },
                    )
                    .unwrap();
                for text in VALUES {
                    let e = edn::read_one(text).unwrap();
                    for kind in [Kind::Invoke, Kind::Ok] {
                        let (v, w) = shown(kind, f, text);
                        let refusable = may_refuse(f, kind == Kind::Invoke, &OpValue::of(&e));
                        let given = Shown {
                            value: v,
                            written: w.as_deref(),
                        };
                        let (got, without) = match kind {
                            Kind::Invoke => (
                                format!("{:?}", model.input(f, given)),
                                format!("{:?}", model.input(f, unread())),
                            ),
                            _ => (
                                format!("{:?}", model.output(&input, given)),
                                format!("{:?}", model.output(&input, unread())),
                            ),
                        };
                        if !reads_value(f, kind == Kind::Invoke, kind == Kind::Ok) {
                            assert_eq!(got, without, ":{f} {kind:?} {text}");
                        }
                        if got.starts_with("Err") {
                            assert!(refusable, ":{f} {kind:?} {text}: {got}");
                            let brief = format!("{:?}", e.brief());
                            assert!(
                                got.ends_with(&format!("found {}\")", &brief[1..brief.len() - 1])),
                                "{got}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn what_is_kept_of_a_value_is_what_the_models_read() {
        for m in crate::JepsenModel::ALL {
            m.apply(Value::Nil, Probe);
        }
    }

    #[test]
    fn collections_keep_the_canonical_text_of_the_whole() {
        for text in ["[1 (2 3) {:b 1, :a 2}]", "(nil \"x\" :k)", "#{3 1 [2]}", "[]", "#{}"] {
            let e = edn::read_one(text).unwrap();
            assert_eq!(OpValue::of(&e).into_value(), Value::from(&e), "{text}");
        }
    }
}
