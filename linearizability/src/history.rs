//! Histories: operations with their invoke and completion positions, built
//! by a parser (or from dst's trace events, in `sim::lin::DstHistory`) one client at a
//! time.

use crate::one_line::one_line;
use std::collections::BTreeMap;
use std::fmt;

/// One operation: an invoke and, if it completed, its completion.
#[derive(Clone, Debug, PartialEq)]
pub struct Op<I, O> {
    /// The client (Jepsen's process) that ran it.
    pub client: u64,
    /// What it asked for.
    pub input: I,
    /// What it returned; `None` when the outcome is unknown (`info`, or no
    /// completion at all): it may take effect at any point after its invoke,
    /// or never.
    pub output: Option<O>,
    /// Where the invoke was recorded: a trace index or a line number.
    /// Positions order the history in real time.
    pub invoke: u64,
    /// Where the completion (ok or info) was recorded, if anywhere.
    pub complete: Option<u64>,
}

impl<I, O> Op<I, O> {
    /// Known to have taken effect before `complete`, with `output`.
    pub fn is_completed(&self) -> bool {
        self.output.is_some() && self.complete.is_some()
    }
}

/// Every operation that may have taken effect; failed ones are left out.
#[derive(Clone, Debug, PartialEq)]
pub struct History<I, O> {
    /// The operations, in invoke order.
    pub ops: Vec<Op<I, O>>,
}

impl<I, O> Default for History<I, O> {
    fn default() -> Self {
        History { ops: Vec::new() }
    }
}

/// A malformed history file: what is wrong and on which line (`None`: the
/// file as a whole). Built through `at` and `whole`, the message is one line
/// even where it quotes the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line at fault (`None`: the file as a whole).
    pub line: Option<usize>,
    /// What is wrong, on one line.
    pub message: String,
}

impl ParseError {
    /// An error on `line`, its message made one line.
    pub fn at(line: usize, message: impl AsRef<str>) -> Self {
        ParseError {
            line: Some(line),
            message: one_line(message.as_ref()),
        }
    }

    /// An error of the whole file, its message made one line.
    pub fn whole(message: impl AsRef<str>) -> Self {
        ParseError {
            line: None,
            message: one_line(message.as_ref()),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Pairs invokes with completions per client: a client has at most one
/// operation open at a time.
pub struct Recorder<I, O> {
    ops: Vec<Op<I, O>>,
    failed: Vec<bool>,
    open: BTreeMap<u64, usize>,
    /// How errors name a client ("client", "process") and a position
    /// ("line", "event").
    who: &'static str,
    unit: &'static str,
}

impl<I, O> Recorder<I, O> {
    /// An empty history whose errors name a client `who` ("client",
    /// "process") and a position `unit` ("line", "event").
    pub fn new(who: &'static str, unit: &'static str) -> Self {
        Recorder {
            ops: Vec::new(),
            failed: Vec::new(),
            open: BTreeMap::new(),
            who,
            unit,
        }
    }

    /// `client` invokes `input` at position `at`; an error if the client
    /// has an operation open already.
    pub fn invoke(&mut self, client: u64, input: I, at: u64) -> Result<(), String> {
        if let Some(&i) = self.open.get(&client) {
            return Err(format!(
                "{} {client} invokes again while its operation from {} {} is still open",
                self.who, self.unit, self.ops[i].invoke
            ));
        }
        self.open.insert(client, self.ops.len());
        self.ops.push(Op {
            client,
            input,
            output: None,
            invoke: at,
            complete: None,
        });
        self.failed.push(false);
        Ok(())
    }

    /// The client's open operation, for a completion to check against.
    pub fn open_op(&self, client: u64) -> Result<&Op<I, O>, String> {
        match self.open.get(&client) {
            Some(&i) => Ok(&self.ops[i]),
            None => Err(format!("{} {client} completes an operation it never invoked", self.who)),
        }
    }

    fn close(&mut self, client: u64, at: u64) -> Result<usize, String> {
        self.open_op(client)?;
        let i = self.open.remove(&client).expect("checked open");
        self.ops[i].complete = Some(at);
        Ok(i)
    }

    /// Completed with `output`: it took effect between invoke and now.
    pub fn ok(&mut self, client: u64, output: O, at: u64) -> Result<(), String> {
        let i = self.close(client, at)?;
        self.ops[i].output = Some(output);
        Ok(())
    }

    /// Definitely did not take effect: dropped from the history.
    pub fn fail(&mut self, client: u64, at: u64) -> Result<(), String> {
        let i = self.close(client, at)?;
        self.failed[i] = true;
        Ok(())
    }

    /// The outcome is unknown; the operation stays open forever.
    pub fn info(&mut self, client: u64, at: u64) -> Result<(), String> {
        self.close(client, at).map(|_| ())
    }

    /// Whether no operation was invoked.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// How positions are named ("line", "event").
    pub fn unit(&self) -> &'static str {
        self.unit
    }

    /// Operations still open when the history ends count as unknown.
    pub fn finish(self) -> History<I, O> {
        // In place: a file's history may be most of what a check holds.
        let mut failed = self.failed.into_iter();
        let mut ops = self.ops;
        ops.retain(|_| !failed.next().unwrap_or(false));
        History { ops }
    }
}
