//! The adapter's knobs, read from a scenario's `config`.

use serde::{Deserialize, Serialize};

/// Everything the crate's `Config` takes from a scenario, plus the tick
/// period and the compaction interval. Times are in ticks of `tick_ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RaftRsConfig {
    /// Period of the timer that calls `tick()`.
    pub tick_ms: u64,
    pub election_tick: usize,
    pub heartbeat_tick: usize,
    /// 0: the crate's default, `election_tick`.
    pub min_election_tick: usize,
    /// 0: the crate's default, `2 * election_tick`.
    pub max_election_tick: usize,
    pub check_quorum: bool,
    pub pre_vote: bool,
    pub max_size_per_msg: u64,
    pub max_inflight_msgs: usize,
    /// Snapshot the state machine and compact the log every this many
    /// applied entries (0: never).
    pub compact_every_entries: u64,
}

impl Default for RaftRsConfig {
    fn default() -> Self {
        RaftRsConfig {
            tick_ms: 10,
            election_tick: 15,
            heartbeat_tick: 5,
            min_election_tick: 0,
            max_election_tick: 0,
            check_quorum: true,
            pre_vote: true,
            max_size_per_msg: 1 << 20,
            max_inflight_msgs: 256,
            compact_every_entries: 0,
        }
    }
}

impl RaftRsConfig {
    /// Parse a scenario's `config` (null: every default).
    pub fn from_scenario(scenario: &sim::Scenario) -> Result<RaftRsConfig, String> {
        let raw = if scenario.config.is_null() {
            serde_json::json!({})
        } else {
            scenario.config.clone()
        };
        let cfg: RaftRsConfig = serde_json::from_value(raw)
            .map_err(|e| format!("scenario {}: invalid raft-rs config: {e}", scenario.name))?;
        if cfg.tick_ms == 0 {
            return Err(format!("scenario {}: tick_ms must be positive", scenario.name));
        }
        Ok(cfg)
    }

    /// The crate's range of randomized election timeouts, `[min, max)`, as
    /// its `Config::min_election_tick` and `max_election_tick` define it.
    pub fn election_range(&self) -> (usize, usize) {
        let min = if self.min_election_tick == 0 {
            self.election_tick
        } else {
            self.min_election_tick
        };
        let max = if self.max_election_tick == 0 {
            2 * self.election_tick
        } else {
            self.max_election_tick
        };
        (min, max)
    }
}
