use super::{Invariant, Violation};
use crate::event::{Ballot, Event, EventKind, MemberState, ModelEvent, Role, RoleCause};
use crate::nemesis::{Action, Target};
use crate::net::Network;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What the `liveness` invariant allows after the heal (a scenario's `liveness`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LivenessParams {
    /// The closing part of the liveness phase in which every client must be
    /// answered, and answered with success: the system has converged by then.
    pub tail_ms: u64,
    /// How many healthy leaders may be deposed by a rejoining node's higher
    /// term after the heal (pre-vote keeps this at zero).
    pub disruptions_max: u64,
}

impl Default for LivenessParams {
    fn default() -> Self {
        LivenessParams {
            tail_ms: 3_000,
            disruptions_max: 0,
        }
    }
}

/// After the heal point, the healed quorum converges: it has a leader, every
/// client op in the closing tail succeeds, and no healthy leader is deposed.
/// Where the model reports membership views ([`ModelEvent::Member`]), every
/// healed, running node also counts every other one as alive by the end.
///
/// A disruption: a healthy leader deposed (cause
/// [`RoleCause::HigherTerm`]) by an epoch, a term or a ballot, that some
/// candidate began after that leader was elected. A leader is healthy when, from its
/// election to its fall, it kept clean two-way links to a quorum of running
/// nodes; the checker follows the faults in the trace to know that, the
/// same way the network applied them. A term begun before the election (a
/// race between two candidates) deposes no one unfairly.
pub struct Liveness {
    p: LivenessParams,
    nodes: usize,
    heal: Option<(u64, u64)>,
    impaired: BTreeSet<usize>,
    up: BTreeMap<usize, bool>,
    role: BTreeMap<usize, (Role, u64)>,
    links: Network,
    paused_until: BTreeMap<usize, u64>,
    /// node -> when it became leader
    elected_at: BTreeMap<usize, u64>,
    /// node -> the last time it lacked a healthy quorum
    lost_quorum_at: BTreeMap<usize, u64>,
    /// epoch -> when the first candidate of that epoch appeared, or the
    /// first pre-vote round probing it began
    term_began: BTreeMap<Ballot, u64>,
    disruptions: Vec<u64>,
    /// Completions after the heal: (time, client, ok?, event index).
    done: Vec<(u64, u32, bool, u64)>,
    clients: BTreeSet<u32>,
    /// (observer, peer) -> the observer's view of the peer when not alive,
    /// and the event that reported it. A fresh node sees every peer alive.
    not_alive: BTreeMap<(usize, usize), (MemberState, u64)>,
}

impl Liveness {
    /// A checker for a cluster of `nodes` nodes, judged by `p`.
    pub fn new(p: LivenessParams, nodes: usize) -> Self {
        Liveness {
            p,
            nodes,
            heal: None,
            impaired: BTreeSet::new(),
            up: BTreeMap::new(),
            role: BTreeMap::new(),
            links: Network::default(),
            paused_until: BTreeMap::new(),
            elected_at: BTreeMap::new(),
            lost_quorum_at: BTreeMap::new(),
            term_began: BTreeMap::new(),
            disruptions: Vec::new(),
            done: Vec::new(),
            clients: BTreeSet::new(),
            not_alive: BTreeMap::new(),
        }
    }
}

impl Liveness {
    fn running(&self, n: usize, now: u64) -> bool {
        self.up.get(&n).copied().unwrap_or(true) && self.paused_until.get(&n).is_none_or(|t| *t <= now)
    }

    fn has_quorum(&self, n: usize, now: u64) -> bool {
        if !self.running(n, now) {
            return false;
        }
        let reach = (0..self.nodes)
            .filter(|&m| m == n || (self.running(m, now) && self.links.is_clean(n, m) && self.links.is_clean(m, n)))
            .count();
        reach > self.nodes / 2
    }

    fn apply_fault(&mut self, action: &Action, now: u64) {
        match action {
            Action::Partition { groups } => self.links.partition(groups),
            Action::PartitionOneWay { from, to } => {
                for &f in from {
                    for &t in to {
                        self.links.cut(f, t);
                    }
                }
            }
            Action::Isolate {
                target: Target::Node(n),
                inbound_only,
            } => self.links.isolate(*n, self.nodes, *inbound_only),
            Action::Isolate {
                target: Target::Leader, ..
            } => {}
            Action::Link {
                from,
                to,
                drop_per_million,
                delay_ms_extra,
            } => self.links.degrade(*from, *to, *drop_per_million, *delay_ms_extra),
            Action::Heal => self.links.heal(),
            Action::Crash { node } => {
                self.up.insert(*node, false);
                self.role.remove(node);
            }
            Action::Pause { node, ms } => {
                self.paused_until.insert(*node, now + ms * 1_000_000);
            }
            _ => {}
        }
        self.note_quorum(now);
    }

    fn note_quorum(&mut self, now: u64) {
        for n in 0..self.nodes {
            if !self.has_quorum(n, now) {
                self.lost_quorum_at.insert(n, now);
            }
        }
    }
}

impl Invariant for Liveness {
    fn id(&self) -> &'static str {
        "liveness"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        match (&e.kind, e.node) {
            (EventKind::Heal { impaired }, _) => {
                self.heal = Some((e.t_ns, e.i));
                self.impaired = impaired.iter().copied().collect();
                self.links.heal();
                self.paused_until.clear();
                for &n in impaired {
                    self.links.isolate(n, self.nodes, false);
                }
                self.note_quorum(e.t_ns);
            }
            (EventKind::Fault { action }, _) => self.apply_fault(action, e.t_ns),
            (EventKind::Boot { .. }, Some(n)) => {
                self.up.insert(n, true);
                self.not_alive.retain(|(o, _), _| *o != n);
            }
            (EventKind::Model(ModelEvent::Member { peer, state, .. }), Some(n)) => {
                if *state == MemberState::Alive {
                    self.not_alive.remove(&(n, *peer));
                } else {
                    self.not_alive.insert((n, *peer), (*state, e.i));
                }
            }
            (
                EventKind::Model(ModelEvent::Role {
                    term,
                    role,
                    cause,
                    ballot,
                    ..
                }),
                Some(n),
            ) => {
                let was = self.role.insert(n, (*role, *term));
                let epoch = Ballot::of(*term, ballot);
                if matches!(role, Role::Candidate | Role::Leader) {
                    self.term_began.entry(epoch.clone()).or_insert(e.t_ns);
                }
                // A pre-candidate of term t probes t + 1 (one with a ballot
                // names the ballot it probes): a pre-vote round in flight
                // when a leader is elected races the election, like a
                // candidacy begun before it.
                if *role == Role::PreCandidate {
                    let probed = match ballot {
                        Some(b) => b.clone(),
                        None => Ballot(vec![term.saturating_add(1)]),
                    };
                    self.term_began.entry(probed).or_insert(e.t_ns);
                }
                if *role == Role::Leader {
                    self.elected_at.insert(n, e.t_ns);
                    // Elected by votes cast before a fault cut it off: not healthy either.
                    if !self.has_quorum(n, e.t_ns) {
                        self.lost_quorum_at.insert(n, e.t_ns);
                    }
                }
                let was_leader = matches!(was, Some((Role::Leader, _)));
                let elected = self.elected_at.get(&n).copied();
                let healthy = elected.is_some_and(|el| self.lost_quorum_at.get(&n).is_none_or(|l| *l < el));
                let term_is_newer = matches!((elected, self.term_began.get(&epoch)), (Some(el), Some(b)) if *b > el);
                if self.heal.is_some()
                    && was_leader
                    && healthy
                    && term_is_newer
                    && *cause == RoleCause::HigherTerm
                    && !self.impaired.contains(&n)
                {
                    self.disruptions.push(e.i);
                }
            }
            (EventKind::Invoke { client, .. }, _) => {
                self.clients.insert(*client);
            }
            (EventKind::Ok { client, .. }, _) if self.heal.is_some() => {
                self.done.push((e.t_ns, *client, true, e.i));
            }
            (EventKind::Fail { client, .. } | EventKind::Info { client, .. }, _) if self.heal.is_some() => {
                self.done.push((e.t_ns, *client, false, e.i));
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_ns: u64) -> Result<(), Violation> {
        let Some((_, heal_i)) = self.heal else { return Ok(()) };
        if self.disruptions.len() as u64 > self.p.disruptions_max {
            return Err(Violation::new(
                self.id(),
                format!(
                    "{} healthy leader(s) deposed by a higher term after the heal (at most {} allowed)",
                    self.disruptions.len(),
                    self.p.disruptions_max
                ),
                self.disruptions.clone(),
            ));
        }
        let leader = self.role.iter().find(|(n, (r, _))| {
            *r == Role::Leader && !self.impaired.contains(n) && self.up.get(n).copied().unwrap_or(true)
        });
        if leader.is_none() {
            return Err(Violation::new(
                self.id(),
                "no leader among the healed quorum at the end of the liveness phase",
                vec![heal_i],
            ));
        }
        let tail_start = end_ns.saturating_sub(self.p.tail_ms * 1_000_000);
        if let Some(&(t, c, _, i)) = self.done.iter().find(|(t, _, ok, _)| *t >= tail_start && !ok) {
            return Err(Violation::new(
                self.id(),
                format!(
                    "client {c}'s op was not answered with success at {} ms, within the last {} ms of the liveness phase",
                    t / 1_000_000,
                    self.p.tail_ms
                ),
                vec![heal_i, i],
            ));
        }
        for c in &self.clients {
            if !self
                .done
                .iter()
                .any(|(t, cl, ok, _)| *t >= tail_start && cl == c && *ok)
            {
                return Err(Violation::new(
                    self.id(),
                    format!(
                        "client {c} completed no op in the last {} ms of the liveness phase",
                        self.p.tail_ms
                    ),
                    vec![heal_i],
                ));
            }
        }
        let healed = |n: &usize| !self.impaired.contains(n) && self.up.get(n).copied().unwrap_or(true);
        if let Some(((o, p), (state, i))) = self.not_alive.iter().find(|((o, p), _)| healed(o) && healed(p)) {
            return Err(Violation::new(
                self.id(),
                format!(
                    "node {o} still holds node {p} {} at the end of the liveness phase, though both are healed and running",
                    format!("{state:?}").to_lowercase()
                ),
                vec![heal_i, *i],
            ));
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("disruptions", self.disruptions.len() as u64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::KvResult;

    fn at(i: u64, ms: u64, node: Option<usize>, kind: EventKind) -> Event {
        Event {
            i,
            t_ns: ms * 1_000_000,
            node,
            kind,
        }
    }

    fn role(i: u64, ms: u64, node: usize, role: Role, term: u64, cause: &str) -> Event {
        at(
            i,
            ms,
            Some(node),
            EventKind::Model(ModelEvent::Role {
                term,
                role,
                cause: cause.into(),
                from: None,
                ballot: None,
            }),
        )
    }

    fn ok(i: u64, ms: u64, client: u32) -> Event {
        at(
            i,
            ms,
            None,
            EventKind::Ok {
                client,
                op_id: i,
                result: KvResult::Done,
                to: None,
            },
        )
    }

    fn healed() -> Liveness {
        let mut c = Liveness::new(
            LivenessParams {
                tail_ms: 1_000,
                disruptions_max: 0,
            },
            3,
        );
        c.observe(&role(0, 0, 0, Role::Leader, 1, "won")).unwrap();
        c.observe(&at(1, 5_000, None, EventKind::Heal { impaired: vec![] }))
            .unwrap();
        c
    }

    #[test]
    fn converged_cluster_passes() {
        let mut c = healed();
        c.observe(&at(
            2,
            5_001,
            None,
            EventKind::Invoke {
                client: 0,
                op_id: 2,
                op: crate::workload::KvOp::Get { key: 0 },
                to: None,
            },
        ))
        .unwrap();
        c.observe(&ok(3, 9_500, 0)).unwrap();
        c.finish(10_000_000_000).unwrap();
    }

    #[test]
    fn unanswered_op_in_the_tail_fails() {
        let mut c = healed();
        c.observe(&at(
            2,
            9_500,
            None,
            EventKind::Info {
                client: 0,
                op_id: 1,
                why: "timeout".into(),
                to: None,
            },
        ))
        .unwrap();
        assert!(c.finish(10_000_000_000).unwrap_err().message.contains("not answered"));
    }

    #[test]
    fn no_leader_fails() {
        let mut c = healed();
        c.observe(&role(2, 6_000, 0, Role::Follower, 2, "check-quorum"))
            .unwrap();
        assert!(c.finish(10_000_000_000).unwrap_err().message.contains("no leader"));
    }

    #[test]
    fn deposing_a_leader_that_was_cut_off_is_no_disruption() {
        let mut c = Liveness::new(
            LivenessParams {
                tail_ms: 1_000,
                disruptions_max: 0,
            },
            3,
        );
        c.observe(&role(0, 0, 0, Role::Leader, 1, "won")).unwrap();
        let cut = Action::Isolate {
            target: Target::Node(0),
            inbound_only: false,
        };
        c.observe(&at(1, 4_000, None, EventKind::Fault { action: cut }))
            .unwrap();
        c.observe(&at(2, 5_000, None, EventKind::Heal { impaired: vec![] }))
            .unwrap();
        c.observe(&role(3, 5_010, 0, Role::Follower, 2, "higher-term")).unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 0)]);
    }

    #[test]
    fn a_leader_elected_after_losing_its_quorum_is_not_healthy() {
        let mut c = Liveness::new(
            LivenessParams {
                tail_ms: 1_000,
                disruptions_max: 0,
            },
            3,
        );
        let crash = Action::Crash { node: 1 };
        c.observe(&at(0, 4_000, None, EventKind::Fault { action: crash }))
            .unwrap();
        let cut = Action::PartitionOneWay {
            from: vec![2],
            to: vec![0],
        };
        c.observe(&at(1, 4_001, None, EventKind::Fault { action: cut }))
            .unwrap();
        c.observe(&role(2, 4_002, 0, Role::Leader, 7, "won")).unwrap();
        c.observe(&at(3, 5_000, None, EventKind::Heal { impaired: vec![] }))
            .unwrap();
        c.observe(&role(4, 5_030, 2, Role::Candidate, 8, "pre-vote-won"))
            .unwrap();
        c.observe(&role(5, 5_035, 0, Role::Follower, 8, "higher-term")).unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 0)]);
    }

    #[test]
    fn losing_a_race_to_an_older_candidacy_is_no_disruption() {
        let mut c = healed();
        c.observe(&role(2, 5_100, 1, Role::Candidate, 2, "pre-vote-won"))
            .unwrap();
        c.observe(&role(3, 5_110, 0, Role::Leader, 1, "won")).unwrap();
        c.observe(&role(4, 5_120, 0, Role::Follower, 2, "higher-term")).unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 0)]);
    }

    fn member(i: u64, ms: u64, node: usize, peer: usize, state: MemberState) -> Event {
        at(
            i,
            ms,
            Some(node),
            EventKind::Model(ModelEvent::Member {
                peer,
                state,
                incarnation: 1,
            }),
        )
    }

    /// A healed cluster whose clients are all answered, so that only the
    /// membership clause can fail.
    fn membership_run(events: &[Event]) -> Result<(), Violation> {
        let mut c = healed();
        for e in events {
            c.observe(e).unwrap();
        }
        c.finish(10_000_000_000)
    }

    #[test]
    fn a_member_still_dead_in_a_healed_view_fails() {
        let v = membership_run(&[member(2, 4_000, 1, 2, MemberState::Dead)]).unwrap_err();
        assert!(v.message.contains("node 1 still holds node 2 dead"), "{}", v.message);
        assert_eq!(v.evidence, vec![1, 2]);
    }

    #[test]
    fn a_member_that_rejoined_passes() {
        membership_run(&[
            member(2, 4_000, 1, 2, MemberState::Suspect),
            member(3, 4_500, 1, 2, MemberState::Dead),
            member(4, 6_000, 1, 2, MemberState::Alive),
        ])
        .unwrap();
    }

    #[test]
    fn views_of_impaired_or_restarted_nodes_do_not_count() {
        let mut c = Liveness::new(
            LivenessParams {
                tail_ms: 1_000,
                disruptions_max: 0,
            },
            3,
        );
        c.observe(&role(0, 0, 0, Role::Leader, 1, "won")).unwrap();
        c.observe(&member(1, 100, 0, 2, MemberState::Dead)).unwrap();
        c.observe(&member(2, 100, 1, 0, MemberState::Dead)).unwrap();
        c.observe(&at(3, 5_000, None, EventKind::Heal { impaired: vec![2] }))
            .unwrap();
        // Node 1 restarts: its fresh view holds everyone alive.
        c.observe(&at(4, 5_001, Some(1), EventKind::Boot { restart: true }))
            .unwrap();
        c.finish(10_000_000_000).unwrap();
    }

    #[test]
    fn losing_a_race_to_an_older_pre_vote_round_is_no_disruption() {
        let mut c = healed();
        // Node 1 probes term 2 before node 0 wins term 1 again, and its
        // round completes just after.
        c.observe(&role(2, 5_100, 1, Role::PreCandidate, 1, "timeout")).unwrap();
        c.observe(&role(3, 5_110, 0, Role::Leader, 1, "won")).unwrap();
        c.observe(&role(4, 5_115, 1, Role::Candidate, 2, "pre-vote-won"))
            .unwrap();
        c.observe(&role(5, 5_120, 0, Role::Follower, 2, "higher-term")).unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 0)]);
    }

    #[test]
    fn deposing_a_healthy_leader_after_heal_is_a_disruption() {
        let mut c = healed();
        c.observe(&role(2, 5_900, 3, Role::Candidate, 7, "timeout")).unwrap();
        c.observe(&role(3, 6_000, 0, Role::Follower, 7, "higher-term")).unwrap();
        c.observe(&role(3, 6_300, 1, Role::Leader, 8, "won")).unwrap();
        let v = c.finish(10_000_000_000).unwrap_err();
        assert!(v.message.contains("deposed"), "{}", v.message);
        assert_eq!(c.counters(), vec![("disruptions", 1)]);
    }
    /// A Paxos role event: ballot `(n, pid)`, round `n` as the term.
    fn ballot_role(i: u64, ms: u64, node: usize, role: Role, n: u64, pid: u64, cause: &str) -> Event {
        at(
            i,
            ms,
            Some(node),
            EventKind::Model(ModelEvent::Role {
                term: n,
                role,
                cause: cause.into(),
                from: None,
                ballot: Some(Ballot(vec![n, pid])),
            }),
        )
    }

    #[test]
    fn two_nodes_racing_in_one_round_is_no_disruption() {
        let mut c = healed();
        // Nodes 0 and 1 both prepare round 3; node 0's ballot wins first,
        // node 1's higher one (same round, higher pid) deposes it.
        c.observe(&ballot_role(2, 5_100, 0, Role::Candidate, 3, 1, "timeout"))
            .unwrap();
        c.observe(&ballot_role(3, 5_101, 1, Role::Candidate, 3, 2, "timeout"))
            .unwrap();
        c.observe(&ballot_role(4, 5_110, 0, Role::Leader, 3, 1, "won")).unwrap();
        c.observe(&ballot_role(5, 5_120, 0, Role::Follower, 3, 2, "higher-term"))
            .unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 0)]);
    }

    #[test]
    fn a_ballot_begun_after_the_election_that_deposes_is_a_disruption() {
        let mut c = healed();
        c.observe(&ballot_role(2, 5_100, 0, Role::Leader, 3, 1, "won")).unwrap();
        c.observe(&ballot_role(3, 5_900, 2, Role::Candidate, 4, 3, "timeout"))
            .unwrap();
        c.observe(&ballot_role(4, 6_000, 0, Role::Follower, 4, 3, "higher-term"))
            .unwrap();
        assert_eq!(c.counters(), vec![("disruptions", 1)]);
    }

    #[test]
    fn causes_read_back_typed_and_write_as_before() {
        assert_eq!(RoleCause::from("higher-term"), RoleCause::HigherTerm);
        assert_eq!(
            RoleCause::from("promised-elsewhere"),
            RoleCause::Other("promised-elsewhere".into())
        );
        assert_eq!(
            serde_json::to_string(&RoleCause::PreVoteWon).unwrap(),
            "\"pre-vote-won\""
        );
        assert_eq!(serde_json::to_string(&RoleCause::Other("x".into())).unwrap(), "\"x\"");
    }
}
