//! Symmetry reduction: states that differ only by which of some
//! interchangeable nodes is which (a model declares them, see
//! [`Machine::interchangeable`]) share one digest, the least digest of
//! the state under the renamings that sort each class by what its nodes
//! hold apart from names.
//!
//! A canonical form that tried every renaming would cost a digest of the
//! whole world per permutation (120 at five nodes). Sorting costs one
//! name-blind digest per node, then one digest per way to order the nodes
//! whose name-blind digests tie (each way tried, up to [`TIES_MAX`] in
//! all). Past that the ties keep their order by id: two states that are
//! renamings of each other may then still count as two, never two that
//! are not as one.

use super::super::{Ev, World};
use crate::clock::WALL_EPOCH_NS;
use crate::hash::{debug_digest, WordHasher};
use crate::machine::{Machine, MsgInfo, NodeId, Now};
use crate::scenario::Scenario;
use crate::workload::ClientReply;
use std::hash::{Hash, Hasher};

/// The most orders of tied nodes tried for one state.
const TIES_MAX: usize = 24;

/// The classes a walk of `sc` may rename within: the model's, split so
/// that nodes the fault profile treats apart (spared or not) stay apart,
/// and none where a client's first try depends on its node's id.
pub(in crate::world) fn classes<M: Machine>(sc: &Scenario) -> Vec<Vec<NodeId>> {
    if sc.workload.bound_clients {
        return Vec::new();
    }
    let spared = &sc.faults.spared;
    let mut out = Vec::new();
    for class in M::interchangeable(sc.nodes) {
        for keep in [true, false] {
            let part: Vec<NodeId> = class
                .iter()
                .copied()
                .filter(|n| *n < sc.nodes && spared.contains(n) == keep)
                .collect();
            if part.len() > 1 {
                out.push(part);
            }
        }
    }
    out
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// The world's digest up to renaming within `classes`, where every
    /// part of the state can say what it would be renamed (and gives a
    /// relative digest): `None` otherwise, and the plain digest serves.
    pub(super) fn symmetric_digest(&self, classes: &[Vec<NodeId>]) -> Option<u64> {
        if !self.links.all_datagram() || !self.read_only_spells.is_empty() {
            return None;
        }
        let n = self.nodes.len();
        let blind = vec![0; n];
        let keys: Vec<u64> = (0..n).map(|i| self.node_digest(i, &blind)).collect::<Option<_>>()?;
        let mut best: Option<u64> = None;
        for ids in renamings(classes, &keys, n) {
            let d = self.renamed_digest(&ids)?;
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        best
    }

    /// The world with node `x` named `ids[x]`.
    fn renamed_digest(&self, ids: &[NodeId]) -> Option<u64> {
        let w = self.walk.as_ref().expect("exploring");
        let now = self.now;
        let in_flight = Now {
            mono_ns: now,
            wall_ns: WALL_EPOCH_NS + now,
        };
        let mut by_name: Vec<NodeId> = (0..ids.len()).collect();
        by_name.sort_by_key(|&x| ids[x]);
        let mut h = WordHasher::default();
        // Apart from every digest that renames nothing.
        0x5e_u8.hash(&mut h);
        for x in by_name {
            self.node_digest(x, ids)?.hash(&mut h);
        }
        let mut events = Vec::with_capacity(w.pending.len());
        for p in &w.pending {
            let mut e = WordHasher::default();
            (p.lo.max(now) - now, p.hi.max(now) - now, p.at.max(now) - now).hash(&mut e);
            self.ev_renamed(&p.ev, &in_flight, ids, &mut e)?;
            events.push(e.finish());
        }
        events.sort_unstable();
        events.hash(&mut h);
        for c in &self.clients {
            c.digest_renamed(ids).hash(&mut h);
        }
        (self.next_op, self.next_req).hash(&mut h);
        self.work_rng.get_word_pos().hash(&mut h);
        self.disk_rng.get_word_pos().hash(&mut h);
        self.net_rng.get_word_pos().hash(&mut h);
        (w.used, w.cut_off.map(|(x, inbound)| (ids[x], inbound))).hash(&mut h);
        if !w.cut_links.is_empty() {
            let mut links: Vec<_> = w.cut_links.iter().map(|&(from, to)| (ids[from], ids[to])).collect();
            links.sort_unstable();
            links.hash(&mut h);
        }
        Some(h.finish())
    }

    /// Node `x`'s part of the world renamed by `ids`: its clocks, pause,
    /// storage faults, state, disk and fsync count.
    fn node_digest(&self, x: NodeId, ids: &[NodeId]) -> Option<u64> {
        let now = self.now;
        let slot = &self.nodes[x];
        let c = &slot.clock;
        let clocks = Now {
            mono_ns: c.mono_ns(now),
            wall_ns: c.wall_ns(now),
        };
        let mut h = WordHasher::default();
        (c.skew_ns(now), clocks.mono_ns as i128 - now as i128, c.drift_since(now)).hash(&mut h);
        super::digest::left(slot.paused_until, now).hash(&mut h);
        let in_flight = Now {
            mono_ns: now,
            wall_ns: WALL_EPOCH_NS + now,
        };
        for ev in &slot.stash {
            self.ev_renamed(ev, &in_flight, ids, &mut h)?;
        }
        let u = &slot.disk_until;
        for until in [u.read_error, u.fsync_error, u.no_space, u.slow] {
            super::digest::left(until, now).hash(&mut h);
        }
        match &slot.machine {
            None => 0u8.hash(&mut h),
            Some(m) => (1u8, m.digest_renamed(&clocks, ids)?).hash(&mut h),
        }
        slot.disk
            .digest_with(|r| M::record_digest_renamed(r, &clocks, ids))?
            .hash(&mut h);
        slot.next_ticket().hash(&mut h);
        Some(h.finish())
    }

    /// An event's part of the renamed digest; `None` where it holds what
    /// cannot be renamed.
    fn ev_renamed(&self, ev: &Ev<M::Msg>, now: &Now, ids: &[NodeId], h: &mut WordHasher) -> Option<()> {
        let r = |x: &NodeId| ids[*x];
        match ev {
            Ev::Deliver {
                from, to, msg, conn, ..
            } => {
                (1u8, r(from), r(to), msg.digest_renamed(now, ids)?).hash(h);
                conn.map(|t| (t.epoch, t.seq)).hash(h);
            }
            Ev::Timer { node, id, .. } => (2u8, r(node), id).hash(h),
            Ev::Fsync { node, ticket, mark, .. } => (3u8, r(node), ticket, mark).hash(h),
            Ev::ClientReq { node, req } => (4u8, r(node), debug_digest(req)).hash(h),
            Ev::ClientResp { req_id, reply } => match reply {
                ClientReply::NotLeader { hint } => (5u8, req_id, hint.map(|x| r(&x))).hash(h),
                _ => (5u8, req_id, debug_digest(reply)).hash(h),
            },
            Ev::ClientTick { client } => (6u8, client).hash(h),
            Ev::ClientTimeout { client, op_id } => (7u8, client, op_id).hash(h),
            Ev::Reboot { node, .. } => (9u8, r(node)).hash(h),
            // Never pending in an explored run that is still choosing, or
            // names what a renaming cannot follow.
            Ev::Resume { .. }
            | Ev::Later(_)
            | Ev::LinkBroken { .. }
            | Ev::Plan(_)
            | Ev::Heal
            | Ev::End
            | Ev::Probe { .. } => return None,
        }
        Some(())
    }
}

/// The renamings to try: each class's nodes sorted by `keys` (their
/// name-blind digests) take the class's ids in order; nodes that tie are
/// tried in every order while the orders number at most [`TIES_MAX`].
fn renamings(classes: &[Vec<NodeId>], keys: &[u64], n: usize) -> Vec<Vec<NodeId>> {
    let mut out: Vec<Vec<NodeId>> = vec![(0..n).collect()];
    for class in classes {
        let mut sorted = class.clone();
        sorted.sort_by_key(|&x| (keys[x], x));
        let mut names = class.clone();
        names.sort_unstable();
        // Runs of tied keys, as ranges of `sorted`.
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=sorted.len() {
            if i == sorted.len() || keys[sorted[i]] != keys[sorted[start]] {
                runs.push(start..i);
                start = i;
            }
        }
        let mut orders: Vec<Vec<NodeId>> = vec![sorted.clone()];
        for run in runs.iter().filter(|r| r.len() > 1) {
            let perms = permutations(&sorted[run.clone()]);
            if orders.len() * perms.len() > TIES_MAX {
                continue;
            }
            orders = orders
                .iter()
                .flat_map(|o| {
                    perms.iter().map(move |p| {
                        let mut o = o.clone();
                        o[run.clone()].copy_from_slice(p);
                        o
                    })
                })
                .collect();
        }
        if out.len() * orders.len() > TIES_MAX {
            orders.truncate(1);
        }
        out = out
            .iter()
            .flat_map(|ids| {
                orders.iter().map(|order| {
                    let mut ids = ids.clone();
                    for (k, &x) in order.iter().enumerate() {
                        ids[x] = names[k];
                    }
                    ids
                })
            })
            .collect();
    }
    out
}

fn permutations(xs: &[NodeId]) -> Vec<Vec<NodeId>> {
    if xs.len() <= 1 {
        return vec![xs.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..xs.len() {
        let mut rest = xs.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_is_named_in_the_order_of_its_keys_and_ties_are_tried_every_way() {
        // Nodes 1 and 2 swap names: 2 sorts first.
        assert_eq!(renamings(&[vec![1, 2]], &[0, 9, 5], 3), vec![vec![0, 2, 1]]);
        // A tie among three: every order, each a permutation of the class.
        let all = renamings(&[vec![0, 1, 2]], &[7, 7, 7], 3);
        assert_eq!(all.len(), 6);
        for ids in &all {
            let mut s = ids.clone();
            s.sort_unstable();
            assert_eq!(s, vec![0, 1, 2]);
        }
        // Node 3 stays out of the class.
        assert!(renamings(&[vec![0, 1, 2]], &[1, 1, 1, 0], 4)
            .iter()
            .all(|ids| ids[3] == 3));
    }

    #[test]
    fn too_many_ties_keep_their_order_by_id() {
        let keys = [0; 5];
        let all = renamings(&[(0..5).collect()], &keys, 5);
        assert_eq!(all, vec![vec![0, 1, 2, 3, 4]]);
    }
}
