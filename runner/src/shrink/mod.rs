//! Shrinking: a failing report made into a smaller counterexample that
//! fails the same way (the same invariant broken, or the same model
//! panicking). In order: fewer deviations of an explored run, fewer fault-plan entries, message chaos calmed on
//! every message the failure does not need, a run cut off just after the
//! violation, and the drawn configuration at its simplest. A change is kept
//! only if the run still fails with the same cause in no more trace events
//! than the best so far: taking faults away can let a run go on for much
//! longer, and a longer trace is not a smaller counterexample.
//!
//! Every candidate is a run of the report's seed, so shrinking the same
//! report twice gives the same result; the number of runs is bounded.

mod judge;
mod minimize;
mod simplify;

pub use minimize::minimize;

use super::{load_report, outcome};
use judge::{Case, Judge};
use sim::fault::Chaos;
use sim::{Registry, RunOutcome, Verdict};
use std::path::{Path, PathBuf};

/// Passes of all the steps, repeated while one makes the counterexample smaller.
const PASSES_MAX: usize = 3;

/// What shrinking a report did: each measure before and after.
pub struct Shrunk {
    /// Fault-plan entries of the report's run.
    pub plan_from: usize,
    /// Fault-plan entries of the shrunk run.
    pub plan_to: usize,
    /// Messages chaos dropped, duplicated or held back.
    pub chaos_from: usize,
    /// Messages chaos still touches in the shrunk run.
    pub chaos_to: usize,
    /// Deviations of an explored report's tape (none for a sampled run).
    pub deviations_from: usize,
    /// Deviations of the shrunk run's tape.
    pub deviations_to: usize,
    /// Trace events of the report's run.
    pub events_from: u64,
    /// Trace events of the shrunk run.
    pub events_to: u64,
    /// What is left of the chaos, by message id.
    pub chaos_left: Vec<(u64, Chaos)>,
    /// Scenario settings changed, as "path before -> after".
    pub changed: Vec<String>,
    /// Runs of the seed shrinking took, the first and the final confirming one included.
    pub runs: u64,
    /// Wall-clock milliseconds the whole shrink took.
    pub wall_ms: u64,
    /// The verdict of the shrunk run (the same cause as the report's).
    pub verdict: Verdict,
    /// One line on the shrunk run's failure: its cause, message and evidence events.
    pub described: String,
    /// Where the shrunk report was written.
    pub report: PathBuf,
    /// An interruption stopped shrinking early: the report holds the best so far.
    pub interrupted: bool,
    /// What the shrunk run still draws from its seed that is neither a plan
    /// entry nor message chaos, so that "plan 18 -> 0 entries" is not read
    /// as a run without faults.
    pub kept: Vec<String>,
}

/// The faults a report's run draws outside its plan and its message chaos.
fn kept_besides_the_plan(r: &sim::report::Report) -> Vec<String> {
    let w = &r.swarm;
    let mut out = Vec::new();
    match w.impair_leader {
        Some(true) => out.push("the leader left deaf (its inbound links cut) through the liveness phase".to_string()),
        Some(false) => out.push("the leader left cut off through the liveness phase".to_string()),
        None => {}
    }
    if w.torn_write_probability > 0.0 {
        out.push(format!(
            "torn writes on a crash (probability {})",
            w.torn_write_probability
        ));
    }
    if w.fsync_ms_max > 0 {
        out.push(format!("fsyncs that take {}-{} ms", w.fsync_ms_min, w.fsync_ms_max));
    }
    out
}

/// Shrinks the report at `path` within `max_runs` runs and writes the
/// result to `out` (default: `REPORT.shrunk.json`). The error is one line
/// about the input.
pub fn shrink(
    registry: &Registry,
    path: &Path,
    out: Option<PathBuf>,
    max_runs: u64,
    style: sim::report::Style,
) -> Result<Shrunk, String> {
    shrink_keeping(registry, path, out, max_runs, style, &|_| true)
}

/// [`shrink`], where a smaller run counts only if `keep` holds of it too.
/// The same invariant can fail for several defects; `keep` tells the one
/// the report shows (which node answered, which event broke it) so that
/// shrinking does not wander to another.
pub fn shrink_keeping(
    registry: &Registry,
    path: &Path,
    out: Option<PathBuf>,
    max_runs: u64,
    style: sim::report::Style,
    keep: &dyn Fn(&RunOutcome) -> bool,
) -> Result<Shrunk, String> {
    let started = std::time::Instant::now();
    let (r, scenario) = load_report(registry, path)?;
    let Some(target) = outcome::cause_of(&r.verdict, &r.trace) else {
        return Err(format!(
            "{}: only a report with a violation or a model panic can be shrunk",
            sim::host::files::shown(path)
        ));
    };
    let start = Case {
        scenario,
        plan: r.plan.clone(),
        calm: r.calm.clone(),
        tape: r.explore.clone(),
    };
    let mut j = Judge::start(registry, r.seed, &r.bugs, target, keep, start, max_runs)
        .map_err(|e| format!("{}: {e}", sim::host::files::shown(path)))?;
    let original = j.best.clone();
    let deviations_from = j.deviations();
    let (chaos_from, events_from) = (j.best_out.chaos.len(), j.best_out.trace.len() as u64);
    // The knobs as the scenario declares them: a report holds only the drawn values.
    let knobs = registry
        .scenarios()
        .iter()
        .find(|s| s.name == r.scenario)
        .map(|s| s.vary.clone())
        .unwrap_or_default();
    for pass in 0..PASSES_MAX {
        let size = j.size();
        j.tape()?;
        j.plan(pass == 0)?;
        j.chaos()?;
        j.length()?;
        simplify::config(&mut j, &knobs)?;
        if j.size() == size || j.exhausted() {
            break;
        }
    }
    let (o, wall_ms) = j.confirm()?;
    let dest = out.unwrap_or_else(|| style.path(shrunk_path(path)));
    let class = registry.classify(&o, &j.best.scenario, &r.bugs);
    let report = outcome::report(
        registry,
        &o,
        class,
        &j.best.scenario,
        r.seed,
        &r.bugs,
        wall_ms,
        &dest,
        style,
    )?;
    report.write(&dest)?;
    Ok(Shrunk {
        plan_from: r.plan.len(),
        plan_to: report.plan.len(),
        chaos_from,
        chaos_to: o.chaos.len(),
        deviations_from,
        deviations_to: j.deviations(),
        events_from,
        events_to: o.trace.len() as u64,
        chaos_left: o.chaos.clone(),
        changed: simplify::changes(&original.scenario, &j.best.scenario),
        runs: j.runs,
        wall_ms: started.elapsed().as_millis() as u64,
        verdict: o.verdict.clone(),
        described: outcome::describe(&o),
        report: dest,
        interrupted: sim::host::interrupt::stopping(),
        kept: kept_besides_the_plan(&report),
    })
}

/// Where a report's shrunk report goes by default: `X.json` (or
/// `X.json.gz`) becomes `X.shrunk.json`.
pub fn shrunk_path(report: &Path) -> PathBuf {
    sim::report::beside(report, "shrunk.json")
}
