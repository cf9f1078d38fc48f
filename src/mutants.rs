//! `dst mutants`: every catalogued bug against its scenario. Is it found,
//! by which invariant, after how many seeds? And the correct model over the
//! same seeds, which must find nothing.

use crate::commands::run_seed;
use crate::outcome::{self, Class};
use crate::{pool, Exit};
use models::catalogue::{self, BugInfo};
use models::scenarios as builtin;
use sim::Status;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(serde::Serialize)]
struct Hunt {
    bug: &'static str,
    scenario: &'static str,
    expected_invariants: &'static [&'static str],
    found_by: Option<String>,
    /// Seeds run until the first violation (inclusive), or all of them.
    seeds: u64,
    wall_ms: u64,
    report: Option<PathBuf>,
    error: Option<String>,
}

fn hunt(b: &'static BugInfo, max_seeds: u64, dir: &Path) -> Hunt {
    let start = Instant::now();
    let mut h = Hunt {
        bug: b.id,
        scenario: b.scenario,
        expected_invariants: b.invariants,
        found_by: None,
        seeds: 0,
        wall_ms: 0,
        report: None,
        error: None,
    };
    let scenario = match builtin::load(b.scenario) {
        Ok(s) => s,
        Err(e) => {
            h.error = Some(e);
            return h;
        }
    };
    let bugs = vec![b.id.to_string()];
    for seed in 0..max_seeds {
        h.seeds = seed + 1;
        match run_seed(&scenario, seed, &bugs, None) {
            Err(e) => {
                h.error = Some(e);
                break;
            }
            Ok((out, wall_ms)) if out.verdict.status != Status::Pass => {
                h.found_by = Some(out.verdict.invariant.clone().unwrap_or_else(|| "error".into()));
                let path = outcome::report_path(dir, &scenario.name, seed, &bugs);
                if outcome::report(&out, &scenario, seed, &bugs, wall_ms, &path)
                    .write(&path)
                    .is_ok()
                {
                    h.report = Some(path);
                }
                break;
            }
            Ok(_) => {}
        }
    }
    h.wall_ms = start.elapsed().as_millis() as u64;
    h
}

pub fn main(max_seeds: u64, only: &[String], jobs: Option<usize>, dir: &Path, json: bool) -> Exit {
    let mut chosen: Vec<&'static BugInfo> = Vec::new();
    for id in only {
        match catalogue::bug(id) {
            Ok(b) => chosen.push(b),
            Err(e) => return Exit::Bad(e),
        }
    }
    if chosen.is_empty() {
        chosen = catalogue::BUGS.iter().collect();
    }
    if max_seeds == 0 {
        return Exit::Bad("--max-seeds must be at least 1".into());
    }
    let jobs = pool::jobs(jobs);
    let mut hunts: Vec<Hunt> = Vec::new();
    pool::run(
        chosen.clone().into_iter(),
        jobs,
        None,
        |b| hunt(b, max_seeds, dir),
        |h| {
            if !json {
                eprintln!(
                    "  {} : {}",
                    h.bug,
                    h.found_by.as_deref().map_or("not found".to_string(), |f| format!(
                        "found by {f} after {} seeds",
                        h.seeds
                    ))
                );
            }
            hunts.push(h);
        },
    );
    hunts.sort_by_key(|h| catalogue::BUGS.iter().position(|b| b.id == h.bug));

    // The correct model over the seeds each scenario's bugs needed.
    let mut span: BTreeMap<&str, u64> = BTreeMap::new();
    for h in &hunts {
        let e = span.entry(h.scenario).or_default();
        *e = (*e).max(h.seeds);
    }
    let items: Vec<(&str, u64)> = span
        .iter()
        .flat_map(|(s, n)| (0..*n).map(move |seed| (*s, seed)))
        .collect();
    let mut correct: BTreeMap<&str, (u64, Vec<String>)> = BTreeMap::new();
    pool::run(
        items.into_iter(),
        jobs,
        None,
        |(name, seed)| {
            let r = builtin::load(name).and_then(|s| run_seed(&s, seed, &[], None).map(|(o, _)| (s, o)));
            let bad = match r {
                Ok((s, out)) => (outcome::classify(&out, &s, &[]) == Class::Unexpected)
                    .then(|| format!("seed {seed}: {}", outcome::describe(&out))),
                Err(e) => Some(e),
            };
            (name, bad)
        },
        |(name, bad)| {
            let e = correct.entry(name).or_default();
            e.0 += 1;
            e.1.extend(bad);
        },
    );

    let unfound = hunts.iter().filter(|h| h.found_by.is_none()).count();
    let correct_failed = correct.values().any(|(_, v)| !v.is_empty());
    let mut found_seeds: Vec<u64> = hunts.iter().filter(|h| h.found_by.is_some()).map(|h| h.seeds).collect();
    found_seeds.sort_unstable();
    let median = found_seeds.get(found_seeds.len().saturating_sub(1) / 2).copied();
    if json {
        let c: Vec<_> = correct
            .iter()
            .map(|(s, (n, bad))| serde_json::json!({"scenario": s, "seeds": n, "unexpected": bad}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"max_seeds": max_seeds, "bugs": hunts, "correct": c, "median_seeds": median, "unfound": unfound})
        );
    } else {
        println!(
            "{:<26} {:<38} {:<21} {:>6} {:>9}",
            "bug", "expected invariant", "found by", "seeds", "wall"
        );
        for h in &hunts {
            let found = h
                .found_by
                .clone()
                .or_else(|| h.error.clone().map(|e| format!("error: {e}")))
                .unwrap_or_else(|| "NOT FOUND".into());
            println!(
                "{:<26} {:<38} {:<21} {:>6} {:>7.1} s",
                h.bug,
                h.expected_invariants.join("|"),
                found,
                h.seeds,
                h.wall_ms as f64 / 1e3
            );
        }
        println!();
        for (s, (n, bad)) in &correct {
            println!(
                "correct model on {s:<20} {n:>6} seeds  {}",
                if bad.is_empty() {
                    "no violation".to_string()
                } else {
                    format!("{} UNEXPECTED: {}", bad.len(), bad[0])
                }
            );
        }
        println!(
            "{} of {} bugs found; median seeds to find: {}; max: {}",
            hunts.len() - unfound,
            hunts.len(),
            median.map_or("-".into(), |m| m.to_string()),
            found_seeds.last().map_or("-".into(), |m| m.to_string())
        );
    }
    let misattributed = hunts.iter().any(|h| {
        h.found_by
            .as_deref()
            .is_some_and(|f| !h.expected_invariants.contains(&f))
    });
    if unfound > 0 || misattributed || correct_failed || hunts.iter().any(|h| h.error.is_some()) {
        Exit::Found
    } else {
        Exit::Clean
    }
}
