//! openraft's state machine: the key-value map, kept in memory and made
//! durable by its snapshots (openraft's "persistent snapshot" choice: at
//! boot the node rebuilds from its last snapshot and openraft applies the
//! rest of the log again).

use super::msg::{supersedes, Rec, Recovered, StoredSnapshot};
use super::openraft;
use super::store::{io_error, NodeCtx};
use super::TypeConfig;
use openraft::storage::{RaftSnapshotBuilder, RaftStateMachine, Snapshot};
use openraft::{
    Entry, EntryPayload, LogId, OptionalSend, SnapshotMeta, StorageError, StorageIOError, StoredMembership,
};
use serde::{Deserialize, Serialize};
use sim::hash::stable_hash;
use sim::{apply_to_map, KvMap, KvResult, ModelEvent};
use std::io::Cursor;
use std::sync::{Arc, Mutex};

#[derive(Default, Serialize, Deserialize)]
struct SmData {
    map: KvMap,
    applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, openraft::BasicNode>,
}

struct Shared {
    data: SmData,
    /// The last snapshot built or installed, with its bytes.
    snapshot: Option<StoredSnapshot>,
    built: u64,
}

/// The state machine; clones share it (the snapshot builder, and the node
/// that serves reads from it).
#[derive(Clone)]
pub struct StateMachine {
    ctx: NodeCtx,
    shared: Arc<Mutex<Shared>>,
}

fn decode(bytes: &[u8]) -> Result<SmData, serde_json::Error> {
    serde_json::from_slice(bytes)
}

impl StateMachine {
    /// The state machine as the last durable snapshot left it.
    pub fn new(ctx: NodeCtx, r: &Recovered) -> Result<StateMachine, String> {
        let data = match &r.snapshot {
            Some((_, bytes)) => decode(bytes).map_err(|e| format!("a snapshot on disk does not decode: {e}"))?,
            None => SmData::default(),
        };
        let sm = StateMachine {
            ctx,
            shared: Arc::new(Mutex::new(Shared {
                data,
                snapshot: r.snapshot.clone(),
                built: 0,
            })),
        };
        sm.report_reset();
        Ok(sm)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .expect("one thread: never poisoned but by a panic, which ends the run")
    }

    /// The value of `key` as applied so far.
    pub fn get(&self, key: u32) -> Vec<u64> {
        self.lock().data.map.get(&key).cloned().unwrap_or_default()
    }

    fn report_reset(&self) {
        let (applied, digest) = {
            let s = self.lock();
            (
                s.data.applied.map_or(0, |l| super::position(l.index)),
                stable_hash(&s.data.map),
            )
        };
        self.ctx.event(ModelEvent::SmReset { applied, digest });
    }

    /// Makes a snapshot durable, then keeps it as the current one, unless
    /// one at least as new is current (see [`supersedes`]).
    async fn persist(
        &self,
        meta: SnapshotMeta<u64, openraft::BasicNode>,
        bytes: Vec<u8>,
    ) -> Result<(), StorageError<u64>> {
        if !supersedes(self.lock().snapshot.as_ref(), &meta) {
            return Ok(());
        }
        let fail =
            |e: sim::DiskError| StorageError::from(StorageIOError::write_snapshot(Some(meta.signature()), io_error(e)));
        self.ctx
            .append(Rec::Snapshot(meta.clone(), bytes.clone()))
            .map_err(fail)?;
        self.ctx.fsync().await.map_err(fail)?;
        if let Some(last) = meta.last_log_id {
            self.ctx.emit(&crate::quorum::DiskEvent::LogDurable {
                last: super::position(last.index),
                boot: false,
            });
        }
        // An install may have finished while this one waited for its fsync.
        let mut s = self.lock();
        if supersedes(s.snapshot.as_ref(), &meta) {
            s.snapshot = Some((meta, bytes));
        }
        Ok(())
    }
}

impl RaftSnapshotBuilder<TypeConfig> for StateMachine {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, StorageError<u64>> {
        let (meta, bytes) = {
            let mut s = self.lock();
            s.built += 1;
            let bytes = serde_json::to_vec(&s.data).expect("a state machine serializes");
            let last = s.data.applied;
            let id = match last {
                Some(l) => format!("{}-{}-{}", l.leader_id.term, l.index, s.built),
                None => format!("empty-{}", s.built),
            };
            let meta = SnapshotMeta {
                last_log_id: last,
                last_membership: s.data.membership.clone(),
                snapshot_id: id,
            };
            (meta, bytes)
        };
        self.persist(meta.clone(), bytes.clone()).await?;
        self.ctx.reached("snapshot-built");
        Ok(Snapshot {
            meta,
            snapshot: Box::new(Cursor::new(bytes)),
        })
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = StateMachine;

    async fn applied_state(
        &mut self,
    ) -> Result<(Option<LogId<u64>>, StoredMembership<u64, openraft::BasicNode>), StorageError<u64>> {
        let s = self.lock();
        Ok((s.data.applied, s.data.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<KvResult>, StorageError<u64>>
    where
        I: IntoIterator<Item = Entry<TypeConfig>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let mut out = Vec::new();
        for e in entries {
            let (result, digest) = {
                let mut s = self.lock();
                s.data.applied = Some(e.log_id);
                let result = match e.payload {
                    EntryPayload::Normal(req) => apply_to_map(&mut s.data.map, &req.op),
                    EntryPayload::Membership(m) => {
                        s.data.membership = StoredMembership::new(Some(e.log_id), m);
                        KvResult::Done
                    }
                    EntryPayload::Blank => KvResult::Done,
                };
                (result, stable_hash(&s.data.map))
            };
            self.ctx.event(ModelEvent::Apply {
                index: super::position(e.log_id.index),
                term: e.log_id.leader_id.term,
                digest,
            });
            out.push(result);
        }
        Ok(out)
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        self.clone()
    }

    async fn begin_receiving_snapshot(&mut self) -> Result<Box<Cursor<Vec<u8>>>, StorageError<u64>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<u64, openraft::BasicNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<u64>> {
        let bytes = snapshot.into_inner();
        let data = decode(&bytes)
            .map_err(|e| StorageError::from(StorageIOError::read_snapshot(Some(meta.signature()), io_error(e))))?;
        self.persist(meta.clone(), bytes).await?;
        self.lock().data = data;
        self.report_reset();
        self.ctx.reached("snapshot-installed");
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot<TypeConfig>>, StorageError<u64>> {
        let s = self.lock();
        Ok(s.snapshot.as_ref().map(|(meta, bytes)| Snapshot {
            meta: meta.clone(),
            snapshot: Box::new(Cursor::new(bytes.clone())),
        }))
    }
}
