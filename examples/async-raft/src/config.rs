//! The scenario's `config`: async-raft's own knobs, in the units it takes.

use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AsyncRaftConfig {
    /// How often a leader sends heartbeats, in ms; also the deadline of
    /// every RPC it sends.
    pub heartbeat_ms: u64,
    /// The shortest election timeout, in ms.
    pub election_timeout_ms_min: u64,
    /// The longest election timeout, in ms (exclusive, as async-raft draws it).
    pub election_timeout_ms_max: u64,
    /// Entries per AppendEntries.
    pub max_payload_entries: u64,
    /// Compact the log into a snapshot once this many entries were applied
    /// since the last snapshot.
    pub snapshot_every_entries: u64,
}

impl Default for AsyncRaftConfig {
    /// async-raft's own defaults.
    fn default() -> Self {
        AsyncRaftConfig {
            heartbeat_ms: 50,
            election_timeout_ms_min: 150,
            election_timeout_ms_max: 300,
            max_payload_entries: 300,
            snapshot_every_entries: 5000,
        }
    }
}

impl AsyncRaftConfig {
    /// async-raft's configuration, as its own validation accepts it.
    pub fn raft(&self) -> Result<async_raft::Config, String> {
        async_raft::Config::build("dst".into())
            .heartbeat_interval(self.heartbeat_ms)
            .election_timeout_min(self.election_timeout_ms_min)
            .election_timeout_max(self.election_timeout_ms_max)
            .max_payload_entries(self.max_payload_entries)
            .snapshot_policy(async_raft::SnapshotPolicy::LogsSinceLast(self.snapshot_every_entries))
            .validate()
            .map_err(|e| format!("async-raft refuses the config: {e}"))
    }
}
