//! Shrinking a finding whose failure needs message chaos. Seed 0 of
//! raft-snapshot with `snapshot-without-data` fails only because some
//! messages were lost, duplicated or held back: with every message calm it
//! passes. Shrinking keeps the chaos the failure needs and calms the rest.

use dst_runner::{self as runner, cause, load_report, run_seed, run_seed_with, shrink::shrink};
use models::registry;
use sim::fault::Calm;
use sim::{Overrides, Registry};
use std::path::PathBuf;

const SCENARIO: &str = "raft-snapshot";
const BUG: &str = "snapshot-without-data";

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-shrink-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The report of seed 0, written under `dir`.
fn found(reg: &Registry, dir: &std::path::Path) -> PathBuf {
    let s = reg.load(SCENARIO).unwrap();
    let bugs = vec![BUG.to_string()];
    let (out, ms) = run_seed(reg, &s, 0, &bugs, None).unwrap();
    assert_eq!(cause(&out).as_deref(), Some("state-machine-safety"));
    let path = dir.join("found.json");
    let class = reg.classify(&out, &s, &bugs);
    runner::report(reg, &out, class, &s, 0, &bugs, ms, &path, Default::default())
        .and_then(|r| r.write(&path))
        .unwrap();
    path
}

#[test]
fn a_failure_that_needs_chaos_keeps_only_the_chaos_it_needs() {
    let reg = registry();
    let d = dir("needs");
    let path = found(&reg, &d);
    let (before, _) = load_report(&reg, &path).unwrap();
    let s = shrink(&reg, &path, Some(d.join("shrunk.json")), 400, Default::default()).unwrap();

    assert_eq!(s.verdict.invariant.as_deref(), Some("state-machine-safety"));
    assert_eq!(s.events_from, before.stats.events);
    assert!(
        s.events_to < s.events_from,
        "events {} -> {}",
        s.events_from,
        s.events_to
    );
    assert!(s.plan_to <= s.plan_from);
    assert!(s.chaos_to >= 1, "the failure needs some chaos");
    assert!(
        s.chaos_to * 4 < s.chaos_from,
        "chaos {} -> {}",
        s.chaos_from,
        s.chaos_to
    );
    assert!(s.runs <= 401, "{} runs", s.runs);

    let (after, scenario) = load_report(&reg, &s.report).unwrap();
    let left: Vec<u64> = s.chaos_left.iter().map(|(id, _)| *id).collect();
    assert_eq!(after.calm, Calm::all_but(&left), "everything else is calm");
    assert_eq!(after.stats.events, s.events_to);

    // The shrunk report replays to its own trace, failing the same way.
    let (again, _) = run_seed_with(&reg, &scenario, after.seed, &after.bugs, Overrides::of_report(&after)).unwrap();
    assert_eq!(again.trace.hash_hex(), after.trace_hash);
    assert_eq!(again.verdict, after.verdict);
    let ids: Vec<u64> = again.chaos.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, left);

    // Calm every message as well, and the failure is gone: it needs the chaos.
    let calm_all = Overrides {
        calm: Calm::all_but(&[]),
        ..Overrides::of_report(&after)
    };
    let (quiet, _) = run_seed_with(&reg, &scenario, after.seed, &after.bugs, calm_all).unwrap();
    assert!(quiet.chaos.is_empty());
    assert_ne!(
        cause(&quiet).as_deref(),
        Some("state-machine-safety"),
        "{}",
        runner::describe(&quiet)
    );
}

#[test]
fn shrinking_twice_gives_the_same_counterexample() {
    let reg = registry();
    let d = dir("twice");
    let path = found(&reg, &d);
    let a = shrink(&reg, &path, Some(d.join("a.json")), 120, Default::default()).unwrap();
    let b = shrink(&reg, &path, Some(d.join("b.json")), 120, Default::default()).unwrap();
    let (ra, _) = load_report(&reg, &a.report).unwrap();
    let (rb, _) = load_report(&reg, &b.report).unwrap();
    assert_eq!(ra.trace_hash, rb.trace_hash);
    assert_eq!((&ra.plan, &ra.calm, &ra.config), (&rb.plan, &rb.calm, &rb.config));
    assert_eq!((a.runs, a.chaos_to, a.events_to), (b.runs, b.chaos_to, b.events_to));
}
