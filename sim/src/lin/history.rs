//! Histories: operations with their invoke and completion positions, built
//! from dst trace events or from a parser, one client at a time.

use crate::event::{Event, EventKind};
use crate::one_line::one_line;
use crate::workload::{KvOp, KvResult};
use std::collections::BTreeMap;
use std::fmt;

/// One operation: an invoke and, if it completed, its completion.
#[derive(Clone, Debug, PartialEq)]
pub struct Op<I, O> {
    /// The client (Jepsen's process) that ran it.
    pub client: u64,
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
    pub line: Option<usize>,
    pub message: String,
}

impl ParseError {
    pub fn at(line: usize, message: impl AsRef<str>) -> Self {
        ParseError {
            line: Some(line),
            message: one_line(message.as_ref()),
        }
    }

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
    pub fn new(who: &'static str, unit: &'static str) -> Self {
        Recorder {
            ops: Vec::new(),
            failed: Vec::new(),
            open: BTreeMap::new(),
            who,
            unit,
        }
    }

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

/// The client history of a dst trace: `invoke` / `ok` / `fail` / `info`
/// events, positioned by trace index.
pub struct DstHistory {
    rec: Recorder<KvOp, KvResult>,
    /// client -> op id of its open operation
    op_ids: BTreeMap<u32, u64>,
    /// client -> op id of its open follower read, which promises only
    /// bounded staleness and so is no part of the linearizable history
    follower_reads: BTreeMap<u32, u64>,
    last: Option<u64>,
}

impl Default for DstHistory {
    fn default() -> Self {
        DstHistory {
            rec: Recorder::new("client", "event"),
            op_ids: BTreeMap::new(),
            follower_reads: BTreeMap::new(),
            last: None,
        }
    }
}

impl DstHistory {
    /// Take one trace event; anything but the client history is ignored.
    pub fn push(&mut self, e: &Event) -> Result<(), String> {
        let (client, op_id) = match &e.kind {
            EventKind::Invoke { client, op_id, .. }
            | EventKind::Ok { client, op_id, .. }
            | EventKind::Fail { client, op_id, .. }
            | EventKind::Info { client, op_id, .. } => (*client, *op_id),
            _ => return Ok(()),
        };
        if self.last.is_some_and(|l| e.i <= l) {
            return Err(format!(
                "event {} comes after event {}: events out of order",
                e.i,
                self.last.unwrap_or(0)
            ));
        }
        self.last = Some(e.i);
        let c = client as u64;
        if let EventKind::Invoke {
            op: KvOp::FollowerGet { .. },
            ..
        } = &e.kind
        {
            self.follower_reads.insert(client, op_id);
            return Ok(());
        }
        if !matches!(e.kind, EventKind::Invoke { .. }) && self.follower_reads.get(&client) == Some(&op_id) {
            self.follower_reads.remove(&client);
            return Ok(());
        }
        if let EventKind::Invoke { op, .. } = &e.kind {
            self.rec
                .invoke(c, op.clone(), e.i)
                .map_err(|m| format!("event {}: {m}", e.i))?;
            self.op_ids.insert(client, op_id);
            return Ok(());
        }
        match self.op_ids.remove(&client) {
            Some(open) if open == op_id => {}
            Some(open) => {
                return Err(format!(
                    "event {}: client {client} completes op {op_id} but its open op is {open}",
                    e.i
                ))
            }
            None => {
                return Err(format!(
                    "event {}: client {client} completes op {op_id} it never invoked",
                    e.i
                ))
            }
        }
        match &e.kind {
            EventKind::Ok { result, .. } => self.rec.ok(c, result.clone(), e.i),
            EventKind::Fail { .. } => self.rec.fail(c, e.i),
            _ => self.rec.info(c, e.i),
        }
    }

    pub fn finish(self) -> History<KvOp, KvResult> {
        self.rec.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: u64, kind: EventKind) -> Event {
        Event {
            i,
            t_ns: i,
            node: None,
            kind,
        }
    }

    #[test]
    fn dst_events_pair_up_and_failures_drop() {
        let mut h = DstHistory::default();
        let put = KvOp::Put { key: 1, value: 7 };
        h.push(&ev(
            0,
            EventKind::Invoke {
                client: 0,
                op_id: 0,
                op: put.clone(),
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(
            1,
            EventKind::Invoke {
                client: 1,
                op_id: 1,
                op: put.clone(),
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(2, EventKind::Boot { restart: false })).unwrap();
        h.push(&ev(
            3,
            EventKind::Fail {
                client: 1,
                op_id: 1,
                why: "no leader".into(),
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(
            4,
            EventKind::Ok {
                client: 0,
                op_id: 0,
                result: KvResult::Done,
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(
            5,
            EventKind::Invoke {
                client: 1,
                op_id: 2,
                op: put.clone(),
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(
            6,
            EventKind::Info {
                client: 1,
                op_id: 2,
                why: "timeout".into(),
                to: None,
            },
        ))
        .unwrap();
        h.push(&ev(
            7,
            EventKind::Invoke {
                client: 0,
                op_id: 3,
                op: put,
                to: None,
            },
        ))
        .unwrap();
        let follower = KvOp::FollowerGet { key: 1 };
        h.push(&ev(
            8,
            EventKind::Invoke {
                client: 1,
                op_id: 4,
                op: follower,
                to: None,
            },
        ))
        .unwrap();
        let result = KvResult::Value { value: vec![] };
        h.push(&ev(
            9,
            EventKind::Ok {
                client: 1,
                op_id: 4,
                result,
                to: None,
            },
        ))
        .unwrap();
        let ops = h.finish().ops;
        assert_eq!(ops.len(), 3);
        assert_eq!(
            (ops[0].invoke, ops[0].complete, ops[0].is_completed()),
            (0, Some(4), true)
        );
        assert_eq!(
            (ops[1].invoke, ops[1].complete, ops[1].is_completed()),
            (5, Some(6), false)
        );
        assert_eq!((ops[2].complete, ops[2].is_completed()), (None, false));
    }

    #[test]
    fn inconsistent_events_are_errors() {
        let mut h = DstHistory::default();
        let e = h.push(&ev(
            3,
            EventKind::Ok {
                client: 0,
                op_id: 9,
                result: KvResult::Done,
                to: None,
            },
        ));
        assert!(e.unwrap_err().contains("never invoked"));
        let get = KvOp::Get { key: 0 };
        h.push(&ev(
            4,
            EventKind::Invoke {
                client: 0,
                op_id: 1,
                op: get.clone(),
                to: None,
            },
        ))
        .unwrap();
        let e = h.push(&ev(
            5,
            EventKind::Invoke {
                client: 0,
                op_id: 2,
                op: get,
                to: None,
            },
        ));
        assert!(e.unwrap_err().contains("still open"));
        let e = h.push(&ev(
            5,
            EventKind::Info {
                client: 0,
                op_id: 1,
                why: String::new(),
                to: None,
            },
        ));
        assert!(e.unwrap_err().contains("out of order"));
    }
}
