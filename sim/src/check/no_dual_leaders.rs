use super::{Invariant, Violation};
use crate::event::{Event, EventKind, ModelEvent, Role};
use std::collections::BTreeMap;

/// At most one node becomes leader in any term (Raft's Election Safety).
#[derive(Default)]
pub struct NoDualLeaders {
    /// term -> (leader, event index of its election)
    leaders: BTreeMap<u64, (usize, u64)>,
}

impl Invariant for NoDualLeaders {
    fn id(&self) -> &'static str {
        "no-dual-leaders"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let EventKind::Model(ModelEvent::Role { term, role: Role::Leader, .. }) = &e.kind else {
            return Ok(());
        };
        let Some(node) = e.node else { return Ok(()) };
        match self.leaders.get(term) {
            Some(&(first, at)) if first != node => Err(Violation::new(
                self.id(),
                format!("nodes {first} and {node} both became leader in term {term}"),
                vec![at, e.i],
            )),
            Some(_) => Ok(()),
            None => {
                self.leaders.insert(*term, (node, e.i));
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
        ev(i, node, ModelEvent::Role { term, role: Role::Leader, cause: "won".into(), from: None })
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
    fn one_leader_per_term_passes_even_if_reelected() {
        let mut c = NoDualLeaders::default();
        for (i, (n, t)) in [(0, 1), (1, 2), (1, 2), (2, 3)].into_iter().enumerate() {
            c.observe(&leader(i as u64, n, t)).unwrap();
        }
    }
}
