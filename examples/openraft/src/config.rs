//! The scenario's `config` for both releases: openraft's timing and
//! snapshot knobs, in the units openraft takes them.

use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenraftConfig {
    pub heartbeat_ms: u64,
    pub election_timeout_ms_min: u64,
    pub election_timeout_ms_max: u64,
    /// Build a snapshot once this many entries were applied since the last.
    pub snapshot_every_entries: u64,
    /// Entries a snapshot leaves in the log (openraft's
    /// `max_in_snapshot_log_to_keep`).
    pub logs_to_keep: u64,
    /// Entries per AppendEntries (openraft's `max_payload_entries`).
    pub max_payload_entries: u64,
    /// How the log store answers a read of a range: `from-start` (the run
    /// of entries from the range's first index, none if it is gone) or
    /// `as-stored` (whatever of the range it holds, as openraft's own
    /// in-memory store answers, which openraft then sends with a gap when
    /// a purge raced the read; see README).
    pub log_reads: LogReads,
    /// Whether the committed log id openraft saves is fsynced before the
    /// save returns (`true`), or only written (`false`), in which case a
    /// leader that restarts answers linearizable reads from a stale commit
    /// index (see README).
    pub committed_synced: bool,
    /// Every this many ms (0: never), the leader changes the voters as an
    /// operator replacing a node would: with all nodes voting it demotes
    /// one other node to a learner, else it makes every node a voter again.
    /// Each change goes through openraft's joint configuration. A cluster
    /// of five keeps four or five voters, so a majority of its disks is a
    /// majority of every configuration's.
    pub membership_churn_ms: u64,
    /// What a client hears when `client_write` fails with
    /// `ForwardToLeader`: `unknown` (the write may still commit) or
    /// `refusal` (it did not happen; the client may retry it elsewhere).
    /// openraft also answers so a write whose entry it truncated after the
    /// entry had committed elsewhere, so only `unknown` is safe (see README).
    pub write_forward: WriteForward,
    /// How long a replication stream waits before it tries a peer again
    /// after an RPC to it failed (openraft's `RaftNetwork::backoff`), in ms;
    /// absent, openraft's default of 500 ms. A deployment keeps it below the
    /// election timeout: a follower whose leader backs off for longer than
    /// that hears nothing and starts an election (see README).
    pub backoff_ms: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteForward {
    Unknown,
    Refusal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogReads {
    FromStart,
    AsStored,
}

impl Default for OpenraftConfig {
    fn default() -> Self {
        OpenraftConfig {
            heartbeat_ms: 50,
            election_timeout_ms_min: 150,
            election_timeout_ms_max: 300,
            snapshot_every_entries: 40,
            logs_to_keep: 10,
            max_payload_entries: 8,
            log_reads: LogReads::FromStart,
            committed_synced: true,
            membership_churn_ms: 0,
            write_forward: WriteForward::Unknown,
            backoff_ms: None,
        }
    }
}

impl OpenraftConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.heartbeat_ms == 0 {
            return Err("heartbeat_ms must be at least 1".into());
        }
        if self.election_timeout_ms_min <= self.heartbeat_ms {
            return Err(format!(
                "election_timeout_ms_min ({}) must exceed heartbeat_ms ({})",
                self.election_timeout_ms_min, self.heartbeat_ms
            ));
        }
        if self.election_timeout_ms_max <= self.election_timeout_ms_min {
            return Err(format!(
                "election_timeout_ms_max ({}) must exceed election_timeout_ms_min ({})",
                self.election_timeout_ms_max, self.election_timeout_ms_min
            ));
        }
        if self.backoff_ms == Some(0) {
            return Err("backoff_ms must be at least 1 (leave it out for openraft's default)".into());
        }
        if self.snapshot_every_entries == 0 || self.max_payload_entries == 0 {
            return Err("snapshot_every_entries and max_payload_entries must be at least 1".into());
        }
        Ok(())
    }
}
