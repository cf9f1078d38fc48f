//! async-raft's storage on a dst disk. Every change is a record appended
//! to the node's disk and fsynced before the call returns, so what
//! async-raft has been told is stored survives a crash. The state machine
//! lives in memory and is made durable by snapshots (as async-raft's own
//! memstore does): a restarted node rebuilds it from its last snapshot and
//! async-raft applies the rest of its log again.

use crate::msg::{compact, delete, Msg, Rec, Recovered, SnapshotData};
use crate::{Request, Response};
use anyhow::{anyhow, Result};
use async_raft::raft::{Entry, EntryPayload, MembershipConfig};
use async_raft::storage::{CurrentSnapshotData, HardState, InitialState};
use async_raft::RaftStorage;
use sim::async_node::Ctx;
use sim::hash::stable_hash;
use sim::{apply_to_map, KvMap, KvResult, ModelEvent};
use std::collections::BTreeMap;
use std::io::Cursor;
use std::sync::{Mutex, MutexGuard};

pub type NodeCtx = Ctx<Msg, Rec>;

/// The state machine: the key-value map and the last index applied to it.
#[derive(Default)]
struct Sm {
    map: KvMap,
    applied: u64,
}

struct Inner {
    hard: Option<HardState>,
    log: BTreeMap<u64, Entry<Request>>,
    sm: Sm,
    snapshot: Option<SnapshotData>,
}

pub struct Store {
    ctx: NodeCtx,
    id: u64,
    inner: Mutex<Inner>,
}

/// async-raft's error for a disk that refused a write or an fsync: any
/// storage error shuts the node's Raft down, and the node then halts.
fn disk_error(e: sim::DiskError) -> anyhow::Error {
    anyhow!("the disk failed: {e}")
}

impl Store {
    pub fn new(ctx: NodeCtx, r: Recovered) -> Store {
        let sm = match &r.snapshot {
            Some(s) => Sm {
                map: s.map.clone(),
                applied: s.index,
            },
            None => Sm::default(),
        };
        ctx.event(ModelEvent::SmReset {
            applied: sm.applied,
            digest: stable_hash(&sm.map),
        });
        let store = Store {
            ctx,
            id: ctx.id() as u64,
            inner: Mutex::new(Inner {
                hard: r.hard,
                log: r.log,
                sm,
                snapshot: r.snapshot,
            }),
        };
        store.report_tail();
        store
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .expect("one thread: never poisoned but by a panic, which ends the run")
    }

    /// The value of `key` as applied so far.
    pub fn get(&self, key: u32) -> Vec<u64> {
        self.lock().sm.map.get(&key).cloned().unwrap_or_default()
    }

    /// Writes `rec` and waits until it is durable.
    async fn write(&self, rec: Rec) -> Result<()> {
        self.ctx.append(rec).map_err(disk_error)?;
        self.ctx.fsync().await.map_err(disk_error)
    }

    /// Tells the checkers where the log ends.
    fn report_tail(&self) {
        let tail = self.lock().log.values().next_back().map(|e| (e.index, e.term));
        if let Some((index, term)) = tail {
            self.ctx.event(ModelEvent::LogTail { index, term });
        }
    }

    /// Applies one entry's command. async-raft hands the state machine only
    /// the commands of normal entries; the entries between the last applied
    /// and this one that carry none (the blank entry a new leader appends,
    /// membership changes, snapshot pointers) are applied here as the
    /// no-ops they are, so the checkers see every index applied in order.
    /// A command entry in that gap was skipped, and stays unreported.
    fn apply(&self, index: u64, data: &Request) -> KvResult {
        let mut events = Vec::new();
        let result = {
            let mut g = self.lock();
            let g = &mut *g;
            while g.sm.applied + 1 < index {
                let next = g.sm.applied + 1;
                match g.log.get(&next) {
                    Some(e) if !matches!(e.payload, EntryPayload::Normal(_)) => {
                        g.sm.applied = next;
                        events.push(ModelEvent::Apply {
                            index: next,
                            term: e.term,
                            digest: stable_hash(&g.sm.map),
                        });
                    }
                    _ => break,
                }
            }
            let result = apply_to_map(&mut g.sm.map, &data.op);
            g.sm.applied = index;
            events.push(ModelEvent::Apply {
                index,
                term: g.log.get(&index).map_or(0, |e| e.term),
                digest: stable_hash(&g.sm.map),
            });
            result
        };
        for e in events {
            self.ctx.event(e);
        }
        result
    }

    fn snapshot_bytes(s: &SnapshotData) -> Result<Vec<u8>> {
        Ok(serde_json::to_vec(s)?)
    }

    fn current(s: &SnapshotData) -> Result<CurrentSnapshotData<Cursor<Vec<u8>>>> {
        Ok(CurrentSnapshotData {
            term: s.term,
            index: s.index,
            membership: s.membership.clone(),
            snapshot: Box::new(Cursor::new(Store::snapshot_bytes(s)?)),
        })
    }
}

/// The newest membership the log (or, before it, the snapshot) holds.
fn membership(log: &BTreeMap<u64, Entry<Request>>, through: u64) -> Option<MembershipConfig> {
    log.range(..=through).rev().find_map(|(_, e)| match &e.payload {
        EntryPayload::ConfigChange(c) => Some(c.membership.clone()),
        EntryPayload::SnapshotPointer(p) => Some(p.membership.clone()),
        _ => None,
    })
}

/// The store's errors are all fatal to async-raft; none is a shutdown of
/// its own kind.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

#[async_trait::async_trait]
impl RaftStorage<Request, Response> for Store {
    type Snapshot = Cursor<Vec<u8>>;
    type ShutdownError = Never;

    async fn get_membership_config(&self) -> Result<MembershipConfig> {
        let g = self.lock();
        Ok(membership(&g.log, u64::MAX)
            .or_else(|| g.snapshot.as_ref().map(|s| s.membership.clone()))
            .unwrap_or_else(|| MembershipConfig::new_initial(self.id)))
    }

    async fn get_initial_state(&self) -> Result<InitialState> {
        let membership = self.get_membership_config().await?;
        let g = self.lock();
        if g.hard.is_none() && g.log.is_empty() {
            return Ok(InitialState::new_initial(self.id));
        }
        let (last_log_index, last_log_term) = g.log.values().next_back().map_or((0, 0), |e| (e.index, e.term));
        Ok(InitialState {
            last_log_index,
            last_log_term,
            last_applied_log: g.sm.applied,
            hard_state: g.hard.clone().unwrap_or(HardState {
                current_term: 0,
                voted_for: None,
            }),
            membership,
        })
    }

    async fn save_hard_state(&self, hs: &HardState) -> Result<()> {
        self.write(Rec::Hard(hs.clone())).await?;
        self.lock().hard = Some(hs.clone());
        self.ctx.event(ModelEvent::HardState {
            term: hs.current_term,
            vote: hs.voted_for.map(|n| n as usize),
        });
        Ok(())
    }

    async fn get_log_entries(&self, start: u64, stop: u64) -> Result<Vec<Entry<Request>>> {
        if start >= stop {
            return Ok(Vec::new());
        }
        Ok(self.lock().log.range(start..stop).map(|(_, e)| e.clone()).collect())
    }

    async fn delete_logs_from(&self, start: u64, stop: Option<u64>) -> Result<()> {
        self.write(Rec::Delete { from: start, to: stop }).await?;
        delete(&mut self.lock().log, start, stop);
        self.ctx.reached("log-truncated");
        self.report_tail();
        Ok(())
    }

    async fn append_entry_to_log(&self, entry: &Entry<Request>) -> Result<()> {
        self.replicate_to_log(std::slice::from_ref(entry)).await
    }

    async fn replicate_to_log(&self, entries: &[Entry<Request>]) -> Result<()> {
        self.write(Rec::Entries(entries.to_vec())).await?;
        {
            let mut g = self.lock();
            for e in entries {
                g.log.insert(e.index, e.clone());
            }
        }
        self.report_tail();
        Ok(())
    }

    async fn apply_entry_to_state_machine(&self, index: &u64, data: &Request) -> Result<Response> {
        Ok(Response(self.apply(*index, data)))
    }

    async fn replicate_to_state_machine(&self, entries: &[(&u64, &Request)]) -> Result<()> {
        for (index, data) in entries {
            self.apply(**index, data);
        }
        Ok(())
    }

    async fn do_log_compaction(&self) -> Result<CurrentSnapshotData<Self::Snapshot>> {
        let data = {
            let g = self.lock();
            let index = g.sm.applied;
            let term = g
                .log
                .get(&index)
                .map(|e| e.term)
                .or_else(|| g.snapshot.as_ref().filter(|s| s.index == index).map(|s| s.term))
                .ok_or_else(|| anyhow!("the log no longer holds applied index {index}"))?;
            SnapshotData {
                index,
                term,
                membership: membership(&g.log, index)
                    .or_else(|| g.snapshot.as_ref().map(|s| s.membership.clone()))
                    .unwrap_or_else(|| MembershipConfig::new_initial(self.id)),
                map: g.sm.map.clone(),
            }
        };
        let through = Some(data.index);
        self.write(Rec::Snapshot {
            data: data.clone(),
            delete_through: through,
        })
        .await?;
        {
            let mut g = self.lock();
            compact(&mut g.log, &data, through);
            g.snapshot = Some(data.clone());
        }
        self.ctx.event(ModelEvent::Compact { index: data.index });
        self.ctx.reached("snapshot-built");
        Store::current(&data)
    }

    async fn create_snapshot(&self) -> Result<(String, Box<Self::Snapshot>)> {
        Ok((String::new(), Box::new(Cursor::new(Vec::new()))))
    }

    async fn finalize_snapshot_installation(
        &self,
        index: u64,
        term: u64,
        delete_through: Option<u64>,
        _id: String,
        snapshot: Box<Self::Snapshot>,
    ) -> Result<()> {
        let mut data: SnapshotData = serde_json::from_slice(snapshot.get_ref())
            .map_err(|e| anyhow!("an installed snapshot does not decode: {e}"))?;
        // What async-raft installs is what the leader's snapshot holds;
        // the index and term it names are its own.
        data.index = index;
        data.term = term;
        self.write(Rec::Snapshot {
            data: data.clone(),
            delete_through,
        })
        .await?;
        let digest = {
            let mut g = self.lock();
            compact(&mut g.log, &data, delete_through);
            g.sm = Sm {
                map: data.map.clone(),
                applied: index,
            };
            g.snapshot = Some(data);
            stable_hash(&g.sm.map)
        };
        self.ctx.event(ModelEvent::SmReset { applied: index, digest });
        self.ctx.reached("snapshot-installed");
        self.report_tail();
        Ok(())
    }

    async fn get_current_snapshot(&self) -> Result<Option<CurrentSnapshotData<Self::Snapshot>>> {
        let s = self.lock().snapshot.clone();
        s.as_ref().map(Store::current).transpose()
    }
}
