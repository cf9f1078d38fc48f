//! The leader's loop: one write at a time, each replicated to a majority
//! before it is acknowledged, and a heartbeat (the same state again) when
//! no write comes; every round a majority acknowledges renews the lease.

use crate::node::{Node, Write};
use crate::proto::ReplicateRequest;
use sim::Role;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::{sleep, Instant};

impl Node {
    pub async fn lead(self: Arc<Self>, term: u64, mut writes: mpsc::Receiver<Write>) {
        let beat = std::time::Duration::from_millis(self.cfg.heartbeat_ms);
        // The first round at once: it commits the state this term
        // starts from and makes the followers promise.
        let mut write: Option<Write> = None;
        loop {
            let pending = {
                let mut l = self.lock();
                if l.role != Role::Leader || l.d.term != term {
                    return;
                }
                write.map(|w| {
                    let result = sim::apply_to_map(&mut l.d.held.map, &w.op);
                    l.d.held.seq += 1;
                    (w, result, l.d.held.stamp())
                })
            };
            if pending.is_some() && !self.persist().await {
                return;
            }
            self.round(term).await;
            if let Some((w, result, stamp)) = pending {
                let l = self.lock();
                let committed = l.committed.as_ref().is_some_and(|c| c.stamp() >= stamp);
                drop(l);
                // A write not on a majority may still take effect: dropping
                // its sender tells the client "unknown".
                if committed {
                    self.ctx.reached("write-committed");
                    let _ = w.done.send(result);
                }
            }
            write = tokio::select! {
                w = writes.recv() => w,
                _ = sleep(beat) => None,
            };
        }
    }

    /// Sends the current state to every peer; if a majority (this node
    /// among them) holds it, it is committed and the lease runs from when
    /// it was sent.
    async fn round(&self, term: u64) {
        let (sent, sent_at) = {
            let mut l = self.lock();
            if l.role != Role::Leader || l.d.term != term {
                return;
            }
            let now = Instant::now();
            l.promise_until = l.promise_until.max(now + self.cfg.promise());
            (l.d.held.clone(), now)
        };
        let q = ReplicateRequest {
            term,
            leader: self.me,
            state: Some(sent.to_wire()),
        };
        let mut calls = self.call_all(|mut c| {
            let q = q.clone();
            async move { c.replicate(q).await }
        });
        let mut acks = 1;
        while acks < self.majority() {
            let Some(answer) = self.next_answer(&mut calls).await else {
                break;
            };
            let Some(reply) = answer else { continue };
            if reply.term > term {
                let mut l = self.lock();
                self.adopt_term(&mut l, reply.term);
                return;
            }
            if reply.ok {
                acks += 1;
            }
        }
        if acks < self.majority() {
            return;
        }
        let mut l = self.lock();
        if l.role != Role::Leader || l.d.term != term {
            return;
        }
        if l.committed.as_ref().is_none_or(|c| c.stamp() < sent.stamp()) {
            l.committed = Some(sent);
        }
        l.lease_until = Some(sent_at + self.cfg.lease(self.bugs.lease_ignores_drift));
    }
}
