//! openraft's log store on a dst disk. Every change is a record appended
//! to the node's disk; what must be durable before openraft may count on
//! it (a vote before `save_vote` returns, entries before the `append`
//! callback) waits for an fsync, as openraft's storage contract says.

use super::msg::{Rec, Recovered};
use super::openraft;
use super::{Msg, TypeConfig};
use crate::config::{LogReads, OpenraftConfig};
use crate::quorum::DiskEvent;
use openraft::storage::{LogFlushed, LogState, RaftLogReader, RaftLogStorage};
use openraft::{AnyError, Entry, LogId, OptionalSend, StorageError, StorageIOError, Vote};
use sim::async_node::Ctx;
use sim::ModelEvent;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::ops::RangeBounds;
use std::sync::{Arc, Mutex};

pub type NodeCtx = Ctx<Msg, Rec>;

pub(super) fn io_error(e: impl std::fmt::Display) -> AnyError {
    AnyError::error(e.to_string())
}

#[derive(Default)]
struct LogData {
    log: BTreeMap<u64, Entry<TypeConfig>>,
    purged: Option<LogId<u64>>,
    vote: Option<Vote<u64>>,
    committed: Option<LogId<u64>>,
}

/// The log store; clones share it (the replication tasks' readers).
#[derive(Clone)]
pub struct LogStore {
    ctx: NodeCtx,
    data: Arc<Mutex<LogData>>,
    reads: LogReads,
    committed_synced: bool,
}

impl LogStore {
    pub fn new(ctx: NodeCtx, r: &Recovered, config: &OpenraftConfig) -> LogStore {
        let data = LogData {
            log: r.log.clone(),
            purged: r.purged,
            vote: r.vote,
            committed: r.committed,
        };
        let store = LogStore {
            ctx,
            data: Arc::new(Mutex::new(data)),
            reads: config.log_reads,
            committed_synced: config.committed_synced,
        };
        store.report_tail();
        let last = r.log.values().next_back().map(|e| e.log_id).or(r.purged);
        let snap = r.snapshot.as_ref().and_then(|(m, _)| m.last_log_id);
        let durable = last.max(snap).map_or(0, |l| super::position(l.index));
        ctx.emit(&DiskEvent::LogDurable {
            last: durable,
            boot: true,
        });
        store
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogData> {
        self.data
            .lock()
            .expect("one thread: never poisoned but by a panic, which ends the run")
    }

    /// Tells the checkers where the log ends.
    fn report_tail(&self) {
        let tail = {
            let d = self.lock();
            d.log.values().next_back().map(|e| e.log_id).or(d.purged)
        };
        if let Some(id) = tail {
            self.ctx.event(ModelEvent::LogTail {
                index: super::position(id.index),
                term: id.leader_id.term,
            });
        }
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<TypeConfig>>, StorageError<u64>> {
        Ok(self.lock().log.range(range).map(|(_, e)| e.clone()).collect())
    }

    /// What replication sends: with `from-start`, only entries from
    /// `start` on without a gap, so a read that a purge overtook comes back
    /// empty instead of starting past the purged entries.
    async fn limited_get_log_entries(
        &mut self,
        start: u64,
        end: u64,
    ) -> Result<Vec<Entry<TypeConfig>>, StorageError<u64>> {
        let d = self.lock();
        let held = d.log.range(start..end).map(|(_, e)| e);
        Ok(match self.reads {
            LogReads::AsStored => held.cloned().collect(),
            LogReads::FromStart => held
                .zip(start..)
                .take_while(|(e, i)| e.log_id.index == *i)
                .map(|(e, _)| e.clone())
                .collect(),
        })
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, StorageError<u64>> {
        let d = self.lock();
        let last = d.log.values().next_back().map(|e| e.log_id).or(d.purged);
        Ok(LogState {
            last_purged_log_id: d.purged,
            last_log_id: last,
        })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<u64>) -> Result<(), StorageError<u64>> {
        let fail = |e: sim::DiskError| StorageError::from(StorageIOError::write_vote(io_error(e)));
        self.ctx.append(Rec::Vote(*vote)).map_err(fail)?;
        self.ctx.fsync().await.map_err(fail)?;
        self.lock().vote = Some(*vote);
        self.ctx.event(ModelEvent::HardState {
            term: vote.leader_id.term,
            vote: vote.leader_id.voted_for().map(|n| n as usize),
        });
        Ok(())
    }

    async fn read_vote(&mut self) -> Result<Option<Vote<u64>>, StorageError<u64>> {
        Ok(self.lock().vote)
    }

    /// Durable unless the config says otherwise, as openraft recommends when
    /// the state machine is not: a leader that restarts keeps its
    /// leadership and answers linearizable reads at once, from the commit
    /// index it read back (see README).
    async fn save_committed(&mut self, committed: Option<LogId<u64>>) -> Result<(), StorageError<u64>> {
        let fail = |e: sim::DiskError| StorageError::from(StorageIOError::write(io_error(e)));
        self.ctx.append(Rec::Committed(committed)).map_err(fail)?;
        if self.committed_synced {
            self.ctx.fsync().await.map_err(fail)?;
        }
        self.lock().committed = committed;
        if let Some(c) = committed {
            self.ctx.event(ModelEvent::Commit {
                index: super::position(c.index),
            });
        }
        Ok(())
    }

    async fn read_committed(&mut self) -> Result<Option<LogId<u64>>, StorageError<u64>> {
        Ok(self.lock().committed)
    }

    async fn append<I>(&mut self, entries: I, callback: LogFlushed<TypeConfig>) -> Result<(), StorageError<u64>>
    where
        I: IntoIterator<Item = Entry<TypeConfig>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let fail = |e: sim::DiskError| StorageError::from(StorageIOError::write_logs(io_error(e)));
        let mut last = None;
        for e in entries {
            self.ctx.append(Rec::Entry(e.clone())).map_err(fail)?;
            last = Some(e.log_id.index);
            self.lock().log.insert(e.log_id.index, e);
        }
        self.report_tail();
        // Issued now, in order with every other write; the callback runs
        // once it is durable, without holding up openraft meanwhile.
        let synced = self.ctx.fsync();
        let ctx = self.ctx;
        self.ctx.spawn(async move {
            let done = synced.await.map_err(|e| std::io::Error::other(e.to_string()));
            if let (Ok(()), Some(last)) = (&done, last) {
                ctx.emit(&DiskEvent::LogDurable {
                    last: super::position(last),
                    boot: false,
                });
            }
            callback.log_io_completed(done);
        });
        Ok(())
    }

    async fn truncate(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        let fail = |e: sim::DiskError| StorageError::from(StorageIOError::write_logs(io_error(e)));
        self.ctx.append(Rec::Truncate(log_id.index)).map_err(fail)?;
        self.lock().log.split_off(&log_id.index);
        self.ctx.reached("log-truncated");
        self.report_tail();
        Ok(())
    }

    async fn purge(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        let fail = |e: sim::DiskError| StorageError::from(StorageIOError::write_logs(io_error(e)));
        self.ctx.append(Rec::Purge(log_id)).map_err(fail)?;
        {
            let mut d = self.lock();
            d.log = d.log.split_off(&(log_id.index + 1));
            d.purged = Some(log_id);
        }
        self.ctx.event(ModelEvent::Compact {
            index: super::position(log_id.index),
        });
        self.report_tail();
        self.ctx.reached("log-purged");
        Ok(())
    }
}
