//! SWIM-style membership beside Raft: each node probes one peer per
//! `swim_probe_ms`, suspects a peer that does not answer before the next
//! probe, and declares it dead after `swim_suspect_ms` of suspicion. Views
//! spread as rumours piggybacked on probes and answers.
//!
//! A rumour carries the incarnation it is about, and a higher incarnation
//! wins. A node refutes a suspicion or death of its current incarnation by
//! moving to the next one. The incarnation is durable and a restart moves
//! past the last one written, so a restarted node's "alive" beats every
//! rumour from its earlier lives; and a rumour about an incarnation above
//! the node's own cannot stem from its own announcements, so it is not
//! chased. Dead members are still probed, so a member declared dead while
//! alive hears of it and refutes.

use super::{Raft, RaftIo, RaftMsg, RaftRec, NS_PER_MS};
use serde::Serialize;
use sim::{MemberState, ModelEvent, NodeId, SyncTicket, TimerId};
use std::collections::BTreeMap;

/// Every `swim_probe_ms`: judge the last probe, time out suspicions, probe.
pub const SWIM_PROBE: TimerId = 17;

/// Rumours piggybacked on one message, besides the sender's own.
const GOSSIP_PER_MSG: usize = 6;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
pub struct Rumour {
    pub node: NodeId,
    pub state: MemberState,
    pub incarnation: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Hash)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum SwimMsg {
    Ping { seq: u64, rumours: Vec<Rumour> },
    Ack { seq: u64, rumours: Vec<Rumour> },
}

impl SwimMsg {
    pub fn kind(&self) -> &'static str {
        match self {
            SwimMsg::Ping { .. } => "swim-ping",
            SwimMsg::Ack { .. } => "swim-ack",
        }
    }
}

/// Whether news (`state` at incarnation `inc`) about a member overrides
/// what a view holds (`held_state` at `held_inc`): a higher incarnation
/// always does; at the same incarnation suspect beats alive and dead beats
/// both.
pub fn overrides(state: MemberState, inc: u64, held_state: MemberState, held_inc: u64) -> bool {
    use MemberState::*;
    match (state, held_state) {
        (Alive, _) => inc > held_inc,
        (Suspect, Alive) | (Dead, Alive | Suspect) => inc >= held_inc,
        (Suspect, Suspect | Dead) | (Dead, Dead) => inc > held_inc,
    }
}

/// The incarnation a booting node joins with, given the highest one on
/// its disk: past every incarnation it can have announced before.
pub fn boot_incarnation(persisted: Option<u64>, reset_bug: bool) -> u64 {
    match persisted {
        // BUG(swim-incarnation-reset): a restart rejoins at incarnation 0,
        // below the incarnation peers may hold it dead at.
        Some(_) if reset_bug => 0,
        Some(p) => p + 1,
        None => 1,
    }
}

#[derive(Clone, Copy, Debug, Hash)]
struct Member {
    state: MemberState,
    incarnation: u64,
    /// Monotonic time the current suspicion began.
    suspect_since_ns: u64,
}

#[derive(Clone, Debug, Default, Hash)]
pub(super) struct Swim {
    /// The newest incarnation, perhaps not yet durable.
    incarnation: u64,
    /// The newest durable incarnation: the only one this node tells others.
    announced: Option<u64>,
    unsynced: Vec<(SyncTicket, u64)>,
    view: BTreeMap<NodeId, Member>,
    /// Rumours to piggyback, with how often each went out.
    gossip: Vec<(Rumour, u32)>,
    /// A shuffled round of peers to probe, and the position in it.
    order: Vec<NodeId>,
    next: usize,
    /// The probe awaiting its answer: (peer, seq).
    probe: Option<(NodeId, u64)>,
    seq: u64,
}

impl Raft {
    fn swim_on(&self) -> bool {
        self.cfg.swim_probe_ms > 0
    }

    /// The record compaction must carry over, if membership runs.
    pub(super) fn incarnation_record(&self) -> Option<RaftRec> {
        self.swim_on().then_some(RaftRec::Incarnation(self.swim.incarnation))
    }

    /// Joins with an incarnation past every one this node announced in an
    /// earlier life (`persisted` is the highest on disk), made durable
    /// before it is announced.
    pub(super) fn swim_boot(&mut self, io: &mut RaftIo, persisted: Option<u64>) {
        if !self.swim_on() {
            return;
        }
        let incarnation = boot_incarnation(persisted, self.cfg.bugs.swim_incarnation_reset);
        let at = io.now_mono_ns();
        self.swim.view = self
            .peers()
            .map(|p| {
                (
                    p,
                    Member {
                        state: MemberState::Alive,
                        incarnation: 0,
                        suspect_since_ns: at,
                    },
                )
            })
            .collect();
        self.set_incarnation(io, incarnation);
        let probe_ns = self.cfg.swim_probe_ms * NS_PER_MS;
        let first = io.random_range(1, probe_ns);
        io.set_timer(SWIM_PROBE, first);
    }

    fn set_incarnation(&mut self, io: &mut RaftIo, incarnation: u64) {
        self.swim.incarnation = incarnation;
        self.write(io, RaftRec::Incarnation(incarnation));
        let t = io.fsync();
        self.swim.unsynced.push((t, incarnation));
    }

    pub(super) fn swim_synced(&mut self, ticket: SyncTicket) {
        let (done, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.swim.unsynced)
            .into_iter()
            .partition(|(t, _)| *t <= ticket);
        self.swim.unsynced = rest;
        if let Some(inc) = done.iter().map(|(_, i)| *i).max() {
            self.swim.announced = Some(self.swim.announced.map_or(inc, |a| a.max(inc)));
        }
    }

    pub(super) fn on_swim_probe(&mut self, io: &mut RaftIo) {
        io.set_timer(SWIM_PROBE, self.cfg.swim_probe_ms * NS_PER_MS);
        let now = io.now_mono_ns();
        if let Some((peer, _)) = self.swim.probe.take() {
            if let Some(m) = self.swim.view.get(&peer).copied() {
                if m.state == MemberState::Alive {
                    self.swim_learn(io, peer, MemberState::Suspect, m.incarnation);
                }
            }
        }
        let suspect_ns = self.cfg.swim_suspect_ms * NS_PER_MS;
        let expired: Vec<(NodeId, u64)> = self
            .swim
            .view
            .iter()
            .filter(|(_, m)| m.state == MemberState::Suspect && now.saturating_sub(m.suspect_since_ns) >= suspect_ns)
            .map(|(p, m)| (*p, m.incarnation))
            .collect();
        for (peer, inc) in expired {
            self.swim_learn(io, peer, MemberState::Dead, inc);
        }
        if self.swim.announced.is_none() || self.swim.view.is_empty() {
            return;
        }
        if self.swim.next >= self.swim.order.len() {
            // A fresh random round: every peer, dead ones too, once each.
            let mut order: Vec<NodeId> = self.swim.view.keys().copied().collect();
            for i in (1..order.len()).rev() {
                let j = io.random_range(0, i as u64) as usize;
                order.swap(i, j);
            }
            self.swim.order = order;
            self.swim.next = 0;
        }
        let peer = self.swim.order[self.swim.next];
        self.swim.next += 1;
        self.swim.seq += 1;
        let seq = self.swim.seq;
        self.swim.probe = Some((peer, seq));
        let rumours = self.swim_rumours(peer);
        io.send(
            peer,
            RaftMsg::Swim {
                msg: SwimMsg::Ping { seq, rumours },
            },
        );
    }

    pub(super) fn on_swim(&mut self, io: &mut RaftIo, from: NodeId, msg: SwimMsg) {
        if !self.swim_on() {
            return;
        }
        match msg {
            SwimMsg::Ping { seq, rumours } => {
                self.swim_merge(io, rumours);
                if self.swim.announced.is_some() {
                    let rumours = self.swim_rumours(from);
                    io.send(
                        from,
                        RaftMsg::Swim {
                            msg: SwimMsg::Ack { seq, rumours },
                        },
                    );
                }
            }
            SwimMsg::Ack { seq, rumours } => {
                self.swim_merge(io, rumours);
                if self.swim.probe == Some((from, seq)) {
                    self.swim.probe = None;
                }
            }
        }
    }

    /// What goes out to `to`: our own incarnation, our view of `to` if it
    /// is not alive (so that it can refute), and the least-spread rumours.
    fn swim_rumours(&mut self, to: NodeId) -> Vec<Rumour> {
        let mut out = Vec::new();
        if let Some(inc) = self.swim.announced {
            out.push(Rumour {
                node: self.id,
                state: MemberState::Alive,
                incarnation: inc,
            });
        }
        if let Some(m) = self.swim.view.get(&to).filter(|m| m.state != MemberState::Alive) {
            out.push(Rumour {
                node: to,
                state: m.state,
                incarnation: m.incarnation,
            });
        }
        // Each rumour goes out about 3 log2(n) times: enough to reach
        // everyone with high probability, then it stops costing bandwidth.
        let limit = 3 * (usize::BITS - self.cfg.nodes.leading_zeros());
        self.swim.gossip.sort_by_key(|(_, sent)| *sent);
        for (r, sent) in self.swim.gossip.iter_mut().take(GOSSIP_PER_MSG) {
            *sent += 1;
            out.push(r.clone());
        }
        self.swim.gossip.retain(|(_, sent)| *sent < limit);
        out
    }

    fn swim_merge(&mut self, io: &mut RaftIo, rumours: Vec<Rumour>) {
        for r in rumours {
            if r.node == self.id {
                self.swim_about_me(io, &r);
                continue;
            }
            let Some(m) = self.swim.view.get(&r.node).copied() else {
                continue;
            };
            if overrides(r.state, r.incarnation, m.state, m.incarnation) {
                self.swim_learn(io, r.node, r.state, r.incarnation);
            }
        }
    }

    fn swim_about_me(&mut self, io: &mut RaftIo, r: &Rumour) {
        if r.state == MemberState::Alive {
            return;
        }
        // Refute only news about the incarnation we announced, and only
        // once: the next incarnation is on its way to the disk.
        if self.swim.announced == Some(r.incarnation) && self.swim.incarnation == r.incarnation {
            self.set_incarnation(io, r.incarnation + 1);
        }
    }

    /// Changes the view of `peer`, reports a change of state and spreads it.
    fn swim_learn(&mut self, io: &mut RaftIo, peer: NodeId, state: MemberState, incarnation: u64) {
        let now = io.now_mono_ns();
        let Some(m) = self.swim.view.get_mut(&peer) else { return };
        let was = m.state;
        if state == MemberState::Suspect && (was != MemberState::Suspect || incarnation > m.incarnation) {
            m.suspect_since_ns = now;
        }
        m.state = state;
        m.incarnation = incarnation;
        if was != state {
            io.event(ModelEvent::Member {
                peer,
                state,
                incarnation,
            });
            if was == MemberState::Dead && state == MemberState::Alive {
                io.reached("rejoined-membership");
            }
        }
        self.swim.gossip.retain(|(r, _)| r.node != peer);
        self.swim.gossip.push((
            Rumour {
                node: peer,
                state,
                incarnation,
            },
            0,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberState::*;

    #[test]
    fn a_higher_incarnation_always_wins() {
        for held in [Alive, Suspect, Dead] {
            for news in [Alive, Suspect, Dead] {
                assert!(overrides(news, 4, held, 3), "{news:?} 4 over {held:?} 3");
                assert!(!overrides(news, 2, held, 3), "{news:?} 2 over {held:?} 3");
            }
        }
    }

    #[test]
    fn at_one_incarnation_suspect_beats_alive_and_dead_beats_both() {
        assert!(overrides(Suspect, 3, Alive, 3));
        assert!(overrides(Dead, 3, Alive, 3));
        assert!(overrides(Dead, 3, Suspect, 3));
        assert!(!overrides(Alive, 3, Suspect, 3));
        assert!(!overrides(Alive, 3, Dead, 3));
        assert!(!overrides(Suspect, 3, Dead, 3));
        for s in [Alive, Suspect, Dead] {
            assert!(!overrides(s, 3, s, 3), "the same news twice changes nothing");
        }
    }

    #[test]
    fn a_restart_moves_past_the_incarnation_it_was_declared_dead_at() {
        // Last written incarnation 5, declared dead at it by a peer.
        let rejoin = boot_incarnation(Some(5), false);
        assert_eq!(rejoin, 6);
        assert!(overrides(Alive, rejoin, Dead, 5));
        assert_eq!(boot_incarnation(None, false), 1);
        // The reset restart rejoins at 0 and loses to the old rumour.
        let reset = boot_incarnation(Some(5), true);
        assert_eq!(reset, 0);
        assert!(!overrides(Alive, reset, Dead, 5));
        assert!(!overrides(Alive, 5, Dead, 5));
    }
}
