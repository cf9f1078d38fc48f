//! tikv's `raft` crate from crates.io, unmodified, in two released versions
//! side by side (0.4.3 and 0.7.0), each driven under dst as a
//! [`sim::Machine`] exactly as a user of its public API would drive it.
//!
//! [`node::Node`] holds what the versions share: a key-value state machine,
//! client request tracking, the events the checkers read, disk records and
//! their replay ([`store`]). [`v043`] and [`v07`] hold what their APIs force
//! apart: the protobuf types, the `Storage` signatures and each Ready
//! contract. The models are `raft-rs-0.4.3` and `raft-rs-0.7.0`; their
//! scenarios live in `scenarios/` and are compiled in ([`SCENARIOS`]).

pub mod config;
mod glue;
pub mod kv;
pub mod node;
pub mod store;
pub mod v043;
pub mod v07;

use config::RaftRsConfig;
use node::{Node, Version};
use sim::nemesis::PlanEntry;
use sim::{RunOutcome, RunSpec, Scenario};
use v043::V043;
use v07::V07;

/// The model names a scenario's `model` may give.
pub const MODELS: &[&str] = &[V043::MODEL, V07::MODEL];

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
        "raft-rs-0.4.3-snapshot",
        include_str!("../scenarios/raft-rs-0.4.3-snapshot.json"),
    ),
    (
        "raft-rs-0.7.0-snapshot",
        include_str!("../scenarios/raft-rs-0.7.0-snapshot.json"),
    ),
];

/// A compiled-in scenario by name.
pub fn scenario(name: &str) -> Result<Scenario, String> {
    let (_, text) = SCENARIOS.iter().find(|(n, _)| *n == name).ok_or_else(|| {
        let names: Vec<&str> = SCENARIOS.iter().map(|(n, _)| *n).collect();
        format!("unknown scenario '{name}' (known: {})", names.join(", "))
    })?;
    Scenario::from_json(text)
}

/// Runs one seed of a scenario of either model (`plan`: replay this fault
/// plan instead of drawing one).
pub fn run(scenario: &Scenario, seed: u64, plan: Option<Vec<PlanEntry>>) -> Result<RunOutcome, String> {
    match scenario.model.as_str() {
        m if m == V043::MODEL => run_043(scenario, seed, plan),
        m if m == V07::MODEL => run_07(scenario, seed, plan),
        m => Err(format!(
            "scenario {}: unknown model '{m}' (known: {})",
            scenario.name,
            MODELS.join(", ")
        )),
    }
}

/// Runs one seed with raft 0.4.3.
pub fn run_043(scenario: &Scenario, seed: u64, plan: Option<Vec<PlanEntry>>) -> Result<RunOutcome, String> {
    run_version::<V043>(scenario, seed, plan)
}

/// Runs one seed with raft 0.7.0.
pub fn run_07(scenario: &Scenario, seed: u64, plan: Option<Vec<PlanEntry>>) -> Result<RunOutcome, String> {
    run_version::<V07>(scenario, seed, plan)
}

fn run_version<V: Version>(scenario: &Scenario, seed: u64, plan: Option<Vec<PlanEntry>>) -> Result<RunOutcome, String> {
    if scenario.model != V::MODEL {
        return Err(format!(
            "scenario {} is for model '{}', not '{}'",
            scenario.name,
            scenario.model,
            V::MODEL
        ));
    }
    let cfg = RaftRsConfig::from_scenario(scenario)?;
    let checkers = scenario
        .invariants
        .iter()
        .map(|id| sim::check::build(id, scenario))
        .collect::<Result<Vec<_>, _>>()?;
    static QUIET_PANICS: std::sync::Once = std::sync::Once::new();
    QUIET_PANICS.call_once(sim::world::install_panic_hook);
    let nodes = scenario.nodes;
    let spec = RunSpec {
        scenario,
        seed,
        plan,
        checkers,
    };
    Ok(sim::run(spec, move |id| Node::<V>::new(id, nodes, cfg.clone())))
}
