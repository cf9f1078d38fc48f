//! The snapshot store's own event vocabulary. `sim` knows none of it: the
//! events travel as custom model events, and only this model's checkers
//! read them.

use super::msg::RowView;
use serde::{Deserialize, Serialize};
use sim::NodeId;

/// What the snapshot store emits as custom events, tagged `"model"` in
/// a report's trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum SnapEvent {
    /// The store applied a conditional (or, with a bug, plain) write to
    /// `key`'s row. `value: None` is an offset-carrying tombstone. `stmt`
    /// names the statement; `writer` and `generation` say who sent it.
    StoreWrite {
        /// The key.
        key: u32,
        /// The journal offset the row now carries.
        offset: u64,
        /// The row's value; `None` for a tombstone.
        value: Option<SnapValue>,
        /// The statement that wrote it, by name.
        stmt: String,
        /// The owner that sent the write.
        writer: NodeId,
        /// The writer's ownership generation.
        generation: u64,
    },
    /// A delete at `offset` removed `key`'s row outright.
    StoreRemove {
        /// The key.
        key: u32,
        /// The offset of the delete.
        offset: u64,
        /// The owner that sent the write.
        writer: NodeId,
        /// The writer's ownership generation.
        generation: u64,
    },
    /// TTLs ran out on the store's clock. `offset` is what the row carried
    /// before; `row_gone`: the whole row vanished, otherwise only its offset
    /// cell did (a guard-expired row, visible with a null offset).
    StoreReap {
        /// The key.
        key: u32,
        /// The offset the row carried before; `None` if its offset cell was already null.
        offset: Option<u64>,
        /// Whether the whole row vanished, not only its offset cell.
        row_gone: bool,
    },
    /// The store booted and rebuilt its table from `records` commit-log
    /// records (`config.store_durable`): `rows` is every row it holds now.
    /// It may hold more than it acknowledged (a write whose fsync had not
    /// completed may have reached the disk), never less.
    StoreRecovered {
        /// The commit-log records replayed.
        records: u64,
        /// Every row the store holds after recovery.
        rows: Vec<RowView>,
    },
    /// Record `index` of the store's commit log is rotten: the store halts
    /// at every boot from now on, since the disk is never rewritten.
    StoreCorrupt {
        /// The position of the rotten record in the commit log.
        index: usize,
    },
    /// A partition owner took `key`'s state at `offset` as persisted.
    SnapPersisted {
        /// The key.
        key: u32,
        /// The journal offset the state was taken at.
        offset: u64,
        /// The key's state; `None` for a deleted key.
        value: Option<SnapValue>,
        /// The owner's ownership generation.
        generation: u64,
    },
    /// A record appended to a journal partition: `update: None` is a delete.
    JournalAppend {
        /// The journal partition.
        partition: u32,
        /// The key.
        key: u32,
        /// The record's offset in its partition.
        offset: u64,
        /// The update the record carries; `None` for a delete.
        update: Option<u64>,
    },
    /// A partition's committed offset moved: every record below `offset` is
    /// claimed persisted by the owner of `generation`.
    JournalCommit {
        /// The journal partition.
        partition: u32,
        /// The new committed offset.
        offset: u64,
        /// The generation of the owner that committed.
        generation: u64,
    },
}

/// One key's state: the fold of its journal records since its last delete.
/// `since` is the offset of the update that began this life, `last` the
/// newest update folded in, `digest` all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SnapValue {
    /// The offset of the update that began this life of the key.
    pub since: u64,
    /// The offset of the newest update folded in.
    pub last: u64,
    /// A digest of every update folded in.
    pub digest: u64,
}

impl SnapValue {
    /// Folds the record at `offset` (`update: None` deletes) into `prev`.
    /// A record no newer than the live value's own `last` changes nothing:
    /// a live value guards itself, a tombstone (no value) cannot.
    pub fn fold(prev: Option<SnapValue>, offset: u64, update: Option<u64>) -> Option<SnapValue> {
        if prev.is_some_and(|v| offset <= v.last) {
            return prev;
        }
        let x = update?;
        let mix = |d: u64| {
            (d ^ x ^ offset.rotate_left(32))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(23)
        };
        Some(match prev {
            Some(v) => SnapValue {
                since: v.since,
                last: offset,
                digest: mix(v.digest),
            },
            None => SnapValue {
                since: offset,
                last: offset,
                digest: mix(0),
            },
        })
    }
}
