//! openraft from crates.io, unmodified, in two released versions side by
//! side (0.9.24 and 0.9.25), each driven under dst as async nodes through
//! its public API only: its `AsyncRuntime` trait on dst's async context,
//! its `RaftNetwork` over dst's network, its log store and state machine
//! over dst's disk, client writes through `client_write` and reads through
//! `ensure_linearizable`.
//!
//! The adapter is one source ([`adapter`]) compiled once per release:
//! [`v0924`] and [`v0925`] each bind `openraft` to their crate and include
//! it. Nothing in it knows which release it drives.

pub mod config;
pub mod quorum;
mod register;

pub use register::{register, registry};

/// openraft 0.9.24, which carries databendlabs/openraft#1802.
pub mod v0924;

/// openraft 0.9.25, the first release with the fix.
pub mod v0925;

/// The scenario files, by name; each exists for both releases with the
/// same cluster, config, workload and faults; two more show bugs that
/// 0.9.25 still has, under store choices openraft's contract allows.
pub const SCENARIOS: &[(&str, &str)] = &[
    ("openraft-0.9.24-partitions", include_str!("../scenarios/openraft-0.9.24-partitions.json")),
    ("openraft-0.9.25-partitions", include_str!("../scenarios/openraft-0.9.25-partitions.json")),
    ("openraft-0.9.24-crash-restart", include_str!("../scenarios/openraft-0.9.24-crash-restart.json")),
    ("openraft-0.9.25-crash-restart", include_str!("../scenarios/openraft-0.9.25-crash-restart.json")),
    ("openraft-0.9.24-targeted", include_str!("../scenarios/openraft-0.9.24-targeted.json")),
    ("openraft-0.9.25-targeted", include_str!("../scenarios/openraft-0.9.25-targeted.json")),
    ("openraft-0.9.24-three", include_str!("../scenarios/openraft-0.9.24-three.json")),
    ("openraft-0.9.25-three", include_str!("../scenarios/openraft-0.9.25-three.json")),
    // Store choices openraft's contract allows, under which 0.9.25 fails.
    ("openraft-0.9.25-reads-as-stored", include_str!("../scenarios/openraft-0.9.25-reads-as-stored.json")),
    ("openraft-0.9.25-committed-unsynced", include_str!("../scenarios/openraft-0.9.25-committed-unsynced.json")),
];
