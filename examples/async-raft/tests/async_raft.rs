//! async-raft 0.6.1 under dst through the registry and runner a user would
//! call: the model registered with every scenario valid, the adapter
//! passing when nothing goes wrong, runs that replay exactly, and each
//! defect of the crate found by its scenario with the signature that tells
//! it from the others.

use async_raft_example::{registry, SCENARIOS};
use dst_runner::{fuzz, FuzzOptions};
use sim::{Event, EventKind, KvOp, KvResult, ModelEvent, Registry, Role, RunOutcome, Scenario, Status};
use std::collections::BTreeMap;

fn load(r: &Registry, name: &str) -> Scenario {
    r.load(name).unwrap()
}

#[test]
fn the_registry_holds_the_release_and_every_scenario_is_valid() {
    let r = registry();
    r.check().unwrap();
    assert_eq!(r.scenarios().len(), SCENARIOS.len());
    assert!(r.model("async-raft-0.6.1").unwrap().is_async);
    assert_eq!(r.real_bugs().count(), 4);
    for s in r.scenarios() {
        r.validate(s, &[]).unwrap();
    }
}

#[test]
fn a_bad_config_is_one_line_before_any_node_runs() {
    let r = registry();
    let mut bad = load(&r, "async-raft-three");
    bad.config = serde_json::json!({ "heartbeat": 50 });
    let e = r.validate(&bad, &[]).unwrap_err();
    assert!(e.contains("unknown field `heartbeat`"), "{e}");
    bad.config = serde_json::json!({ "election_timeout_ms_min": 300, "election_timeout_ms_max": 100 });
    let e = r.validate(&bad, &[]).unwrap_err();
    assert!(e.contains("async-raft refuses the config"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

/// With no fault at all, async-raft serves every client correctly: what
/// the scenarios find is what the faults provoke, not the adapter.
#[test]
fn the_release_passes_when_nothing_goes_wrong() {
    let r = registry();
    let mut calm = load(&r, "async-raft-three");
    calm.name = "async-raft-calm".into();
    calm.faults = serde_json::from_value(serde_json::json!({
        "swarm": false, "partition": false, "partition_one_way": false, "link": false,
        "crash": false, "power_loss": false, "pause": false,
        "drop_probability_max": 0.0, "duplicate_probability_max": 0.0, "reorder_probability_max": 0.0,
        "delay_ms_min": 1, "delay_ms_max": 10, "fsync_ms_min": 1, "fsync_ms_max": 20,
        "impair_leader_probability": 0.0
    }))
    .unwrap();
    calm.expect = sim::Expect::Pass;
    let mut goals = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let out = r.run(&calm, seed, &[], None).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
        goals.extend(out.coverage);
    }
    for g in ["initialized", "leader-elected", "linearizable-read"] {
        assert!(goals.contains(g), "no calm seed reached {g}: {goals:?}");
    }
}

/// Each seed runs twice, the second time on another thread, and again from
/// its own plan: the traces hash the same. async-raft draws its election
/// timeouts from rand 0.7's thread generator, so this holds only because
/// getrandom 0.1 is patched with dst's.
#[test]
fn a_seed_replays_to_the_same_trace() {
    for s in registry().scenarios() {
        dst_runner::replays(registry, s, 0..3, &[]).unwrap();
    }
}

/// The first seed of `seeds` whose run fails with `invariant` and `holds`.
fn first_find(
    scenario: &str,
    seeds: std::ops::Range<u64>,
    invariant: &str,
    holds: impl Fn(&RunOutcome) -> bool,
) -> (u64, RunOutcome) {
    let r = registry();
    let s = load(&r, scenario);
    for seed in seeds.clone() {
        let out = r.run(&s, seed, &[], None).unwrap();
        if out.verdict.invariant.as_deref() == Some(invariant) && holds(&out) {
            let again = r.run(&s, seed, &[], Some(out.plan.clone())).unwrap();
            assert_eq!(again.trace.hash_hex(), out.trace.hash_hex(), "seed {seed} replays");
            return (seed, out);
        }
    }
    panic!("{scenario}: no seed of {seeds:?} failed {invariant} as the defect does");
}

fn message(out: &RunOutcome) -> &str {
    out.verdict.message.as_deref().unwrap_or_default()
}

/// After a leader change a node applies an index while a command entry
/// before it was never applied.
#[test]
fn committed_entries_of_an_earlier_term_are_skipped_at_apply() {
    let (_, out) = first_find("async-raft-leader-change", 0..40, "no-double-apply", |o| {
        message(o).contains("but never applied")
    });
    let terms: Vec<u64> = out
        .trace
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Model(ModelEvent::Role {
                role: Role::Leader,
                term,
                ..
            }) => Some(*term),
            _ => None,
        })
        .collect();
    assert!(terms.len() >= 2, "the skip follows a leader change: {terms:?}");
}

/// A leader cut off from the others, which elected a new leader that
/// acknowledged a write, answers a read without that write.
#[test]
fn a_deposed_leader_answers_reads_without_a_quorum() {
    let (seed, out) = first_find("async-raft-stale-reads", 0..100, "linearizable", |o| {
        stale_read_by_deposed_leader(o.trace.events()).is_some()
    });
    let (node, stale_for_ms) = stale_read_by_deposed_leader(out.trace.events()).unwrap();
    assert!(
        stale_for_ms < 50,
        "seed {seed}: node {node} answered at once, without asking anyone"
    );
}

/// Shrinking keeps the stale read a deposed leader answered (the same
/// invariant fails for the skipped applies too): what is left of the plan
/// keeps the cut that isolates the leader (the stale-read predicate itself
/// says the node that answered was a leader deposed by the others).
#[test]
fn the_deposed_leader_read_shrinks_to_the_cut_that_shows_it() {
    let (seed, _) = first_find("async-raft-stale-reads", 0..100, "linearizable", |o| {
        stale_read_by_deposed_leader(o.trace.events()).is_some()
    });
    let dir = std::env::temp_dir().join(format!("async-raft-shrink-{}", std::process::id()));
    let mut o = FuzzOptions::seeds("async-raft-stale-reads", seed..seed + 1);
    o.report_dir = Some(dir.clone());
    // The report must be written whatever the disk holds: no free-space floor.
    o.reports.min_free = 0;
    let r = registry();
    fuzz(&r, &o).unwrap();
    let report = dir.join(format!("async-raft-stale-reads-{seed}.json"));
    let keep = |o: &RunOutcome| stale_read_by_deposed_leader(o.trace.events()).is_some();
    let shrunk =
        dst_runner::shrink::shrink_keeping(&r, &report, None, 200, sim::report::Style::default(), &keep).unwrap();
    assert!(
        shrunk.plan_to < shrunk.plan_from,
        "{} -> {}",
        shrunk.plan_from,
        shrunk.plan_to
    );
    let text = std::fs::read_to_string(&shrunk.report).unwrap();
    let plan = serde_json::from_str::<serde_json::Value>(&text).unwrap()["plan"].to_string();
    assert!(shrunk.plan_to <= 4, "{plan}");
    // The leader's cut stays: aimed at the leader, or a partition that
    // leaves the leader of that moment alone.
    assert!(
        plan.contains("\"target\":\"leader\"") || plan.contains("\"action\":\"partition\""),
        "the cut of the leader stays: {plan}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A read answered by a node that still calls itself leader of a term
/// below another node's, missing a value appended and acknowledged before
/// the read began: the node, and how long the read took (ms).
fn stale_read_by_deposed_leader(events: &[Event]) -> Option<(usize, u64)> {
    let mut leading: BTreeMap<usize, u64> = BTreeMap::new();
    let mut invoked: BTreeMap<u64, (u64, KvOp)> = BTreeMap::new();
    let mut appended: Vec<(u64, u32, u64)> = Vec::new();
    for e in events {
        match &e.kind {
            EventKind::Model(ModelEvent::Role { role, term, .. }) => {
                let node = e.node.unwrap();
                match role {
                    Role::Leader => leading.insert(node, *term),
                    _ => leading.remove(&node),
                };
            }
            EventKind::Invoke { op_id, op, .. } => {
                invoked.insert(*op_id, (e.t_ns, op.clone()));
            }
            EventKind::Ok { op_id, result, to, .. } => {
                let Some((start, op)) = invoked.get(op_id) else {
                    continue;
                };
                match (op, result) {
                    (KvOp::Append { key, value }, _) => appended.push((e.t_ns, *key, *value)),
                    (KvOp::Get { key }, KvResult::Value { value }) => {
                        let Some(&node) = to.as_ref() else { continue };
                        let Some(&term) = leading.get(&node) else { continue };
                        let deposed = leading.iter().any(|(n, t)| *n != node && *t > term);
                        let missing = appended
                            .iter()
                            .any(|(at, k, v)| k == key && at < start && !value.contains(v));
                        if deposed && missing {
                            return Some((node, (e.t_ns - start) / 1_000_000));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    None
}

/// Every node restarted before a leader made the membership durable: no
/// node ever leads again, whatever the liveness phase waits.
#[test]
fn a_cluster_whose_nodes_restart_before_the_membership_is_durable_never_forms() {
    let (seed, out) = first_find("async-raft-boot-crash", 0..60, "liveness", |o| {
        !o.trace
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::Model(ModelEvent::Role { role: Role::Leader, .. })))
    });
    let saved_term = out
        .trace
        .events()
        .iter()
        .any(|e| matches!(e.kind, EventKind::Model(ModelEvent::HardState { term, .. }) if term > 0));
    assert!(saved_term, "seed {seed}: a term was saved before the restarts");
}

/// A late or repeated AppendEntries makes a follower apply an index again.
#[test]
fn a_stale_append_makes_a_follower_apply_again() {
    first_find("async-raft-three", 0..60, "no-double-apply", |o| {
        message(o).contains("again")
    });
}

/// Every scenario's failures are the defects it declares, over a range of
/// seeds a CI smoke runs: nothing unexpected, no stall, no panic.
#[test]
fn every_scenario_shows_only_what_it_declares() {
    let r = registry();
    for s in r.scenarios() {
        let sum = fuzz(&r, &FuzzOptions::seeds(&s.name, 0..40)).unwrap();
        assert!(sum.ok(), "{}", sum.failures().join("\n"));
    }
}
