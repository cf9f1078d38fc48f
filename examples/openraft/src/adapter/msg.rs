//! What the nodes send each other (openraft's RPCs and their answers, as
//! its serde types) and what they keep on disk.

use super::openraft;
use super::TypeConfig;
use openraft::error::{InstallSnapshotError, RaftError};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use openraft::{Entry, LogId, SnapshotMeta, Vote};
use serde::Serialize;

#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Msg {
    Append(AppendEntriesRequest<TypeConfig>),
    AppendAnswer(Result<AppendEntriesResponse<u64>, RaftError<u64>>),
    Vote(VoteRequest<u64>),
    VoteAnswer(Result<VoteResponse<u64>, RaftError<u64>>),
    Snapshot(InstallSnapshotRequest<TypeConfig>),
    SnapshotAnswer(Result<InstallSnapshotResponse<u64>, RaftError<u64, InstallSnapshotError>>),
}

/// Some of openraft's answers are not `Clone`; the world clones a message
/// only to duplicate it, so those go through their serde form.
fn copy<T: Serialize + serde::de::DeserializeOwned>(t: &T) -> T {
    let v = serde_json::to_value(t).expect("openraft's messages serialize");
    serde_json::from_value(v).expect("openraft's messages read back what they wrote")
}

impl Clone for Msg {
    fn clone(&self) -> Self {
        match self {
            Msg::Append(a) => Msg::Append(a.clone()),
            Msg::AppendAnswer(a) => Msg::AppendAnswer(copy(a)),
            Msg::Vote(v) => Msg::Vote(v.clone()),
            Msg::VoteAnswer(v) => Msg::VoteAnswer(copy(v)),
            Msg::Snapshot(s) => Msg::Snapshot(s.clone()),
            Msg::SnapshotAnswer(s) => Msg::SnapshotAnswer(copy(s)),
        }
    }
}

impl sim::MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match self {
            Msg::Append(a) if a.entries.is_empty() => "heartbeat",
            Msg::Append(_) => "append-entries",
            Msg::AppendAnswer(_) => "append-entries-answer",
            Msg::Vote(_) => "vote",
            Msg::VoteAnswer(_) => "vote-answer",
            Msg::Snapshot(_) => "install-snapshot",
            Msg::SnapshotAnswer(_) => "install-snapshot-answer",
        }
    }
}

/// One durable record: the disk is a log of these, replayed at boot.
#[derive(Clone, Debug)]
pub enum Rec {
    Vote(Vote<u64>),
    Entry(Entry<TypeConfig>),
    /// Entries from this index on were removed.
    Truncate(u64),
    /// Entries up to this log id were removed after a snapshot.
    Purge(LogId<u64>),
    Committed(Option<LogId<u64>>),
    /// A snapshot of the state machine: its metadata and its data.
    Snapshot(SnapshotMeta<u64, openraft::BasicNode>, Vec<u8>),
}

/// A snapshot with its data, as the disk and the state machine keep it.
pub type StoredSnapshot = (SnapshotMeta<u64, openraft::BasicNode>, Vec<u8>);

/// Whether a snapshot up to `meta` replaces `current`: only a newer one
/// does. A snapshot built from the state before an install from the leader
/// may finish after that install, and openraft may already have purged the
/// log up to the installed one.
pub fn supersedes(current: Option<&StoredSnapshot>, meta: &SnapshotMeta<u64, openraft::BasicNode>) -> bool {
    current.is_none_or(|(m, _)| m.last_log_id < meta.last_log_id)
}

/// What a node's disk says, replayed in order.
#[derive(Default)]
pub struct Recovered {
    pub vote: Option<Vote<u64>>,
    pub log: std::collections::BTreeMap<u64, Entry<TypeConfig>>,
    pub purged: Option<LogId<u64>>,
    pub committed: Option<LogId<u64>>,
    pub snapshot: Option<StoredSnapshot>,
}

impl Recovered {
    pub fn replay(recs: &[Rec]) -> Recovered {
        let mut r = Recovered::default();
        for rec in recs {
            match rec {
                Rec::Vote(v) => r.vote = Some(*v),
                Rec::Entry(e) => {
                    r.log.insert(e.log_id.index, e.clone());
                }
                Rec::Truncate(since) => {
                    r.log.split_off(since);
                }
                Rec::Purge(upto) => {
                    r.log = r.log.split_off(&(upto.index + 1));
                    r.purged = Some(*upto);
                }
                Rec::Committed(c) => r.committed = *c,
                Rec::Snapshot(meta, data) => {
                    if supersedes(r.snapshot.as_ref(), meta) {
                        r.snapshot = Some((meta.clone(), data.clone()));
                    }
                }
            }
        }
        r
    }
}
