//! What a run covered, as a set of abstract features read from the trace's
//! generic events alone, so that it means the same for every model:
//!
//! - **abstract states**: after every event that changes one, the multiset of
//!   per-node abstractions (down or its role, terms behind the highest,
//!   whether its commit index lags far behind the leader's, and for a model
//!   that reports its log's tail: whether the node holds the newest entry,
//!   and its log's length against the leader's), sorted so that runs
//!   differing only by which node is which count once;
//! - **transitions** between consecutive abstract states;
//! - **happens-before summaries**: each delivered message kind with the
//!   roles of sender and receiver and how their terms compare, and each pair
//!   of kinds delivered back to back at one node;
//! - what else a run can tell apart cheaply: drop causes per kind, client
//!   outcomes per op kind, a model's own event kinds by the role of the node
//!   that reported them, coverage goals.

use sim::fault::Action;
use sim::hash::StableHasher;
use sim::{Event, EventKind, ModelEvent, Role};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// The features of one run, each with the time (ns) it was first reached.
pub type Features = BTreeMap<u64, u64>;

/// Feature kinds, as the top byte of a feature.
pub const STATE: u8 = 7;
/// The kind of a transition between consecutive abstract states.
pub const TRANSITION: u8 = 8;

/// The kind of a feature.
pub fn kind(f: u64) -> u8 {
    (f >> 56) as u8
}

#[derive(Clone, Copy, Default)]
struct Node {
    up: bool,
    /// 0 unknown, 1 follower, 2 pre-candidate, 3 candidate, 4 leader.
    role: u8,
    term: u64,
    commit: u64,
    /// The log's last entry as (term, index), once the model reports it.
    tail: Option<(u64, u64)>,
}

fn role_code(r: Role) -> u8 {
    match r {
        Role::Follower => 1,
        Role::PreCandidate => 2,
        Role::Candidate => 3,
        Role::Leader => 4,
    }
}

fn h<T: Hash>(tag: u8, x: T) -> u64 {
    let mut s = StableHasher::default();
    tag.hash(&mut s);
    x.hash(&mut s);
    // The tag in the top byte, so that a feature says which kind it is.
    (s.finish() >> 8) | ((tag as u64) << 56)
}

/// The features of a trace.
pub fn features(trace: &[Event]) -> Features {
    let mut out = Features::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut state = 0u64;
    let mut last_kind: BTreeMap<usize, &str> = BTreeMap::new();
    let mut ops: BTreeMap<u64, &'static str> = BTreeMap::new();
    for e in trace {
        let node = e.node;
        if let Some(n) = node {
            if nodes.len() <= n {
                nodes.resize(n + 1, Node::default());
            }
        }
        let mut changed = false;
        match &e.kind {
            EventKind::Boot { .. } => {
                let n = &mut nodes[node.expect("a boot names its node")];
                n.up = true;
                n.role = 0;
                changed = true;
            }
            EventKind::Fault {
                action: Action::Crash { node: c },
            } => {
                if let Some(n) = nodes.get_mut(*c) {
                    n.up = false;
                    n.role = 0;
                    changed = true;
                }
            }
            EventKind::Model(m) => {
                let Some(n) = node else { continue };
                match m {
                    ModelEvent::Role { term, role, .. } => {
                        nodes[n].role = role_code(*role);
                        nodes[n].term = *term;
                        changed = true;
                    }
                    ModelEvent::HardState { term, .. } => {
                        nodes[n].term = nodes[n].term.max(*term);
                        changed = true;
                    }
                    ModelEvent::Commit { index } => {
                        nodes[n].commit = *index;
                        changed = true;
                    }
                    ModelEvent::LogTail { index, term } => {
                        nodes[n].tail = Some((*term, *index));
                        changed = true;
                    }
                    ModelEvent::Custom(c) => {
                        add(&mut out, e.t_ns, h(1, (c.name(), nodes[n].role)));
                    }
                    other => {
                        add(&mut out, e.t_ns, h(1, (generic_tag(other), nodes[n].role)));
                    }
                }
            }
            EventKind::Deliver { from, msg, .. } => {
                let to = node.expect("a delivery names its receiver");
                if nodes.len() <= *from {
                    nodes.resize(from + 1, Node::default());
                }
                let (a, b) = (nodes[*from], nodes[to]);
                add(&mut out, e.t_ns, h(2, (msg, a.role, b.role, a.term.cmp(&b.term))));
                if let Some(prev) = last_kind.insert(to, msg.as_ref()) {
                    add(&mut out, e.t_ns, h(3, (prev, msg)));
                }
            }
            EventKind::Drop { msg, cause, .. } => {
                add(&mut out, e.t_ns, h(4, (msg, cause)));
            }
            EventKind::Invoke { op_id, op, .. } => {
                ops.insert(*op_id, op_kind(op));
            }
            EventKind::Ok { op_id, .. } | EventKind::Fail { op_id, .. } | EventKind::Info { op_id, .. } => {
                let outcome: u8 = match e.kind {
                    EventKind::Ok { .. } => 0,
                    EventKind::Fail { .. } => 1,
                    _ => 2,
                };
                add(&mut out, e.t_ns, h(5, (ops.remove(op_id).unwrap_or("?"), outcome)));
            }
            EventKind::Reached { goal } => {
                add(&mut out, e.t_ns, h(6, goal));
            }
            _ => {}
        }
        if changed {
            let next = abstract_state(&nodes);
            if next != state {
                add(&mut out, e.t_ns, h(STATE, next));
                add(&mut out, e.t_ns, h(TRANSITION, (state, next)));
                state = next;
            }
        }
    }
    out
}

fn add(out: &mut Features, t_ns: u64, f: u64) {
    out.entry(f).or_insert(t_ns);
}

fn generic_tag(m: &ModelEvent) -> &'static str {
    match m {
        ModelEvent::Role { .. } => "role",
        ModelEvent::HardState { .. } => "hard-state",
        ModelEvent::Commit { .. } => "commit",
        ModelEvent::Apply { .. } => "apply",
        ModelEvent::SmReset { .. } => "sm-reset",
        ModelEvent::Compact { .. } => "compact",
        ModelEvent::LogTail { .. } => "log-tail",
        ModelEvent::FollowerRead { .. } => "follower-read",
        ModelEvent::Hlc { .. } => "hlc",
        ModelEvent::HlcRefused { .. } => "hlc-refused",
        ModelEvent::LeaseStart { .. } => "lease-start",
        ModelEvent::LeaseStop { .. } => "lease-stop",
        ModelEvent::Member { .. } => "member",
        ModelEvent::Custom(_) => "custom",
    }
}

fn op_kind(op: &sim::KvOp) -> &'static str {
    use sim::KvOp::*;
    match op {
        Put { .. } => "put",
        Append { .. } => "append",
        Get { .. } => "get",
        Cas { .. } => "cas",
        FollowerGet { .. } => "follower-get",
    }
}

/// The sorted per-node abstractions, hashed. Per node: down or its role;
/// how many terms it is behind the highest (0, 1, more); whether its commit
/// index is far behind the leader's (the highest, without a leader); and,
/// where the model reports log tails, how its last entry compares with the
/// newest any node holds (the same, the same term but fewer entries, an
/// older term) and its log's length against the leader's (shorter, equal,
/// longer). A crashed node keeps its last reported tail: what it held
/// durably still decides elections once it is back. Coarse on purpose: a
/// run should count as new for a situation, not for another interleaving
/// of the same one.
fn abstract_state(nodes: &[Node]) -> u64 {
    let max_term = nodes.iter().filter(|n| n.up).map(|n| n.term).max().unwrap_or(0);
    let leader = nodes.iter().filter(|n| n.up && n.role == 4).max_by_key(|n| n.term);
    let ref_commit = leader.map_or_else(|| nodes.iter().map(|n| n.commit).max().unwrap_or(0), |l| l.commit);
    let newest = nodes.iter().filter_map(|n| n.tail).max();
    let ref_len = leader.and_then(|l| l.tail).or(newest).map_or(0, |(_, index)| index);
    let mut abs: Vec<(u8, u8, bool, u8, u8)> = nodes
        .iter()
        .map(|n| {
            let role = if n.up { n.role } else { 5 };
            let behind = max_term.saturating_sub(n.term).min(2) as u8;
            let lags = ref_commit.saturating_sub(n.commit) >= FAR_BEHIND;
            let (holds, len) = match (n.tail, newest) {
                (Some(t), Some(new)) => {
                    let holds = if t == new {
                        0
                    } else if t.0 == new.0 {
                        1
                    } else {
                        2
                    };
                    let len = match t.1.cmp(&ref_len) {
                        std::cmp::Ordering::Less => 0,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => 2,
                    };
                    (holds, len)
                }
                _ => (3, 3),
            };
            (role, behind, lags, holds, len)
        })
        .collect();
    abs.sort_unstable();
    h(9, abs)
}

/// Commit indexes this far behind the highest count as lagging.
const FAR_BEHIND: u64 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: u64, node: Option<usize>, kind: EventKind) -> Event {
        Event { i, t_ns: i, node, kind }
    }

    fn role(i: u64, node: usize, term: u64, r: Role) -> Event {
        ev(
            i,
            Some(node),
            EventKind::Model(ModelEvent::Role {
                term,
                role: r,
                cause: "x".into(),
                from: None,
                ballot: None,
            }),
        )
    }

    #[test]
    fn the_same_story_on_other_nodes_covers_the_same_states() {
        let a = vec![
            ev(0, Some(0), EventKind::Boot { restart: false }),
            ev(1, Some(1), EventKind::Boot { restart: false }),
            role(2, 0, 1, Role::Leader),
        ];
        let b = vec![
            ev(0, Some(0), EventKind::Boot { restart: false }),
            ev(1, Some(1), EventKind::Boot { restart: false }),
            role(2, 1, 1, Role::Leader),
        ];
        assert_eq!(features(&a), features(&b));
    }

    #[test]
    fn a_new_situation_is_a_new_feature() {
        let base = vec![
            ev(0, Some(0), EventKind::Boot { restart: false }),
            ev(1, Some(1), EventKind::Boot { restart: false }),
            role(2, 0, 1, Role::Leader),
        ];
        let mut two_leaders = base.clone();
        two_leaders.push(role(3, 1, 1, Role::Leader));
        let f = features(&base);
        let g = features(&two_leaders);
        assert!(f.keys().all(|k| g.contains_key(k)));
        assert!(g.len() > f.len());
    }

    fn tail(i: u64, node: usize, index: u64, term: u64) -> Event {
        ev(i, Some(node), EventKind::Model(ModelEvent::LogTail { index, term }))
    }

    fn states(f: &Features) -> Vec<u64> {
        f.keys().copied().filter(|&k| kind(k) == STATE).collect()
    }

    /// The state reached last (each state with when it was first reached).
    fn last_state(f: &Features) -> Option<u64> {
        f.iter()
            .filter(|(&k, _)| kind(k) == STATE)
            .max_by_key(|(_, &t)| t)
            .map(|(&k, _)| k)
    }

    #[test]
    fn who_holds_the_newest_entry_tells_states_apart() {
        let boot: Vec<Event> = (0..3)
            .map(|n| ev(n as u64, Some(n), EventKind::Boot { restart: false }))
            .collect();
        let mut same = boot.clone();
        same.extend([
            role(3, 0, 2, Role::Leader),
            tail(4, 0, 5, 2),
            tail(5, 1, 5, 2),
            tail(6, 2, 5, 2),
        ]);
        // The same lengths, but node 2's last entry is of a term nobody else holds.
        let mut apart = boot.clone();
        apart.extend([
            role(3, 0, 2, Role::Leader),
            tail(4, 0, 5, 2),
            tail(5, 1, 5, 2),
            tail(6, 2, 5, 3),
        ]);
        let (a, b) = (features(&same), features(&apart));
        assert_ne!(last_state(&a), last_state(&b));
        let a = states(&a);
        // A model that reports no tails is read as before: tails add states, never hide them.
        let mut bare = boot;
        bare.push(role(3, 0, 2, Role::Leader));
        assert!(states(&features(&bare)).len() < a.len());
    }
}
