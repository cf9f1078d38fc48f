//! `dst search`: a coverage-guided campaign, with its coverage curve and,
//! with `--compare`, plain fuzzing measured the same way beside it.

use super::args::SearchArgs;
use super::Exit;
use dst_runner::search::{search, Point, SearchOptions, Side};
use sim::Registry;

pub fn main(reg: &Registry, a: SearchArgs) -> Exit {
    if a.runs == 0 {
        return Exit::Bad("--runs must be at least 1".into());
    }
    let budget = match super::values::budget(a.budget.as_deref()) {
        Ok(b) => b,
        Err(e) => return Exit::Bad(e),
    };
    let jobs = match super::values::jobs(a.jobs) {
        Ok(j) => j,
        Err(e) => return Exit::Bad(e),
    };
    let opts = SearchOptions {
        scenario: a.scenario.clone(),
        runs: a.runs,
        budget,
        jobs,
        seed: a.seed,
        bugs: a.bugs.clone(),
        report_dir: Some(a.report_dir.clone()),
        style: a.style.style(),
        compare: a.compare,
        stop_at_first: a.stop,
        stalls_are_finds: a.stalls_are_finds,
        passed_over: Vec::new(),
    };
    let quiet = a.json;
    let mut last = std::time::Instant::now();
    let summary = search(reg, &opts, |p: &Point| {
        if !quiet && last.elapsed().as_secs() >= 5 {
            last = std::time::Instant::now();
            sim::errln!(
                "[{:>5.0}s] {} runs, {} features{}, corpus {}",
                p.seconds,
                p.runs,
                p.guided,
                p.plain.map(|f| format!(" (plain {f})")).unwrap_or_default(),
                p.corpus
            );
        }
    });
    let s = match summary {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if a.json {
        sim::outln!(
            "{}",
            serde_json::json!({"scenario": s.scenario.name, "seed": a.seed, "bugs": a.bugs,
                "seconds": s.took.as_secs_f64(), "corpus": s.corpus, "guided": s.guided,
                "plain": s.plain, "curve": s.curve, "interrupted": s.interrupted,
                "at_equal_cost": dst_runner::search::at_equal_cost(&s.curve)
                    .map(|(g, p)| serde_json::json!({"guided": g, "plain": p}))})
        );
    } else {
        sim::outln!(
            "search {} (campaign seed {}{}): {} guided runs in {:.1} s, corpus {}",
            s.scenario.name,
            a.seed,
            if a.bugs.is_empty() {
                String::new()
            } else {
                format!(", bugs: {}", a.bugs.join(" "))
            },
            s.guided.runs,
            s.took.as_secs_f64(),
            s.corpus
        );
        line("guided", &s.guided);
        if let Some(p) = &s.plain {
            line("plain ", p);
            let marks: Vec<String> = checkpoints(&s.curve)
                .iter()
                .map(|p| format!("{}: {}/{}", p.runs, p.guided, p.plain.unwrap_or(0)))
                .collect();
            sim::outln!("  features by runs (guided/plain): {}", marks.join("  "));
            if let Some((g, p)) = dst_runner::search::at_equal_cost(&s.curve) {
                sim::outln!(
                    "  at equal CPU: guided {} features, {} abstract states in {:.1} s of runs; plain {} features, {} abstract states in {:.1} s",
                    g.features,
                    g.states,
                    g.run_seconds,
                    p.features,
                    p.states,
                    p.run_seconds
                );
            }
        }
        for r in s.guided.reports.iter().chain(s.plain.iter().flat_map(|p| &p.reports)) {
            sim::outln!(
                "  report: {}  (replay: {})",
                sim::host::files::shown(r),
                dst_runner::hint::replay(r)
            );
        }
    }
    if s.interrupted {
        super::interrupted_note(&format!("the campaign stopped after {} guided runs", s.guided.runs));
    }
    if s.ok() {
        Exit::Clean
    } else {
        Exit::Found
    }
}

fn line(name: &str, side: &Side) {
    sim::outln!(
        "  {name}: {} runs ({:.1} s of runs), {} features ({} abstract states, {} transitions), {} violations, {} stalls ({} unexpected in all), first find: {}",
        side.runs,
        side.run_seconds,
        side.features,
        side.states,
        side.transitions,
        side.violations,
        side.stalls,
        side.unexpected,
        side.first_violation
            .as_ref()
            .map_or("none".to_string(), |(run, cause)| format!("run {run} ({cause})"))
    );
    if let Some((run, message)) = &side.first_stall {
        sim::outln!("    first stall: run {run}: {message}");
    }
    if !side.by_cause.is_empty() {
        let causes: Vec<String> = side
            .by_cause
            .iter()
            .map(|(cause, c)| format!("{cause} {} (first run {})", c.runs, c.first_run))
            .collect();
        sim::outln!("    by cause: {}", causes.join(", "));
    }
}

/// About five points spread over the curve, the last one included.
fn checkpoints(curve: &[Point]) -> Vec<&Point> {
    let n = curve.len();
    let mut idx: Vec<usize> = [n / 8, n / 4, n / 2, 3 * n / 4, n.saturating_sub(1)]
        .into_iter()
        .filter(|&i| i < n)
        .collect();
    idx.dedup();
    idx.into_iter().map(|i| &curve[i]).collect()
}
