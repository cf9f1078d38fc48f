//! The client history of a dst trace, for the linearizability checker.

use crate::event::{Event, EventKind};
use crate::workload::{KvOp, KvResult};
use linearizability::{History, Recorder};
use std::collections::BTreeMap;

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

    /// The history taken so far: failed ops left out, ops still open counted as unknown.
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
