//! The history files Jepsen itself writes (`history.edn`) of a test of one
//! register, mutex, set or queue: one vector of op maps, or one op map a
//! line, each map possibly a record (`#jepsen.history.Op{...}`), keys in
//! any order:
//!
//! ```text
//! {:type :invoke, :f :write, :value 3, :process 0, :time 10, :index 0}
//! #jepsen.history.Op{:index 1, :time 12, :type :ok, :process 0, :f :write, :value 3}
//! {:process :nemesis, :type :info, :f :start, :value nil}
//! {:process 1, :type :invoke, :f :cas, :value [3 4]}
//! {:process 1, :type :fail, :f :cas, :value [3 4], :error :mismatch}
//! ```
//!
//! `:f` is an op of one of Knossos' models (see `jepsen_ops`);
//! ops of the `:nemesis` process are skipped, other keys ignored. The file
//! is read once, as a stream ([`read_from`]), each op map kept as a compact
//! event; the ops' `:f`s tell which model it is of (`jepsen_model`), and
//! then the events are taken as that model's ops ([`Events::into_history`]). As Jepsen means them: `:fail` did not happen;
//! `:info`, or no completion, may have happened at any point after the
//! invoke, or never. Jepsen gives a process whose op ended `:info` a new
//! number, but a reused number is read as a new process too. Values are
//! any EDN value; what an op returned is taken from its `:ok`.

use super::edn::{Edn, Items};
use super::history::{History, ParseError};
use super::jepsen_events::Events;
use super::jepsen_ops::JepsenOps;
use super::register::Register;
use std::fmt;
use std::io::BufRead;

/// A register's value, compared as Clojure's `=` compares EDN values:
/// integers as integers, anything else by its canonical text (so `1N` is
/// 1, `(1 2)` is `[1 2]`, and maps and sets ignore their order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// `nil`.
    Nil,
    /// An integer that fits in 64 bits.
    Int(i64),
    /// Anything else, by its canonical text.
    Other(String),
}

impl From<&Edn> for Value {
    fn from(e: &Edn) -> Self {
        match e {
            Edn::Nil => Value::Nil,
            Edn::Int(i) => Value::Int(*i),
            other => Value::Other(other.canonical()),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Other(s) => f.write_str(s),
        }
    }
}

impl Value {
    /// One EDN value given as text (`--initial 0`).
    pub fn parse(text: &str) -> Result<Value, String> {
        super::edn::read_one(text)
            .map(|e| Value::from(&e))
            .map_err(|e| e.message)
    }
}

/// The register of a Jepsen history that starts holding `initial`. Nil is
/// a value it can hold like any other, so reads of nil are checked.
pub fn register(initial: Value) -> Register<Value> {
    Register::starting_at(Some(initial))
}

/// A history file's ops, read but not yet taken as some model's: once its
/// EDN forms, the name it keeps.
pub type Forms = Events;

/// A history read from a Jepsen file, and how it names positions.
pub struct Parsed<I, O> {
    /// The history.
    pub history: History<I, O>,
    /// What positions count: "line" when every op starts on a line of its
    /// own, else "op" (each op's index from 0, as Jepsen's `:index`).
    pub unit: &'static str,
}

/// Parse a whole history file as ops of `model`; the error names the
/// first bad line.
pub fn parse<M: JepsenOps>(model: &M, text: &str) -> Result<Parsed<M::Input, M::Output>, ParseError> {
    let events = read(text)?;
    let unit = events.unit();
    Ok(Parsed {
        history: events.into_history(model)?,
        unit,
    })
}

/// Read a history file's EDN: the items of its one top-level vector (or
/// list), or every top-level value.
pub fn read(text: &str) -> Result<Events, ParseError> {
    read_from(text.as_bytes())
}

/// [`read`] from a stream: each item is made a compact event as soon as
/// it is read, so what is held is the events, not the text or its EDN.
pub fn read_from<R: BufRead>(input: R) -> Result<Events, ParseError> {
    read_items(Items::new(input))
}

fn read_items<R: BufRead>(mut items: Items<R>) -> Result<Events, ParseError> {
    let mut events = Events::new();
    while let Some((line, item)) = items.next().map_err(|e| ParseError::at(e.line, e.message))? {
        events.push(line, &item);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::register::{RegisterOp, RegisterOutput};
    use crate::{check, Options, Outcome};

    fn parse(text: &str) -> Result<Parsed<RegisterOp<Value>, RegisterOutput<Value>>, ParseError> {
        super::parse(&register(Value::Nil), text)
    }

    /// Client, input, output, invoke and completion of each op.
    type Row = (u64, RegisterOp<Value>, Option<RegisterOutput<Value>>, u64, Option<u64>);

    fn ops(text: &str) -> Vec<Row> {
        let p = parse(text).unwrap();
        p.history
            .ops
            .into_iter()
            .map(|o| (o.client, o.input, o.output, o.invoke, o.complete))
            .collect()
    }

    fn other(s: &str) -> Value {
        Value::Other(s.into())
    }

    #[test]
    fn reads_the_line_form_with_records_nemesis_and_extra_keys() {
        let text = r#"{:type :invoke, :f :write, :value 3, :process 0, :time 10, :index 0}
#jepsen.history.Op{:index 1, :time 12, :type :ok, :process 0, :f :write, :value 3}
{:process :nemesis, :type :info, :f :start, :value nil}
{:process 1, :type :invoke, :f :cas, :value [3 4]}
{:value nil :f :read :type :invoke :process 2}
{:process 1, :type :fail, :f :cas, :value [3 4], :error [:mismatch "x"]}
{:process 2, :type :ok, :f :read, :value 3N}
{:process 3, :type :invoke, :f :write, :value :a}
{:process 3, :type :info, :f :write, :value :a, :error :timeout}
{:process 3, :type :invoke, :f :read, :value nil}
"#;
        let p = parse(text).unwrap();
        assert_eq!(p.unit, "line");
        let fs = read(text).unwrap().fs();
        assert_eq!(
            fs.into_iter().collect::<Vec<_>>(),
            [("cas".into(), 4), ("read".into(), 5), ("write".into(), 1)]
        );
        let w3 = RegisterOp::Write(Value::Int(3));
        assert_eq!(
            ops(text),
            vec![
                (0, w3, Some(RegisterOutput::Done), 1, Some(2)),
                (
                    2,
                    RegisterOp::Read,
                    Some(RegisterOutput::Read(Some(Value::Int(3)))),
                    5,
                    Some(7)
                ),
                (3, RegisterOp::Write(other(":a")), None, 8, Some(9)),
                (3, RegisterOp::Read, None, 10, None),
            ]
        );
    }

    #[test]
    fn reads_the_vector_form_counting_ops_when_they_share_lines() {
        let text = "[{:process 0, :type :invoke, :f :read} {:process 0, :type :ok, :f :read, :value nil}]";
        let p = parse(text).unwrap();
        assert_eq!(p.unit, "op");
        assert_eq!(p.history.ops[0].output, Some(RegisterOutput::Read(Some(Value::Nil))));
        assert_eq!((p.history.ops[0].invoke, p.history.ops[0].complete), (0, Some(1)));
        let pretty = "[{:process 0, :type :invoke, :f :write, :value \"x\"}\n {:process 0, :type :ok, :f :write, :value \"x\"}]\n";
        let p = parse(pretty).unwrap();
        assert_eq!(p.unit, "line");
        assert_eq!(p.history.ops[0].input, RegisterOp::Write(other("\"x\"")));
        assert_eq!((p.history.ops[0].invoke, p.history.ops[0].complete), (1, Some(2)));
    }

    #[test]
    fn values_compare_as_edn_values() {
        let v = |s: &str| Value::parse(s).unwrap();
        assert_eq!(v("1N"), Value::Int(1));
        assert_eq!(v("(1 2)"), v("[1 2]"));
        assert_eq!(v("{:a 1, :b 2}"), v("{:b 2 :a 1}"));
        assert_eq!(v("#{1 2}"), v("#{2 1}"));
        assert_ne!(v("1"), v("1.0"));
        assert_ne!(v("\"a\""), v(":a"));
        assert_eq!(v("nil"), Value::Nil);
        assert!(Value::parse("[1").unwrap_err().contains("expected ']'"));
        assert!(Value::parse("1 2").unwrap_err().contains("one EDN value"));
    }

    #[test]
    fn nil_is_a_value_the_register_can_hold() {
        let text = "{:process 0, :type :invoke, :f :write, :value 1}\n\
                    {:process 0, :type :ok, :f :write, :value 1}\n\
                    {:process 1, :type :invoke, :f :read, :value nil}\n\
                    {:process 1, :type :ok, :f :read, :value nil}\n";
        let h = parse(text).unwrap().history;
        let opts = Options::default();
        assert!(matches!(
            check(&register(Value::Nil), &h, &opts).outcome,
            Outcome::NotLinearizable(_)
        ));
        let nil_first = text.replace(":ok, :f :write", ":info, :f :write");
        let h = parse(&nil_first).unwrap().history;
        assert_eq!(check(&register(Value::Nil), &h, &opts).outcome, Outcome::Linearizable);
        assert!(matches!(
            check(&register(Value::Int(0)), &h, &opts).outcome,
            Outcome::NotLinearizable(_)
        ));
    }

    /// The history and unit of `text` read `chunk` bytes at a time, or the error.
    fn in_chunks(text: &str, chunk: usize) -> String {
        let input = std::io::BufReader::with_capacity(3, text.as_bytes());
        let read = read_items(Items::with_chunk(input, chunk)).and_then(|events| {
            let unit = events.unit();
            events.into_history(&register(Value::Nil)).map(|h| (h, unit))
        });
        format!("{read:?}")
    }

    #[test]
    fn read_in_chunks_of_any_size_a_history_is_the_one_read_whole() {
        let lines = "{:type :invoke, :f :write, :value \"é\", :process 0}\n\
                     #jepsen.history.Op{:index 1, :type :ok, :process 0, :f :write, :value \"é\"}\n\
                     {:process :nemesis, :type :info, :f :start, :value [:isolated {\"n1\" #{\"n2\"}}]}\n\
                     {:process 1, :type :invoke, :f :cas, :value (\"é\" [1 2])}\n\
                     {:process 1, :type :ok, :f :cas, :value nil}\n\
                     {:process 2, :type :invoke, :f :read, :value nil} {:process 2, :type :ok, :f :read, :value #{2 1}}\n";
        let vector = format!("[{}]", lines.trim_end().replace('\n', "\n "));
        let cases = [
            lines.to_string(),
            vector.clone(),
            vector.replace('\n', " "),
            // Cut short: inside a map, inside a string, before the closing bracket.
            vector[..vector.len() / 2].to_string(),
            vector[..vector.find("é").unwrap()].to_string(),
            vector[..vector.len() - 1].to_string(),
            format!("{vector} [1]"),
            lines.replace(":process 2, :type :ok", ":process 3, :type :ok"),
            lines.replace(":value (\"é\" [1 2])", ":value #{1 2}"),
        ];
        for text in &cases {
            let want = format!("{:?}", parse(text).map(|p| (p.history, p.unit)));
            for chunk in [1, 2, 3, 5, 8, 13, 64, 1 << 20] {
                assert_eq!(in_chunks(text, chunk), want, "{text:?} in chunks of {chunk}");
            }
        }
        let e = parse(&vector[..vector.len() - 1]).err().expect("refused");
        assert_eq!(
            (e.line, e.message.as_str()),
            (Some(1), "expected ']' to close the vector, found the end of the input")
        );
    }

    fn err(text: &str) -> ParseError {
        parse(text).err().expect("refused")
    }

    #[test]
    fn malformed_histories_name_their_line() {
        let read = "{:process 0, :type :invoke, :f :read, :value nil}\n";
        let e = err(&format!("{read}{{:process 0, :type :done, :f :read}}\n"));
        assert_eq!(
            e.to_string(),
            "2: expected :type :invoke, :ok, :fail or :info, found :done"
        );
        assert_eq!(err(&format!("{read}{read}")).line, Some(2));
        assert!(err(&format!("{read}{{:process 0 :type :ok :f :write}}"))
            .message
            .contains("completes :write but invoked :read at line 1"));
        assert!(err("{:process 0, :type :ok, :f :read}")
            .message
            .contains("never invoked"));
        assert!(err("{:process 0, :type :invoke, :f :cas, :value 3}")
            .message
            .contains("[old new]"));
        assert!(err("{:process 0, :type :invoke, :f :add}")
            .message
            .contains("expected :f :read, :write or :cas, found :add"));
        assert!(err("{:process \"p\", :type :invoke, :f :read}")
            .message
            .contains(":nemesis"));
        assert!(err("{:type :invoke, :f :read}").message.contains("missing :process"));
        assert_eq!(err("[1 2]").message.split(", found").last(), Some(" 1"));
        assert!(err("[{:process 0, :type :invoke, :f :read}] []")
            .message
            .contains("after the history"));
        let e = err("[{:process 0, :type :invoke, :f :read}\n {:process 1}");
        assert_eq!(
            (e.line, e.message.as_str()),
            (Some(1), "expected ']' to close the vector, found the end of the input")
        );
        // Nemesis ops only, or nothing at all: an empty history.
        for empty in ["{:process :nemesis, :type :info, :f :kill}\n", " \n; nothing\n", "[]"] {
            assert!(parse(empty).unwrap().history.ops.is_empty(), "{empty:?}");
        }
    }
}
