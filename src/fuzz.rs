//! `dst fuzz`: many seeds of one or all scenarios, in parallel, with a
//! report for every seed that fails and a summary per scenario.

use crate::commands::run_seed;
use crate::outcome::{self, Class};
use crate::progress::{parse_duration, Progress};
use crate::{pool, Exit};
use models::scenarios as builtin;
use sim::scenario::Expect;
use sim::{Scenario, Status};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use crate::cli::FuzzArgs as Args;

/// With no seed range and no budget, fuzz runs about this long.
const DEFAULT_BUDGET: Duration = Duration::from_secs(60);

pub fn parse_seeds(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("invalid seed range '{s}' (use A..B, B exclusive)");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    if b <= a {
        return Err(bad());
    }
    Ok((a, b))
}

pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("invalid shard '{s}' (use I/N with I < N)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

struct Done {
    scenario: usize,
    seed: u64,
    class: Result<Class, String>,
    line: String,
    coverage: Vec<String>,
    violated: Option<String>,
    /// Some check could not reach a verdict within its budget.
    undecided: bool,
    report: Option<PathBuf>,
}

#[derive(Default, serde::Serialize)]
struct Tally {
    seeds: u64,
    pass: u64,
    expected: u64,
    unexpected: u64,
    /// Seeds that passed only because a check ran out of budget undecided.
    undecided: u64,
    undecided_seeds: Vec<u64>,
    /// goal -> seeds that reached it
    coverage: BTreeMap<String, u64>,
    /// invariant -> seeds that violated it
    violations: BTreeMap<String, u64>,
    failing_seeds: Vec<u64>,
}

pub fn main(a: Args) -> Exit {
    let scenarios: Vec<Scenario> = if a.scenario == "all" {
        builtin::all()
    } else {
        match builtin::load(&a.scenario) {
            Ok(s) => vec![s],
            Err(e) => return Exit::Bad(e),
        }
    };
    for s in &scenarios {
        if let Err(e) = outcome::validate_bugs(s, &a.bugs) {
            return Exit::Bad(e);
        }
    }
    let (lo, hi) = match a.seeds.as_deref().map(parse_seeds).transpose() {
        Ok(r) => r.unwrap_or((0, u64::MAX)),
        Err(e) => return Exit::Bad(e),
    };
    let budget = match a.budget.as_deref().map(parse_duration).transpose() {
        Ok(Some(b)) => Some(b),
        Ok(None) if a.seeds.is_none() => Some(DEFAULT_BUDGET),
        Ok(None) => None,
        Err(e) => return Exit::Bad(e),
    };
    let (shard_i, shard_n) = match a.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s.unwrap_or((0, 1)),
        Err(e) => return Exit::Bad(e),
    };
    let started = Instant::now();
    let deadline = budget.map(|b| started + b);
    let n_sc = scenarios.len() as u64;
    let total = (hi != u64::MAX).then(|| (hi - lo).div_ceil(shard_n) * n_sc);
    // Seed-major, so a budget spreads evenly over the scenarios.
    let items = (lo..hi)
        .filter(move |s| s % shard_n == shard_i)
        .flat_map(move |seed| (0..n_sc as usize).map(move |sc| (sc, seed)));
    let mut progress = Progress::new(total, a.json);
    let mut tallies: Vec<Tally> = scenarios.iter().map(|_| Tally::default()).collect();
    let (mut done, mut bad) = (0u64, 0u64);
    let (scs, bugs, dir, twice) = (&scenarios, &a.bugs, &a.report_dir, a.determinism);
    pool::run(
        items,
        pool::jobs(a.jobs),
        deadline,
        |(sc, seed)| one(scs, sc, seed, bugs, dir, twice),
        |d: Done| {
            done += 1;
            let t = &mut tallies[d.scenario];
            t.seeds += 1;
            for g in d.coverage {
                *t.coverage.entry(g).or_default() += 1;
            }
            if let Some(inv) = d.violated {
                *t.violations.entry(inv).or_default() += 1;
            }
            if d.undecided {
                t.undecided += 1;
                t.undecided_seeds.push(d.seed);
            }
            match d.class {
                Ok(Class::Pass) => t.pass += 1,
                Ok(Class::Expected) => t.expected += 1,
                Ok(Class::Unexpected) | Err(_) => {
                    t.unexpected += 1;
                    t.failing_seeds.push(d.seed);
                    bad += 1;
                }
            }
            if !d.line.is_empty() {
                let replay = d
                    .report
                    .map(|p| format!("\n  replay: dst replay {}", p.display()))
                    .unwrap_or_default();
                progress.line(&format!("{}{replay}", d.line));
            }
            progress.update(done, bad);
        },
    );
    progress.finish();
    summarize(&scenarios, &mut tallies, &a.bugs, started.elapsed(), a.json)
}

fn one(scenarios: &[Scenario], sc: usize, seed: u64, bugs: &[String], dir: &std::path::Path, twice: bool) -> Done {
    let s = &scenarios[sc];
    let mut d = Done {
        scenario: sc,
        seed,
        class: Ok(Class::Pass),
        line: String::new(),
        coverage: vec![],
        violated: None,
        undecided: false,
        report: None,
    };
    match run_seed(s, seed, bugs, None) {
        Err(e) => {
            d.line = format!("{} seed {seed}: {e}", s.name);
            d.class = Err(e);
        }
        Ok((out, wall_ms)) => {
            if twice {
                let again = run_seed(s, seed, bugs, None).map(|(o, _)| o.trace.hash_hex());
                if again.as_ref() != Ok(&out.trace.hash_hex()) {
                    let e = format!("nondeterministic: trace {} then {:?}", out.trace.hash_hex(), again);
                    d.line = format!("UNEXPECTED {} seed {seed}: {e}", s.name);
                    d.class = Err(e);
                    return d;
                }
            }
            let class = outcome::classify(&out, s, bugs);
            d.coverage = out.coverage.iter().cloned().collect();
            d.violated = out.verdict.invariant.clone();
            d.undecided = out.counters.iter().any(|(k, v)| k.ends_with("_unknown") && *v > 0);
            if out.verdict.status != Status::Pass {
                let path = outcome::report_path(dir, &s.name, seed, bugs);
                let tag = if class == Class::Unexpected {
                    "UNEXPECTED"
                } else {
                    "expected"
                };
                d.line = format!("{tag} {} seed {seed}: {}", s.name, outcome::describe(&out));
                match outcome::report(&out, s, seed, bugs, wall_ms, &path).write(&path) {
                    Ok(()) => d.report = Some(path),
                    Err(e) => d.line.push_str(&format!(" (report not written: {e})")),
                }
            }
            d.class = Ok(class);
        }
    }
    d
}

fn summarize(scenarios: &[Scenario], tallies: &mut [Tally], bugs: &[String], took: Duration, json: bool) -> Exit {
    let mut failed = false;
    let mut rows = Vec::new();
    for (s, t) in scenarios.iter().zip(tallies.iter()) {
        let missing: Vec<&String> = s.coverage.iter().filter(|g| !t.coverage.contains_key(*g)).collect();
        let expect_unmet = match (&s.expect, bugs.is_empty()) {
            (Expect::Violation(id), true) => t.seeds > 0 && !t.violations.contains_key(id),
            _ => false,
        };
        // Runs with a bug switch stop at the violation, so coverage is judged on the correct model only.
        let ok = t.unexpected == 0 && (t.seeds == 0 || missing.is_empty() || !bugs.is_empty()) && !expect_unmet;
        failed |= !ok;
        rows.push((s, t, missing, expect_unmet, ok));
    }
    if json {
        let v: Vec<_> = rows
            .iter()
            .map(|(s, t, missing, expect_unmet, ok)| {
                serde_json::json!({"scenario": s.name, "ok": ok, "tally": t, "coverage_missing": missing,
                    "expected_violation_unseen": expect_unmet})
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"bugs": bugs, "seconds": took.as_secs_f64(), "scenarios": v})
        );
    } else {
        println!(
            "fuzz summary ({:.1} s{}):",
            took.as_secs_f64(),
            if bugs.is_empty() {
                String::new()
            } else {
                format!(", bugs: {}", bugs.join(" "))
            }
        );
        for (s, t, missing, expect_unmet, ok) in &rows {
            println!(
                "  {:<22} {:>6} seeds  {:>6} pass  {:>5} expected  {:>4} unexpected  coverage {}/{}  {}",
                s.name,
                t.seeds,
                t.pass,
                t.expected,
                t.unexpected,
                s.coverage.len() - missing.len(),
                s.coverage.len(),
                if *ok { "ok" } else { "FAILED" }
            );
            if !missing.is_empty() && t.seeds > 0 {
                println!(
                    "      coverage goals no seed reached: {}",
                    missing.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(", ")
                );
            }
            if *expect_unmet {
                println!("      the expected violation was never seen");
            }
            if t.undecided > 0 {
                let mut seeds = t.undecided_seeds.clone();
                seeds.sort_unstable();
                let shown: Vec<String> = seeds.iter().take(10).map(|s| s.to_string()).collect();
                println!(
                    "      {} seeds passed undecided (a check ran out of budget): {}",
                    t.undecided,
                    shown.join(" ")
                );
            }
            if !t.failing_seeds.is_empty() {
                let shown: Vec<String> = t.failing_seeds.iter().take(10).map(|s| s.to_string()).collect();
                println!("      unexpected seeds: {}", shown.join(" "));
            }
        }
    }
    if failed {
        Exit::Found
    } else {
        Exit::Clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_and_shards_parse() {
        assert_eq!(parse_seeds("3..10").unwrap(), (3, 10));
        assert!(parse_seeds("10..3").is_err());
        assert!(parse_seeds("x").is_err());
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("1/0").is_err());
    }
}
