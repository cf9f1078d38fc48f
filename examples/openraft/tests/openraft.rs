//! openraft under dst through the registry and runner a user would call:
//! both releases registered with every scenario valid and alike, runs that
//! replay exactly, 0.9.25 passing with its goals reached, 0.9.24's real
//! bug found, and the two findings kept in `findings/` failing on their
//! seeds while the same seeds pass over the default store.

use dst_runner::{fuzz, FuzzOptions};
use openraft_example::{registry, FINDINGS, SCENARIOS};
use sim::{Expect, Registry, Scenario};

const KINDS: [&str; 5] = ["three", "partitions", "crash-restart", "targeted", "churn"];

fn named(r: &Registry, kind: &str, version: &str) -> Scenario {
    r.load(&format!("openraft-{version}-{kind}")).unwrap()
}

#[test]
fn the_registry_holds_both_releases_and_every_scenario_is_valid() {
    let r = registry();
    r.check().unwrap();
    assert_eq!(r.scenarios().len(), SCENARIOS.len());
    assert!(r.model("openraft-0.9.24").unwrap().is_async);
    assert!(r.model("openraft-0.9.25").unwrap().is_async);
    assert_eq!(r.real_bugs().count(), 2);
    for s in r.scenarios() {
        r.validate(s, &[]).unwrap();
    }
}

#[test]
fn every_scenario_exists_for_both_releases_with_the_same_settings() {
    let r = registry();
    assert_eq!(SCENARIOS.len(), 2 * KINDS.len());
    for kind in KINDS {
        let old = named(&r, kind, "0.9.24");
        let new = named(&r, kind, "0.9.25");
        assert_eq!(old.world_only(), new.world_only(), "{kind}");
        assert_eq!(new.expect, Expect::Pass, "{kind}");
        assert_ne!(old.expect, Expect::Pass, "{kind}");
    }
}

#[test]
fn a_bad_config_is_one_line_before_any_node_runs() {
    let r = registry();
    let mut bad = named(&r, "partitions", "0.9.25");
    bad.config = serde_json::json!({ "heartbeat": 50 });
    let e = r.validate(&bad, &[]).unwrap_err();
    assert!(e.contains("unknown field `heartbeat`"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    bad.config = serde_json::json!({ "log_reads": "sometimes" });
    let e = r.validate(&bad, &[]).unwrap_err();
    assert!(e.contains("sometimes"), "{e}");
    // Churn keeps four of five voters; fewer nodes have no majority to spare.
    bad.config = serde_json::json!({ "membership_churn_ms": 400 });
    bad.nodes = 3;
    assert!(r.validate(&bad, &[]).is_err());
}

/// Each seed runs twice, the second time on another thread, and again from
/// its own plan: the traces hash the same.
#[test]
fn a_seed_replays_to_the_same_trace() {
    for s in registry().scenarios() {
        dst_runner::replays(registry, s, 0..2, &[]).unwrap();
    }
}

fn passes_and_covers(kind: &str, seeds: std::ops::Range<u64>) {
    let n = seeds.end - seeds.start;
    let s = fuzz(
        &registry(),
        &FuzzOptions::seeds(&format!("openraft-0.9.25-{kind}"), seeds),
    )
    .unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].pass, n);
}

#[test]
fn v0925_passes_three() {
    passes_and_covers("three", 0..24);
}

#[test]
fn v0925_passes_partitions_with_membership_changes() {
    passes_and_covers("partitions", 0..24);
}

#[test]
fn v0925_passes_crash_restart() {
    passes_and_covers("crash-restart", 0..24);
}

#[test]
fn v0925_passes_churn() {
    passes_and_covers("churn", 0..24);
}

#[test]
fn v0925_passes_targeted() {
    passes_and_covers("targeted", 0..24);
}

/// openraft#1802: under membership churn 0.9.24 commits an entry only two of
/// five nodes hold durably; the seed replays exactly, and 0.9.25 passes it.
#[test]
fn v0924_commits_without_a_quorum_under_membership_churn() {
    let r = registry();
    let old = r.load("openraft-0.9.24-churn").unwrap();
    for seed in [2116, 16811] {
        let out = r.run(&old, seed, &[], None).unwrap();
        assert_eq!(
            out.verdict.invariant.as_deref(),
            Some("commit-on-quorum"),
            "seed {seed}: {:?}",
            out.verdict
        );
        assert!(out
            .verdict
            .message
            .as_deref()
            .unwrap()
            .contains("only 2 of 5 nodes durably held it"));
        let again = r.run(&old, seed, &[], Some(out.plan.clone())).unwrap();
        assert_eq!(again.trace.hash_hex(), out.trace.hash_hex());
        let new = r.load("openraft-0.9.25-churn").unwrap();
        let fixed = r.run(&new, seed, &[], None).unwrap();
        assert_eq!(
            fixed.verdict.status,
            sim::Status::Pass,
            "seed {seed} on 0.9.25: {:?}",
            fixed.verdict
        );
    }
}

/// 0.9.24 panics in its replication stream on an empty log read; the
/// old release's scenarios declare it, and a seed range finds it.
#[test]
fn v0924_panics_on_an_empty_replication_read() {
    let r = registry();
    let s = fuzz(&r, &FuzzOptions::seeds("openraft-0.9.24-targeted", 0..200)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert!(s.tallies[0].expected > 0, "{:?}", s.tallies[0]);
    let scenario = r.load("openraft-0.9.24-targeted").unwrap();
    let panicked = |v: &sim::Verdict| {
        v.status == sim::Status::Error
            && v.message
                .as_deref()
                .is_some_and(|m| m.contains("panicked") && m.contains("replication/mod.rs"))
    };
    let seed = (0..200)
        .find(|&seed| panicked(&r.run(&scenario, seed, &[], None).unwrap().verdict))
        .unwrap();
    let out = r.run(&scenario, seed, &[], None).unwrap();
    let again = r.run(&scenario, seed, &[], Some(out.plan.clone())).unwrap();
    assert_eq!(again.trace.hash_hex(), out.trace.hash_hex());
    assert_eq!(again.verdict, out.verdict);
}

/// What a finding shows as: the invariant it names, or openraft's own
/// assertion. For the store that answers reads as stored, the debug
/// assertion that entries follow the previous log id fires first when
/// debug assertions are on, as in the test profile.
fn shows_finding(name: &str, v: &sim::Verdict) -> bool {
    let message = v.message.as_deref().unwrap_or("");
    match name {
        "openraft-0.9.25-reads-as-stored" => {
            v.invariant.as_deref() == Some("state-machine-safety")
                || message.contains("x.get_log_id().index == prev_log_id.next_index()")
        }
        "openraft-0.9.25-committed-unsynced" | "openraft-0.9.25-forward-as-refusal" => {
            v.invariant.as_deref() == Some("linearizable")
        }
        "openraft-0.9.25-stale-stream" => {
            v.invariant.as_deref() == Some("state-machine-safety")
                || message.contains("Some(entries[0].get_log_id()) > self.state.log_ids.last()")
                || message.contains("committed log should never be truncated")
        }
        "openraft-0.9.25-purge-before-install" => {
            message.contains("panicked")
                && message.contains("self.purge_upto()")
                && message.contains("self.snapshot_last_log_id()")
        }
        _ => panic!("no finding {name}"),
    }
}

/// The knob whose default makes a finding go away, if it is a store or
/// client choice rather than a bug of openraft itself.
const CHOICES: [&str; 3] = ["log_reads", "committed_synced", "write_forward"];

/// Undoes the choice a finding makes, if it is one: a store or client
/// knob back to the adapter's default. False for a bug of openraft itself.
fn undo_choice(config: &mut serde_json::Map<String, serde_json::Value>) -> bool {
    CHOICES.iter().any(|k| config.remove(*k).is_some())
}

/// Each finding fails on its seeds as it is described and replays; the same
/// seeds pass once the store or client is the default one, where the
/// finding is such a choice.
#[test]
fn the_findings_fail_on_their_seeds_and_pass_with_the_default_choice() {
    for (name, json, seeds) in FINDINGS {
        let mut r = registry();
        r.scenario(json);
        let s = r.load(name).unwrap();
        let mut fixed = s.clone();
        let choice = undo_choice(fixed.config.as_object_mut().unwrap());
        for &seed in *seeds {
            let out = r.run(&s, seed, &[], None).unwrap();
            assert!(
                shows_finding(name, &out.verdict),
                "{name} seed {seed}: {:?}",
                out.verdict
            );
            let again = r.run(&s, seed, &[], Some(out.plan.clone())).unwrap();
            assert_eq!(
                again.trace.hash_hex(),
                out.trace.hash_hex(),
                "{name} seed {seed} replays"
            );
            if choice {
                let out = r.run(&fixed, seed, &[], None).unwrap();
                assert_eq!(
                    out.verdict.status,
                    sim::Status::Pass,
                    "{name} seed {seed} with the default: {:?}",
                    out.verdict
                );
            }
        }
    }
}
