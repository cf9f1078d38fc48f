use crate::cluster::events::ClusterEvent;
use sim::fault::Action;
use sim::{Event, EventKind, Invariant, NodeId, Violation};
use std::collections::BTreeMap;

/// Past its deadline, a query's coordinator may take this much longer to
/// answer (its timer runs on its own clock, and its step must come round).
const SLACK_NS: u64 = 50_000_000;

/// Every scatter-gather query whose coordinator stays up is answered by its
/// deadline, and an answer that is not a typed error covers every shard
/// the query went to, each of which sent its part.
#[derive(Default)]
pub struct GatherComplete {
    /// query -> (coordinator, shards, answer due by, event)
    open: BTreeMap<u64, (NodeId, Vec<NodeId>, u64, u64)>,
    /// query -> shards that sent a part
    parts: BTreeMap<u64, Vec<NodeId>>,
    errors: u64,
    complete: u64,
}

impl GatherComplete {
    fn forget_node(&mut self, node: NodeId) {
        let gone: Vec<u64> = self.open.iter().filter(|(_, o)| o.0 == node).map(|(&q, _)| q).collect();
        for q in gone {
            self.open.remove(&q);
            self.parts.remove(&q);
        }
    }

    fn overdue(&self, now_ns: u64, at: u64) -> Result<(), Violation> {
        match self.open.iter().find(|(_, o)| o.2 < now_ns) {
            None => Ok(()),
            Some((q, (node, shards, _, begun))) => Err(Violation::new(
                "gather-complete",
                format!(
                    "node {node}'s query {q:#x} to shards {shards:?} has no answer past its deadline (parts sent by {:?})",
                    self.parts.get(q).cloned().unwrap_or_default()
                ),
                vec![*begun, at],
            )),
        }
    }
}

impl Invariant for GatherComplete {
    fn id(&self) -> &'static str {
        "gather-complete"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        self.overdue(e.t_ns, e.i)?;
        match &e.kind {
            EventKind::Boot { .. } | EventKind::Halt { .. } => {
                if let Some(n) = e.node {
                    self.forget_node(n);
                }
                return Ok(());
            }
            EventKind::Fault {
                action: Action::Crash { node },
            } => {
                self.forget_node(*node);
                return Ok(());
            }
            _ => {}
        }
        let (Some(node), Some(m)) = (e.node, e.custom::<ClusterEvent>()) else {
            return Ok(());
        };
        match m {
            ClusterEvent::QueryBegun {
                query,
                shards,
                deadline_ms,
            } => {
                let due = e.t_ns + deadline_ms * 1_000_000 + SLACK_NS;
                self.open.insert(query, (node, shards, due, e.i));
            }
            ClusterEvent::Partial { query, .. } if self.open.contains_key(&query) => {
                self.parts.entry(query).or_default().push(node);
            }
            ClusterEvent::Answered {
                query, answered, error, ..
            } => {
                let Some((_, shards, _, begun)) = self.open.remove(&query) else {
                    return Ok(());
                };
                let parts = self.parts.remove(&query).unwrap_or_default();
                if error.is_some() {
                    self.errors += 1;
                    return Ok(());
                }
                let missing: Vec<NodeId> = shards
                    .iter()
                    .copied()
                    .filter(|s| !answered.contains(s) || !parts.contains(s))
                    .collect();
                if !missing.is_empty() {
                    return Err(Violation::new(
                        self.id(),
                        format!(
                            "node {node} answered query {query:#x} as complete without shards {missing:?} (answered: {answered:?})"
                        ),
                        vec![begun, e.i],
                    ));
                }
                self.complete += 1;
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_ns: u64) -> Result<(), Violation> {
        let last = self.open.values().map(|o| o.3).max().unwrap_or(0);
        self.overdue(end_ns, last)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("gather_complete", self.complete), ("gather_errors", self.errors)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::ev;
    use super::*;

    fn begun(i: u64) -> Event {
        ev(
            i,
            1,
            ClusterEvent::QueryBegun {
                query: 9,
                shards: vec![1, 2],
                deadline_ms: 10,
            },
        )
    }

    fn part(i: u64, node: NodeId) -> Event {
        ev(i, node, ClusterEvent::Partial { query: 9, count: 1 })
    }

    fn answered(i: u64, answered: Vec<NodeId>, error: Option<String>) -> Event {
        ev(
            i,
            1,
            ClusterEvent::Answered {
                query: 9,
                total: 1,
                answered,
                error,
            },
        )
    }

    #[test]
    fn a_partial_total_claimed_complete_fails() {
        let mut c = GatherComplete::default();
        c.observe(&begun(0)).unwrap();
        c.observe(&part(1, 1)).unwrap();
        let v = c.observe(&answered(2, vec![1], None)).unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }

    #[test]
    fn a_complete_total_and_a_typed_error_pass() {
        let mut c = GatherComplete::default();
        c.observe(&begun(0)).unwrap();
        c.observe(&part(1, 1)).unwrap();
        c.observe(&part(2, 2)).unwrap();
        c.observe(&answered(3, vec![1, 2], None)).unwrap();
        c.observe(&begun(4)).unwrap();
        c.observe(&answered(5, vec![], Some("deadline".into()))).unwrap();
        c.finish(u64::MAX).unwrap();
    }

    #[test]
    fn no_answer_by_the_deadline_fails() {
        let mut c = GatherComplete::default();
        c.observe(&begun(0)).unwrap();
        assert!(c.finish(SLACK_NS + 20_000_000).is_err());
    }
}
