//! The node's digest relative to its clocks, for `dst explore` to fold
//! states that differ only by when they happen (see
//! `sim::Machine::digest_at`).
//!
//! Every instant becomes what the node's behaviour can depend on: an age
//! capped at the longest span the node compares it with, a time left
//! (zero once passed), or an exact offset where its place among other
//! instants matters (HLC stamps). Descriptor leases and SWIM carry
//! instants through the log, the state machine and gossip; a node that
//! runs either gives no relative digest, and exploration keeps absolute
//! time for it.

use super::msg::RaftMsg;
use super::{Gated, Progress, Raft};
use sim::hash::state_digest;
use sim::{NodeId, Now};
use std::collections::{BTreeMap, BTreeSet};

/// How far back the read path's instants matter: a vouch or a confirmed
/// round older than both the follower-read staleness window and the
/// leader lease serves no read, and a vouch older than this is refused on
/// arrival (see `note_vouch`), so the boot instant it is compared with
/// matters no further back either.
pub(super) fn read_horizon_ns(r: &Raft) -> u64 {
    r.staleness_ns().max(r.lease_len_ns()).max(1)
}

/// A read round as the digest sees it: rounds are named by the leader's
/// clock when they open (see `open_round`), so as an offset from it; 0,
/// no round, stays apart from every offset.
pub(super) fn round_at(now: &Now, round: u64) -> u64 {
    match round {
        0 => i64::MIN as u64,
        r => now.mono_offset(r) as u64,
    }
}

impl Raft {
    pub(super) fn relative_digest(&self, now: &Now) -> Option<u64> {
        self.renamed_digest(now, &|x| x)
    }

    /// [`Raft::relative_digest`] with every node `x` named `r(x)`, for
    /// symmetry reduction: nothing here treats a node apart by its id
    /// (peers are every other node, in any order).
    pub(super) fn renamed_digest(&self, now: &Now, r: &dyn Fn(NodeId) -> NodeId) -> Option<u64> {
        if self.cfg.leases > 0 || self.cfg.swim_probe_ms > 0 {
            return None;
        }
        // Destructured, so that a field added to the node is a field
        // this digest must place.
        let Raft {
            id,
            cfg: _,
            term,
            vote,
            log,
            snapshot,
            role,
            reported,
            reported_tail,
            leader,
            last_leader_contact_ns,
            prevotes,
            votes,
            campaign_ticket,
            progress,
            pending_clients,
            commit,
            sm,
            applied,
            queue,
            apply_armed,
            last_ticket,
            synced_ticket,
            gated,
            unsynced_log,
            durable_index,
            unsynced_hard_state,
            read,
            hlc,
            leases,
            swim,
        } = self;
        if log.entries().iter().any(|e| e.lease.is_some()) {
            return None;
        }
        // Contact matters only within the minimum election timeout.
        let min = self.election_timeout_min_ns();
        let contact = last_leader_contact_ns.filter(|t| now.mono_ns.saturating_sub(*t) < min);
        let contact = contact.map(|t| now.mono_age(t, min));
        // Check-quorum counts answers no older than the maximum timeout.
        let max = self.election_timeout_max_ns();
        let progress = progress
            .iter()
            .map(
                |(
                    p,
                    Progress {
                        next,
                        matched,
                        last_heard_ns,
                    },
                )| (r(*p), (next, matched, now.mono_age(*last_heard_ns, max + 1))),
            )
            .collect::<BTreeMap<_, _>>();
        let mut held = Vec::with_capacity(gated.len());
        for Gated { ticket, to, msg } in gated {
            held.push((ticket, r(*to), msg.relative(now)?));
        }
        let set = |s: &BTreeSet<NodeId>| s.iter().map(|x| r(*x)).collect::<BTreeSet<_>>();
        let text = state_digest(&(
            (
                r(*id),
                term,
                vote.map(r),
                log,
                snapshot,
                role,
                reported,
                reported_tail,
                leader.map(r),
                contact,
            ),
            (
                set(prevotes),
                set(votes),
                campaign_ticket,
                progress,
                pending_clients,
                commit,
                sm,
                applied,
            ),
            (
                queue,
                apply_armed,
                last_ticket,
                synced_ticket,
                held,
                unsynced_log,
                durable_index,
            ),
            (
                unsynced_hard_state
                    .iter()
                    .map(|(t, term, v)| (t, term, v.map(r)))
                    .collect::<Vec<_>>(),
                read.relative(now, read_horizon_ns(self), r),
            ),
            (hlc.relative(now, r), leases, swim),
        ));
        Some(text)
    }
}

impl RaftMsg {
    /// The message with its instants as offsets from `now`; `None` for
    /// what carries a descriptor lease or gossip.
    pub(super) fn relative(&self, now: &Now) -> Option<RaftMsg> {
        let mut m = self.clone();
        match &mut m {
            RaftMsg::Append {
                entries, round, vouch, ..
            } => {
                if entries.iter().any(|e| e.lease.is_some()) {
                    return None;
                }
                *round = round_at(now, *round);
                if let Some(v) = vouch {
                    v.stamp_ns = now.mono_offset(v.stamp_ns) as u64;
                }
            }
            RaftMsg::AppendResp { round, stamp_ns, .. } => {
                *round = round_at(now, *round);
                *stamp_ns = now.mono_offset(*stamp_ns) as u64;
            }
            RaftMsg::Stamped { hlc, msg } => {
                hlc.wall_ns = now.wall_offset(hlc.wall_ns) as u64;
                **msg = msg.relative(now)?;
            }
            RaftMsg::LeaseRequest { .. } | RaftMsg::Swim { .. } => return None,
            _ => {}
        }
        Some(m)
    }
}
