//! The small commands: list, run, replay.

use super::Exit;
use crate::registry::Registry;
use crate::report::Report;
use crate::runner::{self, load_report, run_seed, run_seed_with, Class};
use crate::scenario::Scenario;
use crate::world::Overrides;
use std::path::{Path, PathBuf};

pub fn list(reg: &Registry, json: bool) -> Exit {
    let scenarios = reg.scenarios();
    let bugs: Vec<_> = reg.bugs().collect();
    let real: Vec<_> = reg.real_bugs().collect();
    if json {
        let v = serde_json::json!({
            "models": reg.models().iter().map(|m| serde_json::json!({
                "name": m.name, "about": m.about,
                "invariants": reg.invariants_of(m).map(|(id, _)| id).collect::<Vec<_>>(),
                "coverage_goals": m.goals.iter().map(|(g, about)| serde_json::json!({"id": g, "about": about})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "scenarios": scenarios.iter().map(|s| serde_json::json!({
                "name": s.name, "description": s.description, "model": s.model, "nodes": s.nodes,
                "invariants": s.invariants, "coverage": s.coverage, "expect": s.expect,
            })).collect::<Vec<_>>(),
            "bugs": bugs.iter().map(|(m, b)| serde_json::json!({
                "id": b.id, "model": m.name, "kind": b.kind, "invariants": b.invariants,
                "scenario": b.scenario, "summary": b.summary,
            })).collect::<Vec<_>>(),
            "real_bugs": real.iter().map(|(m, b)| {
                let mut v = serde_json::to_value(b).expect("json");
                v["model"] = serde_json::json!(m.name);
                v
            }).collect::<Vec<_>>(),
            "invariants": reg.all_invariants().iter().map(|(id, d)| serde_json::json!({"id": id, "holds_when": d})).collect::<Vec<_>>(),
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).expect("json"));
        return Exit::Clean;
    }
    let wm = reg.models().iter().map(|m| m.name.len()).max().unwrap_or(0);
    crate::outln!("models:");
    for m in reg.models() {
        crate::outln!("  {:<wm$}  {}", m.name, m.about);
    }
    let w = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(0);
    crate::outln!("scenarios:");
    for s in scenarios {
        crate::outln!("  {:<w$}  {} nodes  {}", s.name, s.nodes, s.description);
    }
    let wb = bugs.iter().map(|(_, b)| b.id.len()).max().unwrap_or(0);
    let wi = bugs
        .iter()
        .map(|(_, b)| b.invariants.join("|").len())
        .max()
        .unwrap_or(0);
    let ws = bugs.iter().map(|(_, b)| b.scenario.len()).max().unwrap_or(0);
    crate::outln!("bug switches:");
    for (_, b) in &bugs {
        let inv = b.invariants.join("|");
        crate::outln!(
            "  {:<wb$}  {:<8} caught by {inv:<wi$}  in {:<ws$}  {}",
            b.id,
            b.kind,
            b.scenario,
            b.summary
        );
    }
    if !real.is_empty() {
        crate::outln!("real bugs (pinned releases, no switch):");
        for (_, b) in &real {
            crate::outln!(
                "  {}  {} ({}); fixed: {}\n      {} caught by {}  in {}, control {}",
                b.id,
                b.release,
                b.reference,
                b.fixed_in,
                b.kind,
                b.invariants.join("|"),
                b.scenario,
                b.fixed_scenario
            );
            crate::outln!("      {}", b.summary);
        }
    }
    let all = reg.all_invariants();
    let wv = all.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    crate::outln!("invariants:");
    for (id, d) in all {
        crate::outln!("  {id:<wv$}  {d}");
    }
    Exit::Clean
}

pub fn run(
    reg: &Registry,
    name: &str,
    seed: u64,
    bugs: &[String],
    report: Option<PathBuf>,
    html: bool,
    json: bool,
) -> Exit {
    let scenario = match reg.load(name) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if let Err(e) = reg.validate(&scenario, bugs) {
        return Exit::Bad(e);
    }
    if let Some(Err(e)) = report.as_deref().map(crate::files::refuse_special) {
        return Exit::Bad(e);
    }
    let (out, wall_ms) = match run_seed(reg, &scenario, seed, bugs, None) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    let class = reg.classify(&out, &scenario, bugs);
    let path = report.clone().or_else(|| {
        (out.verdict.status != crate::world::Status::Pass)
            .then(|| runner::report_path(Path::new("reports"), &scenario.name, seed, bugs))
    });
    let written = match &path {
        Some(p) => match runner::report(&out, class, &scenario, seed, bugs, wall_ms, p).write(p) {
            Ok(()) => Some(p.clone()),
            Err(e) => return Exit::Bad(e),
        },
        None => None,
    };
    let page = match written
        .as_deref()
        .filter(|_| html)
        .map(|p| crate::view::write_page(p, None))
    {
        Some(Err(e)) => return Exit::Bad(e),
        Some(Ok(p)) => Some(p),
        None => None,
    };
    if json {
        let v = serde_json::json!({
            "scenario": scenario.name, "seed": seed, "bugs": bugs, "verdict": out.verdict, "html": page,
            "expected": class != Class::Unexpected, "trace_hash": out.trace.hash_hex(),
            "events": out.trace.len(), "messages": out.messages, "wall_ms": wall_ms,
            "coverage": out.coverage, "counters": out.counters, "report": written,
        });
        crate::outln!("{v}");
    } else {
        crate::outln!(
            "{} seed {seed}: {} [{} events, {} messages, {:.1} s simulated, {wall_ms} ms, trace {}]",
            scenario.name,
            runner::describe(&out),
            out.trace.len(),
            out.messages,
            out.sim_ns as f64 / 1e9,
            out.trace.hash_hex()
        );
        if !out.coverage.is_empty() {
            crate::outln!(
                "coverage: {}",
                out.coverage.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(p) = &written {
            crate::outln!("report: {}  (replay: dst replay {})", p.display(), p.display());
        }
        if let Some(p) = &page {
            crate::outln!("view: {}", p.display());
        }
    }
    let undecided = runner::undecided(&out);
    match class {
        Class::Unexpected => Exit::Found,
        Class::Pass if undecided => Exit::Undecided,
        Class::Pass | Class::Expected => Exit::Clean,
    }
}

/// `dst view REPORT`: the report's page, written where asked.
pub fn view(report: &Path, out: Option<&Path>) -> Exit {
    match crate::view::write_page(report, out) {
        Ok(p) => {
            crate::outln!("view: {}", p.display());
            Exit::Clean
        }
        Err(e) => Exit::Bad(e),
    }
}

pub fn replay(reg: &Registry, path: &Path, html: bool, json: bool) -> Exit {
    let (r, scenario) = match load_report(reg, path) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    if html {
        match crate::view::write_page(path, None) {
            Ok(p) if !json => crate::outln!("view: {}", p.display()),
            Ok(_) => {}
            Err(e) => return Exit::Bad(e),
        }
    }
    let (out, _) = match run_seed_with(reg, &scenario, r.seed, &r.bugs, Overrides::of_report(&r)) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    let same_verdict = out.verdict == r.verdict;
    let same_hash = out.trace.hash_hex() == r.trace_hash;
    let (offline_agrees, offline) = offline_verdict(reg, &scenario, &r);
    let reproduced = same_verdict && same_hash && offline_agrees;
    let divergence = (!same_hash).then(|| first_divergence(out.trace.events(), &r.trace));
    if json {
        crate::outln!(
            "{}",
            serde_json::json!({"reproduced": reproduced, "verdict": out.verdict,
                "expected_verdict": r.verdict, "trace_hash": out.trace.hash_hex(),
                "expected_trace_hash": r.trace_hash, "first_divergent_event": divergence,
                "offline_check": offline})
        );
    } else if reproduced {
        crate::outln!(
            "reproduced: {} seed {}: {} (trace {})",
            r.scenario,
            r.seed,
            runner::describe(&out),
            r.trace_hash
        );
        crate::outln!("offline check of the saved trace: {offline}");
    } else {
        crate::outln!("MISMATCH: {} seed {}", r.scenario, r.seed);
        crate::outln!(
            "  report: {:?} {:?} trace {}",
            r.verdict.status,
            r.verdict.invariant,
            r.trace_hash
        );
        crate::outln!(
            "  now:    {:?} {:?} trace {}",
            out.verdict.status,
            out.verdict.invariant,
            out.trace.hash_hex()
        );
        if let Some(i) = divergence {
            crate::outln!("  first differing event: {i}");
        }
        crate::outln!("  offline check of the saved trace: {offline}");
    }
    if reproduced {
        Exit::Clean
    } else {
        Exit::Found
    }
}

/// Re-check the report's saved trace with the scenario's checkers, offline.
/// Whether it agrees with the recorded verdict, and what it found.
fn offline_verdict(reg: &Registry, scenario: &Scenario, r: &Report) -> (bool, String) {
    if r.verdict.status == crate::world::Status::Error {
        return (true, "skipped (the run ended in an error)".into());
    }
    let checkers = match reg.checkers(scenario) {
        Ok(c) => c,
        Err(e) => return (false, format!("impossible ({e})")),
    };
    match crate::check::check_trace(&r.trace, checkers, r.stats.sim_ns) {
        Ok(()) if r.verdict.status == crate::world::Status::Pass => (true, "pass, as recorded".into()),
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

fn first_divergence(a: &[crate::event::Event], b: &[crate::event::Event]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}
