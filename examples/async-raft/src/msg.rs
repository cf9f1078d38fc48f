//! What the nodes send each other (async-raft's RPCs and their answers,
//! as its serde types) and what a node keeps on its disk.

use crate::Request;
use async_raft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, Entry, InstallSnapshotRequest, InstallSnapshotResponse,
    MembershipConfig, VoteRequest, VoteResponse,
};
use async_raft::storage::HardState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Msg {
    Append(AppendEntriesRequest<Request>),
    /// An error is async-raft's, as its text: the peer is shutting down.
    AppendAnswer(Result<AppendEntriesResponse, String>),
    Vote(VoteRequest),
    VoteAnswer(Result<VoteResponse, String>),
    Snapshot(InstallSnapshotRequest),
    SnapshotAnswer(Result<InstallSnapshotResponse, String>),
}

/// async-raft's messages are not `Clone`; the world clones one only to
/// duplicate it, so a copy goes through the serde form.
impl Clone for Msg {
    fn clone(&self) -> Self {
        let v = serde_json::to_value(self).expect("async-raft's messages serialize");
        serde_json::from_value(v).expect("async-raft's messages read back what they wrote")
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

/// A snapshot as it is stored and sent: the state machine's whole state
/// through `index`, and the membership then in force.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SnapshotData {
    pub index: u64,
    pub term: u64,
    pub membership: MembershipConfig,
    pub map: sim::KvMap,
}

/// One durable record: the disk is a log of these, replayed at boot.
#[derive(Clone, Debug)]
pub enum Rec {
    Hard(HardState),
    /// Entries written at their own indices (over any held there).
    Entries(Vec<Entry<Request>>),
    /// Entries from `from` up to `to` (exclusive; none: to the end) removed.
    Delete {
        from: u64,
        to: Option<u64>,
    },
    /// A snapshot made current, and the log through `delete_through` gone
    /// (all of it, when none), a pointer to the snapshot in its place.
    Snapshot {
        data: SnapshotData,
        delete_through: Option<u64>,
    },
}

/// What a node's disk holds, replayed.
#[derive(Default)]
pub struct Recovered {
    pub hard: Option<HardState>,
    pub log: BTreeMap<u64, Entry<Request>>,
    pub snapshot: Option<SnapshotData>,
}

impl Recovered {
    pub fn replay(disk: &[Rec]) -> Recovered {
        let mut r = Recovered::default();
        for rec in disk {
            match rec {
                Rec::Hard(h) => r.hard = Some(h.clone()),
                Rec::Entries(es) => {
                    for e in es {
                        r.log.insert(e.index, e.clone());
                    }
                }
                Rec::Delete { from, to } => delete(&mut r.log, *from, *to),
                Rec::Snapshot { data, delete_through } => {
                    compact(&mut r.log, data, *delete_through);
                    r.snapshot = Some(data.clone());
                }
            }
        }
        r
    }
}

/// Removes entries `from..to` (to the end when `to` is none).
pub fn delete(log: &mut BTreeMap<u64, Entry<Request>>, from: u64, to: Option<u64>) {
    let gone: Vec<u64> = match to {
        Some(to) => log.range(from..to).map(|(i, _)| *i).collect(),
        None => log.range(from..).map(|(i, _)| *i).collect(),
    };
    for i in gone {
        log.remove(&i);
    }
}

/// Removes the log through `delete_through` (all of it, when none) and
/// puts a pointer to the snapshot at its index, as async-raft expects of a
/// compacted log.
pub fn compact(log: &mut BTreeMap<u64, Entry<Request>>, s: &SnapshotData, delete_through: Option<u64>) {
    match delete_through {
        Some(through) => *log = log.split_off(&(through + 1)),
        None => log.clear(),
    }
    log.insert(
        s.index,
        Entry::new_snapshot_pointer(s.index, s.term, String::new(), s.membership.clone()),
    );
}
