//! A replicated register whose nodes talk gRPC: tonic's server and
//! channels, hyper, h2 and tower, over `tokio::net`, its state saved with
//! `tokio::fs`, its timers `tokio::time`, all unmodified on dst's tokio.
//! Only client requests and replies, and the events the checkers read, go
//! through dst's `Ctx`.
//!
//! The protocol is a small leader-based one. A node that heard no leader
//! for its election timeout campaigns; a voter grants one vote a term,
//! saved before it answers, and sends its newest state with it; a
//! candidate with a majority leads from the newest state its voters hold,
//! stamped anew with its term. The leader replicates the whole state to
//! every peer on each write and at each heartbeat; a write is acknowledged
//! once a majority saved it. A follower that acknowledged a leader
//! promises to vote for nobody for `promise_ms` of its own clock, so the
//! leader serves reads alone for as long as the promise lasts seen through
//! the worst clocks the drift bound allows.
//!
//! Its two bug switches are mistakes such a service makes:
//! `grpc-register-lease-ignores-drift` sizes the lease as if clocks kept
//! true time (stale reads once clocks drift), and
//! `grpc-register-rename-without-dir-sync` replaces the saved state by a
//! rename it never syncs (a crash brings back a state without the node's
//! last acknowledged write or its last vote: writes are lost, or the node
//! votes twice in one term). `grpc-register-drift-beyond-bound` runs the
//! correct register with clocks that drift more than its lease allows for:
//! reads go stale, as they must.

mod config;
mod elect;
mod lead;
mod node;
mod peers;
pub mod proto;
pub mod rpc;
mod serve;
mod state;

pub use config::Config;
pub use peers::{addr, PORT};

use sim::{Bug, ModelDef, Registry, Setup};

/// The register sends nothing through dst's `Ctx`: its nodes talk gRPC.
#[derive(Clone, Debug, serde::Serialize)]
pub enum Msg {}

impl sim::MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

/// Its disk holds files only, written through `tokio::fs`.
pub type Rec = ();

pub const MODEL: &str = "grpc-register";
pub const LEASE_IGNORES_DRIFT: &str = "grpc-register-lease-ignores-drift";
pub const RENAME_WITHOUT_DIR_SYNC: &str = "grpc-register-rename-without-dir-sync";

pub const GOALS: &[(&str, &str)] = &[
    ("leader-elected", "a node won an election"),
    ("leader-deposed", "a leader stepped down"),
    (
        "write-committed",
        "a write reached a majority's disks and was acknowledged",
    ),
    ("lease-read", "a leader served a read alone under its lease"),
    (
        "promise-kept",
        "a node refused a vote while its promise to a leader held",
    ),
    ("restart-with-state", "a node booted with a saved state"),
    ("rpc-failed", "a gRPC call to a peer failed or timed out"),
];

pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "grpc-register-crash-restart",
        include_str!("../scenarios/grpc-register-crash-restart.json"),
    ),
    (
        "grpc-register-partitions",
        include_str!("../scenarios/grpc-register-partitions.json"),
    ),
    (
        "grpc-register-drift",
        include_str!("../scenarios/grpc-register-drift.json"),
    ),
    (
        "grpc-register-drift-beyond-bound",
        include_str!("../scenarios/grpc-register-drift-beyond-bound.json"),
    ),
];

/// The register as a dst model, with its scenarios.
pub fn register(registry: &mut Registry) {
    registry.add(
        ModelDef::new_async(
            MODEL,
            "a replicated register with a leader lease, its nodes calling each other with tonic over dst's tokio",
            |setup: Setup<'_, Config>| {
                setup.config.check()?;
                let cfg = setup.config.clone();
                let bugs = node::Bugs {
                    lease_ignores_drift: setup.bug(LEASE_IGNORES_DRIFT),
                    rename_without_dir_sync: setup.bug(RENAME_WITHOUT_DIR_SYNC),
                };
                Ok(move |ctx| node::node(ctx, cfg.clone(), bugs))
            },
        )
        .bugs(&[
            Bug {
                id: LEASE_IGNORES_DRIFT,
                kind: "safety",
                invariants: &["linearizable"],
                scenario: "grpc-register-drift",
                summary: "the lease is the whole promise, as if clocks kept true time: a leader with a slow clock \
                          serves reads after its followers' fast clocks freed them to elect another",
            },
            Bug {
                id: RENAME_WITHOUT_DIR_SYNC,
                kind: "safety",
                invariants: &["linearizable", "no-dual-leaders"],
                scenario: "grpc-register-crash-restart",
                summary: "the saved state is renamed into place but the directory is never synced: a crash \
                          brings back the state before the node's last save, without a write it acknowledged to \
                          its leader (lost once a new leader starts from the others) or a vote it gave (and it \
                          votes again in that term)",
            },
        ])
        .goals(GOALS)
        .generic(&["no-dual-leaders", "linearizable", "liveness"]),
    );
    for (_, json) in SCENARIOS {
        registry.scenario(json);
    }
}

/// A registry with the register and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}
