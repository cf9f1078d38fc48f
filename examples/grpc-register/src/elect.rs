//! Campaigns: a node that heard no leader for its election timeout asks
//! whether it would win (a pre-vote, which changes nothing), then asks for
//! votes in a new term; a majority's votes make it leader of the newest
//! state they hold.

use crate::node::Node;
use crate::proto::{Stamped, VoteRequest};
use crate::state::Held;
use sim::Role;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{sleep, Instant};

impl Node {
    pub async fn elections(self: Arc<Self>) {
        loop {
            let wait = Duration::from_millis(
                self.ctx
                    .random_range(self.cfg.election_ms_min, self.cfg.election_ms_max),
            );
            sleep(wait).await;
            let next = {
                let l = self.lock();
                let now = Instant::now();
                if l.role == Role::Leader || now.duration_since(l.heard) < wait || now < l.promise_until {
                    continue;
                }
                l.d.term + 1
            };
            if self.ask(next, true).await.is_none() {
                continue;
            }
            let term = {
                let mut l = self.lock();
                if l.role == Role::Leader || l.d.term + 1 != next {
                    continue;
                }
                l.d.term = next;
                l.d.voted_for = Some(self.me);
                l.role = Role::Candidate;
                l.leader = None;
                l.heard = Instant::now();
                self.report(&mut l);
                next
            };
            if !self.persist().await {
                continue;
            }
            if let Some(states) = self.ask(term, false).await {
                self.clone().win(term, states).await;
            }
        }
    }

    /// Asks every peer for its vote in `term`; the states of a majority's
    /// votes (this node's own among them), or `None`.
    async fn ask(&self, term: u64, pre: bool) -> Option<Vec<Stamped>> {
        let q = VoteRequest {
            term,
            candidate: self.me,
            pre,
        };
        let mut calls = self.call_all(|mut c| {
            let q = q.clone();
            async move { c.vote(q).await }
        });
        let mut votes = 1;
        let mut states: Vec<Stamped> = Vec::new();
        while votes < self.majority() {
            let Some(reply) = self.next_answer(&mut calls).await? else {
                continue;
            };
            if reply.term > term || (pre && reply.term >= term) {
                let mut l = self.lock();
                self.adopt_term(&mut l, reply.term);
                return None;
            }
            if reply.granted {
                votes += 1;
                states.extend(reply.state);
            }
        }
        Some(states)
    }

    /// Leads `term` from the newest state among the voters, which holds
    /// every committed one; stamped anew with this term, no state of an
    /// older term can ever look newer than it.
    async fn win(self: Arc<Self>, term: u64, states: Vec<Stamped>) {
        {
            let mut l = self.lock();
            if l.d.term != term || l.role != Role::Candidate {
                return;
            }
            let mut best = l.d.held.clone();
            for s in &states {
                if let Ok(h) = Held::from_wire(s) {
                    if h.stamp() > best.stamp() {
                        best = h;
                    }
                }
            }
            best.wterm = term;
            best.seq += 1;
            l.d.held = best;
        }
        if !self.persist().await {
            return;
        }
        let mut l = self.lock();
        if l.d.term != term || l.role != Role::Candidate {
            return;
        }
        l.role = Role::Leader;
        l.leader = Some(self.me);
        let (writes, queue) = tokio::sync::mpsc::channel(64);
        l.writes = Some(writes);
        self.report(&mut l);
        tokio::spawn(self.clone().lead(term, queue));
    }
}
