//! The small commands: list, run, replay.

use crate::outcome::{self, Class};
use crate::Exit;
use models::catalogue;
use models::scenarios as builtin;
use sim::report::Report;
use sim::{RunOutcome, Scenario};
use std::path::{Path, PathBuf};

/// Run one seed; a panic in the harness itself becomes an error line.
pub fn run_seed(
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    plan: Option<Vec<sim::nemesis::PlanEntry>>,
) -> Result<(RunOutcome, u64), String> {
    let start = std::time::Instant::now();
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        catalogue::run(scenario, seed, bugs, plan)
    }))
    .map_err(|p| {
        format!(
            "harness panicked on {} seed {seed}: {}",
            scenario.name,
            sim::world::panic_text(&p)
        )
    })??;
    Ok((out, start.elapsed().as_millis() as u64))
}

pub fn list(json: bool) -> Exit {
    let scenarios = builtin::all();
    if json {
        let v = serde_json::json!({
            "scenarios": scenarios.iter().map(|s| serde_json::json!({
                "name": s.name, "description": s.description, "model": s.model, "nodes": s.nodes,
                "invariants": s.invariants, "coverage": s.coverage, "expect": s.expect,
            })).collect::<Vec<_>>(),
            "bugs": catalogue::BUGS.iter().map(|b| serde_json::json!({
                "id": b.id, "model": b.model, "kind": b.kind, "invariants": b.invariants,
                "scenario": b.scenario, "summary": b.summary,
            })).collect::<Vec<_>>(),
            "invariants": sim::check::INVARIANTS.iter().map(|(id, d)| serde_json::json!({"id": id, "holds_when": d})).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("json"));
        return Exit::Clean;
    }
    let w = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(0);
    println!("scenarios:");
    for s in &scenarios {
        println!("  {:<w$}  {} nodes  {}", s.name, s.nodes, s.description);
    }
    let wb = catalogue::BUGS.iter().map(|b| b.id.len()).max().unwrap_or(0);
    let wi = catalogue::BUGS
        .iter()
        .map(|b| b.invariants.join("|").len())
        .max()
        .unwrap_or(0);
    let ws = catalogue::BUGS.iter().map(|b| b.scenario.len()).max().unwrap_or(0);
    println!("bugs:");
    for b in catalogue::BUGS {
        let inv = b.invariants.join("|");
        println!(
            "  {:<wb$}  {:<8} caught by {inv:<wi$}  in {:<ws$}  {}",
            b.id, b.kind, b.scenario, b.summary
        );
    }
    let wv = sim::check::INVARIANTS.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    println!("invariants:");
    for (id, d) in sim::check::INVARIANTS {
        println!("  {id:<wv$}  {d}");
    }
    Exit::Clean
}

pub fn run(name: &str, seed: u64, bugs: &[String], report: Option<PathBuf>, json: bool) -> Exit {
    let scenario = match builtin::load(name) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if let Err(e) = outcome::validate_bugs(&scenario, bugs) {
        return Exit::Bad(e);
    }
    let (out, wall_ms) = match run_seed(&scenario, seed, bugs, None) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    let class = outcome::classify(&out, &scenario, bugs);
    let path = report.clone().or_else(|| {
        (out.verdict.status != sim::Status::Pass)
            .then(|| outcome::report_path(Path::new("reports"), &scenario.name, seed, bugs))
    });
    let written = match &path {
        Some(p) => match outcome::report(&out, &scenario, seed, bugs, wall_ms, p).write(p) {
            Ok(()) => Some(p.clone()),
            Err(e) => return Exit::Bad(e),
        },
        None => None,
    };
    if json {
        let v = serde_json::json!({
            "scenario": scenario.name, "seed": seed, "bugs": bugs, "verdict": out.verdict,
            "expected": class != Class::Unexpected, "trace_hash": out.trace.hash_hex(),
            "events": out.trace.len(), "messages": out.messages, "wall_ms": wall_ms,
            "coverage": out.coverage, "counters": out.counters, "report": written,
        });
        println!("{v}");
    } else {
        println!(
            "{} seed {seed}: {} [{} events, {} messages, {:.1} s simulated, {wall_ms} ms, trace {}]",
            scenario.name,
            outcome::describe(&out),
            out.trace.len(),
            out.messages,
            out.sim_ns as f64 / 1e9,
            out.trace.hash_hex()
        );
        if !out.coverage.is_empty() {
            println!(
                "coverage: {}",
                out.coverage.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(p) = &written {
            println!("report: {}  (replay: dst replay {})", p.display(), p.display());
        }
    }
    match class {
        Class::Pass | Class::Expected if out.verdict.status == sim::Status::Pass => Exit::Clean,
        _ => Exit::Found,
    }
}

/// A report and the scenario it ran, both checked; the error is one line.
pub fn load_report(path: &Path) -> Result<(Report, Scenario), String> {
    let r = Report::read(path)?;
    let scenario: Scenario = serde_json::from_value(r.config.clone())
        .map_err(|e| format!("{}: the report's scenario is invalid: {e}", path.display()))?;
    scenario
        .validate()
        .and_then(|_| outcome::validate_bugs(&scenario, &r.bugs))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((r, scenario))
}

pub fn replay(path: &Path, json: bool) -> Exit {
    let (r, scenario) = match load_report(path) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    let (out, _) = match run_seed(&scenario, r.seed, &r.bugs, Some(r.plan.clone())) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    let same_verdict = out.verdict == r.verdict;
    let same_hash = out.trace.hash_hex() == r.trace_hash;
    let (offline_agrees, offline) = offline_verdict(&scenario, &r);
    let reproduced = same_verdict && same_hash && offline_agrees;
    let divergence = (!same_hash).then(|| first_divergence(out.trace.events(), &r.trace));
    if json {
        println!(
            "{}",
            serde_json::json!({"reproduced": reproduced, "verdict": out.verdict,
                "expected_verdict": r.verdict, "trace_hash": out.trace.hash_hex(),
                "expected_trace_hash": r.trace_hash, "first_divergent_event": divergence,
                "offline_check": offline})
        );
    } else if reproduced {
        println!(
            "reproduced: {} seed {}: {} (trace {})",
            r.scenario,
            r.seed,
            outcome::describe(&out),
            r.trace_hash
        );
        println!("offline check of the saved trace: {offline}");
    } else {
        println!("MISMATCH: {} seed {}", r.scenario, r.seed);
        println!(
            "  report: {:?} {:?} trace {}",
            r.verdict.status, r.verdict.invariant, r.trace_hash
        );
        println!(
            "  now:    {:?} {:?} trace {}",
            out.verdict.status,
            out.verdict.invariant,
            out.trace.hash_hex()
        );
        if let Some(i) = divergence {
            println!("  first differing event: {i}");
        }
        println!("  offline check of the saved trace: {offline}");
    }
    if reproduced {
        Exit::Clean
    } else {
        Exit::Found
    }
}

/// Re-check the report's saved trace with the scenario's checkers, offline.
/// Whether it agrees with the recorded verdict, and what it found.
fn offline_verdict(scenario: &Scenario, r: &Report) -> (bool, String) {
    if r.verdict.status == sim::Status::Error {
        return (true, "skipped (the run ended in an error)".into());
    }
    let checkers = match catalogue::checkers(scenario) {
        Ok(c) => c,
        Err(e) => return (false, format!("impossible ({e})")),
    };
    match sim::check::check_trace(&r.trace, checkers, r.stats.sim_ns) {
        Ok(()) if r.verdict.status == sim::Status::Pass => (true, "pass, as recorded".into()),
        Ok(()) => (false, "pass, but the report records a violation".into()),
        Err(v) if r.verdict.invariant.as_deref() == Some(v.invariant.as_str()) && r.verdict.evidence == v.evidence => {
            (true, format!("{} at events {:?}, as recorded", v.invariant, v.evidence))
        }
        Err(v) => (
            false,
            format!(
                "{} at events {:?}, which the report does not record",
                v.invariant, v.evidence
            ),
        ),
    }
}

fn first_divergence(a: &[sim::event::Event], b: &[sim::event::Event]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}
