//! `dst mutants`: the runner's hunt for every catalogued bug, printed as a
//! table, then the control runs on the correct model or fixed release.

use super::Exit;
use dst_runner::mutants::{mutants, targets, Hunt, HuntOptions};
use sim::Registry;
use std::path::Path;

pub fn main(
    reg: &Registry,
    max_seeds: u64,
    how: HuntOptions,
    only: &[String],
    jobs: Option<usize>,
    dir: &Path,
    json: bool,
) -> Exit {
    if max_seeds == 0 {
        return Exit::Bad("--max-seeds must be at least 1".into());
    }
    let chosen = match targets(reg, only) {
        Ok(t) => t,
        Err(e) => return Exit::Bad(e),
    };
    let jobs = match super::values::jobs(jobs) {
        Ok(j) => j,
        Err(e) => return Exit::Bad(e),
    };
    if let Err(e) = sim::host::files::check_dir(dir) {
        return Exit::Bad(e);
    }
    let guided = how.guided;
    let explored = how.explore.is_some();
    let s = mutants(reg, chosen, max_seeds, jobs, how, dir, |h: &Hunt| {
        if !json {
            sim::errln!(
                "  {} : {}",
                h.target.bug,
                h.found_by.as_deref().map_or("not found".to_string(), |f| format!(
                    "found by {f} after {} seeds",
                    h.seeds
                ))
            );
        }
    });
    let (median, max) = s.seeds_to_find();
    if json {
        let c: Vec<_> = s
            .controls
            .iter()
            .map(|(sc, c)| serde_json::json!({"scenario": sc, "seeds": c.seeds, "unexpected": c.unexpected}))
            .collect();
        sim::outln!(
            "{}",
            serde_json::json!({"max_seeds": max_seeds, "bugs": s.hunts, "correct": c, "median_seeds": median, "unfound": s.unfound(), "median_runs_guided": s.runs_to_find_guided().0})
        );
    } else {
        let wb = s.hunts.iter().map(|h| h.target.bug.len()).max().unwrap_or(0).max(26);
        let wi = s
            .hunts
            .iter()
            .map(|h| h.target.invariants.join("|").len())
            .max()
            .unwrap_or(0)
            .max(18);
        sim::outln!(
            "{:<wb$} {:<6} {:<wi$} {:<21} {:>6} {:>9}{}",
            "bug",
            "source",
            "expected invariant",
            "found by",
            "seeds",
            "wall",
            format!(
                "{}{}",
                if guided { "  guided: found by, runs, wall" } else { "" },
                if explored {
                    "  explore: found by, order, faults, deviations, choices, states, wall"
                } else {
                    ""
                }
            )
        );
        let shrunk = |h: &Hunt| {
            h.shrunk.as_ref().map_or(String::new(), |s| {
                format!(
                    "  shrunk: events {} -> {}, plan {} -> {}",
                    s.events_from, s.events_to, s.plan_from, s.plan_to
                )
            })
        };
        for h in &s.hunts {
            let found = h
                .found_by
                .clone()
                .or_else(|| h.error.clone().map(|e| format!("error: {e}")))
                .unwrap_or_else(|| "NOT FOUND".into());
            let g = h.guided.as_ref().map_or(String::new(), |g| {
                format!(
                    "  {:<21} {:>6} {:>7.1} s",
                    g.found_by.as_deref().unwrap_or("NOT FOUND"),
                    g.runs,
                    g.wall_ms as f64 / 1e3
                )
            });
            let sh = shrunk(h);
            let x = h.explored.as_ref().map_or(String::new(), |x| {
                format!(
                    "  {:<21} {:<7} {:<10} {:>3} {:>4} {:>9} {:>7.1} s",
                    x.found_by
                        .clone()
                        .or_else(|| x.error.as_ref().map(|e| format!("error: {e}")))
                        .unwrap_or_else(|| "NOT FOUND".into()),
                    x.order.unwrap_or("-"),
                    x.faults.unwrap_or("-"),
                    x.deviations.map_or("-".into(), |d| d.to_string()),
                    x.choices.map_or("-".into(), |d| d.to_string()),
                    x.states,
                    x.wall_ms as f64 / 1e3
                )
            });
            sim::outln!(
                "{:<wb$} {:<6} {:<wi$} {:<21} {:>6} {:>7.1} s{g}{x}{sh}",
                h.target.bug,
                h.target.source,
                h.target.invariants.join("|"),
                found,
                h.seeds,
                h.wall_ms as f64 / 1e3
            );
        }
        sim::outln!();
        let wc = s.controls.keys().map(|k| k.len()).max().unwrap_or(0);
        for (sc, c) in &s.controls {
            sim::outln!(
                "control (correct model or fixed release) on {sc:<wc$} {:>6} seeds  {}",
                c.seeds,
                if c.unexpected.is_empty() {
                    "no violation".to_string()
                } else {
                    format!("{} UNEXPECTED: {}", c.unexpected.len(), c.unexpected[0])
                }
            );
        }
        sim::outln!(
            "{} of {} bugs found; median seeds to find: {}; max: {}",
            s.hunts.len() - s.unfound(),
            s.hunts.len(),
            median.map_or("-".into(), |m| m.to_string()),
            max.map_or("-".into(), |m| m.to_string())
        );
        if explored {
            let found = s
                .hunts
                .iter()
                .filter(|h| h.explored.as_ref().is_some_and(|x| x.found_by.is_some()))
                .count();
            sim::outln!("exploration: {found} of {} bugs found", s.hunts.len());
        }
        if guided {
            let (gm, gx) = s.runs_to_find_guided();
            let found = s
                .hunts
                .iter()
                .filter(|h| h.guided.as_ref().is_some_and(|g| g.found_by.is_some()))
                .count();
            sim::outln!(
                "guided search: {found} of {} bugs found; median runs to find: {}; max: {}",
                s.hunts.len(),
                gm.map_or("-".into(), |m| m.to_string()),
                gx.map_or("-".into(), |m| m.to_string())
            );
        }
    }
    if s.interrupted {
        super::interrupted_note("hunts were cut short; a bug shown not found may not have had all its seeds");
    }
    if s.ok() {
        Exit::Clean
    } else {
        Exit::Found
    }
}
