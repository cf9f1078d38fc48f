//! omnipaxos from crates.io, unmodified, in two released versions side by
//! side (0.2.0 and 0.2.4), each driven under dst as a [`sim::Machine`]
//! through its public API only, over stream links as its sequence numbers
//! and `reconnected` assume.
//!
//! [`node::Node`] holds what the releases share: a key-value state machine
//! served through the replicated log, client requests in flight, the events
//! the checkers read, the storage in memory and on dst's disk
//! ([`store`]), and an event loop that blocks in every synchronous write
//! until it is durable. [`v020`] and [`v024`] hold what their APIs force
//! apart: the `Storage` signatures, how messages are taken out and how the
//! promised ballot is read. [`register`] adds the models `omnipaxos-0.2.0`
//! and `omnipaxos-0.2.4` to a dst registry, with their scenarios (in
//! `scenarios/`, compiled in: [`SCENARIOS`]) and the real bugs of 0.2.0.

pub mod ballot;
pub mod config;
pub mod events;
pub mod kv;
pub mod node;
mod register;
pub mod release;
pub mod store;
pub mod v020;
pub mod v024;
pub mod within_log;

pub use register::{register, registry, ACCEPT_SYNC_INDEX, GOALS, PROMISE_SUFFIX_INDEX};

/// The scenario files, by name. Each exists for both releases with the
/// same cluster, config, workload and faults.
pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "omnipaxos-0.2.0-partitions",
        include_str!("../scenarios/omnipaxos-0.2.0-partitions.json"),
    ),
    (
        "omnipaxos-0.2.4-partitions",
        include_str!("../scenarios/omnipaxos-0.2.4-partitions.json"),
    ),
    (
        "omnipaxos-0.2.0-crash-restart",
        include_str!("../scenarios/omnipaxos-0.2.0-crash-restart.json"),
    ),
    (
        "omnipaxos-0.2.4-crash-restart",
        include_str!("../scenarios/omnipaxos-0.2.4-crash-restart.json"),
    ),
];
