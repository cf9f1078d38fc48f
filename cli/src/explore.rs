//! `dst explore`: every run of a scenario within small bounds, each state
//! once (see [`sim::explore`]).

use super::args::ExploreArgs;
use super::Exit;
use dst_runner::{self as runner, Class};
use sim::explore::search::{Found, Limits, Order, Progress, Summary};
use sim::explore::Bounds;
use sim::{Registry, RunOutcome, Scenario, Status};
use std::time::Instant;

pub fn main(reg: &Registry, a: &ExploreArgs) -> Exit {
    let mut scenario = match reg.load(&a.scenario) {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    if let Some(id) = a.invariants.iter().find(|id| !scenario.invariants.contains(id)) {
        return Exit::Bad(format!(
            "--invariant {id}: scenario {} checks {}",
            scenario.name,
            scenario.invariants.join(", ")
        ));
    }
    if !a.invariants.is_empty() {
        scenario.invariants.retain(|id| a.invariants.contains(id));
    }
    if let Some(clients) = a.clients {
        scenario.workload.clients = clients;
        // A fixed count, not one a seed draws.
        scenario.vary.remove("workload.clients");
        if let Err(e) = scenario.validate() {
            return Exit::Bad(format!("--clients {clients}: {e}"));
        }
    }
    if let Err(e) = reg.validate(&scenario, &a.bugs) {
        return Exit::Bad(e);
    }
    if a.max_states == 0 {
        return Exit::Bad("--max-states must be at least 1".into());
    }
    if a.max_mib == 0 {
        return Exit::Bad("--max-mib must be at least 1".into());
    }
    let bounds = Bounds {
        depth: a.depth,
        deviations: a.deviations,
        crashes: a.crashes,
        drops: a.drops,
        duplicates: a.duplicates,
        partitions: a.partitions,
        pauses: a.pauses,
        clocks: a.clocks,
        disks: a.disks,
        ops: a.ops,
        liveness: !a.safety_only,
    };
    let limits = Limits {
        bounds,
        order: match (a.dfs, a.guided) {
            (true, _) => Order::Depth,
            (_, true) => Order::Guided,
            _ => Order::Breadth,
        },
        symmetry: !a.no_symmetry,
        states_max: a.max_states,
        mib_max: a.max_mib,
    };
    let started = Instant::now();
    let mut last = Instant::now();
    let quiet = a.json;
    let shown = |p: &Progress| {
        if !quiet && last.elapsed().as_secs() >= 2 {
            last = Instant::now();
            let secs = started.elapsed().as_secs_f64();
            sim::errln!(
                "[{secs:>5.0}s] {} states ({:.0}/s), {} runs, {} deviations, {} tapes waiting, {} MiB",
                p.states,
                p.states as f64 / secs.max(1e-9),
                p.runs,
                p.deviations,
                p.frontier,
                mib(p.table_bytes)
            );
        }
    };
    let (sum, found) = match runner::explore(reg, &scenario, a.seed, &a.bugs, limits, shown) {
        Ok(r) => r,
        Err(e) => return Exit::Bad(e),
    };
    let secs = started.elapsed().as_secs_f64();
    if sum.cut_short.as_deref() == Some("interrupted") {
        super::interrupted_note(&format!("the walk stopped after {} states", sum.states));
    }
    let found = match found.map(|f| write_found(reg, a, &scenario, f)) {
        Some(Err(e)) => return Exit::Bad(e),
        Some(Ok(w)) => Some(w),
        None => None,
    };
    if a.json {
        print_json(a, &scenario, &limits, &sum, found.as_ref(), secs);
    } else {
        print_text(a, &scenario, &limits, &sum, found.as_ref(), secs);
    }
    match found {
        Some(f) if f.class == Class::Expected => Exit::Clean,
        Some(_) => Exit::Found,
        // Cut by its state or memory budget, the walk proved nothing of the
        // bounds it did not reach: undecided, as a check out of budget is.
        None if sum.cut_short.is_some() => Exit::Undecided,
        // A bug switched on and not found within the bounds.
        None if !a.bugs.is_empty() => Exit::Found,
        None => Exit::Clean,
    }
}

/// A violation found, written as an ordinary report.
struct Written {
    class: Class,
    verdict: sim::Verdict,
    depth: usize,
    deviations: u32,
    events: u64,
    report: std::path::PathBuf,
}

fn write_found(reg: &Registry, a: &ExploreArgs, scenario: &Scenario, f: Found<RunOutcome>) -> Result<Written, String> {
    let Found {
        tape,
        deviations,
        outcome: out,
    } = f;
    let class = reg.classify(&out, scenario, &a.bugs);
    let style = a.style.style();
    let name = format!("{}-explore", scenario.name);
    // Another walk of this seed (other bounds, another order) may have
    // found another path to a violation: its report stays.
    let path = runner::unclaimed(
        &style.path(runner::report_path(&a.report_dir, &name, a.seed, &a.bugs)),
        a.seed,
        &out.trace.hash_hex(),
    )?;
    sim::host::files::refuse_special(&path)?;
    let r = runner::report(reg, &out, class, scenario, a.seed, &a.bugs, 0, &path, style)?;
    r.write(&path)?;
    Ok(Written {
        class,
        verdict: out.verdict,
        depth: tape.choices.len(),
        deviations,
        events: out.trace.len() as u64,
        report: path,
    })
}

fn print_text(a: &ExploreArgs, sc: &Scenario, l: &Limits, s: &Summary, found: Option<&Written>, secs: f64) {
    let b = &l.bounds;
    let bugs = if a.bugs.is_empty() {
        String::new()
    } else {
        format!(", bugs: {}", a.bugs.join(" "))
    };
    sim::outln!(
        "explore {} (seed {}{bugs}): depth {}, deviations {}, crashes {}, drops {}, duplicates {}, partitions {}, pauses {}, clocks {}, disks {}, ops {}, clients {}{}",
        sc.name,
        a.seed,
        b.depth,
        b.deviations,
        b.crashes,
        b.drops,
        b.duplicates,
        b.partitions,
        b.pauses,
        b.clocks,
        b.disks,
        b.ops,
        sc.workload.clients,
        if b.liveness { "" } else { ", safety only" }
    );
    sim::outln!(
        "  {}: {} states ({} met again, {} protocol shapes), {} runs ({} to the depth bound, {} ended sooner), up to {} choices and {} deviations, {:.1} s, {:.0} states/s, tables {} MiB",
        l.order.describe(),
        s.states,
        s.revisits,
        s.shapes,
        s.runs,
        s.at_bound,
        s.ended,
        s.depth,
        s.deviations,
        secs,
        s.states as f64 / secs.max(1e-9),
        mib(s.table_bytes)
    );
    if !s.coverage.is_empty() {
        let goals: Vec<&str> = s.coverage.iter().map(String::as_str).collect();
        sim::outln!("  coverage: {}", goals.join(", "));
    }
    match found {
        Some(f) => {
            let what = match f.verdict.status {
                Status::Violation => format!(
                    "violation of {}: {}",
                    f.verdict.invariant.as_deref().unwrap_or("?"),
                    f.verdict.message.as_deref().unwrap_or("")
                ),
                _ => format!("error: {}", f.verdict.message.as_deref().unwrap_or("")),
            };
            sim::outln!("  {what}");
            sim::outln!(
                "  at {} deviations (a tape of {} choices, {} events); report: {}  (replay: {})",
                f.deviations,
                f.depth,
                f.events,
                sim::host::files::shown(&f.report),
                dst_runner::hint::replay(&f.report)
            );
        }
        None => match &s.cut_short {
            Some(why) => sim::outln!(
                "  no violation in the {} states explored: {why}, {} tapes left",
                s.states,
                s.frontier
            ),
            None => sim::outln!(
                "  no violation: every state within the bounds explored ({} states)",
                s.states
            ),
        },
    }
}

/// Whole MiB, rounded up: a table of a few KiB shows as 1.
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

fn print_json(a: &ExploreArgs, sc: &Scenario, l: &Limits, s: &Summary, found: Option<&Written>, secs: f64) {
    let found = found.map(|f| {
        serde_json::json!({"verdict": f.verdict, "expected": f.class == Class::Expected,
            "choices": f.depth, "deviations": f.deviations, "events": f.events, "report": f.report})
    });
    sim::outln!(
        "{}",
        serde_json::json!({"scenario": sc.name, "seed": a.seed, "bugs": a.bugs, "bounds": l.bounds,
            "clients": sc.workload.clients,
            "order": l.order.name(),
            "states": s.states, "shapes": s.shapes, "runs": s.runs, "revisits": s.revisits, "ended": s.ended,
            "at_bound": s.at_bound, "deepest": s.depth, "deviations": s.deviations, "frontier": s.frontier,
            "complete": s.complete() && found.is_none(), "cut_short": s.cut_short,
            "seconds": secs, "states_per_second": s.states as f64 / secs.max(1e-9),
            "table_bytes": s.table_bytes,
            "coverage": s.coverage, "found": found})
    );
}
