//! Targeted faults at work: armed plan entries wait for a protocol moment,
//! seen in a node's outputs as the world carries them out one by one, and
//! fire there as a concrete fault. See [`crate::nemesis::Trigger`].
//!
//! Nothing here runs, and nothing is tracked, unless the plan holds a
//! targeted entry: every other run is exactly what it was without them.

use super::{Ev, World, MS};
use crate::event::{ModelEvent, Role};
use crate::machine::{Machine, NodeId, Output};
use crate::nemesis::{Action, BurstFault, PlanEntry, Target, Trigger};
use std::collections::BTreeMap;

/// What targeted entries need to know about the run so far.
#[derive(Default)]
pub(super) struct Watch {
    /// Whether the plan holds any targeted entry.
    pub(super) on: bool,
    /// Plan indices armed and not yet fired, in plan order.
    armed: Vec<usize>,
    /// The highest term each node has reported.
    term: Vec<u64>,
    /// The highest index each node has reported committing or applying.
    newest: Vec<u64>,
    /// Leases held: (node, lease) -> (expiry on the node's wall clock, the
    /// incarnation that took it, which a crash ends).
    leases: BTreeMap<(NodeId, u32), (u64, u64)>,
    /// The step being carried out.
    step: StepSoFar,
    /// Per trigger name: entries armed, and entries fired.
    armed_count: BTreeMap<&'static str, u64>,
    fired_count: BTreeMap<&'static str, u64>,
}

#[derive(Default)]
struct StepSoFar {
    /// Distinct peers the step sends to, in order.
    peers: Vec<NodeId>,
    reached: usize,
    wrote: bool,
    /// The node's term rose above every other node's in this step.
    ahead: bool,
}

impl Watch {
    pub(super) fn new(plan: &[PlanEntry], nodes: usize) -> Watch {
        Watch {
            on: plan.iter().any(|e| matches!(e.action, Action::Targeted { .. })),
            term: vec![0; nodes],
            newest: vec![0; nodes],
            ..Watch::default()
        }
    }

    /// `targeted-armed-ON` and `targeted-fired-ON` for each trigger the
    /// plan holds, so a trigger that never fires shows as such.
    pub(super) fn counters(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (on, &armed) in &self.armed_count {
            out.push((format!("targeted-armed-{on}"), armed));
            out.push((
                format!("targeted-fired-{on}"),
                self.fired_count.get(on).copied().unwrap_or(0),
            ));
        }
        out
    }
}

fn trigger_name(e: &PlanEntry) -> &'static str {
    match &e.action {
        Action::Targeted { trigger, .. } => trigger.name(),
        _ => "none",
    }
}

/// One output of a step, as far as triggers care.
pub(super) enum Cue {
    Sent(NodeId),
    Wrote,
    Term(u64),
    Index(u64),
    LeaseStart { lease: u32, expires_at_ns: u64 },
    LeaseStop { lease: u32 },
    Other,
}

impl Cue {
    pub(super) fn of<M: Machine>(o: &Output<M>) -> Cue {
        match o {
            Output::Send { to, .. } => Cue::Sent(*to),
            Output::Disk(_) => Cue::Wrote,
            Output::Event(e) => match e {
                ModelEvent::Role { term, .. } | ModelEvent::HardState { term, .. } => Cue::Term(*term),
                ModelEvent::Commit { index } | ModelEvent::Apply { index, .. } => Cue::Index(*index),
                ModelEvent::SmReset { applied, .. } => Cue::Index(*applied),
                ModelEvent::LeaseStart { lease, expires_at_ns } => Cue::LeaseStart {
                    lease: *lease,
                    expires_at_ns: *expires_at_ns,
                },
                ModelEvent::LeaseStop { lease, .. } => Cue::LeaseStop { lease: *lease },
                _ => Cue::Other,
            },
            _ => Cue::Other,
        }
    }
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// The entry's time has come: from now on its trigger may fire, until
    /// the safety phase ends.
    pub(super) fn arm(&mut self, i: usize) {
        if self.healed {
            return;
        }
        self.watch.armed.push(i);
        *self.watch.armed_count.entry(trigger_name(&self.plan[i])).or_insert(0) += 1;
        if let Some(before_ns) = self.lease_lead_ns(i) {
            let held: Vec<_> = self.watch.leases.iter().map(|(&(n, l), &(x, _))| (n, l, x)).collect();
            for (node, lease, expires_at_ns) in held {
                self.schedule_probe(node, lease, expires_at_ns, before_ns);
            }
        }
    }

    pub(super) fn disarm_all(&mut self) {
        self.watch.armed.clear();
    }

    pub(super) fn step_begins(&mut self, node: NodeId, out: &[Output<M>]) {
        let mut peers = Vec::new();
        for o in out {
            if let Output::Send { to, .. } = o {
                if *to != node && !peers.contains(to) {
                    peers.push(*to);
                }
            }
        }
        self.watch.step = StepSoFar {
            peers,
            reached: 0,
            wrote: out.iter().any(|o| matches!(o, Output::Disk(_))),
            ahead: false,
        };
    }

    /// Notes what `node` just did, then fires the first armed entry whose
    /// moment this is (at most one per output).
    pub(super) fn cue(&mut self, node: NodeId, cue: Cue) {
        let w = &mut self.watch;
        let mut new_peer = false;
        let mut raised_newest = false;
        match cue {
            Cue::Sent(to) => {
                let s = &mut w.step;
                if s.peers[..s.reached].contains(&to) || to == node {
                    // Already reached this step: the burst did not grow.
                } else {
                    if let Some(p) = s.peers.iter().position(|&p| p == to) {
                        s.peers.swap(p, s.reached);
                    }
                    s.reached += 1;
                    new_peer = true;
                }
            }
            Cue::Term(t) if t > w.term[node] => {
                w.term[node] = t;
                let others = w
                    .term
                    .iter()
                    .enumerate()
                    .filter(|(m, _)| *m != node)
                    .map(|(_, t)| *t)
                    .max();
                if others.is_none_or(|o| o < t) {
                    w.step.ahead = true;
                }
            }
            Cue::Index(i) if i > w.newest[node] => {
                w.newest[node] = i;
                raised_newest = true;
            }
            Cue::LeaseStart { lease, expires_at_ns } => {
                let inc = self.nodes[node].inc;
                self.watch.leases.insert((node, lease), (expires_at_ns, inc));
                let leads: Vec<u64> = (0..self.watch.armed.len())
                    .filter_map(|k| self.lease_lead_ns(self.watch.armed[k]))
                    .collect();
                for before_ns in leads {
                    self.schedule_probe(node, lease, expires_at_ns, before_ns);
                }
            }
            Cue::LeaseStop { lease } => {
                w.leases.remove(&(node, lease));
            }
            Cue::Wrote | Cue::Term(_) | Cue::Index(_) | Cue::Other => {}
        }
        let wrote = matches!(cue, Cue::Wrote);
        for k in 0..self.watch.armed.len() {
            let i = self.watch.armed[k];
            let Action::Targeted { trigger, .. } = &self.plan[i].action else {
                continue;
            };
            let fired = match *trigger {
                Trigger::LeaderBurst { sends, fresh, then } if new_peer => {
                    let s = &self.watch.step;
                    let mid_burst = s.reached == sends && s.reached < s.peers.len() && (s.wrote || !fresh);
                    mid_burst && self.leads(node) && self.burst_fault(i, node, then)
                }
                Trigger::Unsynced { node: aim } if wrote && aim.is_none_or(|a| a == node) && self.may_stop(node) => {
                    self.fire(i, vec![Action::Crash { node }], Some(Action::Restart { node }));
                    true
                }
                Trigger::NewestHolders { holders } if raised_newest => self.cut_newest(i, node, holders),
                _ => false,
            };
            if fired {
                return;
            }
        }
    }

    /// A step is done: a node that went ahead in term during it crashes now.
    pub(super) fn step_ends(&mut self, node: NodeId) {
        if !self.watch.step.ahead || !self.may_stop(node) {
            return;
        }
        let armed = self.watch.armed.clone();
        for i in armed {
            if matches!(
                self.plan[i].action,
                Action::Targeted {
                    trigger: Trigger::TermAhead,
                    ..
                }
            ) {
                self.fire(i, vec![Action::Crash { node }], Some(Action::Restart { node }));
                return;
            }
        }
    }

    /// The moment a probe was set for: the node's lease is still the one
    /// it was, and its clock says it expires within an armed entry's lead.
    pub(super) fn probe(&mut self, node: NodeId, lease: u32, expires_at_ns: u64) {
        let inc = self.nodes[node].inc;
        if self.watch.leases.get(&(node, lease)) != Some(&(expires_at_ns, inc)) || !self.may_stop(node) {
            return;
        }
        let wall = self.nodes[node].clock.wall_ns(self.now);
        if wall >= expires_at_ns {
            return;
        }
        let mut lead_max = None;
        for k in 0..self.watch.armed.len() {
            let i = self.watch.armed[k];
            let Some(before_ns) = self.lease_lead_ns(i) else {
                continue;
            };
            if expires_at_ns - wall <= before_ns {
                let Action::Targeted { ms, .. } = self.plan[i].action else {
                    continue;
                };
                self.fire(i, vec![Action::Pause { node, ms }], None);
                return;
            }
            lead_max = lead_max.max(Some(before_ns));
        }
        // The clock was set back or slowed since the probe was set: look
        // again when the soonest armed lead begins.
        if let Some(before_ns) = lead_max {
            self.schedule_probe(node, lease, expires_at_ns, before_ns);
        }
    }

    fn lease_lead_ns(&self, i: usize) -> Option<u64> {
        match self.plan[i].action {
            Action::Targeted {
                trigger: Trigger::LeaseExpiring { before_ms },
                ..
            } => Some(before_ms.saturating_mul(MS)),
            _ => None,
        }
    }

    fn schedule_probe(&mut self, node: NodeId, lease: u32, expires_at_ns: u64, before_ns: u64) {
        let clock = &self.nodes[node].clock;
        let lead = expires_at_ns
            .saturating_sub(before_ns)
            .saturating_sub(clock.wall_ns(self.now));
        let t = clock.true_after(self.now, lead);
        self.at(
            t,
            Ev::Probe {
                node,
                lease,
                expires_at_ns,
            },
        );
    }

    fn leads(&self, node: NodeId) -> bool {
        matches!(self.nodes[node].role, Some((Role::Leader, _))) && self.resolve(Target::Leader) == node
    }

    /// Whether a crash or pause may hit `node` now: it is up, not spared,
    /// and crashing it would leave a majority up, as drawn crashes do.
    fn may_stop(&self, node: NodeId) -> bool {
        let n = self.nodes.len();
        let down = self.nodes.iter().filter(|s| s.machine.is_none()).count();
        self.nodes[node].machine.is_some()
            && !self.scenario.faults.spared.contains(&node)
            && down < ((n - 1) / 2).max(1)
    }

    fn burst_fault(&mut self, i: usize, leader: NodeId, then: BurstFault) -> bool {
        match then {
            BurstFault::Crash if self.may_stop(leader) => {
                self.fire(
                    i,
                    vec![Action::Crash { node: leader }],
                    Some(Action::Restart { node: leader }),
                );
                true
            }
            BurstFault::Crash => false,
            BurstFault::Isolate => {
                let s = &self.watch.step;
                let reached: Vec<NodeId> = s.peers[..s.reached].to_vec();
                let others: Vec<NodeId> = (0..self.nodes.len()).filter(|&m| m != leader).collect();
                let unreached: Vec<NodeId> = others.iter().copied().filter(|m| !reached.contains(m)).collect();
                let now = vec![
                    Action::PartitionOneWay {
                        from: vec![leader],
                        to: unreached,
                    },
                    Action::PartitionOneWay {
                        from: others,
                        to: vec![leader],
                    },
                ];
                // What already left for the reached peers is on the wire:
                // the leader's links to them are cut once it has landed.
                let landed = self.in_flight_until(leader, &reached);
                let rest = Action::PartitionOneWay {
                    from: vec![leader],
                    to: reached,
                };
                self.fire(i, now, Some(Action::Heal));
                if landed < self.undo_at(i) {
                    self.at(landed, Ev::Later(rest));
                }
                true
            }
        }
    }

    /// When the last message now in flight from `from` to any of `to` arrives.
    fn in_flight_until(&self, from: NodeId, to: &[NodeId]) -> u64 {
        self.queue
            .iter()
            .filter_map(|(t, ev)| match ev {
                Ev::Deliver { from: f, to: d, .. } if *f == from && to.contains(d) => Some(t),
                _ => None,
            })
            .max()
            .unwrap_or(self.now)
    }

    fn cut_newest(&mut self, i: usize, node: NodeId, holders: usize) -> bool {
        let newest = &self.watch.newest;
        let top = newest[node];
        let held: Vec<NodeId> = (0..newest.len()).filter(|&m| newest[m] == top).collect();
        if top < newest.iter().copied().max().unwrap_or(0) || held.len() != holders || holders >= newest.len() {
            return false;
        }
        let rest: Vec<NodeId> = (0..newest.len()).filter(|&m| newest[m] != top).collect();
        self.fire(
            i,
            vec![Action::Partition {
                groups: vec![held, rest],
            }],
            Some(Action::Heal),
        );
        true
    }

    /// Disarms entry `i` and applies what it became; `undo` follows at
    /// [`Self::undo_at`].
    fn fire(&mut self, i: usize, actions: Vec<Action>, undo: Option<Action>) {
        self.watch.armed.retain(|&j| j != i);
        *self.watch.fired_count.entry(trigger_name(&self.plan[i])).or_insert(0) += 1;
        for a in actions {
            self.apply(a);
        }
        if let Some(undo) = undo {
            let t = self.undo_at(i);
            self.at(t, Ev::Later(undo));
        }
    }

    /// The entry's `ms` from now, but inside the safety phase: the heal at
    /// its end undoes everything anyway, and must not be undone itself.
    fn undo_at(&self, i: usize) -> u64 {
        let ms = match self.plan[i].action {
            Action::Targeted { ms, .. } => ms,
            _ => 0,
        };
        let end = (self.scenario.safety_ms * MS).saturating_sub(MS);
        (self.now + ms.saturating_mul(MS)).min(end).max(self.now)
    }
}
