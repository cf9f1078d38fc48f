//! The catalog: descriptor versions and the cluster epoch, each made
//! durable on its disk before anyone hears of it (a stand-in for the
//! consensus group that would hold them), and the descriptor leases.

use super::events::ClusterEvent;
use super::msg::{Body, ClusterMsg};
use super::{ClusterConfig, ClusterIo, Rec, MS};
use sim::{NodeId, SyncTicket, TimerId};
use std::collections::BTreeMap;

const T_DDL: TimerId = 1;
const T_DRAIN: TimerId = 2;

struct Lease {
    holder: NodeId,
    /// On the catalog's clock, counted from the grant: the holder counts
    /// from its request, which came earlier, so it stops first.
    expires_ns: u64,
}

/// A DDL waiting for the leases on the version it supersedes.
struct Ddl {
    version: u64,
    /// Some lease was held when it began.
    waited: bool,
    writing: bool,
}

enum Durable {
    Version(u64),
    Epoch(u64),
}

pub struct Catalog {
    cfg: ClusterConfig,
    version: u64,
    epoch: u64,
    /// The highest epoch written, durable or not.
    epoch_written: u64,
    leases: BTreeMap<u64, Lease>,
    incarnations: BTreeMap<NodeId, u64>,
    ddl: Option<Ddl>,
    syncs: BTreeMap<SyncTicket, Durable>,
    /// Leases granted by an earlier incarnation are unknown: no DDL commits
    /// before they have all run out.
    quiet_until_ns: u64,
}

impl Catalog {
    pub fn new(cfg: ClusterConfig) -> Catalog {
        Catalog {
            cfg,
            version: 0,
            epoch: 0,
            epoch_written: 0,
            leases: BTreeMap::new(),
            incarnations: BTreeMap::new(),
            ddl: None,
            syncs: BTreeMap::new(),
            quiet_until_ns: 0,
        }
    }

    pub fn boot(&mut self, io: &mut ClusterIo) {
        let recs = match io.read_disk() {
            Ok(r) => r,
            Err(e) => return io.halt(&format!("catalog cannot read its disk: {e}")),
        };
        for r in recs {
            match *r {
                Rec::Version(v) => self.version = self.version.max(v),
                Rec::Epoch(e) => self.epoch = self.epoch.max(e),
                Rec::Incarnation(_) => {}
            }
        }
        self.epoch_written = self.epoch;
        if self.epoch > 0 {
            io.emit(&ClusterEvent::Epoch { epoch: self.epoch });
        }
        self.quiet_until_ns = io.now_mono_ns() + self.cfg.lease_ms * MS;
        self.arm_ddl(io);
    }

    fn arm_ddl(&mut self, io: &mut ClusterIo) {
        let mean = self.cfg.ddl_every_ms;
        let after = io.random_range(mean / 2, mean + mean / 2).max(1);
        io.set_timer(T_DDL, after * MS);
    }

    fn send(&self, io: &mut ClusterIo, to: NodeId, body: Body) {
        super::send(io, to, self.epoch, body);
    }

    fn broadcast_news(&self, io: &mut ClusterIo) {
        for w in self.cfg.workers() {
            self.send(io, w, Body::News { version: self.version });
        }
    }

    pub fn on_message(&mut self, from: NodeId, msg: ClusterMsg, io: &mut ClusterIo) {
        if msg.body.fenced() && msg.epoch < self.epoch {
            io.reached("stale-epoch-arrived");
            if !self.cfg.bugs.epoch_unchecked {
                if msg.body != Body::Stale {
                    self.send(io, from, Body::Stale);
                }
                return;
            }
            // BUG(epoch-unchecked): the header's epoch is not checked at
            // decode, so a request of an older epoch is served below.
        }
        match msg.body {
            Body::Join { incarnation } => {
                if self.incarnations.get(&from).is_some_and(|&n| n >= incarnation) {
                    return self.send(io, from, Body::News { version: self.version });
                }
                self.incarnations.insert(from, incarnation);
                // Its previous incarnation's leases died with it.
                self.leases.retain(|_, l| l.holder != from);
                let next = self.epoch_written + 1;
                if self.write(io, Rec::Epoch(next), Durable::Epoch(next)) {
                    self.epoch_written = next;
                }
            }
            Body::LeaseReq { plan, asked_ns } => {
                if self.ddl.is_some() {
                    return self.send(io, from, Body::LeaseBusy { plan });
                }
                let lease = io.random_u64();
                let expires_ns = io.now_mono_ns() + self.cfg.lease_ms * MS;
                self.leases.insert(
                    lease,
                    Lease {
                        holder: from,
                        expires_ns,
                    },
                );
                io.emit(&ClusterEvent::LeaseGranted {
                    holder: from,
                    lease,
                    version: self.version,
                    epoch: msg.epoch,
                });
                self.send(
                    io,
                    from,
                    Body::LeaseGrant {
                        plan,
                        lease,
                        version: self.version,
                        asked_ns,
                    },
                );
            }
            Body::CatchUp { from: at } => {
                let to = at.saturating_add(self.cfg.catchup_batch).min(self.cfg.catchup_entries);
                self.send(io, from, Body::Entries { from: at, to });
            }
            Body::Released { lease } => {
                self.leases.remove(&lease);
                self.drain(io);
            }
            _ => {}
        }
    }

    /// Appends `rec` and asks for it to be durable; false if the node halted.
    fn write(&mut self, io: &mut ClusterIo, rec: Rec, then: Durable) -> bool {
        if let Err(e) = io.disk_append(rec) {
            io.halt(&format!("catalog cannot write: {e}"));
            return false;
        }
        let t = io.fsync();
        self.syncs.insert(t, then);
        true
    }

    pub fn on_timer(&mut self, timer: TimerId, io: &mut ClusterIo) {
        match timer {
            T_DDL => {
                if self.ddl.is_none() {
                    self.ddl = Some(Ddl {
                        version: self.version + 1,
                        waited: !self.leases.is_empty(),
                        writing: false,
                    });
                    let holders: Vec<(u64, NodeId)> = self.leases.iter().map(|(&id, l)| (id, l.holder)).collect();
                    for (lease, holder) in holders {
                        self.send(io, holder, Body::Revoke { lease });
                    }
                    self.drain(io);
                }
                self.arm_ddl(io);
            }
            T_DRAIN => self.drain(io),
            _ => {}
        }
    }

    /// Commits the waiting DDL once no lease on the old version can still be in use.
    fn drain(&mut self, io: &mut ClusterIo) {
        let Some(ddl) = &self.ddl else { return };
        if ddl.writing {
            return;
        }
        let now = io.now_mono_ns();
        self.leases.retain(|_, l| l.expires_ns > now);
        if !self.leases.is_empty() || now < self.quiet_until_ns {
            return io.set_timer(T_DRAIN, self.cfg.tick_ms * MS);
        }
        let v = ddl.version;
        if self.write(io, Rec::Version(v), Durable::Version(v)) {
            self.ddl.as_mut().expect("ddl").writing = true;
        }
    }

    pub fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut ClusterIo) {
        match self.syncs.remove(&ticket) {
            Some(Durable::Version(v)) => {
                self.version = v;
                let ddl = self.ddl.take();
                io.emit(&ClusterEvent::DdlCommitted { version: v });
                if ddl.is_some_and(|d| d.waited) {
                    io.reached("ddl-during-lease");
                }
                self.broadcast_news(io);
            }
            Some(Durable::Epoch(e)) if e > self.epoch => {
                self.epoch = e;
                io.emit(&ClusterEvent::Epoch { epoch: e });
                self.broadcast_news(io);
            }
            _ => {}
        }
    }
}
