//! The adapter's knobs, read from a scenario's `config`.

use serde::{Deserialize, Serialize};

/// What the crate's `ServerConfig` takes from a scenario, plus the period
/// of the timer that calls `tick()`. Timeouts are in ticks. Batching stays
/// at the crate's default of one entry: 0.2.0 has no timer that flushes a
/// partial batch, so a larger one would hold entries back until it fills.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AdapterConfig {
    /// Period of the timer that calls `tick()`.
    pub tick_ms: u64,
    /// Ticks per heartbeat round of the ballot leader election.
    pub election_tick_timeout: u64,
    /// Ticks before a Prepare, Promise or PrepareReq is sent again.
    pub resend_message_tick_timeout: u64,
}

impl Default for AdapterConfig {
    fn default() -> Self {
        AdapterConfig {
            tick_ms: 10,
            election_tick_timeout: 5,
            resend_message_tick_timeout: 20,
        }
    }
}

/// The most ticks a timeout may span.
pub const TICKS_MAX: u64 = 100_000;

impl AdapterConfig {
    /// The checks the crate's own `ServerConfig::validate` makes, before any
    /// node is built, so that a bad scenario is one line and not a panic per
    /// seed.
    pub fn validate(&self) -> Result<(), String> {
        use sim::bounds::{ms, within};
        ms("config.tick_ms", self.tick_ms, 1)?;
        within(
            "config.election_tick_timeout",
            self.election_tick_timeout,
            1..=TICKS_MAX,
        )?;
        within(
            "config.resend_message_tick_timeout",
            self.resend_message_tick_timeout,
            1..=TICKS_MAX,
        )?;
        Ok(())
    }
}
