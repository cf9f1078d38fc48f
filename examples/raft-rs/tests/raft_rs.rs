//! The raft-rs models under dst, through the registry and the runner a user
//! would call: runs replay exactly, 0.7.0 passes every scenario and reaches
//! every coverage goal, 0.4.3's real bugs are found.

use dst_runner::{fuzz, FuzzOptions};
use raft_rs_example::{registry, SCENARIOS};
use sim::{Expect, Registry, Scenario};

const KINDS: [&str; 4] = ["partitions", "crash-restart", "durability", "snapshot"];

fn named(r: &Registry, kind: &str, version: &str) -> Scenario {
    r.load(&format!("raft-rs-{version}-{kind}")).unwrap()
}

#[test]
fn the_registry_holds_both_releases_and_every_scenario_is_valid() {
    let r = registry();
    r.check().unwrap();
    assert_eq!(r.scenarios().len(), SCENARIOS.len());
    assert!(r.model("raft-rs-0.4.3").is_ok() && r.model("raft-rs-0.7.0").is_ok());
    assert_eq!(r.real_bugs().count(), 2);
}

#[test]
fn every_scenario_exists_for_both_versions_with_the_same_settings() {
    let r = registry();
    assert_eq!(SCENARIOS.len(), 2 * KINDS.len());
    for kind in KINDS {
        let old = named(&r, kind, "0.4.3");
        let new = named(&r, kind, "0.7.0");
        assert_eq!(old.model, "raft-rs-0.4.3");
        assert_eq!(new.model, "raft-rs-0.7.0");
        assert_eq!(old.world_only(), new.world_only(), "{kind}");
        assert_eq!(new.expect, Expect::Pass, "{kind}");
    }
}

#[test]
fn a_bad_config_is_one_line_before_any_node_runs() {
    let r = registry();
    let mut bad = named(&r, "crash-restart", "0.7.0");
    bad.config = serde_json::json!({ "election_ticks": 3 });
    assert!(r
        .validate(&bad, &[])
        .unwrap_err()
        .contains("unknown field `election_ticks`"));
    bad.config = serde_json::json!({ "election_tick": 5, "heartbeat_tick": 5 });
    assert!(r
        .validate(&bad, &[])
        .unwrap_err()
        .contains("config.election_tick = 5 is out of range 6..=100000"));
    bad.model = "raft-rs-0.5".into();
    assert!(r
        .validate(&bad, &[])
        .unwrap_err()
        .contains("unknown model 'raft-rs-0.5'"));
}

/// The crates draw election timeouts from an unseeded thread-local
/// generator, whose state also carries over between runs on a thread:
/// each seed runs once here and once on a fresh thread.
#[test]
fn a_seed_replays_to_the_same_trace() {
    for s in registry().scenarios() {
        dst_runner::replays(registry, s, 0..4, &[]).unwrap();
    }
}

fn passes_and_covers(kind: &str, seeds: std::ops::Range<u64>) {
    let s = fuzz(
        &registry(),
        &FuzzOptions::seeds(&format!("raft-rs-0.7.0-{kind}"), seeds),
    )
    .unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
}

#[test]
fn v070_passes_partitions() {
    passes_and_covers("partitions", 0..16);
}

#[test]
fn v070_passes_crash_restart() {
    passes_and_covers("crash-restart", 0..40);
}

#[test]
fn v070_passes_durability() {
    passes_and_covers("durability", 0..20);
}

#[test]
fn v070_passes_snapshot() {
    passes_and_covers("snapshot", 0..12);
}

/// raft 0.4.3 sets `must_sync` only when term or vote change, so entries
/// are acknowledged before they are durable: a power loss of a majority
/// loses a committed entry. Found within a few seeds, and what it shows as
/// is what the scenario declares expected.
#[test]
fn v043_loses_committed_entries_to_a_power_loss() {
    let s = fuzz(&registry(), &FuzzOptions::seeds("raft-rs-0.4.3-crash-restart", 0..20)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    let v = &s.tallies[0].violations;
    assert!(v.get("state-machine-safety").copied().unwrap_or(0) > 0, "{v:?}");
    assert!(v.get("panic").copied().unwrap_or(0) > 0, "{v:?}");
}

/// The adapter's own invariant sees the breach itself: every seed of
/// 0.4.3 acknowledges entries its disk does not hold yet.
#[test]
fn v043_acknowledges_entries_before_they_are_durable() {
    let s = fuzz(&registry(), &FuzzOptions::seeds("raft-rs-0.4.3-durability", 0..10)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].violations.get("ack-after-durable").copied(), Some(10));
}

/// Without crashes nothing unsynced is ever lost: the old release passes.
#[test]
fn v043_passes_without_crashes() {
    let s = fuzz(&registry(), &FuzzOptions::seeds("raft-rs-0.4.3-partitions", 0..16)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].pass, 16);
}

/// The 0.4.3 finding replays exactly from its report, and shrinking keeps
/// the violation with a fraction of the faults.
#[test]
fn the_v043_finding_replays_and_shrinks() {
    let r = registry();
    let s = r.load("raft-rs-0.4.3-crash-restart").unwrap();
    let (out, ms) = dst_runner::run_seed(&r, &s, 0, &[], None).unwrap();
    let class = r.classify(&out, &s, &[]);
    assert_eq!(class, dst_runner::Class::Expected);
    let dir = std::env::temp_dir().join(format!("raft-rs-shrink-{}", std::process::id()));
    let path = dir.join("found.json");
    dst_runner::report(&r, &out, class, &s, 0, &[], ms, &path, Default::default())
        .and_then(|report| report.write(&path))
        .unwrap();
    let (report, _) = dst_runner::load_report(&r, &path).unwrap();
    let again = r.run(&s, report.seed, &[], Some(report.plan.clone())).unwrap();
    assert_eq!(again.trace.hash_hex(), report.trace_hash);
    let shrunk = dst_runner::shrink::shrink(&r, &path, None, 100, Default::default()).unwrap();
    assert!(
        shrunk.plan_to < shrunk.plan_from / 4,
        "{} -> {}",
        shrunk.plan_from,
        shrunk.plan_to
    );
    assert!(shrunk.events_to <= shrunk.events_from);
    assert_eq!(shrunk.verdict.invariant.as_deref(), Some("state-machine-safety"));
}
