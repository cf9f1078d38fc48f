//! The adapter's own event and invariant: what a node reports committed
//! against what the nodes' disks durably hold. Raft commits an entry once
//! a majority holds it durably; the generic invariants see only what
//! breaking that leads to (a committed entry lost when its holders crash
//! before the others catch up), this one sees the commit itself.

use serde::{Deserialize, Serialize};
use sim::{Event, EventKind, Invariant, ModelEvent, NodeId, Violation};
use std::collections::BTreeMap;

/// Events of the openraft adapter, beside the generic ones. Indices are
/// positions as in the generic events (openraft's index plus one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum DiskEvent {
    /// The node's disk durably holds every entry up to `last` (as entries
    /// or inside a snapshot). At boot it says what the disk held.
    LogDurable { last: u64, boot: bool },
}

/// `commit-on-quorum`: a node reports index i committed only while a
/// majority of the cluster's disks durably hold the log up to i.
///
/// Sound, not complete: a node's watermark never drops but at its boot
/// (a truncation of entries it had made durable is not followed), so it
/// may count a node that no longer holds an entry; it never fails a
/// commit a majority really held.
pub struct CommitOnQuorum {
    nodes: usize,
    /// node -> (durable up to, the event that said so)
    durable: BTreeMap<NodeId, (u64, u64)>,
}

impl CommitOnQuorum {
    pub const ID: &'static str = "commit-on-quorum";
    pub const HOLDS_WHEN: &'static str =
        "a node reports an index committed only while a majority of the disks durably hold the log up to it";

    pub fn new(nodes: usize) -> Self {
        CommitOnQuorum {
            nodes,
            durable: BTreeMap::new(),
        }
    }
}

impl Invariant for CommitOnQuorum {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(node) = e.node else { return Ok(()) };
        if let Some(DiskEvent::LogDurable { last, boot }) = e.custom::<DiskEvent>() {
            let d = self.durable.entry(node).or_insert((0, e.i));
            if boot || last > d.0 {
                *d = (last, e.i);
            }
            return Ok(());
        }
        let EventKind::Model(ModelEvent::Commit { index }) = e.kind else {
            return Ok(());
        };
        let holders: Vec<(NodeId, u64)> = self
            .durable
            .iter()
            .filter(|(_, (last, _))| *last >= index)
            .map(|(n, (_, i))| (*n, *i))
            .collect();
        if holders.len() > self.nodes / 2 {
            return Ok(());
        }
        let who: Vec<String> = holders.iter().map(|(n, _)| n.to_string()).collect();
        let mut evidence: Vec<u64> = holders.iter().map(|(_, i)| *i).collect();
        evidence.push(e.i);
        evidence.sort_unstable();
        Err(Violation::new(
            Self::ID,
            format!(
                "node {node} reported index {index} committed while only {} of {} nodes durably held it (nodes: {})",
                holders.len(),
                self.nodes,
                if who.is_empty() {
                    "none".to_string()
                } else {
                    who.join(", ")
                }
            ),
            evidence,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(i: u64, node: NodeId, kind: EventKind) -> Event {
        Event {
            i,
            t_ns: i,
            node: Some(node),
            kind,
        }
    }

    fn durable(i: u64, node: NodeId, last: u64, boot: bool) -> Event {
        at(
            i,
            node,
            EventKind::Model(ModelEvent::custom(&DiskEvent::LogDurable { last, boot })),
        )
    }

    fn commit(i: u64, node: NodeId, index: u64) -> Event {
        at(i, node, EventKind::Model(ModelEvent::Commit { index }))
    }

    #[test]
    fn a_commit_a_majority_holds_passes_and_one_a_minority_holds_fails() {
        let mut c = CommitOnQuorum::new(5);
        for n in 0..3 {
            c.observe(&durable(n as u64, n, 4, false)).unwrap();
        }
        c.observe(&commit(3, 0, 4)).unwrap();
        c.observe(&durable(4, 0, 6, false)).unwrap();
        c.observe(&durable(5, 1, 6, false)).unwrap();
        let v = c.observe(&commit(6, 0, 6)).unwrap_err();
        assert_eq!(v.invariant, CommitOnQuorum::ID);
        assert!(v.message.contains("only 2 of 5"), "{}", v.message);
        assert_eq!(v.evidence, vec![4, 5, 6]);
    }

    #[test]
    fn a_boot_resets_what_the_disk_holds_and_nothing_else_lowers_it() {
        let mut c = CommitOnQuorum::new(3);
        c.observe(&durable(0, 0, 5, false)).unwrap();
        c.observe(&durable(1, 1, 5, false)).unwrap();
        c.observe(&durable(2, 1, 3, false)).unwrap();
        c.observe(&commit(3, 0, 5)).unwrap();
        c.observe(&durable(4, 1, 2, true)).unwrap();
        assert!(c.observe(&commit(5, 0, 5)).is_err());
    }
}
