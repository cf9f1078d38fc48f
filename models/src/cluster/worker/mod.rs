//! A worker: it boots at a fresh incarnation, joins the cluster, runs
//! plans as their coordinator (stamp at BEGIN, lease and dispatch at
//! COMMIT) and owns one shard, applying the writes dispatched to it.

mod gather;
mod readiness;
mod triggers;

use super::events::ClusterEvent;
use super::msg::{Body, ClusterMsg};
use super::{ClusterConfig, ClusterIo, Rec, MS};
use gather::Gather;
use sim::{DiskError, NodeId, SyncTicket, TimerId};
use std::collections::BTreeSet;
use triggers::Deferred;

const T_PLAN: TimerId = 1;
const T_COMMIT: TimerId = 2;
const T_DISPATCH: TimerId = 3;
const T_RPC: TimerId = 4;
const T_JOIN: TimerId = 5;
const T_QUERY: TimerId = 6;
const T_GATHER_DEADLINE: TimerId = 7;
const T_TRIGGERS: TimerId = 8;
const T_CATCHUP: TimerId = 9;
const T_READY: TimerId = 10;

/// Early revocations remembered; one plan waits for one grant at a time.
const REVOKED_EARLY_MAX: usize = 16;

struct Held {
    id: u64,
    version: u64,
    /// On this node's clock, counted from the request.
    valid_until_ns: u64,
    revoked: bool,
}

enum Phase {
    /// BEGIN is done; the transaction is open until its COMMIT.
    Open,
    Acquiring {
        asked_ns: u64,
    },
    Dispatching {
        lease: Held,
        targets: Vec<NodeId>,
        next: usize,
    },
}

struct Plan {
    id: u64,
    /// The descriptor version the plan was made against.
    stamped: u64,
    phase: Phase,
}

pub struct Worker {
    cfg: ClusterConfig,
    /// Known once it is durable; nothing runs before.
    incarnation: Option<u64>,
    boot: Option<(SyncTicket, u64)>,
    epoch: u64,
    /// The newest descriptor version this node has heard of.
    version: u64,
    plan: Option<Plan>,
    /// Leases revoked before their grant arrived (a reordered grant): the
    /// release already went out, so neither the grant nor a duplicate of
    /// it may be used.
    revoked_early: BTreeSet<u64>,
    /// Writes this node's shard has applied since it booted.
    applied: u64,
    gather: Option<Gather>,
    deferred: Deferred,
    /// Caught up and taking part in plans and queries.
    ready: bool,
    group_applied: u64,
    catchup_started_ns: u64,
}

impl Worker {
    pub fn new(cfg: ClusterConfig) -> Worker {
        Worker {
            cfg,
            incarnation: None,
            boot: None,
            epoch: 0,
            version: 0,
            plan: None,
            revoked_early: BTreeSet::new(),
            applied: 0,
            gather: None,
            deferred: Deferred::default(),
            ready: false,
            group_applied: 0,
            catchup_started_ns: 0,
        }
    }

    pub fn boot(&mut self, io: &mut ClusterIo) {
        let last = match io.read_disk() {
            Ok(recs) => recs.iter().rev().find_map(|r| match *r {
                Rec::Incarnation(n) => Some(n),
                _ => None,
            }),
            Err(e) => {
                io.reached("boot-read-failed");
                if e != DiskError::Read || !self.cfg.bugs.read_error_as_zero {
                    return io.halt(&format!("cannot read the disk at boot: {e}"));
                }
                // BUG(read-error-as-zero): an unreadable disk is taken for an
                // empty one, so the node starts over at incarnation 0.
                None
            }
        };
        let next = last.map_or(0, |n| n + 1);
        if let Err(e) = io.disk_append(Rec::Incarnation(next)) {
            return io.halt(&format!("cannot write the incarnation: {e}"));
        }
        self.boot = Some((io.fsync(), next));
    }

    fn send(&self, io: &mut ClusterIo, to: NodeId, body: Body) {
        crate::cluster::send(io, to, self.epoch, body);
    }

    pub fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut ClusterIo) {
        let Some((t, n)) = self.boot else { return };
        if t != ticket {
            return;
        }
        self.boot = None;
        self.incarnation = Some(n);
        io.emit(&ClusterEvent::Booted { incarnation: n });
        if n > 0 {
            io.reached("restart");
        }
        self.join(io);
    }

    fn join(&mut self, io: &mut ClusterIo) {
        if let Some(incarnation) = self.incarnation {
            self.send(io, ClusterConfig::CATALOG, Body::Join { incarnation });
            io.set_timer(T_JOIN, self.cfg.rpc_timeout_ms * MS);
        }
    }

    fn arm_plan(&mut self, io: &mut ClusterIo) {
        let mean = self.cfg.plan_every_ms;
        let after = io.random_range(mean / 2, mean + mean / 2).max(1);
        io.set_timer(T_PLAN, after * MS);
    }

    pub fn on_message(&mut self, from: NodeId, msg: ClusterMsg, io: &mut ClusterIo) {
        if self.incarnation.is_none() {
            return;
        }
        if msg.body.fenced() && msg.epoch < self.epoch {
            io.reached("stale-epoch-arrived");
            if !self.cfg.bugs.epoch_unchecked {
                return self.send(io, from, Body::Stale);
            }
            // BUG(epoch-unchecked): the header's epoch is not checked at
            // decode, so a message of an older epoch changes state below.
        }
        if msg.epoch > self.epoch {
            let joined = self.epoch == 0;
            self.epoch = msg.epoch;
            io.emit(&ClusterEvent::Epoch { epoch: msg.epoch });
            if joined {
                io.cancel_timer(T_JOIN);
                self.start_readiness(io);
            }
        }
        match msg.body {
            Body::News { version } => self.version = self.version.max(version),
            Body::Stale => {
                if let Some(Plan {
                    id,
                    phase: Phase::Acquiring { .. },
                    ..
                }) = self.plan
                {
                    self.ask_lease(id, io);
                }
            }
            Body::LeaseGrant {
                plan,
                lease,
                version,
                asked_ns,
            } => self.granted(plan, lease, version, asked_ns, msg.epoch, io),
            Body::LeaseBusy { plan } if self.plan.as_ref().is_some_and(|p| p.id == plan) => {
                io.cancel_timer(T_RPC);
                io.set_timer(T_COMMIT, self.cfg.tick_ms * MS);
            }
            Body::Revoke { lease } => {
                if let Some(Plan {
                    phase:
                        Phase::Dispatching {
                            lease: held,
                            targets,
                            next,
                        },
                    ..
                }) = &mut self.plan
                {
                    if held.id == lease {
                        held.revoked = true;
                        if *next < targets.len() {
                            io.reached("revoke-mid-dispatch");
                        }
                    }
                } else if matches!(
                    self.plan,
                    Some(Plan {
                        phase: Phase::Acquiring { .. },
                        ..
                    })
                ) {
                    if self.revoked_early.len() >= REVOKED_EARLY_MAX {
                        self.revoked_early.pop_first();
                    }
                    self.revoked_early.insert(lease);
                }
                self.send(io, from, Body::Released { lease });
            }
            Body::Dispatch { plan, version } => {
                self.applied += 1;
                io.emit(&ClusterEvent::Applied {
                    plan,
                    version,
                    epoch: msg.epoch,
                });
                self.source_write(None, 0, io);
            }
            Body::Query { query } => self.answer_query(from, query, io),
            Body::Entries { from, to } => self.on_entries(from, to, io),
            Body::Partial { query, count } => self.partial(from, query, count, io),
            _ => {}
        }
    }

    fn ask_lease(&mut self, plan: u64, io: &mut ClusterIo) {
        let asked_ns = io.now_mono_ns();
        if let Some(p) = &mut self.plan {
            p.phase = Phase::Acquiring { asked_ns };
        }
        self.send(io, ClusterConfig::CATALOG, Body::LeaseReq { plan, asked_ns });
        io.set_timer(T_RPC, self.cfg.rpc_timeout_ms * MS);
    }

    /// A grant answers the request asked at `asked_ns`, which may be an
    /// earlier one than the plan's latest (a retry after a timeout or a
    /// stale epoch): the lease is dated from the request it answers. Dated
    /// from the latest, a grant the catalog gave before a pause would look
    /// fresh after it, while the catalog had let it expire and moved the
    /// descriptor on.
    fn granted(&mut self, plan: u64, lease: u64, version: u64, asked_ns: u64, epoch: u64, io: &mut ClusterIo) {
        let Some(p) = &mut self.plan else {
            return self.send(io, ClusterConfig::CATALOG, Body::Released { lease });
        };
        let asked_ns = match &p.phase {
            Phase::Acquiring { asked_ns: latest } => asked_ns.min(*latest),
            // A duplicate of the grant in use.
            Phase::Dispatching { lease: held, .. } if held.id == lease => return,
            _ => return self.send(io, ClusterConfig::CATALOG, Body::Released { lease }),
        };
        if p.id != plan || self.revoked_early.contains(&lease) {
            return self.send(io, ClusterConfig::CATALOG, Body::Released { lease });
        }
        io.cancel_timer(T_RPC);
        io.emit(&ClusterEvent::LeaseHeld {
            plan,
            lease,
            version,
            epoch,
        });
        self.version = self.version.max(version);
        let stamped = p.stamped;
        let valid_until_ns = asked_ns + (self.cfg.lease_ms - self.cfg.lease_margin_ms) * MS;
        let mut targets: Vec<NodeId> = self.cfg.workers().collect();
        let want = (self.cfg.shards_per_plan as usize).min(targets.len());
        for i in 0..want {
            let j = i + io.random_range(0, (targets.len() - 1 - i) as u64) as usize;
            targets.swap(i, j);
        }
        targets.truncate(want);
        p.phase = Phase::Dispatching {
            lease: Held {
                id: lease,
                version,
                valid_until_ns,
                revoked: false,
            },
            targets,
            next: 0,
        };
        if version != stamped {
            io.reached("ddl-during-transaction");
        }
        self.dispatch_next(io);
    }

    /// Why the plan must not dispatch now, if it must not.
    fn fence(&self, io: &ClusterIo) -> Option<&'static str> {
        let Plan {
            stamped,
            phase: Phase::Dispatching { lease, next, .. },
            ..
        } = self.plan.as_ref()?
        else {
            return None;
        };
        // BUG(fence-once): the fence runs before the first dispatch only,
        // so a DDL that commits mid-loop goes unseen by the rest.
        if self.cfg.bugs.fence_once && *next > 0 {
            return None;
        }
        // BUG(lease-after-ddl): the lease is taken at COMMIT, after the
        // plan was stamped; without this comparison a plan stamped before
        // a DDL dispatches against the version that DDL superseded.
        if lease.version != *stamped && !self.cfg.bugs.lease_after_ddl {
            return Some("the descriptor changed since the plan was made");
        }
        if lease.revoked {
            return Some("the descriptor lease was revoked");
        }
        if io.now_mono_ns() >= lease.valid_until_ns {
            return Some("the descriptor lease ran out");
        }
        None
    }

    fn dispatch_next(&mut self, io: &mut ClusterIo) {
        if let Some(reason) = self.fence(io) {
            return self.abort(reason, io);
        }
        let me = io.id();
        let epoch = self.epoch;
        let Some(Plan {
            id,
            stamped,
            phase: Phase::Dispatching { lease, targets, next },
        }) = &mut self.plan
        else {
            return;
        };
        let (plan, version, shard) = (*id, *stamped, targets[*next]);
        *next += 1;
        let done = *next == targets.len();
        let lease = lease.id;
        io.emit(&ClusterEvent::Dispatched { plan, shard, version });
        if shard == me {
            self.applied += 1;
            io.emit(&ClusterEvent::Applied { plan, version, epoch });
            self.source_write(None, 0, io);
        } else {
            self.send(io, shard, Body::Dispatch { plan, version });
        }
        if done {
            io.emit(&ClusterEvent::PlanDone { plan });
            io.reached("plan-committed");
            self.send(io, ClusterConfig::CATALOG, Body::Released { lease });
            self.plan = None;
            self.arm_plan(io);
        } else {
            let gap = io.random_range(1, self.cfg.dispatch_gap_ms);
            io.set_timer(T_DISPATCH, gap * MS);
        }
    }

    /// Gives the plan up with a retryable error, before any further write.
    fn abort(&mut self, reason: &str, io: &mut ClusterIo) {
        let Some(p) = self.plan.take() else { return };
        if let Phase::Dispatching { lease, .. } = &p.phase {
            self.send(io, ClusterConfig::CATALOG, Body::Released { lease: lease.id });
        }
        io.emit(&ClusterEvent::PlanAborted {
            plan: p.id,
            reason: reason.to_string(),
        });
        io.reached("plan-retried");
        for t in [T_COMMIT, T_DISPATCH, T_RPC] {
            io.cancel_timer(t);
        }
        self.arm_plan(io);
    }

    pub fn on_timer(&mut self, timer: TimerId, io: &mut ClusterIo) {
        match timer {
            T_JOIN => self.join(io),
            T_PLAN => {
                if self.plan.is_some() {
                    return;
                }
                let id = io.random_u64();
                self.plan = Some(Plan {
                    id,
                    stamped: self.version,
                    phase: Phase::Open,
                });
                io.emit(&ClusterEvent::PlanBegun {
                    plan: id,
                    version: self.version,
                });
                let hold = io.random_range(0, self.cfg.hold_ms_max);
                io.set_timer(T_COMMIT, hold * MS + 1);
            }
            T_COMMIT => {
                if let Some(id) = self.plan.as_ref().map(|p| p.id) {
                    self.ask_lease(id, io);
                }
            }
            T_RPC => {
                if matches!(
                    self.plan,
                    Some(Plan {
                        phase: Phase::Acquiring { .. },
                        ..
                    })
                ) {
                    self.abort("the lease request timed out", io);
                }
            }
            T_DISPATCH => self.dispatch_next(io),
            T_QUERY => self.start_query(io),
            T_GATHER_DEADLINE => self.gather_deadline(io),
            T_TRIGGERS => self.run_triggers(io),
            T_CATCHUP => self.catchup_timeout(io),
            T_READY => self.readiness_deadline(io),
            _ => {}
        }
    }
}
