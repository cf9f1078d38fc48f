//! The explored world's digest (what the walk tells states apart by) and
//! its protocol shape (what the guided order reads).

use super::super::{Ev, World};
use crate::clock::WALL_EPOCH_NS;
use crate::event::Ballot;
use crate::hash::{debug_digest, WordHasher};
use crate::machine::{Machine, MsgInfo, NodeId, Now};
use std::hash::{Hash, Hasher};

/// Where a shape stops counting ranks and lags: beyond it, all alike.
const LAG_CAP: usize = 2;

/// Where `x` stands in `sorted` (newest first), capped at [`LAG_CAP`].
fn rank<T: PartialEq>(sorted: &[T], x: &T) -> u8 {
    sorted.iter().position(|y| y == x).unwrap_or(LAG_CAP).min(LAG_CAP) as u8
}

/// How long a pause or a storage fault that holds until `until` lasts
/// from `now`: to the end of time if a move is to end it.
pub(super) fn left(until: u64, now: u64) -> u64 {
    match until {
        u64::MAX => u64::MAX,
        t => t.max(now) - now,
    }
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// A digest of the whole world as far as what may happen next depends
    /// on it: time, each node's state (its own digest, or everything it
    /// was handed since boot), disks, random streams, the events pending
    /// with their windows (as a multiset), the clients, the links and the
    /// faults still allowed. The checkers' state is not in it: two runs
    /// that reach one state by different histories are explored once.
    ///
    /// Time enters relative to now wherever it can: windows, clocks, and
    /// each node's digest with the time since it was taken. Now itself is
    /// left out only while every node, record and message in flight gives
    /// a relative digest ([`Machine::digest_at`]) and no read-only spell
    /// hangs on the absolute time; otherwise it is in, as it must be.
    pub(super) fn digest(&self) -> u64 {
        let w = self.walk.as_ref().expect("exploring");
        if !w.classes.is_empty() {
            if let Some(d) = self.symmetric_digest(&w.classes) {
                return d;
            }
        }
        let now = self.now;
        let in_flight = Now {
            mono_ns: now,
            wall_ns: WALL_EPOCH_NS + now,
        };
        let mut relative = self.read_only_spells.is_empty();
        let mut h = WordHasher::default();
        for slot in &self.nodes {
            let clocks = Now {
                mono_ns: slot.clock.mono_ns(now),
                wall_ns: slot.clock.wall_ns(now),
            };
            let c = &slot.clock;
            (c.skew_ns(now), clocks.mono_ns as i128 - now as i128, c.drift_since(now)).hash(&mut h);
            // A paused node's stash and its storage faults in force.
            left(slot.paused_until, now).hash(&mut h);
            for ev in &slot.stash {
                relative &= self.ev_digest(ev, &in_flight, &mut h);
            }
            let u = &slot.disk_until;
            for until in [u.read_error, u.fsync_error, u.no_space, u.slow] {
                left(until, now).hash(&mut h);
            }
            match (&slot.machine, slot.kept) {
                (None, _) => 0u8.hash(&mut h),
                (Some(_), Some(k)) => {
                    relative &= k.relative;
                    (1u8, k.digest, now - k.at).hash(&mut h);
                }
                (Some(_), None) => {
                    relative = false;
                    (2u8, slot.history, slot.rng.get_word_pos()).hash(&mut h);
                }
            }
            match slot.disk.digest_with(|r| M::record_digest_at(r, &clocks)) {
                Some(d) => d.hash(&mut h),
                None => {
                    relative = false;
                    debug_digest(&slot.disk).hash(&mut h);
                }
            }
            slot.next_ticket().hash(&mut h);
        }
        let mut events: Vec<u64> = w
            .pending
            .iter()
            .map(|p| {
                let mut e = WordHasher::default();
                (p.lo.max(now) - now, p.hi.max(now) - now, p.at.max(now) - now).hash(&mut e);
                relative &= self.ev_digest(&p.ev, &in_flight, &mut e);
                e.finish()
            })
            .collect();
        events.sort_unstable();
        events.hash(&mut h);
        debug_digest(&self.clients).hash(&mut h);
        (self.next_op, self.next_req).hash(&mut h);
        self.work_rng.get_word_pos().hash(&mut h);
        self.disk_rng.get_word_pos().hash(&mut h);
        // A pause's end draws how the node's missed events interleave.
        self.net_rng.get_word_pos().hash(&mut h);
        (w.used, w.cut_off).hash(&mut h);
        // Hashed only where there is one, so that the digests of profiles
        // without link cuts are what they were.
        if !w.cut_links.is_empty() {
            w.cut_links.hash(&mut h);
        }
        if !self.links.all_datagram() {
            debug_digest(&self.links).hash(&mut h);
            for (k, (_, msg)) in &self.held {
                (k, self.msg_digest(msg, &in_flight, &mut relative)).hash(&mut h);
            }
        }
        if !relative {
            now.hash(&mut h);
        }
        relative.hash(&mut h);
        h.finish()
    }

    /// The state as the protocol sees it (see [`Point::shape`]), relative
    /// to the cluster: each node's epoch and log tail by their rank among
    /// the live nodes', its lag behind the longest log and the highest
    /// commit, capped. Absolute terms and indexes would make every entry a
    /// client appends a new shape, and the guided order would then branch
    /// everywhere alike; ranks and small lags tell apart what the protocol
    /// does (a node left behind, a second leader of a newer term, a
    /// candidate ahead of everyone) however long the run.
    pub(super) fn shape(&self) -> u64 {
        let w = self.walk.as_ref().expect("exploring");
        let live: Vec<_> = self.nodes.iter().filter(|s| s.machine.is_some()).collect();
        let mut epochs: Vec<&Ballot> = live.iter().filter_map(|s| s.role.as_ref().map(|r| &r.1)).collect();
        epochs.sort_unstable_by(|a, b| b.cmp(a));
        epochs.dedup();
        let mut tail_terms: Vec<u64> = live.iter().map(|s| s.shape.tail.1).collect();
        tail_terms.sort_unstable_by(|a, b| b.cmp(a));
        tail_terms.dedup();
        let longest = live.iter().map(|s| s.shape.tail.0).max().unwrap_or(0);
        let highest = live.iter().map(|s| s.shape.commit).max().unwrap_or(0);
        let lag = |behind: u64| behind.min(LAG_CAP as u64) as u8;
        let mut h = WordHasher::default();
        for slot in &self.nodes {
            if slot.machine.is_none() {
                0u8.hash(&mut h);
            } else {
                let t = slot.shape;
                let epoch = slot.role.as_ref().map(|(role, e)| (*role, rank(&epochs, &e)));
                (1u8, epoch, rank(&tail_terms, &t.tail.1)).hash(&mut h);
                (lag(longest - t.tail.0), lag(highest - t.commit)).hash(&mut h);
                lag(t.tail.0.saturating_sub(t.commit)).hash(&mut h);
            }
            (slot.paused_until > self.now).hash(&mut h);
            // A storage fault in force, and writes a failed fsync lost,
            // change what a crash does next while the protocol looks the
            // same: a departure there is a new shape.
            let u = &slot.disk_until;
            let faults = [u.read_error, u.fsync_error, u.no_space, u.slow].map(|until| until > self.now);
            (faults, slot.disk.has_hole()).hash(&mut h);
        }
        w.cut_off.hash(&mut h);
        if !w.cut_links.is_empty() {
            w.cut_links.hash(&mut h);
        }
        h.finish()
    }

    /// A message's digest, relative to `now` where it gives one (and
    /// `relative` cleared where it does not).
    fn msg_digest(&self, msg: &M::Msg, now: &Now, relative: &mut bool) -> u64 {
        match msg.digest_at(now) {
            Some(d) => d,
            None => {
                *relative = false;
                debug_digest(msg)
            }
        }
    }

    /// An event's part of the digest, without the ids the world numbers
    /// its events by (no node sees them); false where it holds a message
    /// that gives no relative digest.
    fn ev_digest(&self, ev: &Ev<M::Msg>, now: &Now, h: &mut WordHasher) -> bool {
        let mut relative = true;
        match ev {
            Ev::Deliver {
                from, to, msg, conn, ..
            } => {
                (1u8, from, to, self.msg_digest(msg, now, &mut relative)).hash(h);
                conn.map(|t| (t.epoch, t.seq)).hash(h);
            }
            Ev::Timer { node, id, .. } => (2u8, node, id).hash(h),
            Ev::Fsync { node, ticket, mark, .. } => (3u8, node, ticket, mark).hash(h),
            Ev::ClientReq { node, req } => (4u8, node, debug_digest(req)).hash(h),
            Ev::ClientResp { req_id, reply } => (5u8, req_id, debug_digest(reply)).hash(h),
            Ev::ClientTick { client } => (6u8, client).hash(h),
            Ev::ClientTimeout { client, op_id } => (7u8, client, op_id).hash(h),
            Ev::LinkBroken { node, peer, cause, .. } => (8u8, node, peer, debug_digest(cause)).hash(h),
            Ev::Reboot { node, .. } => (9u8, node).hash(h),
            Ev::Plan(i) => (10u8, i).hash(h),
            Ev::Heal => 11u8.hash(h),
            Ev::End => 12u8.hash(h),
            Ev::Resume { node } => (13u8, node).hash(h),
            Ev::Later(a) => (14u8, debug_digest(a)).hash(h),
            Ev::Probe { node, lease, .. } => (15u8, node, lease).hash(h),
        }
        relative
    }
}
