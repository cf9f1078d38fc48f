//! Turning a run into a verdict a user can act on: expected or not, and a
//! report on disk with the command that replays it.

pub use sim::outcome::{cause, cause_of, classify, Class, PANIC};

use sim::report::{Report, Stats, Style};
use sim::{RunOutcome, Scenario, Status};
use std::path::{Path, PathBuf};

/// Whether some check of the run ran out of its budget without a verdict
/// (its `*_unknown` counter moved): a pass that proves less than it says.
pub fn undecided(out: &RunOutcome) -> bool {
    out.counters.iter().any(|(k, v)| k.ends_with("_unknown") && *v > 0)
}

/// Where a run's report goes in `dir`: named after the scenario, the seed
/// and the bugs, each name made safe first (they come from data).
pub fn report_path(dir: &Path, scenario: &str, seed: u64, bugs: &[String]) -> PathBuf {
    let mut name = format!("{}-{seed}", sim::host::files::name_from_data(scenario));
    for b in bugs {
        name.push('-');
        name.push_str(&sim::host::files::name_from_data(b));
    }
    // File systems refuse names past 255 bytes; several long bug names
    // would pass that. The cut name keeps a hash of the whole one, so two
    // long names still name two files.
    if name.len() > REPORT_NAME_MAX {
        let hash = sim::hash::stable_hash(&name);
        name.truncate(REPORT_NAME_MAX - 17);
        name.push_str(&format!("-{hash:016x}"));
    }
    dir.join(format!("{name}.json"))
}

/// Bytes of a report's file name before `.json` (and `.gz`, `.shrunk`).
const REPORT_NAME_MAX: usize = 200;

/// `path`, unless a report of another find is there (another run: its seed
/// or trace hash differ, as when two explores of one seed ran to other
/// bounds, or a scenario file changed under its name): then the first
/// `X.2.json`, `X.3.json`, ... beside it that is free or holds this very
/// find. A file there that is no report is another's too. A find is never
/// replaced by a different one; the same find is written over.
pub fn unclaimed(path: &Path, seed: u64, trace_hash: &str) -> Result<PathBuf, String> {
    let gz = path.to_string_lossy().ends_with(".json.gz");
    let ext = if gz { "json.gz" } else { "json" };
    for n in 1..=UNCLAIMED_TRIES {
        let p = match n {
            1 => path.to_path_buf(),
            _ => sim::report::beside(path, &format!("{n}.{ext}")),
        };
        let free = match std::fs::symlink_metadata(&p) {
            Err(_) => true,
            Ok(_) => Report::read(&p).is_ok_and(|r| r.seed == seed && r.trace_hash == trace_hash),
        };
        if free {
            return Ok(p);
        }
    }
    Err(format!(
        "{} and {UNCLAIMED_TRIES} names beside it hold other finds; move them away to write this one",
        sim::host::files::shown(path)
    ))
}

const UNCLAIMED_TRIES: u32 = 100;

/// The report of a run; `class` is what [`classify`] made of it, `style`
/// whether it keeps the whole trace. `scenario` is the one the run ran
/// (before its knobs were drawn): if the outcome does not hold the events
/// the report keeps, the seed is run again holding them.
#[allow(clippy::too_many_arguments)]
pub fn report(
    registry: &sim::Registry,
    out: &RunOutcome,
    class: Class,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    wall_ms: u64,
    path: &Path,
    style: Style,
) -> Result<Report, String> {
    let (trace, window) = match style.trace(&out.trace, &out.verdict.evidence) {
        Some(kept) => kept,
        None => {
            let keep = style.keep(out.trace.len() as u64, &out.verdict.evidence);
            let again = super::rerun(registry, scenario, bugs, out, keep)?;
            style.trace(&again.trace, &out.verdict.evidence).ok_or_else(|| {
                format!(
                    "{} seed {seed}: the run again does not hold its report's events",
                    scenario.name
                )
            })?
        }
    };
    Ok(Report {
        // A run of an older report hashes its trace the old way.
        schema: sim::report::schema_for(out.trace.hash_kind()),
        dst_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: scenario.name.clone(),
        seed,
        bugs: bugs.to_vec(),
        config: serde_json::to_value(&out.scenario).expect("scenario serializes"),
        swarm: out.draw.clone(),
        plan: out.plan.clone(),
        calm: out.calm.clone(),
        verdict: out.verdict.clone(),
        expected: class != Class::Unexpected,
        coverage: out.coverage.clone(),
        stats: Stats {
            events: out.trace.len() as u64,
            messages: out.messages,
            sim_ns: out.sim_ns,
            wall_ms,
            counters: out.counters.clone(),
        },
        trace_hash: out.trace.hash_hex(),
        replay: crate::hint::replay(path),
        interrupted: out.interrupted,
        explore: out.tape.clone(),
        window,
        trace,
    })
}

/// One line describing a verdict.
pub fn describe(out: &RunOutcome) -> String {
    let v = &out.verdict;
    match v.status {
        Status::Pass => "pass".to_string(),
        Status::Violation => format!(
            "violation of {}: {} (events {:?})",
            v.invariant.as_deref().unwrap_or("?"),
            v.message.as_deref().unwrap_or(""),
            v.evidence
        ),
        Status::Error => format!("error: {}", v.message.as_deref().unwrap_or("")),
    }
}
