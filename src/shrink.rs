//! `dst shrink REPORT`: remove fault-plan entries while the same invariant
//! still breaks, so the report a user reads holds only the faults that
//! matter. Greedy delta debugging over the plan, bounded in runs.

use crate::commands::{load_report, run_seed};
use crate::{outcome, Exit};
use sim::nemesis::PlanEntry;
use sim::Status;
use std::path::{Path, PathBuf};

pub fn main(path: &Path, out: Option<PathBuf>, max_runs: u64, json: bool) -> Exit {
    let (r, scenario) = match load_report(path) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    if r.verdict.status != Status::Violation {
        return Exit::Bad(format!(
            "{}: only a report with a violation can be shrunk",
            path.display()
        ));
    }
    let target = r.verdict.invariant.clone();
    let mut runs = 0u64;
    let mut still_fails = |plan: &[PlanEntry]| -> Result<bool, String> {
        runs += 1;
        let (o, _) = run_seed(&scenario, r.seed, &r.bugs, Some(plan.to_vec()))?;
        Ok(o.verdict.status == Status::Violation && o.verdict.invariant == target)
    };
    let plan = match minimize(r.plan.clone(), max_runs, &mut still_fails) {
        Ok(p) => p,
        Err(e) => return Exit::Bad(e),
    };
    let (o, wall_ms) = match run_seed(&scenario, r.seed, &r.bugs, Some(plan.clone())) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    let dest = out.unwrap_or_else(|| path.with_extension("shrunk.json"));
    let mut report = outcome::report(&o, &scenario, r.seed, &r.bugs, wall_ms, &dest);
    report.plan = plan;
    if let Err(e) = report.write(&dest) {
        return Exit::Bad(e);
    }
    if json {
        println!(
            "{}",
            serde_json::json!({"from": r.plan.len(), "to": report.plan.len(), "runs": runs,
                "verdict": o.verdict, "report": dest})
        );
    } else {
        println!(
            "shrunk the plan from {} to {} entries in {runs} runs: {}",
            r.plan.len(),
            report.plan.len(),
            outcome::describe(&o)
        );
        println!("report: {}  (replay: dst replay {})", dest.display(), dest.display());
    }
    Exit::Found
}

/// Remove chunks of the plan, halving the chunk size, as long as `fails`
/// holds for what remains; stop after `max_runs` tries.
pub fn minimize(
    mut plan: Vec<PlanEntry>,
    max_runs: u64,
    fails: &mut dyn FnMut(&[PlanEntry]) -> Result<bool, String>,
) -> Result<Vec<PlanEntry>, String> {
    let mut tries = 0;
    let mut chunk = plan.len().div_ceil(2).max(1);
    while !plan.is_empty() {
        let mut start = 0;
        while start < plan.len() {
            if tries >= max_runs {
                return Ok(plan);
            }
            tries += 1;
            let end = (start + chunk).min(plan.len());
            let candidate: Vec<PlanEntry> = plan[..start].iter().chain(&plan[end..]).cloned().collect();
            if fails(&candidate)? {
                plan = candidate;
            } else {
                start = end;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::nemesis::Action;

    fn entry(node: usize) -> PlanEntry {
        PlanEntry {
            at_ns: node as u64,
            action: Action::Crash { node },
        }
    }

    #[test]
    fn keeps_exactly_the_entries_the_failure_needs() {
        let plan: Vec<PlanEntry> = (0..20).map(entry).collect();
        let needs = |p: &[PlanEntry]| {
            let has = |n: usize| p.iter().any(|e| e.action == Action::Crash { node: n });
            Ok(has(3) && has(17))
        };
        let out = minimize(plan, 1_000, &mut { needs }).unwrap();
        assert_eq!(out, vec![entry(3), entry(17)]);
    }

    #[test]
    fn stops_at_the_run_bound() {
        let plan: Vec<PlanEntry> = (0..50).map(entry).collect();
        let mut calls = 0;
        let out = minimize(plan, 5, &mut |_| {
            calls += 1;
            Ok(false)
        })
        .unwrap();
        assert_eq!(calls, 5);
        assert_eq!(out.len(), 50);
    }
}
