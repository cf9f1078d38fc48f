//! Descriptor leases, granted through the Raft log.
//!
//! A node that sees no live grant for a descriptor proposes one for itself,
//! expiring `lease_ms` later on its own wall clock, and renews it before
//! then. Every grant names the grant it replaces (`base_seq`), so the state
//! machine applies it as a compare-and-set and every node agrees on who
//! holds what, whatever each node's clock said when the grant was applied.
//!
//! The holder uses its lease while its own wall clock is before the expiry,
//! and stops early after `lease_self_fence_ms` without leader contact. Any
//! other node counts a grant as live until the expiry plus MAX_CLOCK_SKEW on
//! its own wall clock, and only then may it propose to take over. If every
//! wall clock stays within MAX_CLOCK_SKEW / 2 of true time, the old holder's
//! clock has by then passed the expiry for good, even if clocks are stepped
//! back later; a clock further off (skew beyond the bound) breaks this.

use super::{Entry, Raft, RaftIo, RaftMsg, NS_PER_MS};
use serde::{Deserialize, Serialize};
use sim::{ModelEvent, NodeId, Role, TimerId};
use std::collections::BTreeMap;

/// Every `lease_ms / 5`: expire, fence, renew, or try to acquire.
pub const LEASE_TICK: TimerId = 16;

/// A grant as it travels through the log.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LeaseGrant {
    pub lease: u32,
    pub holder: NodeId,
    /// On the holder's own wall clock.
    pub expires_at_ns: u64,
    /// The sequence number of the grant this one replaces (0: none yet).
    pub base_seq: u64,
}

/// The grant a descriptor currently carries in the state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseRecord {
    /// How many grants this descriptor has had.
    pub seq: u64,
    pub holder: NodeId,
    pub expires_at_ns: u64,
}

/// Whether the holder may still use its lease when its clock reads `now_ns`.
pub fn usable_by_holder(expires_at_ns: u64, now_ns: u64) -> bool {
    now_ns < expires_at_ns
}

/// Whether a node other than the holder must still count the lease as
/// live when its own clock reads `now_ns`: `margin_ns` covers the holder's
/// clock running behind the reader's.
pub fn live_for_others(expires_at_ns: u64, now_ns: u64, margin_ns: u64) -> bool {
    now_ns < expires_at_ns.saturating_add(margin_ns)
}

#[derive(Clone, Debug, Default, Hash)]
pub(super) struct Leases {
    /// Descriptors this node is using now.
    held: BTreeMap<u32, Held>,
    /// Grants this node proposed and has not yet seen applied. Only a grant
    /// found here starts a holding, so a restarted node that re-applies its
    /// old grants from the log never takes them up again.
    pending: BTreeMap<u32, Pending>,
}

#[derive(Clone, Copy, Debug, Hash)]
struct Held {
    expires_at_ns: u64,
    /// Renewals still to propose before letting the lease lapse, so that
    /// descriptors change hands during a run.
    renewals_left: u64,
}

#[derive(Clone, Debug, Hash)]
struct Pending {
    grant: LeaseGrant,
    at_mono_ns: u64,
}

impl Raft {
    fn lease_ns(&self) -> u64 {
        self.cfg.lease_ms * NS_PER_MS
    }

    fn lease_tick_ns(&self) -> u64 {
        (self.lease_ns() / 5).max(1)
    }

    pub(super) fn lease_boot(&mut self, io: &mut RaftIo) {
        if self.cfg.leases > 0 {
            io.set_timer(LEASE_TICK, self.lease_tick_ns());
        }
    }

    /// Whether a grant held by another node (or by this one in an earlier
    /// life, or before it let it lapse) still blocks taking the descriptor.
    fn blocks(&self, r: &LeaseRecord, now_ns: u64) -> bool {
        // BUG(lease-expiry-no-skew-margin): a remote lease counts as expired
        // at its expiry on the reader's clock, though the holder's clock may
        // run behind it.
        let margin_ns = if self.cfg.bugs.lease_expiry_no_skew_margin {
            0
        } else {
            self.cfg.max_clock_skew_ms * NS_PER_MS
        };
        live_for_others(r.expires_at_ns, now_ns, margin_ns)
    }

    /// No leader heard for the self-fence window: this node cannot renew,
    /// and may be cut off from the nodes that will take over.
    fn fenced(&self, mono_ns: u64) -> bool {
        let window = self.cfg.lease_self_fence_ms * NS_PER_MS;
        self.role != Role::Leader
            && self
                .last_leader_contact_ns
                .is_none_or(|t| mono_ns.saturating_sub(t) >= window)
    }

    pub(super) fn on_lease_tick(&mut self, io: &mut RaftIo) {
        io.set_timer(LEASE_TICK, self.lease_tick_ns());
        let (now, mono, lease_ns) = (io.now_wall_ns(), io.now_mono_ns(), self.lease_ns());
        // A proposal lost on the way may be retried; if it commits after
        // all, nobody uses it and others wait it out like any grant.
        self.leases
            .pending
            .retain(|_, p| mono.saturating_sub(p.at_mono_ns) < lease_ns);
        let fenced = self.fenced(mono);
        let held: Vec<(u32, Held)> = self.leases.held.iter().map(|(l, h)| (*l, *h)).collect();
        for (lease, h) in held {
            if !usable_by_holder(h.expires_at_ns, now) {
                self.stop_lease(io, lease, "expired");
            } else if fenced {
                self.stop_lease(io, lease, "self-fence");
            } else if h.expires_at_ns - now < lease_ns / 2 && h.renewals_left > 0 {
                let Some(r) = self.sm.lease(lease) else { continue };
                // Renew only the grant we hold; anything else is not ours to replace.
                if r.holder == self.id && r.expires_at_ns == h.expires_at_ns {
                    self.propose_grant(io, lease, now + lease_ns, r.seq);
                }
            }
        }
        if fenced {
            return;
        }
        for lease in 0..self.cfg.leases {
            if self.leases.held.contains_key(&lease) {
                continue;
            }
            let record = self.sm.lease(lease);
            if record.is_some_and(|r| self.blocks(&r, now)) {
                continue;
            }
            self.propose_grant(io, lease, now + lease_ns, record.map_or(0, |r| r.seq));
        }
    }

    fn propose_grant(&mut self, io: &mut RaftIo, lease: u32, expires_at_ns: u64, base_seq: u64) {
        if self.leases.pending.contains_key(&lease) {
            return;
        }
        let grant = LeaseGrant {
            lease,
            holder: self.id,
            expires_at_ns,
            base_seq,
        };
        if self.role == Role::Leader {
            self.append_grant(io, grant.clone());
        } else if let Some(leader) = self.leader.filter(|l| *l != self.id) {
            io.send(leader, RaftMsg::LeaseRequest { grant: grant.clone() });
        } else {
            return;
        }
        let at_mono_ns = io.now_mono_ns();
        self.leases.pending.insert(lease, Pending { grant, at_mono_ns });
    }

    fn append_grant(&mut self, io: &mut RaftIo, grant: LeaseGrant) {
        let entry = Entry {
            index: self.log.last_index() + 1,
            term: self.term,
            op: None,
            req_id: None,
            lease: Some(grant),
        };
        self.append_local(io, entry);
        self.broadcast_append(io);
    }

    pub(super) fn on_lease_request(&mut self, io: &mut RaftIo, from: NodeId, grant: LeaseGrant) {
        if self.role == Role::Leader && grant.holder == from {
            self.append_grant(io, grant);
        }
    }

    /// Applies a committed grant on this node's state machine and, if it is
    /// this node's own pending proposal and it won, starts using it.
    pub(super) fn apply_grant(&mut self, io: &mut RaftIo, g: &LeaseGrant) {
        let before = self.sm.lease(g.lease);
        let won = self.sm.apply_lease(g);
        if g.holder != self.id || self.leases.pending.get(&g.lease).is_none_or(|p| p.grant != *g) {
            return;
        }
        self.leases.pending.remove(&g.lease);
        if !won || !usable_by_holder(g.expires_at_ns, io.now_wall_ns()) {
            return;
        }
        let renewals_left = match self.leases.held.get(&g.lease) {
            Some(h) => h.renewals_left.saturating_sub(1),
            None => {
                io.reached("lease-acquired");
                if before.is_some_and(|r| r.holder != self.id) {
                    io.reached("lease-handover");
                }
                io.random_range(0, 3)
            }
        };
        self.leases.held.insert(
            g.lease,
            Held {
                expires_at_ns: g.expires_at_ns,
                renewals_left,
            },
        );
        io.event(ModelEvent::LeaseStart {
            lease: g.lease,
            expires_at_ns: g.expires_at_ns,
        });
    }

    fn stop_lease(&mut self, io: &mut RaftIo, lease: u32, cause: &str) {
        if self.leases.held.remove(&lease).is_some() {
            io.event(ModelEvent::LeaseStop {
                lease,
                cause: cause.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_holder_uses_its_lease_strictly_before_expiry() {
        assert!(usable_by_holder(1_000 * MS, 999 * MS));
        assert!(!usable_by_holder(1_000 * MS, 1_000 * MS));
    }

    #[test]
    fn others_count_a_lease_live_until_expiry_plus_the_skew_bound() {
        let (expires, bound) = (1_000 * MS, 5_000 * MS);
        assert!(live_for_others(expires, 1_000 * MS, bound));
        assert!(live_for_others(expires, 5_999 * MS, bound));
        assert!(!live_for_others(expires, 6_000 * MS, bound));
        // Without the margin a reader whose clock runs ahead of the
        // holder's takes over while the holder still uses the lease.
        let holder_clock = 900 * MS;
        let reader_clock = holder_clock + 200 * MS;
        assert!(usable_by_holder(expires, holder_clock));
        assert!(!live_for_others(expires, reader_clock, 0));
        assert!(live_for_others(expires, reader_clock, bound));
    }

    #[test]
    fn the_margin_saturates_instead_of_wrapping() {
        assert!(live_for_others(u64::MAX - 1, u64::MAX - 1, 5_000 * MS));
    }
}
