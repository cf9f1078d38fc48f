//! The scenario's `config`: the register's timing, in ms, and the clock
//! drift its lease is sized for.

use serde::Deserialize;
use std::time::Duration;

#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// How often a leader replicates its state when no write is waiting.
    pub heartbeat_ms: u64,
    /// The shortest wait without a leader before a node campaigns.
    pub election_ms_min: u64,
    /// The longest such wait.
    pub election_ms_max: u64,
    /// How long a node that acknowledged a leader refuses to vote for
    /// anyone else, on its own clock.
    pub promise_ms: u64,
    /// The deadline of one call to a peer.
    pub rpc_timeout_ms: u64,
    /// The largest rate error of any node's clock, in parts per million:
    /// the lease shrinks for it.
    pub clock_drift_ppm_max: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            heartbeat_ms: 40,
            election_ms_min: 400,
            election_ms_max: 600,
            promise_ms: 300,
            rpc_timeout_ms: 60,
            clock_drift_ppm_max: 200,
        }
    }
}

impl Config {
    pub fn check(&self) -> Result<(), String> {
        if self.election_ms_min <= self.promise_ms {
            return Err(format!(
                "election_ms_min ({}) must exceed promise_ms ({}): a node campaigns only after its own promise ran out",
                self.election_ms_min, self.promise_ms
            ));
        }
        if self.election_ms_max <= self.election_ms_min {
            return Err("election_ms_max must exceed election_ms_min".into());
        }
        if self.clock_drift_ppm_max >= 1_000_000 {
            return Err("clock_drift_ppm_max must be below 1000000 (a clock that stops)".into());
        }
        if self.heartbeat_ms == 0 || self.rpc_timeout_ms == 0 {
            return Err("heartbeat_ms and rpc_timeout_ms must be positive".into());
        }
        Ok(())
    }

    pub fn promise(&self) -> Duration {
        Duration::from_millis(self.promise_ms)
    }

    /// How long after sending a heartbeat that a majority acknowledged the
    /// leader may serve reads alone: the promise, seen through the slowest
    /// leader clock and the fastest follower clock the drift bound allows,
    /// `D (1 - e) / (1 + e)`. Ignoring the drift (`ignore_drift`) takes the
    /// whole promise.
    pub fn lease(&self, ignore_drift: bool) -> Duration {
        let d = self.promise_ms as u128 * 1_000_000;
        if ignore_drift {
            return Duration::from_nanos(d as u64);
        }
        let e = self.clock_drift_ppm_max as u128;
        Duration::from_nanos((d * (1_000_000 - e) / (1_000_000 + e)) as u64)
    }

    pub fn rpc_timeout(&self) -> Duration {
        Duration::from_millis(self.rpc_timeout_ms)
    }
}
