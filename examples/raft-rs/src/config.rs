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

/// The most ticks an election or heartbeat timeout may span.
pub const TICKS_MAX: usize = 100_000;
/// The most append messages in flight to one follower.
pub const INFLIGHT_MAX: usize = 1_000_000;

impl RaftRsConfig {
    /// The checks the crate's own `Config::validate` makes, before any node
    /// is built, so that a bad scenario is one line and not a panic per seed.
    pub fn validate(&self) -> Result<(), String> {
        use sim::bounds::{ms, within, within_because};
        ms("config.tick_ms", self.tick_ms, 1)?;
        within("config.heartbeat_tick", self.heartbeat_tick, 1..=TICKS_MAX - 1)?;
        within_because(
            "config.election_tick",
            self.election_tick,
            self.heartbeat_tick + 1..=TICKS_MAX,
            "above config.heartbeat_tick",
        )?;
        within("config.min_election_tick", self.min_election_tick, 0..=TICKS_MAX)?;
        within("config.max_election_tick", self.max_election_tick, 0..=2 * TICKS_MAX)?;
        let (min, max) = self.election_range();
        if min < self.election_tick || max <= min {
            return Err(format!(
                "config: election timeout range [{min}, {max}) must start at election_tick or above and not be empty"
            ));
        }
        within("config.max_inflight_msgs", self.max_inflight_msgs, 1..=INFLIGHT_MAX)?;
        Ok(())
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
