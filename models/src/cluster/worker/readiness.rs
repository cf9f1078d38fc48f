//! Readiness: a joined worker catches its shard's group up from the
//! catalog in batches before it takes part. Readiness gives up only on a
//! group that stops making progress: its deadline starts again whenever
//! the applied index advances, and a failure names the index it stuck at.

use super::{Worker, T_CATCHUP, T_READY};
use crate::cluster::events::ClusterEvent;
use crate::cluster::msg::Body;
use crate::cluster::{ClusterConfig, ClusterIo, MS};

impl Worker {
    /// Starts catching up after the first join; a group with nothing to
    /// catch up is ready at once.
    pub(super) fn start_readiness(&mut self, io: &mut ClusterIo) {
        if self.cfg.catchup_entries == 0 {
            return self.become_ready(io);
        }
        self.catchup_started_ns = io.now_mono_ns();
        io.set_timer(T_READY, self.cfg.readiness_stall_ms * MS);
        self.ask_entries(io);
    }

    fn ask_entries(&mut self, io: &mut ClusterIo) {
        let from = self.group_applied;
        self.send(io, ClusterConfig::CATALOG, Body::CatchUp { from });
        io.set_timer(T_CATCHUP, self.cfg.rpc_timeout_ms * MS);
    }

    pub(super) fn on_entries(&mut self, from: u64, to: u64, io: &mut ClusterIo) {
        if self.ready || from != self.group_applied || to <= from {
            return;
        }
        self.group_applied = to;
        io.emit(&ClusterEvent::GroupApplied { index: to });
        if !self.cfg.bugs.readiness_wall_deadline {
            io.set_timer(T_READY, self.cfg.readiness_stall_ms * MS);
        }
        // BUG(readiness-wall-deadline): without the reset above the
        // deadline runs from the start of the catch-up, so a group that
        // is slow but advancing is failed as if it were stuck.
        if to >= self.cfg.catchup_entries {
            io.cancel_timer(T_READY);
            io.cancel_timer(T_CATCHUP);
            if io.now_mono_ns() - self.catchup_started_ns > self.cfg.readiness_stall_ms * MS {
                io.reached("slow-catch-up");
            }
            return self.become_ready(io);
        }
        self.ask_entries(io);
    }

    pub(super) fn catchup_timeout(&mut self, io: &mut ClusterIo) {
        if !self.ready {
            self.ask_entries(io);
        }
    }

    pub(super) fn readiness_deadline(&mut self, io: &mut ClusterIo) {
        if self.ready {
            return;
        }
        let index = self.group_applied;
        io.emit(&ClusterEvent::ReadinessFailed { index });
        io.reached("readiness-failed");
        io.halt(&format!(
            "readiness: the group made no progress past applied index {index}"
        ));
    }

    fn become_ready(&mut self, io: &mut ClusterIo) {
        self.ready = true;
        if self.cfg.catchup_entries > 0 {
            io.emit(&ClusterEvent::Ready {
                index: self.group_applied,
            });
        }
        self.arm_plan(io);
        self.arm_query(io);
    }
}
