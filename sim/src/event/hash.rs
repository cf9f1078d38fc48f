//! How an event is hashed. The trace hash is what a replay compares and
//! what a report's file is checked against when it is read, so it must not
//! move for a report an earlier release wrote, nor for the same run
//! recorded by a release that says more about it. Fields added to events
//! since reports were first hashed (the node a client request went to, a
//! role's ballot) do not count: every event hashes exactly as the derived
//! hash of the event before they existed did. Neither can diverge alone:
//! where a request goes is drawn from the world's own streams, which the
//! rest of the trace already pins, and a ballot changes with the role
//! event's term, node or cause.

use super::{Event, EventKind, ModelEvent};
use std::hash::{Hash, Hasher};

impl Hash for Event {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.i.hash(state);
        self.t_ns.hash(state);
        self.node.hash(state);
        hash_kind(&self.kind, state);
    }
}

fn hash_kind<H: Hasher>(kind: &EventKind, state: &mut H) {
    // A derived hash begins with the variant's discriminant, as this does.
    match kind {
        EventKind::Invoke { client, op_id, op, to } => {
            std::mem::discriminant(kind).hash(state);
            let _ = to;
            (client, op_id, op).hash(state);
        }
        EventKind::Ok {
            client,
            op_id,
            result,
            to,
        } => {
            std::mem::discriminant(kind).hash(state);
            let _ = to;
            (client, op_id, result).hash(state);
        }
        EventKind::Fail { client, op_id, why, to } | EventKind::Info { client, op_id, why, to } => {
            std::mem::discriminant(kind).hash(state);
            let _ = to;
            (client, op_id, why).hash(state);
        }
        EventKind::Model(
            model @ ModelEvent::Role {
                term,
                role,
                cause,
                from,
                ballot,
            },
        ) => {
            std::mem::discriminant(kind).hash(state);
            std::mem::discriminant(model).hash(state);
            let _ = ballot;
            (term, role, cause, from).hash(state);
        }
        other => other.hash(state),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Ballot, Role};
    use crate::hash::StableHasher;
    use crate::workload::KvOp;

    fn of<T: Hash>(x: &T) -> u64 {
        let mut h = StableHasher::default();
        x.hash(&mut h);
        h.finish()
    }

    /// The events as they were before the new fields, with derived hashes.
    #[derive(Hash)]
    #[allow(dead_code)]
    enum Before {
        Fault,
        Heal,
        Boot,
        Send,
        Deliver,
        Drop,
        Duplicate,
        DiskLoss,
        Invoke { client: u32, op_id: u64, op: KvOp },
        Ok,
        Fail,
        Info { client: u32, op_id: u64, why: String },
        Reached,
        Model(BeforeModel),
    }

    /// Two variants, as a derived hash skips the discriminant of an enum of one.
    #[derive(Hash)]
    #[allow(dead_code)]
    enum BeforeModel {
        Role {
            term: u64,
            role: Role,
            cause: String,
            from: Option<usize>,
        },
        HardState,
    }

    #[derive(Hash)]
    struct BeforeEvent {
        i: u64,
        t_ns: u64,
        node: Option<usize>,
        kind: Before,
    }

    fn event(kind: EventKind) -> Event {
        Event {
            i: 4,
            t_ns: 9,
            node: Some(1),
            kind,
        }
    }

    #[test]
    fn events_hash_as_before_their_new_fields() {
        let op = KvOp::Put { key: 1, value: 2 };
        let old = BeforeEvent {
            i: 4,
            t_ns: 9,
            node: Some(1),
            kind: Before::Invoke {
                client: 3,
                op_id: 5,
                op: op.clone(),
            },
        };
        let new = event(EventKind::Invoke {
            client: 3,
            op_id: 5,
            op,
            to: None,
        });
        assert_eq!(of(&old), of(&new));
        let old = BeforeEvent {
            i: 4,
            t_ns: 9,
            node: Some(1),
            kind: Before::Info {
                client: 3,
                op_id: 5,
                why: "timeout".into(),
            },
        };
        let info = |to| {
            event(EventKind::Info {
                client: 3,
                op_id: 5,
                why: "timeout".into(),
                to,
            })
        };
        assert_eq!(of(&old), of(&info(None)));
        assert_eq!(of(&info(None)), of(&info(Some(0))), "a present field does not count");
        let old = BeforeEvent {
            i: 4,
            t_ns: 9,
            node: Some(1),
            kind: Before::Model(BeforeModel::Role {
                term: 7,
                role: Role::Leader,
                cause: "won".into(),
                from: Some(2),
            }),
        };
        let role = |ballot| {
            event(EventKind::Model(ModelEvent::Role {
                term: 7,
                role: Role::Leader,
                cause: "won".into(),
                from: Some(2),
                ballot,
            }))
        };
        assert_eq!(of(&old), of(&role(None)));
        assert_eq!(of(&role(None)), of(&role(Some(Ballot(vec![7, 1])))));
    }
}
