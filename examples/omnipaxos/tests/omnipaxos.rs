//! The omnipaxos models under dst, through the registry and the runner a
//! user would call: runs replay exactly, 0.2.4 passes every scenario and
//! reaches every coverage goal, 0.2.0's real bugs are found.

use dst_runner::{fuzz, FuzzOptions, FuzzSummary};
use omnipaxos_example::{registry, SCENARIOS};
use sim::{Expect, Registry, Scenario};

const KINDS: [&str; 2] = ["partitions", "crash-restart"];

fn named(r: &Registry, kind: &str, version: &str) -> Scenario {
    r.load(&format!("omnipaxos-{version}-{kind}")).unwrap()
}

fn fuzzed(scenario: &str, seeds: std::ops::Range<u64>) -> FuzzSummary {
    let s = fuzz(&registry(), &FuzzOptions::seeds(scenario, seeds)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    s
}

#[test]
fn the_registry_holds_both_releases_and_every_scenario_is_valid() {
    let r = registry();
    r.check().unwrap();
    assert_eq!(r.scenarios().len(), SCENARIOS.len());
    assert!(r.model("omnipaxos-0.2.0").is_ok() && r.model("omnipaxos-0.2.4").is_ok());
    assert_eq!(r.real_bugs().count(), 2);
}

#[test]
fn every_scenario_exists_for_both_releases_with_the_same_settings() {
    let r = registry();
    assert_eq!(SCENARIOS.len(), 2 * KINDS.len());
    for kind in KINDS {
        let old = named(&r, kind, "0.2.0");
        let new = named(&r, kind, "0.2.4");
        assert_eq!(old.model, "omnipaxos-0.2.0");
        assert_eq!(new.model, "omnipaxos-0.2.4");
        assert_eq!(old.world_only(), new.world_only(), "{kind}");
        assert_eq!(new.expect, Expect::Pass, "{kind}");
        assert!(matches!(old.expect, Expect::RealBugs(_)), "{kind}");
        // The crate's sequence numbers and `reconnected` assume sessions.
        assert_eq!(new.links, sim::fault::LinkMode::Stream, "{kind}");
    }
}

#[test]
fn a_bad_config_is_one_line_before_any_node_runs() {
    let r = registry();
    let mut bad = named(&r, "crash-restart", "0.2.4");
    bad.config = serde_json::json!({ "election_ticks": 3 });
    assert!(r
        .validate(&bad, &[])
        .unwrap_err()
        .contains("unknown field `election_ticks`"));
    bad.config = serde_json::json!({ "election_tick_timeout": 0 });
    assert!(r
        .validate(&bad, &[])
        .unwrap_err()
        .contains("config.election_tick_timeout = 0 is out of range"));
}

/// Each seed runs once here and once on a fresh thread (the crate keeps no
/// thread-local state, and nothing here iterates in a random order), and
/// again from its own plan.
#[test]
fn a_seed_replays_to_the_same_trace() {
    for s in registry().scenarios() {
        dst_runner::replays(registry, s, 0..4, &[]).unwrap();
    }
}

#[test]
fn v024_passes_partitions() {
    let s = fuzzed("omnipaxos-0.2.4-partitions", 0..200);
    assert_eq!(s.tallies[0].pass, 200);
}

#[test]
fn v024_passes_crash_restart() {
    let s = fuzzed("omnipaxos-0.2.4-crash-restart", 0..300);
    assert_eq!(s.tallies[0].pass, 300);
}

/// haraldng/omnipaxos#112: a lagging follower is synced from the longest
/// promise's index, past the end of its own log. The adapter's invariant
/// sees the write itself, on almost every seed.
#[test]
fn v020_syncs_a_follower_past_the_end_of_its_log() {
    let s = fuzzed("omnipaxos-0.2.0-partitions", 0..10);
    let v = &s.tallies[0].violations;
    assert!(v.get("append-within-log").copied().unwrap_or(0) >= 8, "{v:?}");
}

/// The other bug of 0.2.0: a new leader writes a promise's suffix from the
/// wrong index; its log then holds entries twice or shifted, and the
/// servers apply different entries at one index.
#[test]
fn v020_applies_different_entries_at_one_index() {
    let s = fuzzed("omnipaxos-0.2.0-crash-restart", 0..60);
    let v = &s.tallies[0].violations;
    assert!(v.get("state-machine-safety").copied().unwrap_or(0) > 0, "{v:?}");
}
