//! Scatter-gather: a coordinator fans a query out to every shard and
//! answers within its deadline, either with the total over all of them or
//! with a typed error naming the shards that answered.

use super::{Worker, T_GATHER_DEADLINE, T_QUERY};
use crate::cluster::events::ClusterEvent;
use crate::cluster::msg::Body;
use crate::cluster::{ClusterIo, MS};
use sim::NodeId;
use std::collections::BTreeMap;

pub(super) struct Gather {
    id: u64,
    shards: Vec<NodeId>,
    parts: BTreeMap<NodeId, u64>,
}

impl Worker {
    pub(super) fn arm_query(&mut self, io: &mut ClusterIo) {
        let mean = self.cfg.query_every_ms;
        if mean == 0 {
            return;
        }
        let after = io.random_range(mean / 2, mean + mean / 2).max(1);
        io.set_timer(T_QUERY, after * MS);
    }

    pub(super) fn start_query(&mut self, io: &mut ClusterIo) {
        if self.gather.is_some() {
            // The one in flight has no answer yet; the next waits for it.
            return;
        }
        let id = io.random_u64();
        let shards: Vec<NodeId> = self.cfg.workers().collect();
        io.emit(&ClusterEvent::QueryBegun {
            query: id,
            shards: shards.clone(),
            deadline_ms: self.cfg.gather_deadline_ms,
        });
        self.gather = Some(Gather {
            id,
            shards: shards.clone(),
            parts: BTreeMap::new(),
        });
        if !self.cfg.bugs.gather_no_deadline {
            io.set_timer(T_GATHER_DEADLINE, self.cfg.gather_deadline_ms * MS);
        }
        // BUG(gather-no-deadline): without the timer above, a shard that
        // never answers leaves the query waiting forever.
        let me = io.id();
        for s in shards {
            if s == me {
                let count = self.applied;
                io.emit(&ClusterEvent::Partial { query: id, count });
                self.partial(me, id, count, io);
            } else {
                self.send(io, s, Body::Query { query: id });
            }
        }
    }

    pub(super) fn answer_query(&mut self, from: NodeId, query: u64, io: &mut ClusterIo) {
        let count = self.applied;
        io.emit(&ClusterEvent::Partial { query, count });
        self.send(io, from, Body::Partial { query, count });
    }

    pub(super) fn partial(&mut self, from: NodeId, query: u64, count: u64, io: &mut ClusterIo) {
        let Some(g) = &mut self.gather else { return };
        if g.id != query || !g.shards.contains(&from) {
            return;
        }
        // A duplicate keeps the first part.
        g.parts.entry(from).or_insert(count);
        if g.parts.len() == g.shards.len() {
            io.reached("gather-complete");
            self.answer(None, io);
        }
    }

    pub(super) fn gather_deadline(&mut self, io: &mut ClusterIo) {
        let Some(g) = &self.gather else { return };
        if g.parts.len() < g.shards.len() {
            io.reached("shard-failed-mid-gather");
        }
        if self.cfg.bugs.gather_partial {
            // BUG(gather-partial): the deadline returns what came in as if
            // it were the whole aggregate.
            return self.answer(None, io);
        }
        self.answer(Some("deadline passed before every shard answered".to_string()), io);
    }

    fn answer(&mut self, error: Option<String>, io: &mut ClusterIo) {
        let Some(g) = self.gather.take() else { return };
        io.cancel_timer(T_GATHER_DEADLINE);
        io.emit(&ClusterEvent::Answered {
            query: g.id,
            total: g.parts.values().sum(),
            answered: g.parts.keys().copied().collect(),
            error,
        });
        self.arm_query(io);
    }
}
