//! The nemesis at work: fault actions of the plan, the heal that starts the
//! liveness phase, and pauses, which hold a node's inputs until it resumes.

use super::{Ev, World, MS};
use crate::event::{EventKind, Role};
use crate::machine::{Machine, NodeId};
use crate::nemesis::{Action, DiskFault, Target};
use crate::rng::range;
use std::collections::VecDeque;

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    pub(super) fn resolve(&self, t: Target) -> NodeId {
        match t {
            Target::Node(n) => n,
            Target::Leader => self
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(i, s)| match &s.role {
                    Some((Role::Leader, epoch)) if s.machine.is_some() => Some((epoch, i)),
                    _ => None,
                })
                .max()
                .map_or(0, |(_, i)| i),
        }
    }

    pub(super) fn apply(&mut self, action: Action) {
        let n = self.nodes.len();
        let action = match action {
            Action::Isolate { target, inbound_only } => Action::Isolate {
                target: Target::Node(self.resolve(target)),
                inbound_only,
            },
            Action::PauseLeader { ms } => Action::Pause {
                node: self.resolve(Target::Leader),
                ms,
            },
            Action::ClockDriftLeader { ppm } => Action::ClockDrift {
                node: self.resolve(Target::Leader),
                ppm,
            },
            Action::CutLeaderLink { peer, outbound } => {
                let leader = self.resolve(Target::Leader);
                let peers: Vec<NodeId> = (0..n).filter(|&p| p != leader).collect();
                // A one-node cluster has no link to cut: an empty cut.
                let other: Vec<NodeId> = peers.get(peer % peers.len().max(1)).copied().into_iter().collect();
                if outbound {
                    Action::PartitionOneWay {
                        from: vec![leader],
                        to: other,
                    }
                } else {
                    Action::PartitionOneWay {
                        from: other,
                        to: vec![leader],
                    }
                }
            }
            a => a,
        };
        self.record(None, EventKind::Fault { action: action.clone() });
        match action {
            Action::Partition { groups } => {
                self.net.partition(&groups);
                self.break_cut_streams();
            }
            Action::PartitionOneWay { from, to } => {
                for &f in &from {
                    for &t in &to {
                        self.net.cut(f, t);
                    }
                }
                self.break_cut_streams();
            }
            Action::Isolate { target, inbound_only } => {
                let node = self.resolve(target);
                self.net.isolate(node, n, inbound_only);
                self.break_cut_streams();
            }
            Action::LinkMode { a, b, mode } => {
                if mode.is_datagram() {
                    self.break_link(a, b, crate::event::DropCause::Reset, false);
                }
                self.links.set_mode(a, b, mode);
            }
            Action::Link {
                from,
                to,
                drop_per_million,
                delay_ms_extra,
            } => self.net.degrade(from, to, drop_per_million, delay_ms_extra),
            Action::Heal => self.net.heal(),
            Action::Crash { node } => self.crash(node),
            Action::Restart { node } => {
                if self.nodes[node].machine.is_none() {
                    self.boot(node, true);
                }
            }
            Action::Pause { node, ms } => {
                let slot = &mut self.nodes[node];
                slot.paused_until = slot.paused_until.max(self.now.saturating_add(ms.saturating_mul(MS)));
                if let Some(h) = &self.hooks {
                    // An async node's tasks stop now and run again at the
                    // end, whether or not an input waits for it meanwhile.
                    h.pause(node);
                    let until = self.nodes[node].paused_until;
                    self.at(until, Ev::Resume { node });
                }
            }
            Action::PauseLeader { .. } | Action::ClockDriftLeader { .. } | Action::CutLeaderLink { .. } => {
                unreachable!("resolved to a node above")
            }
            Action::Targeted { .. } => unreachable!("armed by the event loop, applied only as what it became"),
            Action::ClockOffset { node, ns } => {
                self.nodes[node].clock.set_offset(self.now, ns);
                self.clock_changed(node);
            }
            Action::ClockDrift { node, ppm } => {
                self.nodes[node].clock.set_drift(self.now, ppm);
                self.clock_changed(node);
            }
            Action::ClockJump { node, ns } => {
                self.nodes[node].clock.jump(self.now, ns);
                self.clock_changed(node);
            }
            Action::Disk { node, fault, ms } => {
                let until = self.now.saturating_add(ms.saturating_mul(MS));
                let u = &mut self.nodes[node].disk_until;
                let field = match fault {
                    DiskFault::ReadError => &mut u.read_error,
                    DiskFault::FsyncError => &mut u.fsync_error,
                    DiskFault::NoSpace => &mut u.no_space,
                    DiskFault::Slow => &mut u.slow,
                };
                // An explored storage fault ends when the walk takes its
                // end: a fault of 0 ms there.
                *field = match ms == 0 && self.walk.is_some() {
                    true => until,
                    false => (*field).max(until),
                };
                if let Some(h) = &self.hooks {
                    h.no_space_until(node, self.nodes[node].disk_until.no_space);
                }
            }
            Action::DiskRot { node, per_million } => {
                self.nodes[node].disk.rot(per_million);
            }
            Action::Reseed { seed } => self.reseed(seed),
        }
    }

    /// The liveness phase: message chaos stops, links heal, crashed nodes
    /// restart; a minority (the leader, if the swarm drew it) may stay cut off.
    pub(super) fn heal(&mut self) {
        self.healed = true;
        self.disarm_all();
        self.net.heal();
        self.net.chaos = false;
        // Lasting storage faults end with the others; a rotten record stays.
        for s in &mut self.nodes {
            s.disk_until = Default::default();
        }
        if let Some(h) = &self.hooks {
            for node in 0..self.nodes.len() {
                h.no_space_until(node, 0);
            }
        }
        let mut impaired = Vec::new();
        if let Some(inbound_only) = self.draw.impair_leader {
            let node = self.resolve(Target::Leader);
            self.net.isolate(node, self.nodes.len(), inbound_only);
            self.break_cut_streams();
            impaired.push(node);
        }
        self.record(None, EventKind::Heal { impaired });
        for node in 0..self.nodes.len() {
            self.nodes[node].paused_until = 0;
            self.release(node);
            if self.nodes[node].machine.is_none() {
                self.record(
                    None,
                    EventKind::Fault {
                        action: Action::Restart { node },
                    },
                );
                self.boot(node, true);
            }
        }
    }

    /// Stashes an event for a paused node, to be handed over when the pause
    /// ends; any other event comes back to be handled now.
    pub(super) fn hold_if_paused(&mut self, ev: Ev<M::Msg>) -> Option<Ev<M::Msg>> {
        let Some(node) = ev.target() else { return Some(ev) };
        let slot = &mut self.nodes[node];
        if slot.paused_until <= self.now {
            return Some(ev);
        }
        // An explored pause ends when the walk fires its resume.
        if slot.stash.is_empty() && self.walk.is_none() {
            let until = slot.paused_until;
            self.at(until, Ev::Resume { node });
        }
        self.nodes[node].stash.push(ev);
        None
    }

    /// A pause may have been extended since this resume was queued.
    pub(super) fn resume(&mut self, node: NodeId) {
        if self.walk.is_some() {
            // The walk took the pause's end now, whenever it was due.
            self.nodes[node].paused_until = self.now;
        }
        let until = self.nodes[node].paused_until;
        if until > self.now {
            self.at(until, Ev::Resume { node });
        } else {
            self.release(node);
        }
    }

    fn clock_changed(&self, node: NodeId) {
        if let Some(h) = &self.hooks {
            h.clock(node, &self.nodes[node].clock);
        }
    }

    /// Requeues what a paused node missed, now: each source (a peer, a
    /// client request, the node's own timers and disk) keeps its order,
    /// and the sources are interleaved at random.
    fn release(&mut self, node: NodeId) {
        if let Some(h) = &self.hooks {
            h.resume(node);
        }
        let stash = std::mem::take(&mut self.nodes[node].stash);
        let mut sources: Vec<(u64, VecDeque<Ev<M::Msg>>)> = Vec::new();
        for ev in stash {
            let key = match &ev {
                Ev::Deliver { from, .. } | Ev::LinkBroken { peer: from, .. } => *from as u64,
                Ev::ClientReq { req, .. } => (1 << 32) + req.req_id,
                _ => u64::MAX,
            };
            match sources.iter_mut().find(|(k, _)| *k == key) {
                Some((_, q)) => q.push_back(ev),
                None => sources.push((key, VecDeque::from([ev]))),
            }
        }
        while !sources.is_empty() {
            let i = range(&mut self.net_rng, 0, sources.len() as u64 - 1) as usize;
            let ev = sources[i].1.pop_front().expect("sources are non-empty");
            if sources[i].1.is_empty() {
                sources.remove(i);
            }
            self.at(self.now, ev);
        }
    }
}
