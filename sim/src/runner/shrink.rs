//! Shrinking: remove fault-plan entries while the same invariant still
//! breaks (or the same model still panics), so the report a user reads holds only the faults that
//! matter. Greedy delta debugging over the plan, bounded in runs.

use super::{load_report, outcome, run_seed};
use crate::nemesis::PlanEntry;
use crate::registry::Registry;
use crate::world::Verdict;
use std::path::{Path, PathBuf};

/// What shrinking a report did.
pub struct Shrunk {
    /// Plan entries before and after.
    pub from: usize,
    pub to: usize,
    pub runs: u64,
    /// The verdict of the shrunk plan (the same cause as the report's).
    pub verdict: Verdict,
    pub described: String,
    /// Where the shrunk report was written.
    pub report: PathBuf,
}

/// Shrinks the plan of the report at `path` within `max_runs` runs and
/// writes the result to `out` (default: `REPORT.shrunk.json`). The error
/// is one line about the input.
pub fn shrink(registry: &Registry, path: &Path, out: Option<PathBuf>, max_runs: u64) -> Result<Shrunk, String> {
    let (r, scenario) = load_report(registry, path)?;
    let Some(target) = outcome::cause_of(&r.verdict, &r.trace) else {
        return Err(format!(
            "{}: only a report with a violation or a model panic can be shrunk",
            path.display()
        ));
    };
    let mut runs = 0u64;
    let mut still_fails = |plan: &[PlanEntry]| -> Result<bool, String> {
        runs += 1;
        let (o, _) = run_seed(registry, &scenario, r.seed, &r.bugs, Some(plan.to_vec()))?;
        Ok(outcome::cause(&o).as_ref() == Some(&target))
    };
    let plan = minimize(r.plan.clone(), max_runs, &mut still_fails)?;
    let (o, wall_ms) = run_seed(registry, &scenario, r.seed, &r.bugs, Some(plan.clone()))?;
    let dest = out.unwrap_or_else(|| path.with_extension("shrunk.json"));
    let class = registry.classify(&o, &scenario, &r.bugs);
    let mut report = outcome::report(&o, class, &scenario, r.seed, &r.bugs, wall_ms, &dest);
    report.plan = plan;
    report.write(&dest)?;
    Ok(Shrunk {
        from: r.plan.len(),
        to: report.plan.len(),
        runs,
        verdict: o.verdict.clone(),
        described: outcome::describe(&o),
        report: dest,
    })
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
    use crate::nemesis::Action;

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
