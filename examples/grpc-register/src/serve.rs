//! The node's answers to its peers' two calls.

use crate::node::Node;
use crate::proto::{ReplicateReply, ReplicateRequest, VoteReply, VoteRequest};
use crate::rpc::{Peer, Reply};
use crate::state::Held;
use sim::Role;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

impl Peer for Node {
    fn vote(self: Arc<Self>, q: VoteRequest) -> Reply<VoteReply> {
        Box::pin(async move { self.on_vote(q).await })
    }

    fn replicate(self: Arc<Self>, q: ReplicateRequest) -> Reply<ReplicateReply> {
        Box::pin(async move { self.on_replicate(q).await })
    }
}

impl Node {
    /// Grants at most one vote a term, and none while a promise holds; a
    /// vote carries the voter's newest state, saved before it is given. A
    /// pre-vote only says whether the vote would be granted.
    async fn on_vote(&self, q: VoteRequest) -> VoteReply {
        let deny = |term| VoteReply {
            granted: false,
            term,
            state: None,
        };
        {
            let mut l = self.lock();
            let now = Instant::now();
            if q.term < l.d.term {
                return deny(l.d.term);
            }
            if now < l.promise_until {
                self.ctx.reached("promise-kept");
                return deny(l.d.term);
            }
            if q.pre {
                // A node that still hears its leader keeps it: a peer cut
                // off from the leader cannot depose it by campaigning.
                let quiet = Duration::from_millis(self.cfg.election_ms_min);
                let keeps = l.role == Role::Leader || (l.leader.is_some() && now.duration_since(l.heard) < quiet);
                return VoteReply {
                    granted: !keeps,
                    term: l.d.term,
                    state: None,
                };
            }
            self.adopt_term(&mut l, q.term);
            if l.d.voted_for.is_some_and(|v| v != q.candidate) {
                return deny(l.d.term);
            }
            l.d.voted_for = Some(q.candidate);
            l.heard = now;
        }
        if !self.persist().await {
            return deny(q.term);
        }
        let l = self.lock();
        if l.d.term != q.term {
            return deny(l.d.term);
        }
        VoteReply {
            granted: true,
            term: q.term,
            state: Some(l.d.held.to_wire()),
        }
    }

    /// Takes the leader's state if it is newer than its own, promises the
    /// leader its vote for a while, and acknowledges once the state is
    /// saved.
    async fn on_replicate(&self, q: ReplicateRequest) -> ReplicateReply {
        let held = match q.state.as_ref().map(Held::from_wire) {
            Some(Ok(h)) => h,
            _ => {
                return ReplicateReply {
                    ok: false,
                    term: q.term,
                }
            }
        };
        let changed = {
            let mut l = self.lock();
            if q.term < l.d.term {
                return ReplicateReply {
                    ok: false,
                    term: l.d.term,
                };
            }
            let newer_term = q.term > l.d.term;
            self.adopt_term(&mut l, q.term);
            if l.role != Role::Follower {
                self.step_down(&mut l);
            }
            let now = Instant::now();
            l.leader = Some(q.leader);
            l.heard = now;
            l.promise_until = l.promise_until.max(now + self.cfg.promise());
            let newer_state = held.stamp() > l.d.held.stamp();
            if newer_state {
                l.d.held = held;
            }
            newer_term || newer_state
        };
        let ok = !changed || self.persist().await;
        ReplicateReply { ok, term: q.term }
    }
}
