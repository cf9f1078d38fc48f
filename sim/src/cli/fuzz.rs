//! `dst fuzz`: the runner's fuzz with a progress bar, a line for every seed
//! that did not simply pass, and a summary per scenario.

use super::args::FuzzArgs;
use super::progress::Progress;
use super::Exit;
use crate::registry::Registry;
use crate::runner::{fuzz_with, parse_seeds, parse_shard, FuzzOptions, FuzzSummary, SeedDone};
use std::time::Duration;

/// With no seed range and no budget, fuzz runs about this long.
const DEFAULT_BUDGET: Duration = Duration::from_secs(60);

pub fn main(reg: &Registry, a: FuzzArgs) -> Exit {
    let (lo, hi) = match a.seeds.as_deref().map(parse_seeds).transpose() {
        Ok(r) => r.unwrap_or((0, u64::MAX)),
        Err(e) => return Exit::Bad(e),
    };
    let budget = match super::values::budget(a.budget.as_deref()) {
        Ok(Some(b)) => Some(b),
        Ok(None) if a.seeds.is_none() => Some(DEFAULT_BUDGET),
        Ok(None) => None,
        Err(e) => return Exit::Bad(e),
    };
    let jobs = match super::values::jobs(a.jobs) {
        Ok(j) => j,
        Err(e) => return Exit::Bad(e),
    };
    let shard = match a.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s.unwrap_or((0, 1)),
        Err(e) => return Exit::Bad(e),
    };
    let opts = FuzzOptions {
        scenarios: if a.scenario == "all" {
            vec![]
        } else {
            vec![a.scenario.clone()]
        },
        seeds: lo..hi,
        budget,
        jobs,
        shard,
        bugs: a.bugs.clone(),
        report_dir: Some(a.report_dir.clone()),
        determinism: a.determinism,
    };
    let n_sc = if opts.scenarios.is_empty() {
        reg.scenarios().len() as u64
    } else {
        1
    };
    let total = (hi != u64::MAX).then(|| (hi - lo).div_ceil(shard.1) * n_sc);
    let mut progress = Progress::new(total, a.json);
    let (mut done, mut bad) = (0u64, 0u64);
    let summary = fuzz_with(reg, &opts, |d: &SeedDone| {
        done += 1;
        if !matches!(d.class, Ok(crate::runner::Class::Pass | crate::runner::Class::Expected)) {
            bad += 1;
        }
        if !d.line.is_empty() {
            let replay = d
                .report
                .as_ref()
                .map(|p| format!("\n  replay: dst replay {}", p.display()))
                .unwrap_or_default();
            progress.line(&format!("{}{replay}", d.line));
        }
        progress.update(done, bad);
    });
    progress.finish();
    let s = match summary {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    let doc = summary_json(&s, &a, (lo, hi), shard);
    if let Some(path) = &a.summary {
        let text = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        if let Err(e) = crate::files::write_atomic(path, &text) {
            return Exit::Bad(format!("summary not written: {e}"));
        }
    }
    let exit = print(&s, &doc, a.json);
    match s.unwritten.first() {
        Some(first) => Exit::Bad(format!(
            "{} report(s) could not be written (first: {first})",
            s.unwritten.len()
        )),
        None => exit,
    }
}

/// Everything the run decided, for `--json` and `--summary`.
fn summary_json(s: &FuzzSummary, a: &FuzzArgs, seeds: (u64, u64), shard: (u64, u64)) -> serde_json::Value {
    let v: Vec<_> = (0..s.scenarios.len())
        .map(|i| {
            serde_json::json!({"scenario": s.scenarios[i].name, "ok": s.scenario_ok(i), "tally": s.tallies[i],
                "coverage_missing": s.missing(i), "expected_violation_unseen": s.expect_unmet(i)})
        })
        .collect();
    serde_json::json!({
        "dst_version": env!("CARGO_PKG_VERSION"), "scenario": a.scenario, "bugs": s.bugs,
        "seeds": {"start": seeds.0, "end": (seeds.1 != u64::MAX).then_some(seeds.1)},
        "shard": {"index": shard.0, "count": shard.1}, "budget": a.budget,
        "seconds": s.took.as_secs_f64(), "interrupted": s.interrupted, "ok": s.ok(), "scenarios": v,
    })
}

fn print(s: &FuzzSummary, doc: &serde_json::Value, json: bool) -> Exit {
    if json {
        crate::outln!("{doc}");
    } else {
        crate::outln!(
            "fuzz summary ({:.1} s{}{}):",
            s.took.as_secs_f64(),
            if s.interrupted { ", interrupted" } else { "" },
            if s.bugs.is_empty() {
                String::new()
            } else {
                format!(", bugs: {}", s.bugs.join(" "))
            }
        );
        let w = s.scenarios.iter().map(|sc| sc.name.len()).max().unwrap_or(0).max(22);
        for (i, (sc, t)) in s.scenarios.iter().zip(&s.tallies).enumerate() {
            let missing = s.missing(i);
            crate::outln!(
                "  {:<w$} {:>6} seeds  {:>6} pass  {:>5} expected  {:>4} unexpected  coverage {}/{}  {}",
                sc.name,
                t.seeds,
                t.pass,
                t.expected,
                t.unexpected,
                sc.coverage.len() - missing.len(),
                sc.coverage.len(),
                if s.scenario_ok(i) { "ok" } else { "FAILED" }
            );
            if !missing.is_empty() && s.judges_coverage(i) {
                crate::outln!(
                    "      coverage goals no seed reached: {}",
                    missing.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(", ")
                );
            }
            if s.expect_unmet(i) {
                crate::outln!("      the expected violation was never seen");
            }
            if t.undecided > 0 {
                let shown: Vec<String> = t.undecided_seeds.iter().take(10).map(|s| s.to_string()).collect();
                crate::outln!(
                    "      {} seeds passed undecided (a check ran out of budget): {}",
                    t.undecided,
                    shown.join(" ")
                );
            }
            if !t.failing_seeds.is_empty() {
                let shown: Vec<String> = t.failing_seeds.iter().take(10).map(|s| s.to_string()).collect();
                crate::outln!("      unexpected seeds: {}", shown.join(" "));
            }
        }
    }
    if s.interrupted {
        super::interrupted_note("the summary counts only the seeds that finished");
    }
    if s.ok() {
        Exit::Clean
    } else {
        Exit::Found
    }
}
