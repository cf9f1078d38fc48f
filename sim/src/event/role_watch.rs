//! A library's role and term, as its own metrics or status report them,
//! turned into the `role` events dst's checkers read: one event each time
//! the pair changes, with the cause the change implies.

use super::{ModelEvent, Role};

/// Watches a node's (role, term) as a library reports it; see [`RoleWatch::see`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RoleWatch {
    last: Option<(Role, u64)>,
}

/// A change [`RoleWatch::see`] saw: the event to report, and whether the
/// node just became leader or just stopped being one.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleChange {
    /// The `role` event, its cause read from the change: `boot` at the first
    /// report, `won` into leadership, `timeout` into a candidacy,
    /// `higher-term` from leader to follower in a newer term, else `metrics`.
    pub event: ModelEvent,
    /// The node became leader.
    pub elected: bool,
    /// The node was leader and is not any more.
    pub deposed: bool,
}

impl RoleWatch {
    /// The node's role and term as the library reports them now; a change
    /// since the last report, if there is one.
    pub fn see(&mut self, role: Role, term: u64) -> Option<RoleChange> {
        let last = self.last;
        if last == Some((role, term)) {
            return None;
        }
        self.last = Some((role, term));
        let cause = match (last, role) {
            (None, _) => "boot",
            (_, Role::Leader) => "won",
            (_, Role::Candidate) => "timeout",
            (Some((Role::Leader, t)), Role::Follower) if term > t => "higher-term",
            _ => "metrics",
        };
        let was_leader = matches!(last, Some((Role::Leader, _)));
        Some(RoleChange {
            event: ModelEvent::Role {
                term,
                role,
                cause: cause.into(),
                from: None,
                ballot: None,
            },
            elected: role == Role::Leader,
            deposed: was_leader && role != Role::Leader,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(c: &RoleChange) -> String {
        match &c.event {
            ModelEvent::Role { cause, .. } => serde_json::to_value(cause).unwrap().as_str().unwrap().to_string(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn each_change_is_one_event_with_its_cause() {
        let mut w = RoleWatch::default();
        let boot = w.see(Role::Follower, 0).unwrap();
        assert_eq!(cause(&boot), "boot");
        assert!(w.see(Role::Follower, 0).is_none(), "no change, no event");
        assert_eq!(cause(&w.see(Role::Candidate, 1).unwrap()), "timeout");
        let won = w.see(Role::Leader, 1).unwrap();
        assert!(won.elected && !won.deposed);
        assert_eq!(cause(&won), "won");
        let down = w.see(Role::Follower, 2).unwrap();
        assert!(down.deposed && !down.elected);
        assert_eq!(cause(&down), "higher-term");
        assert_eq!(cause(&w.see(Role::Follower, 3).unwrap()), "metrics");
    }
}
