//! The small commands: list, run, replay.

use super::Exit;
use dst_runner::{self as runner, load_report, run_seed, run_seed_with, Class};
use linearizability::one_line::one_line;
use sim::report::Report;
use sim::{Overrides, Registry, Scenario};
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
        sim::outln!("{}", serde_json::to_string_pretty(&v).expect("json"));
        return Exit::Clean;
    }
    let wm = reg.models().iter().map(|m| m.name.len()).max().unwrap_or(0);
    sim::outln!("models:");
    for m in reg.models() {
        sim::outln!("  {:<wm$}  {}", m.name, m.about);
    }
    let w = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(0);
    sim::outln!("scenarios:");
    for s in scenarios {
        sim::outln!("  {:<w$}  {} nodes  {}", s.name, s.nodes, s.description);
    }
    let wb = bugs.iter().map(|(_, b)| b.id.len()).max().unwrap_or(0);
    let wi = bugs
        .iter()
        .map(|(_, b)| b.invariants.join("|").len())
        .max()
        .unwrap_or(0);
    let ws = bugs.iter().map(|(_, b)| b.scenario.len()).max().unwrap_or(0);
    sim::outln!("bug switches:");
    for (_, b) in &bugs {
        let inv = b.invariants.join("|");
        sim::outln!(
            "  {:<wb$}  {:<8} caught by {inv:<wi$}  in {:<ws$}  {}",
            b.id,
            b.kind,
            b.scenario,
            b.summary
        );
    }
    if !real.is_empty() {
        sim::outln!("real bugs (pinned releases, no switch):");
        for (_, b) in &real {
            sim::outln!(
                "  {}  {} ({}); fixed: {}\n      {} caught by {}  in {}, control {}",
                b.id,
                b.release,
                b.reference,
                b.fixed_in,
                b.kind,
                b.invariants.join("|"),
                b.scenario,
                b.fixed_scenario.unwrap_or("none (no fixed release)")
            );
            sim::outln!("      {}", b.summary);
        }
    }
    let all = reg.all_invariants();
    let wv = all.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
    sim::outln!("invariants:");
    for (id, d) in all {
        sim::outln!("  {id:<wv$}  {d}");
    }
    Exit::Clean
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    reg: &Registry,
    name: &str,
    seed: u64,
    bugs: &[String],
    report: Option<PathBuf>,
    html: bool,
    style: sim::report::Style,
    json: bool,
) -> Exit {
    // One run may take minutes: a signal ends it, with its report.
    sim::host::interrupt::cut_runs();
    let scenario = match reg.load(name) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if let Err(e) = reg.validate(&scenario, bugs) {
        return Exit::Bad(e);
    }
    // An explicit name gains .gz with --gzip unless it has it.
    let report = report.map(|p| match p.extension().is_some_and(|e| e == "gz") {
        true => p,
        false => style.path(p),
    });
    if let Some(Err(e)) = report.as_deref().map(sim::host::files::refuse_special) {
        return Exit::Bad(e);
    }
    let (out, wall_ms) = match run_seed(reg, &scenario, seed, bugs, None) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    let class = reg.classify(&out, &scenario, bugs);
    // A path asked for is written over; the default one never replaces
    // another find (the same scenario name from an edited file).
    let path = match report.clone() {
        Some(p) => Some(p),
        None if out.verdict.status != sim::Status::Pass => {
            let p = style.path(runner::report_path(Path::new("reports"), &scenario.name, seed, bugs));
            match runner::unclaimed(&p, seed, &out.trace.hash_hex()) {
                Ok(p) => Some(p),
                Err(e) => return Exit::Bad(e),
            }
        }
        None => None,
    };
    let written = match &path {
        Some(p) => {
            match runner::report(reg, &out, class, &scenario, seed, bugs, wall_ms, p, style).and_then(|r| r.write(p)) {
                Ok(()) => Some(p.clone()),
                Err(e) => return Exit::Bad(e),
            }
        }
        None => None,
    };
    // The page is drawn from this run, whole, whatever the report keeps.
    let page = match written.as_deref().filter(|_| html).map(|p| {
        let whole = sim::report::Style {
            full_trace: true,
            gzip: false,
        };
        let dest = sim::report::beside(p, "html");
        runner::report(reg, &out, class, &scenario, seed, bugs, wall_ms, p, whole)
            .and_then(|r| crate::view::write_report_page(&r, &dest))
            .map(|()| dest)
    }) {
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
        sim::outln!("{v}");
    } else {
        sim::outln!(
            "{} seed {seed}: {} [{} events, {} messages, {:.1} s simulated, {wall_ms} ms, trace {}]",
            scenario.name,
            runner::describe(&out),
            out.trace.len(),
            out.messages,
            out.sim_ns as f64 / 1e9,
            out.trace.hash_hex()
        );
        if !out.coverage.is_empty() {
            sim::outln!(
                "coverage: {}",
                out.coverage.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(p) = &written {
            sim::outln!(
                "report: {}  (replay: {})",
                sim::host::files::shown(p),
                dst_runner::hint::replay(p)
            );
        }
        if let Some(p) = &page {
            sim::outln!("view: {}", sim::host::files::shown(p));
        }
    }
    // The count of steps taken (what a replay needs) is not the count of
    // trace events the verdict gives, so this line names neither.
    if out.interrupted.is_some() {
        sim::errln!(
            "dst: interrupted: the run was cut where its verdict says; its report replays it to the same event"
        );
    }
    let undecided = runner::undecided(&out);
    match class {
        Class::Unexpected => Exit::Found,
        Class::Pass if undecided => Exit::Undecided,
        Class::Pass | Class::Expected => Exit::Clean,
    }
}

/// `dst view REPORT`: the report's page, written where asked.
pub fn view(reg: &Registry, report: &Path, out: Option<&Path>, events: Option<&str>) -> Exit {
    let events = match events.map(dst_runner::parse_events).transpose() {
        Ok(e) => e,
        Err(e) => return Exit::Bad(e),
    };
    match crate::view::write_page(reg, report, out, events) {
        Ok((p, drawn)) => {
            match drawn.note() {
                Some(note) => sim::outln!("view: {} ({note})", sim::host::files::shown(&p)),
                None => sim::outln!("view: {}", sim::host::files::shown(&p)),
            }
            Exit::Clean
        }
        Err(e) => Exit::Bad(e),
    }
}

/// Where `replay --full` writes by default: `X.full.json` beside `X.json`.
pub fn full_path(report: &Path) -> PathBuf {
    sim::report::beside(report, "full.json")
}

/// `dst replay REPORT`: the seed run again under the report's plan and calm
/// messages, compared with it; `full` also writes the report with every
/// event there.
pub fn replay(reg: &Registry, path: &Path, full: Option<PathBuf>, html: bool, json: bool) -> Exit {
    sim::host::interrupt::cut_runs();
    let (r, scenario) = match load_report(reg, path) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    for dest in full
        .iter()
        .chain(html.then(|| sim::report::beside(path, "html")).as_ref())
    {
        if let Err(e) = sim::host::files::refuse_special(dest) {
            return Exit::Bad(e);
        }
    }
    // The offline check and the divergence read the whole trace.
    let fixed = Overrides::of_report(&r).keeping_all();
    let (out, _) = match run_seed_with(reg, &scenario, r.seed, &r.bugs, fixed) {
        Ok(x) => x,
        Err(e) => return Exit::Bad(e),
    };
    let same_hash = out.trace.hash_hex() == r.trace_hash;
    let expected_now = reg.classify(&out, &scenario, &r.bugs) != Class::Unexpected;
    let differing = claims_differing(&r, &out, expected_now);
    // A compact report's saved events are a window; where the replay
    // hashes the same, the whole saved trace is the replayed one.
    let whole: Option<&[sim::Event]> = match (&r.window, same_hash) {
        (None, _) => Some(&r.trace),
        (Some(_), true) => Some(out.trace.events()),
        (Some(_), false) => None,
    };
    let (offline_agrees, offline) = match whole {
        Some(trace) => offline_verdict(reg, &scenario, &r, trace),
        None => (
            true,
            "skipped (a compact report keeps only a window of its trace)".into(),
        ),
    };
    let reproduced = differing.is_empty() && offline_agrees;
    let saved = if r.is_compact() { "regenerated" } else { "saved" };
    let divergence = (!same_hash).then(|| first_divergence(out.trace.events(), &r)).flatten();
    let mut written = Vec::new();
    if let Some(trace) = whole.filter(|_| full.is_some() || html) {
        let mut w = Report {
            trace: trace.to_vec(),
            window: None,
            ..r.clone()
        };
        if html {
            let dest = sim::report::beside(path, "html");
            if let Err(e) = crate::view::write_report_page(&w, &dest) {
                return Exit::Bad(e);
            }
            written.push(dest);
        }
        if let Some(dest) = full {
            w.replay = dst_runner::hint::replay(&dest);
            if let Err(e) = w.write(&dest) {
                return Exit::Bad(e);
            }
            written.push(dest);
        }
    } else if full.is_some() || html {
        sim::errln!("dst: the replay differs from the report, so its whole trace is not written");
    }
    if json {
        sim::outln!(
            "{}",
            serde_json::json!({"reproduced": reproduced, "verdict": out.verdict,
                "expected_verdict": r.verdict, "trace_hash": out.trace.hash_hex(),
                "expected_trace_hash": r.trace_hash, "first_divergent_event": divergence,
                "differing": differing.iter().map(|(f, was, now)| serde_json::json!({"field": f, "report": was, "now": now})).collect::<Vec<_>>(),
                "offline_check": offline, "written": written})
        );
    } else if reproduced {
        sim::outln!(
            "reproduced: {} seed {}: {} (trace {})",
            r.scenario,
            r.seed,
            runner::describe(&out),
            r.trace_hash
        );
        sim::outln!("offline check of the {saved} trace: {offline}");
        for p in &written {
            sim::outln!("wrote {}", sim::host::files::shown(p));
        }
    } else {
        sim::outln!("MISMATCH: {} seed {}", r.scenario, r.seed);
        sim::outln!(
            "  report: {:?} {:?} trace {}",
            r.verdict.status,
            r.verdict.invariant,
            r.trace_hash
        );
        sim::outln!(
            "  now:    {:?} {:?} trace {}",
            out.verdict.status,
            out.verdict.invariant,
            out.trace.hash_hex()
        );
        if out.verdict.status == sim::Status::Error {
            sim::outln!("  now ended: {}", out.verdict.message.as_deref().unwrap_or(""));
        }
        if let Some((field, was, now)) = differing.first() {
            sim::outln!("  first differing claim: {field}: report {was}, now {now}");
        }
        if let Some(i) = divergence {
            sim::outln!("  first differing event: {i}");
        }
        sim::outln!("  offline check of the {saved} trace: {offline}");
    }
    if reproduced {
        Exit::Clean
    } else {
        Exit::Found
    }
}

/// Every claim of a report the replayed run can check, in the order a
/// reader meets them, with what the report says and what the run gives,
/// for each that differs: a report is evidence only where the run agrees.
/// (Its inputs, the scenario, seed, bugs and plan, are what the run ran;
/// the wall time and the version that wrote it are not claims about the
/// run.) Counters came in a later schema: an older report without them
/// claims none.
fn claims_differing(r: &Report, out: &sim::RunOutcome, expected_now: bool) -> Vec<(&'static str, String, String)> {
    let mut d = Vec::new();
    let mut claim = |field: &'static str, was: String, now: String| {
        if was != now {
            d.push((field, one_line(&was), one_line(&now)));
        }
    };
    let verdict = |v: &sim::Verdict| serde_json::to_string(v).unwrap_or_default();
    claim("verdict", verdict(&r.verdict), verdict(&out.verdict));
    claim("trace_hash", r.trace_hash.clone(), out.trace.hash_hex());
    claim("stats.events", r.stats.events.to_string(), out.trace.len().to_string());
    claim("stats.messages", r.stats.messages.to_string(), out.messages.to_string());
    claim("stats.sim_ns", r.stats.sim_ns.to_string(), out.sim_ns.to_string());
    if r.schema == sim::report::SCHEMA || !r.stats.counters.is_empty() {
        let counters = |c: &std::collections::BTreeMap<String, u64>| serde_json::to_string(c).unwrap_or_default();
        claim("stats.counters", counters(&r.stats.counters), counters(&out.counters));
    }
    let coverage = |c: &std::collections::BTreeSet<String>| c.iter().cloned().collect::<Vec<_>>().join(" ");
    claim("coverage", coverage(&r.coverage), coverage(&out.coverage));
    claim("expected", r.expected.to_string(), expected_now.to_string());
    claim(
        "interrupted",
        format!("{:?}", r.interrupted),
        format!("{:?}", out.interrupted),
    );
    d
}

/// Re-check `trace` (the report's whole trace: saved, or regenerated for a
/// compact report) with the scenario's checkers, offline. Whether it agrees
/// with the recorded verdict, and what it found.
fn offline_verdict(reg: &Registry, scenario: &Scenario, r: &Report, trace: &[sim::Event]) -> (bool, String) {
    if r.verdict.status == sim::Status::Error {
        return (true, "skipped (the run ended in an error)".into());
    }
    let checkers = match reg.checkers(scenario) {
        Ok(c) => c,
        Err(e) => return (false, format!("impossible ({e})")),
    };
    match sim::check_trace(trace, checkers, r.stats.sim_ns) {
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

/// The first event (by number) where the replay `now` and the report's
/// `saved` events differ. A compact report's window may agree everywhere
/// it looks while its gaps differ: then none can be named.
fn first_divergence(now: &[sim::Event], r: &Report) -> Option<u64> {
    for e in &r.trace {
        match now.get(e.i as usize) {
            Some(n) if n == e => {}
            _ => return Some(e.i),
        }
    }
    // Every saved event agrees: the runs part where the shorter ends.
    let saved = r.window.as_ref().map_or(r.trace.len() as u64, |w| w.events);
    (r.window.is_none() || saved != now.len() as u64).then(|| saved.min(now.len() as u64))
}
