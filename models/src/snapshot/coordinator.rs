//! The coordinator: assigns each partition to one owner under a generation
//! that grows with every move. It moves a partition when its owner stops
//! heartbeating (a crash, a pause, a cut link) and, while producers run, at
//! random (a rebalance). The previous owner is told late: until its revoke
//! arrives it keeps fetching and flushing, a stale writer that only the
//! store's fence stops.

use super::config::SnapConfig;
use super::msg::SnapMsg;
use super::{SnapIo, MS};
use sim::hash::debug_digest;
use sim::{NodeId, Now};
use std::collections::BTreeMap;

const TICK: u64 = 1;
const REBALANCE: u64 = 3;
/// Revoke timers are numbered from here, one per pending revoke.
const REVOKE_BASE: u64 = 1_000;

#[derive(Debug)]
pub struct Coordinator {
    cfg: SnapConfig,
    /// partition -> (owner, generation)
    assignment: Vec<(NodeId, u64)>,
    /// owner -> monotonic time its last heartbeat arrived
    heard_ns: BTreeMap<NodeId, u64>,
    /// timer -> (previous owner, partition, generation that replaced it)
    revokes: BTreeMap<u64, (NodeId, u32, u64)>,
    next_revoke: u64,
}

impl Coordinator {
    pub fn new(cfg: SnapConfig) -> Coordinator {
        let owners: Vec<NodeId> = cfg.owners().collect();
        let assignment = (0..cfg.partitions as usize)
            .map(|p| (owners[p % owners.len()], 1))
            .collect();
        Coordinator {
            cfg,
            assignment,
            heard_ns: BTreeMap::new(),
            revokes: BTreeMap::new(),
            next_revoke: REVOKE_BASE,
        }
    }

    pub fn generation(&self, partition: u32) -> u64 {
        self.assignment[partition as usize].1
    }

    pub fn boot(&mut self, io: &mut SnapIo) {
        let now = io.now_mono_ns();
        for o in self.cfg.owners() {
            self.heard_ns.insert(o, now);
        }
        self.announce(io);
        io.set_timer(TICK, self.cfg.heartbeat_ms * MS);
        self.schedule_rebalance(io);
    }

    fn schedule_rebalance(&self, io: &mut SnapIo) {
        let mean = self.cfg.rebalance_every_ms;
        if mean > 0 {
            let after = io.random_range(mean / 2, mean + mean / 2);
            io.set_timer(REBALANCE, after * MS);
        }
    }

    /// Tells every owner what it owns; repeated, so a lost assign heals.
    fn announce(&self, io: &mut SnapIo) {
        for (p, &(owner, generation)) in self.assignment.iter().enumerate() {
            let partition = p as u32;
            io.send(owner, SnapMsg::Assign { partition, generation });
        }
    }

    pub fn on_heartbeat(&mut self, from: NodeId, io: &mut SnapIo) {
        if self.cfg.owners().contains(&from) {
            self.heard_ns.insert(from, io.now_mono_ns());
        }
    }

    fn alive(&self, owner: NodeId, now: u64) -> bool {
        self.heard_ns
            .get(&owner)
            .is_some_and(|t| now.saturating_sub(*t) < self.cfg.session_ms * MS)
    }

    pub fn on_timer(&mut self, timer: u64, io: &mut SnapIo) {
        let now = io.now_mono_ns();
        match timer {
            TICK => {
                for p in 0..self.assignment.len() {
                    let owner = self.assignment[p].0;
                    if !self.alive(owner, now) {
                        self.move_partition(p as u32, io);
                    }
                }
                self.announce(io);
                io.set_timer(TICK, self.cfg.heartbeat_ms * MS);
            }
            REBALANCE => {
                if now < self.cfg.produce_ms * MS {
                    let p = io.random_range(0, self.assignment.len() as u64 - 1) as u32;
                    self.move_partition(p, io);
                    self.schedule_rebalance(io);
                }
            }
            t => {
                if let Some((owner, partition, generation)) = self.revokes.remove(&t) {
                    io.send(owner, SnapMsg::Revoke { partition, generation });
                }
            }
        }
    }

    /// See `super::digest`.
    pub fn digest_at(&self, now: &Now) -> u64 {
        let Coordinator {
            cfg,
            assignment,
            heard_ns,
            revokes,
            next_revoke,
        } = self;
        // An owner is alive while heard within the session: beyond it, how
        // long ago makes no difference.
        let session_ns = cfg.session_ms * MS;
        let heard: Vec<_> = heard_ns
            .iter()
            .map(|(owner, t)| (owner, now.mono_age(*t, session_ns)))
            .collect();
        debug_digest(&(assignment, heard, revokes, next_revoke))
    }

    /// Hands `partition` to another live owner, if there is one.
    fn move_partition(&mut self, partition: u32, io: &mut SnapIo) {
        let now = io.now_mono_ns();
        let (old, generation) = self.assignment[partition as usize];
        let candidates: Vec<NodeId> = self.cfg.owners().filter(|o| *o != old && self.alive(*o, now)).collect();
        if candidates.is_empty() {
            return;
        }
        let new = candidates[io.random_range(0, candidates.len() as u64 - 1) as usize];
        let generation = generation + 1;
        self.assignment[partition as usize] = (new, generation);
        io.send(new, SnapMsg::Assign { partition, generation });
        io.reached("handover");
        let delay = io.random_range(0, self.cfg.revoke_delay_ms_max);
        let timer = self.next_revoke;
        self.next_revoke += 1;
        self.revokes.insert(timer, (old, partition, generation));
        io.set_timer(timer, delay * MS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A coordinator that heard owners 2, 3 and 4 at `heard`.
    fn coord(heard: [u64; 3]) -> Coordinator {
        let cfg = SnapConfig {
            nodes: 5,
            ..SnapConfig::default()
        };
        let mut c = Coordinator::new(cfg);
        c.heard_ns = (2..5).zip(heard).collect();
        c
    }

    fn at(ns: u64) -> Now {
        Now {
            mono_ns: ns,
            wall_ns: ns,
        }
    }

    #[test]
    fn an_owner_heard_before_the_session_digests_alike_however_long_ago() {
        let now = 10_000 * MS;
        let session = SnapConfig::default().session_ms * MS;
        let a = coord([now - 10 * MS, now - session, now - 300 * MS]).digest_at(&at(now));
        let b = coord([now - 10 * MS, now - 5 * session, now - 300 * MS]).digest_at(&at(now));
        assert_eq!(a, b, "owner 3 is lost either way");
        let c = coord([now - 10 * MS, now - session, now - 301 * MS]).digest_at(&at(now));
        assert_ne!(a, c, "owner 4 is lost a millisecond sooner");
        let d = 1_234 * MS;
        let shifted = coord([now + d - 10 * MS, now + d - session, now + d - 300 * MS]);
        assert_eq!(a, shifted.digest_at(&at(now + d)));
    }
}
