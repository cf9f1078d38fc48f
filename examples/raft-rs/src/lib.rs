//! tikv's `raft` crate from crates.io, unmodified, in two released versions
//! side by side (0.4.3 and 0.7.0), each driven under dst as a
//! [`sim::Machine`] exactly as a user of its public API would drive it.
//!
//! [`node::Node`] holds what the versions share: a key-value state machine,
//! client request tracking, the events the checkers read, disk records and
//! their replay ([`store`]). [`v043`] and [`v07`] hold what their APIs force
//! apart: the protobuf types, the `Storage` signatures and each Ready
//! contract. [`register`] adds the models `raft-rs-0.4.3` and
//! `raft-rs-0.7.0` to a dst registry, with their scenarios (in
//! `scenarios/`, compiled in: [`SCENARIOS`]) and the real bugs of 0.4.3.

pub mod config;
pub mod durability;
mod glue;
pub mod kv;
pub mod node;
mod register;
pub mod store;
pub mod v043;
pub mod v07;

pub use register::{register, registry};

/// The scenario files, by name. Each exists for both versions with the
/// same cluster, config, workload and faults.
pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "raft-rs-0.4.3-partitions",
        include_str!("../scenarios/raft-rs-0.4.3-partitions.json"),
    ),
    (
        "raft-rs-0.7.0-partitions",
        include_str!("../scenarios/raft-rs-0.7.0-partitions.json"),
    ),
    (
        "raft-rs-0.4.3-crash-restart",
        include_str!("../scenarios/raft-rs-0.4.3-crash-restart.json"),
    ),
    (
        "raft-rs-0.7.0-crash-restart",
        include_str!("../scenarios/raft-rs-0.7.0-crash-restart.json"),
    ),
    (
        "raft-rs-0.4.3-durability",
        include_str!("../scenarios/raft-rs-0.4.3-durability.json"),
    ),
    (
        "raft-rs-0.7.0-durability",
        include_str!("../scenarios/raft-rs-0.7.0-durability.json"),
    ),
    (
        "raft-rs-0.4.3-snapshot",
        include_str!("../scenarios/raft-rs-0.4.3-snapshot.json"),
    ),
    (
        "raft-rs-0.7.0-snapshot",
        include_str!("../scenarios/raft-rs-0.7.0-snapshot.json"),
    ),
];
