//! A run holds only its latest events (any length fits in bounded memory),
//! yet every verdict, report and window is what a run holding every event
//! gives: what was dropped is regenerated from the seed when needed.

use dst_runner::{report, run_seed_with, Class};
use sim::report::Style;
use sim::trace::Keep;
use sim::Overrides;
use std::path::Path;

fn holding(keep: Keep) -> Overrides {
    Overrides {
        keep,
        ..Overrides::default()
    }
}

fn strip_wall(mut r: sim::report::Report) -> serde_json::Value {
    r.stats.wall_ms = 0;
    serde_json::to_value(r).unwrap()
}

/// A linearizability violation whose evidence lies far from the run's end
/// is reported exactly as from a run that held everything, in both styles.
#[test]
fn a_run_holding_few_events_reports_what_a_whole_run_reports() {
    let reg = dst::registry();
    let s = reg.load("raft-read-index").unwrap();
    let bugs = vec!["read-without-quorum".to_string()];
    let (whole, _) = run_seed_with(&reg, &s, 1, &bugs, holding(Keep::All)).unwrap();
    let (small, _) = run_seed_with(&reg, &s, 1, &bugs, holding(Keep::Last(16))).unwrap();
    assert!(whole.trace.is_whole() && whole.trace.len() > 1000);
    assert_eq!(small.trace.hash_hex(), whole.trace.hash_hex());
    assert_eq!(small.trace.len(), whole.trace.len());
    assert_eq!(small.verdict, whole.verdict);
    assert!(!small.trace.is_whole(), "a bounded run holds a part");
    for &i in &small.verdict.evidence {
        assert_eq!(small.trace.get(i), whole.trace.get(i), "evidence event {i} is held");
    }
    let class = reg.classify(&whole, &s, &bugs);
    assert_eq!(class, Class::Expected);
    for full_trace in [false, true] {
        let style = Style {
            full_trace,
            gzip: false,
        };
        let p = Path::new("r.json");
        let a = report(&reg, &whole, class, &s, 1, &bugs, 0, p, style).unwrap();
        let b = report(&reg, &small, class, &s, 1, &bugs, 0, p, style).unwrap();
        assert_eq!(strip_wall(a), strip_wall(b), "full_trace = {full_trace}");
    }
}

/// A passing run holding few events drops the rest and keeps its hash.
#[test]
fn a_passing_bounded_run_holds_n_to_2n_latest_events() {
    let reg = dst::registry();
    let s = reg.load("raft-partitions").unwrap();
    let (whole, _) = run_seed_with(&reg, &s, 3, &[], holding(Keep::All)).unwrap();
    let (small, _) = run_seed_with(&reg, &s, 3, &[], holding(Keep::Last(64))).unwrap();
    assert_eq!(small.verdict.status, sim::Status::Pass);
    assert_eq!(small.trace.hash_hex(), whole.trace.hash_hex());
    let held = small.trace.events();
    assert!((64..=128).contains(&held.len()), "{}", held.len());
    let n = whole.trace.len();
    assert_eq!(held, &whole.trace.events()[n - held.len()..]);
}

/// Fuzz holds only a few hundred events per run and hashes none of a
/// passing one, yet names each failing seed's evidence by kind, and gives
/// its trace hash, as a run holding everything does: the kinds decide which
/// failures count as new in a growing corpus.
#[test]
fn fuzz_names_the_evidence_a_whole_run_names() {
    let reg = dst::registry();
    let bugs = vec!["read-without-quorum".to_string()];
    let mut opts = dst_runner::FuzzOptions::seeds("raft-read-index", 0..4);
    opts.bugs = bugs.clone();
    let s = reg.load("raft-read-index").unwrap();
    let mut checked = 0;
    dst_runner::fuzz_with(&reg, &opts, |d| {
        let (whole, _) = run_seed_with(&reg, &s, d.seed, &bugs, holding(Keep::All)).unwrap();
        let want = dst_runner::grow::evidence_kinds(&whole.verdict, whole.trace.events());
        assert_eq!(d.evidence, want, "seed {}", d.seed);
        // A seed that simply passed is not hashed; every other one is.
        if !want.is_empty() {
            assert_eq!(d.trace_hash, whole.trace.hash_hex(), "seed {}", d.seed);
            checked += 1;
        }
    })
    .unwrap();
    assert!(checked > 0, "some seed failed with evidence");
}

/// With determinism checked, a passing seed is hashed, twice, to the hash a
/// run holding everything has; without, it is not hashed at all.
#[test]
fn fuzz_hashes_passing_seeds_only_to_check_determinism() {
    let reg = dst::registry();
    let s = reg.load("raft-partitions").unwrap();
    for twice in [false, true] {
        let mut opts = dst_runner::FuzzOptions::seeds("raft-partitions", 0..3);
        opts.determinism = twice;
        let mut seen = 0;
        dst_runner::fuzz_with(&reg, &opts, |d| {
            assert!(
                matches!(d.class, Ok(dst_runner::Class::Pass)),
                "seed {}: {}",
                d.seed,
                d.line
            );
            let want = match twice {
                true => run_seed_with(&reg, &s, d.seed, &[], holding(Keep::All))
                    .unwrap()
                    .0
                    .trace
                    .hash_hex(),
                false => String::new(),
            };
            assert_eq!(d.trace_hash, want, "seed {} determinism {twice}", d.seed);
            seen += 1;
        })
        .unwrap();
        assert_eq!(seen, 3);
    }
}

/// An async run holds bounded memory the same way: a stale read of the
/// tokio service reports the same verdict, hash and evidence from a run
/// that held its last 16 events as from one that held all.
#[test]
fn an_async_run_holding_few_events_gives_the_same_verdict() {
    let reg = dst::registry();
    let s = reg.load("tokio-kv-crash-restart").unwrap();
    let bugs = vec!["tokio-kv-apply-before-fsync".to_string()];
    let (seed, whole) = (0..200)
        .find_map(|seed| {
            let (out, _) = run_seed_with(&reg, &s, seed, &bugs, holding(Keep::All)).unwrap();
            (out.verdict.invariant.as_deref() == Some("linearizable")).then_some((seed, out))
        })
        .expect("the bug is found within 200 seeds");
    let (small, _) = run_seed_with(&reg, &s, seed, &bugs, holding(Keep::Last(16))).unwrap();
    assert!(!small.trace.is_whole());
    assert_eq!(small.trace.hash_hex(), whole.trace.hash_hex());
    assert_eq!(small.verdict, whole.verdict);
    for &i in &small.verdict.evidence {
        assert_eq!(small.trace.get(i), whole.trace.get(i), "evidence event {i} is held");
    }
}
