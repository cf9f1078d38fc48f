//! The journal node: partitions of records with a committed offset each,
//! written by producers that live here, fetched by the owners. It also hosts
//! the coordinator, as a Kafka broker hosts its group coordinator, so that
//! commits are fenced by the generation the coordinator handed out.

use super::config::SnapConfig;
use super::coordinator::Coordinator;
use super::events::SnapEvent;
use super::msg::{Record, SnapMsg};
use super::{chance, SnapIo, MS};
use sim::hash::debug_digest;
use sim::{NodeId, Now};

const PRODUCE: u64 = 2;

/// One partition: offsets start at 1, the record at offset o is `records[o - 1]`.
#[derive(Debug, Default)]
struct Partition {
    records: Vec<Record>,
    /// Every record below this is persisted (the next offset to resume at).
    committed: u64,
    /// Keys in play, which producers update or delete.
    live: Vec<u32>,
    /// Ids handed out to this partition's keys so far.
    next_key: u32,
}

#[derive(Debug)]
pub struct JournalNode {
    cfg: SnapConfig,
    parts: Vec<Partition>,
    coord: Coordinator,
}

impl JournalNode {
    pub fn new(cfg: SnapConfig) -> JournalNode {
        let parts = (0..cfg.partitions)
            .map(|_| Partition {
                committed: 1,
                ..Partition::default()
            })
            .collect();
        JournalNode {
            coord: Coordinator::new(cfg.clone()),
            cfg,
            parts,
        }
    }

    pub fn boot(&mut self, io: &mut SnapIo) {
        self.coord.boot(io);
        self.schedule_produce(io);
    }

    fn schedule_produce(&self, io: &mut SnapIo) {
        let gap = io.random_range(1, 2 * self.cfg.produce_every_ms);
        io.set_timer(PRODUCE, gap * MS);
    }

    pub fn on_timer(&mut self, timer: u64, io: &mut SnapIo) {
        if timer != PRODUCE {
            return self.coord.on_timer(timer, io);
        }
        if io.now_mono_ns() >= self.cfg.produce_ms * MS || self.produced_all() {
            return;
        }
        self.produce(io);
        // Past the last record no timer is armed: no draw is spent on a gap
        // never waited out, and without `records_max` nothing changes.
        if !self.produced_all() {
            self.schedule_produce(io);
        }
    }

    /// Whether the producers appended the `records_max` records they may.
    fn produced_all(&self) -> bool {
        let max = self.cfg.records_max;
        max > 0 && self.parts.iter().map(|p| p.records.len() as u64).sum::<u64>() >= max
    }

    /// Appends one record: a new key while fewer than `keys_per_partition`
    /// are in play, else an update or a delete of one of them.
    fn produce(&mut self, io: &mut SnapIo) {
        // What a producer appends is the environment's doing: each
        // decision is one `dst explore` may take every way (`Io::choice`);
        // a sampled run takes it as drawn.
        let n = self.cfg.partitions;
        let drawn = io.random_range(0, n as u64 - 1) as u32;
        let partition = io.choice(drawn, n);
        let payload = io.random_u64();
        let p = &mut self.parts[partition as usize];
        let (key, update) = if (p.live.len() as u32) < self.cfg.keys_per_partition {
            let key = p.next_key * n + partition;
            p.next_key += 1;
            p.live.push(key);
            (key, Some(payload))
        } else {
            let live = p.live.len() as u32;
            let drawn = io.random_range(0, live as u64 - 1) as u32;
            let i = io.choice(drawn, live) as usize;
            let key = p.live[i];
            let q = self.cfg.delete_probability;
            let drawn = chance(io, q);
            // A delete only where the scenario has deletes, and an update
            // only where not every record deletes.
            let delete = match q > 0.0 && q < 1.0 {
                true => io.choice(drawn as u32, 2) == 1,
                false => drawn,
            };
            if delete {
                if self.cfg.fresh_keys {
                    p.live.swap_remove(i);
                }
                (key, None)
            } else {
                (key, Some(payload))
            }
        };
        let offset = p.records.len() as u64 + 1;
        p.records.push(Record { key, offset, update });
        io.emit(&SnapEvent::JournalAppend {
            partition,
            key,
            offset,
            update,
        });
    }

    pub fn on_message(&mut self, from: NodeId, msg: SnapMsg, io: &mut SnapIo) {
        match msg {
            SnapMsg::Join { partition, generation } if self.known(partition) => {
                let current = self.coord.generation(partition);
                let p = &self.parts[partition as usize];
                let reply = if generation == current {
                    SnapMsg::Joined {
                        partition,
                        generation,
                        committed: p.committed,
                    }
                } else {
                    SnapMsg::Fenced {
                        partition,
                        generation: current,
                    }
                };
                io.send(from, reply);
            }
            SnapMsg::Fetch {
                partition,
                from: at,
                max,
            } if self.known(partition) => {
                // Fetches are not fenced, as in Kafka: a stale owner reads on.
                let records = &self.parts[partition as usize].records;
                let lo = (at.max(1) - 1) as usize;
                let hi = (lo + max as usize).min(records.len());
                let records = records.get(lo..hi).unwrap_or(&[]).to_vec();
                io.send(
                    from,
                    SnapMsg::Records {
                        partition,
                        from: at,
                        records,
                    },
                );
            }
            SnapMsg::Commit {
                partition,
                generation,
                offset,
            } if self.known(partition) => {
                let ok = generation == self.coord.generation(partition);
                let p = &mut self.parts[partition as usize];
                if ok && offset > p.committed {
                    p.committed = offset;
                    io.emit(&SnapEvent::JournalCommit {
                        partition,
                        offset,
                        generation,
                    });
                }
                io.send(
                    from,
                    SnapMsg::CommitResp {
                        partition,
                        generation,
                        ok,
                    },
                );
            }
            SnapMsg::Heartbeat => self.coord.on_heartbeat(from, io),
            _ => {}
        }
    }

    fn known(&self, partition: u32) -> bool {
        partition < self.cfg.partitions
    }

    /// See `super::digest`.
    pub fn digest_at(&self, now: &Now) -> u64 {
        let JournalNode { cfg, parts, coord } = self;
        let parts: Vec<_> = parts
            .iter()
            .map(
                |Partition {
                     records,
                     committed,
                     live,
                     next_key,
                 }| (records, committed, live, next_key),
            )
            .collect();
        // Once the producers appended all they may and no rebalance is
        // scheduled, nothing reads `produce_ms` again.
        let running = !self.produced_all() || cfg.rebalance_every_ms > 0;
        let stop_ns = if running {
            now.mono_until(cfg.produce_ms * MS)
        } else {
            0
        };
        debug_digest(&(parts, stop_ns, coord.digest_at(now)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal whose producers appended `records` records.
    fn journal(records_max: u64, rebalance_every_ms: u64, records: u64) -> JournalNode {
        let cfg = SnapConfig {
            records_max,
            rebalance_every_ms,
            ..SnapConfig::default()
        };
        let mut j = JournalNode::new(cfg);
        for offset in 1..=records {
            j.parts[0].records.push(Record {
                key: 0,
                offset,
                update: Some(offset),
            });
        }
        j
    }

    fn at(ns: u64) -> Now {
        Now {
            mono_ns: ns,
            wall_ns: ns,
        }
    }

    #[test]
    fn the_time_left_to_produce_counts_only_while_something_may_still_run() {
        let (t1, t2) = (1_000 * MS, 2_000 * MS);
        let alike = |j: &JournalNode| j.digest_at(&at(t1)) == j.digest_at(&at(t2));
        assert!(alike(&journal(4, 0, 4)), "the producers are done, no rebalance");
        assert!(!alike(&journal(4, 0, 3)), "one record to go");
        assert!(!alike(&journal(0, 0, 4)), "no limit");
        assert!(!alike(&journal(4, 1_500, 4)), "rebalances stop at produce_ms");
        assert!(journal(4, 0, 4).produced_all());
        assert!(!journal(0, 0, 4).produced_all());
    }
}
