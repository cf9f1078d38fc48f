use super::DstHistory;
use super::{Invariant, Violation};
use crate::event::Event;
use linearizability::{self as lin, DstKv, Options, Outcome};

/// The client history of the KV store is linearizable: there is one order
/// of all ops, each at a point between its invoke and its completion, in
/// which every op returns what `apply_kv` says. `fail`ed ops never
/// happened; `info` ops may have happened at any later point, or never.
///
/// The search needs the whole history, so it runs in `finish`. A search
/// that exceeds its step budget is no violation, but it is not a pass
/// either: it shows as the `linearizable_unknown` counter and a warning.
pub struct Linearizable {
    history: DstHistory,
    opts: Options,
    unknown: bool,
    steps: u64,
}

impl Default for Linearizable {
    fn default() -> Self {
        Linearizable::with_budget(lin::DEFAULT_BUDGET_PER_KEY)
    }
}

impl Linearizable {
    /// `budget_per_key`: search steps allowed on each key.
    pub fn with_budget(budget_per_key: u64) -> Self {
        Linearizable {
            history: DstHistory::default(),
            opts: Options {
                budget_per_key,
                ..Options::default()
            },
            unknown: false,
            steps: 0,
        }
    }
}

impl Invariant for Linearizable {
    fn id(&self) -> &'static str {
        "linearizable"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        self.history
            .push(e)
            .map_err(|m| Violation::new(self.id(), format!("malformed client history: {m}"), vec![e.i]))
    }

    fn finish(&mut self, _end_ns: u64) -> Result<(), Violation> {
        let history = std::mem::take(&mut self.history).finish();
        let checked = lin::check(&DstKv, &history, &self.opts);
        self.steps = checked.steps;
        match checked.outcome {
            Outcome::Linearizable => Ok(()),
            Outcome::Unknown { reason, .. } => {
                tracing::warn!("linearizable: unknown: {reason}");
                self.unknown = true;
                Ok(())
            }
            Outcome::NotLinearizable(f) => {
                let op = &history.ops[f.unplaced];
                let evidence = std::iter::once(op.invoke).chain(op.complete).collect();
                Err(Violation::new(
                    self.id(),
                    f.message(&DstKv, &history, "event"),
                    evidence,
                ))
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("linearizable_unknown", self.unknown as u64),
            ("linearizable_steps", self.steps),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;
    use crate::workload::{KvOp, KvResult};

    fn feed(c: &mut Linearizable, kinds: Vec<EventKind>) {
        for (i, kind) in kinds.into_iter().enumerate() {
            let e = Event {
                i: i as u64,
                t_ns: i as u64 * 10,
                node: None,
                kind,
            };
            c.observe(&e).unwrap();
        }
    }

    fn invoke(client: u32, op_id: u64, op: KvOp) -> EventKind {
        EventKind::Invoke {
            client,
            op_id,
            op,
            to: None,
        }
    }

    fn ok(client: u32, op_id: u64, result: KvResult) -> EventKind {
        EventKind::Ok {
            client,
            op_id,
            result,
            to: None,
        }
    }

    #[test]
    fn a_stale_read_is_a_violation_naming_the_read() {
        let mut c = Linearizable::default();
        feed(
            &mut c,
            vec![
                invoke(0, 0, KvOp::Put { key: 2, value: 1 }),
                ok(0, 0, KvResult::Done),
                invoke(1, 1, KvOp::Put { key: 2, value: 2 }),
                ok(1, 1, KvResult::Done),
                invoke(0, 2, KvOp::Get { key: 2 }),
                ok(0, 2, KvResult::Value { value: vec![1] }),
            ],
        );
        let v = c.finish(100).unwrap_err();
        assert_eq!(v.evidence, vec![4, 5]);
        assert!(
            v.message.starts_with("key 2: get -> [1] by client 0 (events 4..5)"),
            "{}",
            v.message
        );
    }

    #[test]
    fn an_exhausted_budget_is_counted_not_violated() {
        let mut c = Linearizable::with_budget(2);
        // A repeated value, so that the key is searched.
        let appends = (0..3).map(|v| {
            invoke(
                v,
                v as u64,
                KvOp::Append {
                    key: 0,
                    value: v as u64 % 2,
                },
            )
        });
        let mut kinds: Vec<EventKind> = appends.collect();
        kinds.extend((0..3).map(|v| ok(v, v as u64, KvResult::Done)));
        kinds.push(invoke(0, 3, KvOp::Get { key: 0 }));
        kinds.push(ok(0, 3, KvResult::Value { value: vec![0, 1, 0] }));
        feed(&mut c, kinds);
        c.finish(100).unwrap();
        assert!(c.counters().contains(&("linearizable_unknown", 1)));
    }

    #[test]
    fn a_completion_without_its_invoke_is_a_violation() {
        let mut c = Linearizable::default();
        let e = Event {
            i: 3,
            t_ns: 0,
            node: None,
            kind: ok(0, 9, KvResult::Done),
        };
        assert_eq!(c.observe(&e).unwrap_err().evidence, vec![3]);
    }
}
