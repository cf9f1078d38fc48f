//! The adapter's own events and invariant: what a node acknowledges to the
//! leader against what its disk durably holds. Raft's safety rests on
//! every acknowledgement being durable; the generic invariants see only the
//! consequences of breaking that (a lost committed entry after a power
//! loss), this one sees the breach itself, crash or no crash.

use serde::{Deserialize, Serialize};
use sim::{Event, EventKind, Invariant, ModelEvent, NodeId, Violation};
use std::collections::BTreeMap;

/// Events of the raft-rs adapter, beside the generic ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum LogEvent {
    /// Log entries `first..=last` were written (volatile until an fsync);
    /// a snapshot write is `first: 0`.
    LogWritten { first: u64, last: u64 },
    /// An fsync completed: the log is durable up to `last`.
    LogDurable { last: u64 },
    /// An append acknowledgement for the log up to `index`, made in
    /// `term`, went to `to`.
    AppendAcked { index: u64, to: NodeId, term: u64 },
}

/// `ack-after-durable`: a node acknowledges the log up to index i only once
/// its disk durably holds the log up to i.
///
/// An acknowledgement made in an older term than the node's own is not
/// judged: it speaks of a log that a newer leader has since been allowed to
/// rewrite (the rewrite makes the watermark drop below entries that were
/// durable when the acknowledgement was made), and any leader of the newer
/// term ignores it.
#[derive(Default)]
pub struct AckAfterDurable {
    /// node -> (durable up to, the event that said so)
    durable: BTreeMap<NodeId, (u64, u64)>,
    /// node -> its current term, from the generic role events
    term: BTreeMap<NodeId, u64>,
}

impl AckAfterDurable {
    pub const ID: &'static str = "ack-after-durable";
    pub const HOLDS_WHEN: &'static str =
        "a node acknowledges log entries to the leader only once its disk durably holds them";
}

impl Invariant for AckAfterDurable {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        if let (EventKind::Model(ModelEvent::Role { term, .. }), Some(node)) = (&e.kind, e.node) {
            self.term.insert(node, *term);
        }
        let (Some(ev), Some(node)) = (e.custom::<LogEvent>(), e.node) else {
            return Ok(());
        };
        let current = self.term.get(&node).copied().unwrap_or(0);
        let durable = self.durable.entry(node).or_insert((0, e.i));
        match ev {
            LogEvent::LogWritten { first, .. } => {
                if first.saturating_sub(1) < durable.0 {
                    *durable = (first.saturating_sub(1), e.i);
                }
            }
            LogEvent::LogDurable { last } => *durable = (last, e.i),
            LogEvent::AppendAcked { index, to, term } if index > durable.0 && term >= current => {
                return Err(Violation::new(
                    Self::ID,
                    format!(
                        "node {node} acknowledged the log up to index {index} to node {to} while its disk held it durably only up to {}",
                        durable.0
                    ),
                    vec![durable.1, e.i],
                ));
            }
            LogEvent::AppendAcked { .. } => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::Role;

    fn ev(i: u64, node: NodeId, e: LogEvent) -> Event {
        Event {
            i,
            t_ns: i,
            node: Some(node),
            kind: EventKind::Model(ModelEvent::custom(&e)),
        }
    }

    #[test]
    fn an_ack_of_what_is_durable_passes_and_one_beyond_it_fails() {
        let mut c = AckAfterDurable::default();
        c.observe(&ev(0, 1, LogEvent::LogWritten { first: 1, last: 5 }))
            .unwrap();
        c.observe(&ev(1, 1, LogEvent::LogDurable { last: 5 })).unwrap();
        c.observe(&ev(
            2,
            1,
            LogEvent::AppendAcked {
                index: 5,
                to: 0,
                term: 0,
            },
        ))
        .unwrap();
        c.observe(&ev(3, 1, LogEvent::LogWritten { first: 6, last: 7 }))
            .unwrap();
        let v = c
            .observe(&ev(
                4,
                1,
                LogEvent::AppendAcked {
                    index: 7,
                    to: 0,
                    term: 0,
                },
            ))
            .unwrap_err();
        assert_eq!(v.evidence, vec![1, 4]);
    }

    #[test]
    fn a_rewrite_below_the_durable_point_makes_the_rest_volatile_again() {
        let mut c = AckAfterDurable::default();
        c.observe(&ev(0, 2, LogEvent::LogDurable { last: 10 })).unwrap();
        c.observe(&ev(1, 2, LogEvent::LogWritten { first: 8, last: 9 }))
            .unwrap();
        assert!(c
            .observe(&ev(
                2,
                2,
                LogEvent::AppendAcked {
                    index: 9,
                    to: 0,
                    term: 0
                }
            ))
            .is_err());
        // Other nodes are judged on their own disks.
        assert!(c
            .observe(&ev(
                3,
                3,
                LogEvent::AppendAcked {
                    index: 1,
                    to: 0,
                    term: 0
                }
            ))
            .is_err());
    }

    #[test]
    fn an_ack_of_an_older_terms_log_is_left_to_the_leader() {
        let mut c = AckAfterDurable::default();
        let role = |i, term| Event {
            i,
            t_ns: i,
            node: Some(1),
            kind: EventKind::Model(ModelEvent::Role {
                term,
                role: Role::Follower,
                cause: "higher-term".into(),
                from: Some(0),
                ballot: None,
            }),
        };
        c.observe(&role(0, 10)).unwrap();
        c.observe(&ev(1, 1, LogEvent::LogDurable { last: 132 })).unwrap();
        c.observe(&role(2, 11)).unwrap();
        c.observe(&ev(3, 1, LogEvent::LogWritten { first: 132, last: 132 }))
            .unwrap();
        // Made in term 10, when 132 was durable; the rewrite came later.
        c.observe(&ev(
            4,
            1,
            LogEvent::AppendAcked {
                index: 132,
                to: 0,
                term: 10,
            },
        ))
        .unwrap();
        assert!(c
            .observe(&ev(
                5,
                1,
                LogEvent::AppendAcked {
                    index: 132,
                    to: 0,
                    term: 11
                }
            ))
            .is_err());
    }
}
