//! The revival guided search found in snapshot-guard-expired as it was
//! (`tests/data/snapshot-guard-expired-outage.json`, see docs/book/src/bugs.md): the
//! documented TTL limit reached through an outage of both owners longer
//! than the tombstone TTL, not a fork that makes an impossible run and not
//! a second bug of the correct model. These tests keep each part of that
//! shown: the report replays to the revival; its plan without the fork
//! revives on plain seeds; the same crashes restarted within the
//! scenario's `fault_ms_max` revive nothing; and the scenario as it is now
//! refuses the plan, whose crash of node 2 it spares.

use sim::fault::{Action, PlanEntry};
use sim::report::Report;
use sim::Overrides;
use std::path::Path;

const KEPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/snapshot-guard-expired-outage.json"
);

fn kept() -> (sim::Registry, Report, sim::Scenario) {
    let reg = dst::registry();
    let (r, s) = dst_runner::load_report(&reg, Path::new(KEPT)).expect("the kept report loads");
    (reg, r, s)
}

/// Whether `seed` of the kept report's scenario, run with `plan`, revives a key.
fn revives(reg: &sim::Registry, s: &sim::Scenario, seed: u64, plan: &[PlanEntry]) -> bool {
    let fixed = Overrides {
        plan: Some(plan.to_vec()),
        ..Overrides::default()
    };
    let (out, _) = dst_runner::run_seed_with(reg, s, seed, &[], fixed).expect("runs");
    out.verdict.invariant.as_deref() == Some("no-tombstone-revival")
}

#[test]
fn the_kept_report_replays_to_the_revival() {
    let (reg, r, s) = kept();
    let (out, _) = dst_runner::run_seed_with(&reg, &s, r.seed, &r.bugs, Overrides::of_report(&r)).unwrap();
    assert_eq!(out.verdict, r.verdict);
    assert_eq!(out.trace.hash_hex(), r.trace_hash);
    assert!(r.plan.iter().any(|e| matches!(e.action, Action::Reseed { .. })));
}

#[test]
fn without_the_fork_plain_seeds_revive_and_with_bounded_outages_none_do() {
    let (reg, r, s) = kept();
    let plain: Vec<PlanEntry> = r
        .plan
        .iter()
        .filter(|e| !matches!(e.action, Action::Reseed { .. }))
        .cloned()
        .collect();
    let reviving: Vec<u64> = (1..=20).filter(|&seed| revives(&reg, &s, seed, &plain)).collect();
    assert!(reviving.len() >= 5, "plain seeds that revive: {reviving:?}");
    // Each crash restarted within the scenario's own fault_ms_max.
    let most_ns = s.faults.fault_ms_max * 1_000_000;
    let mut bounded = plain.clone();
    let mut down: Vec<(usize, u64)> = Vec::new();
    for e in &plain {
        match e.action {
            Action::Crash { node } => down.push((node, e.at_ns)),
            Action::Restart { node } => down.retain(|(n, _)| *n != node),
            _ => {}
        }
    }
    for (node, at) in down {
        bounded.push(PlanEntry {
            at_ns: at + most_ns,
            action: Action::Restart { node },
        });
    }
    bounded.sort_by_key(|e| e.at_ns);
    let both_down_ms = {
        // Sanity: the kept plan keeps both owners down for seconds.
        let last_crash = plain
            .iter()
            .filter(|e| matches!(e.action, Action::Crash { .. }))
            .map(|e| e.at_ns)
            .max();
        (s.safety_ms * 1_000_000 - last_crash.unwrap()) / 1_000_000
    };
    assert!(both_down_ms > 2 * s.faults.fault_ms_max, "{both_down_ms} ms");
    let reviving: Vec<u64> = (1..=20).filter(|&seed| revives(&reg, &s, seed, &bounded)).collect();
    assert!(reviving.is_empty(), "bounded outages that revive: {reviving:?}");
}

#[test]
fn the_scenario_now_spares_an_owner_and_refuses_the_plan_that_stops_it() {
    let (reg, r, _) = kept();
    let now = reg.load("snapshot-guard-expired").unwrap();
    assert!(now.faults.spared.contains(&2));
    let e = sim::fault::check_plan(&r.plan, now.nodes, &now.faults.spared).unwrap_err();
    assert!(e.contains("stops node 2, which the scenario spares"), "{e}");
    // The report with the scenario as it is now is refused as it is read.
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(KEPT).unwrap()).unwrap();
    v["config"] = serde_json::to_value(&now).unwrap();
    let edited = Report::parse(&v.to_string()).unwrap();
    let e = dst_runner::report_scenario(&reg, &edited).unwrap_err();
    assert!(e.contains("spares"), "{e}");
}
