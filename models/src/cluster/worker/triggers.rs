//! Deferred triggers on the shard's source collection: each write fires
//! every trigger, whose action runs later as one block of statements,
//! retried on failure with a backoff and dead-lettered once its retries
//! are spent. Trigger 0 writes back to the collection it watches (a
//! cascade), bounded in depth.

use super::{Worker, T_TRIGGERS};
use crate::cluster::events::ClusterEvent;
use crate::cluster::{chance, ClusterIo, MS};
use std::collections::BTreeMap;

#[derive(Clone, Copy)]
pub(super) struct Action {
    write: u64,
    trigger: u32,
    /// How many trigger actions led to the write that fired this one.
    depth: u32,
    /// Failed runs so far.
    attempts: u32,
    /// Statements of the body that have landed (only ever non-zero with
    /// `partial-body`: the correct body lands as one block).
    landed: u32,
}

/// Actions waiting to run, by (ready time, sequence).
#[derive(Default)]
pub(super) struct Deferred {
    queue: BTreeMap<(u64, u64), Action>,
    seq: u64,
}

impl Worker {
    /// A write landed in the watched collection: fire every trigger on it.
    pub(super) fn source_write(&mut self, cause: Option<u64>, depth: u32, io: &mut ClusterIo) {
        if self.cfg.triggers == 0 {
            return;
        }
        let write = io.random_u64();
        io.emit(&ClusterEvent::SourceWrite { write, cause, depth });
        if cause.is_some() && depth >= self.cfg.cascade_depth_max && !self.cfg.bugs.self_cascade {
            io.reached("cascade-stopped");
            return;
        }
        for trigger in 0..self.cfg.triggers {
            io.emit(&ClusterEvent::TriggerFired { write, trigger });
            let a = Action {
                write,
                trigger,
                depth,
                attempts: 0,
                landed: 0,
            };
            self.defer(a, self.cfg.trigger_delay_ms, io);
        }
    }

    fn defer(&mut self, a: Action, after_ms: u64, io: &mut ClusterIo) {
        let d = &mut self.deferred;
        d.seq += 1;
        let at = io.now_mono_ns() + after_ms * MS;
        d.queue.insert((at, d.seq), a);
        let first = d.queue.keys().next().expect("queued").0;
        io.set_timer(T_TRIGGERS, first.saturating_sub(io.now_mono_ns()).max(1));
    }

    pub(super) fn run_triggers(&mut self, io: &mut ClusterIo) {
        let now = io.now_mono_ns();
        while let Some((&key, _)) = self.deferred.queue.first_key_value() {
            if key.0 > now {
                io.set_timer(T_TRIGGERS, key.0 - now);
                break;
            }
            let a = self.deferred.queue.remove(&key).expect("first");
            self.run_action(a, io);
        }
    }

    fn run_action(&mut self, mut a: Action, io: &mut ClusterIo) {
        let steps = self.cfg.trigger_steps;
        let mut failed_at = None;
        for step in a.landed..steps {
            if chance(io, self.cfg.trigger_fail_probability) {
                failed_at = Some(step);
                break;
            }
        }
        let (write, trigger) = (a.write, a.trigger);
        let Some(step) = failed_at else {
            for step in a.landed..steps {
                io.emit(&ClusterEvent::TriggerEffect { write, trigger, step });
            }
            io.emit(&ClusterEvent::TriggerDone { write, trigger, steps });
            if trigger == 0 && self.cfg.cascade {
                let depth = if self.cfg.bugs.self_cascade {
                    // BUG(self-cascade): the action's own write is not
                    // marked as caused by it, so it fires the trigger again
                    // as if it came from a client, forever.
                    0
                } else {
                    a.depth + 1
                };
                self.source_write(Some(write), depth, io);
            }
            return;
        };
        if self.cfg.bugs.partial_body {
            // BUG(partial-body): the statements before the failing one have
            // landed, and the retry runs the body again from its first.
            for s in a.landed..step {
                io.emit(&ClusterEvent::TriggerEffect {
                    write,
                    trigger,
                    step: s,
                });
            }
        }
        a.attempts += 1;
        io.emit(&ClusterEvent::TriggerFailed {
            write,
            trigger,
            step,
            attempt: a.attempts,
        });
        let siblings: Vec<(u64, u64)> = self
            .deferred
            .queue
            .iter()
            .filter(|(_, s)| s.write == write)
            .map(|(&k, _)| k)
            .collect();
        if !siblings.is_empty() {
            io.reached("sibling-failed");
            if self.cfg.bugs.failure_cancels_siblings {
                // BUG(failure-cancels-siblings): one action's failure drops
                // the other actions its write fired.
                for k in siblings {
                    self.deferred.queue.remove(&k);
                }
            }
        }
        if a.attempts > self.cfg.trigger_retries {
            io.reached("trigger-dead-lettered");
            io.emit(&ClusterEvent::DeadLettered { write, trigger });
            return;
        }
        io.reached("trigger-retried");
        let backoff = self.cfg.trigger_backoff_ms << (a.attempts - 1).min(10);
        if self.cfg.bugs.retry_refires_succeeded {
            // BUG(retry-refires-succeeded): the retry fires the write's
            // triggers again, those that already succeeded included.
            for t in 0..self.cfg.triggers {
                let b = Action {
                    trigger: t,
                    landed: 0,
                    ..a
                };
                self.defer(b, backoff, io);
            }
            return;
        }
        self.defer(a, backoff, io);
    }
}
