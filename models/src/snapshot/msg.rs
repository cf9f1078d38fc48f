//! Messages between the store, the journal with its coordinator, and the
//! partition owners.

use super::events::SnapValue;
use serde::{Deserialize, Serialize};
use sim::MsgInfo;

/// One journal record; `update: None` deletes the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Record {
    pub key: u32,
    pub offset: u64,
    pub update: Option<u64>,
}

/// A conditional (lightweight-transaction) statement on one key's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stmt {
    /// `UPDATE .. IF offset <= :o`: the fence.
    UpdateIfLe,
    /// `UPDATE .. IF offset < :o` (the `strict-fence` bug).
    UpdateIfLt,
    /// `INSERT .. IF NOT EXISTS`: a first write.
    InsertIfNotExists,
    /// `UPDATE .. IF offset = null`: claims a guard-expired row.
    UpdateIfNull,
    /// An unconditional write (the `unguarded-persist` bug).
    Plain,
    /// `DELETE .. IF offset <= :o`: removes the row (the `delete-removes-row` bug).
    DeleteRow,
}

impl Stmt {
    pub fn name(self) -> &'static str {
        match self {
            Stmt::UpdateIfLe => "update-if-le",
            Stmt::UpdateIfLt => "update-if-lt",
            Stmt::InsertIfNotExists => "insert-if-not-exists",
            Stmt::UpdateIfNull => "update-if-null",
            Stmt::Plain => "plain",
            Stmt::DeleteRow => "delete-row",
        }
    }
}

/// A row as a read (or a failed condition) shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowView {
    /// The row's key.
    pub key: u32,
    /// `None`: the offset cell is null (expired): a guard-expired row.
    pub offset: Option<u64>,
    /// `None`: a tombstone (or a guard-expired row).
    pub value: Option<SnapValue>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum SnapMsg {
    // ---- owner <-> store ----
    /// Write `key`'s snapshot (`value: None` is a tombstone) at `offset`.
    Write {
        req: u64,
        key: u32,
        stmt: Stmt,
        offset: u64,
        value: Option<SnapValue>,
        ttl_ms: u64,
        generation: u64,
    },
    /// As Cassandra answers an LWT: whether it applied, and the row it found.
    WriteResp {
        req: u64,
        applied: bool,
        exists: bool,
        offset: Option<u64>,
    },
    /// Every visible row of a partition's keys, and their journal rows.
    Read {
        req: u64,
        partition: u32,
    },
    ReadResp {
        req: u64,
        rows: Vec<RowView>,
        events: Vec<Record>,
    },
    /// Append journal rows (events mode); idempotent per (key, offset).
    AppendRows {
        req: u64,
        rows: Vec<Record>,
    },
    AppendRowsResp {
        req: u64,
    },
    /// Drop a deleted key's journal rows up to `upto`.
    ClearRows {
        key: u32,
        upto: u64,
    },

    // ---- owner <-> journal and coordinator ----
    Heartbeat,
    /// Ask to run `partition` as its owner of `generation`.
    Join {
        partition: u32,
        generation: u64,
    },
    Joined {
        partition: u32,
        generation: u64,
        committed: u64,
    },
    /// The partition now belongs to `generation`, not the asker's.
    Fenced {
        partition: u32,
        generation: u64,
    },
    Fetch {
        partition: u32,
        from: u64,
        max: u32,
    },
    Records {
        partition: u32,
        from: u64,
        records: Vec<Record>,
    },
    /// Every record below `offset` is persisted.
    Commit {
        partition: u32,
        generation: u64,
        offset: u64,
    },
    CommitResp {
        partition: u32,
        generation: u64,
        ok: bool,
    },
    Assign {
        partition: u32,
        generation: u64,
    },
    Revoke {
        partition: u32,
        generation: u64,
    },
}

impl MsgInfo for SnapMsg {
    fn kind(&self) -> &'static str {
        match self {
            SnapMsg::Write { .. } => "write",
            SnapMsg::WriteResp { .. } => "write-resp",
            SnapMsg::Read { .. } => "read",
            SnapMsg::ReadResp { .. } => "read-resp",
            SnapMsg::AppendRows { .. } => "append-rows",
            SnapMsg::AppendRowsResp { .. } => "append-rows-resp",
            SnapMsg::ClearRows { .. } => "clear-rows",
            SnapMsg::Heartbeat => "heartbeat",
            SnapMsg::Join { .. } => "join",
            SnapMsg::Joined { .. } => "joined",
            SnapMsg::Fenced { .. } => "fenced",
            SnapMsg::Fetch { .. } => "fetch",
            SnapMsg::Records { .. } => "records",
            SnapMsg::Commit { .. } => "commit",
            SnapMsg::CommitResp { .. } => "commit-resp",
            SnapMsg::Assign { .. } => "assign",
            SnapMsg::Revoke { .. } => "revoke",
        }
    }

    fn digest_at(&self, now: &sim::Now) -> Option<u64> {
        Some(sim::hash::debug_digest(&self.relative(now)))
    }
}
