use super::{Invariant, Violation};
use crate::event::{Ballot, Event, EventKind, ModelEvent, Role};
use std::collections::BTreeMap;

/// At most one leader is elected in any term (Raft's Election Safety), or
/// in any ballot for a protocol that names its epochs by ballots (see
/// [`Ballot`]). A leader is a node incarnation: a node that restarts and
/// wins the same epoch again was elected twice, which a durable vote or
/// promise makes impossible.
#[derive(Default)]
pub(crate) struct NoDualLeaders {
    /// epoch -> (leader, its incarnation, event index of its election)
    leaders: BTreeMap<Ballot, (usize, u64, u64)>,
    /// node -> boots seen
    incarnation: BTreeMap<usize, u64>,
}

impl Invariant for NoDualLeaders {
    fn id(&self) -> &'static str {
        "no-dual-leaders"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let Some(node) = e.node else { return Ok(()) };
        if let EventKind::Boot { .. } = e.kind {
            *self.incarnation.entry(node).or_default() += 1;
            return Ok(());
        }
        let EventKind::Model(ModelEvent::Role {
            term,
            role: Role::Leader,
            ballot,
            ..
        }) = &e.kind
        else {
            return Ok(());
        };
        let epoch = Ballot::of(*term, ballot);
        let inc = self.incarnation.get(&node).copied().unwrap_or(0);
        match self.leaders.get(&epoch) {
            Some(&(first, _, at)) if first != node => Err(Violation::new(
                self.id(),
                format!("nodes {first} and {node} both became leader in {epoch}"),
                vec![at, e.i],
            )),
            Some(&(_, first_inc, at)) if first_inc != inc => Err(Violation::new(
                self.id(),
                format!("node {node} became leader in {epoch} again after a restart"),
                vec![at, e.i],
            )),
            Some(_) => Ok(()),
            None => {
                self.leaders.insert(epoch, (node, inc, e.i));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tests::ev;

    fn leader(i: u64, node: usize, term: u64) -> Event {
        ev(
            i,
            node,
            ModelEvent::Role {
                term,
                role: Role::Leader,
                cause: "won".into(),
                from: None,
                ballot: None,
            },
        )
    }

    /// A Paxos leader of ballot `(n, pid)`, whose round `n` is its term.
    fn paxos_leader(i: u64, node: usize, n: u64, pid: u64) -> Event {
        ev(
            i,
            node,
            ModelEvent::Role {
                term: n,
                role: Role::Leader,
                cause: "won".into(),
                from: None,
                ballot: Some(Ballot(vec![n, pid])),
            },
        )
    }

    #[test]
    fn ballots_of_one_round_are_distinct_epochs() {
        let mut c = NoDualLeaders::default();
        c.observe(&paxos_leader(0, 0, 3, 1)).unwrap();
        c.observe(&paxos_leader(1, 1, 3, 2)).unwrap();
        let v = c.observe(&paxos_leader(2, 2, 3, 2)).unwrap_err();
        assert_eq!(v.evidence, vec![1, 2]);
        assert!(v.message.contains("ballot (3, 2)"), "{}", v.message);
    }

    #[test]
    fn two_leaders_in_one_term_fail() {
        let mut c = NoDualLeaders::default();
        c.observe(&leader(0, 0, 1)).unwrap();
        c.observe(&leader(1, 1, 2)).unwrap();
        let v = c.observe(&leader(2, 2, 1)).unwrap_err();
        assert_eq!(v.evidence, vec![0, 2]);
    }

    #[test]
    fn a_restarted_node_leading_the_same_term_again_fails() {
        let mut c = NoDualLeaders::default();
        c.observe(&leader(0, 1, 3)).unwrap();
        c.observe(&Event {
            i: 1,
            t_ns: 0,
            node: Some(1),
            kind: EventKind::Boot { restart: true },
        })
        .unwrap();
        let v = c.observe(&leader(2, 1, 3)).unwrap_err();
        assert!(v.message.contains("again after a restart"));
    }

    #[test]
    fn one_leader_per_term_passes_even_if_reelected() {
        let mut c = NoDualLeaders::default();
        for (i, (n, t)) in [(0, 1), (1, 2), (1, 2), (2, 3)].into_iter().enumerate() {
            c.observe(&leader(i as u64, n, t)).unwrap();
        }
    }
}
