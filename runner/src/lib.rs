#![deny(missing_docs)]
#![warn(unnameable_types)]
//! The runner: everything `dst` does with a registry, as library calls, so
//! a user's own tests can fuzz a seed range, replay and shrink a failing
//! seed, or keep a regression corpus of their models exactly as the
//! command line does.
//!
//! ```
//! use dst_runner::FuzzOptions;
//! use sim::{ModelDef, Registry, Setup};
//! # use sim::{apply_to_map, ClientReply, ClientReq, Io, KvMap, Machine, MsgInfo, NodeId, SyncTicket, TimerId};
//! # #[derive(Clone, Debug, serde::Serialize)]
//! # enum NoMsg {}
//! # impl MsgInfo for NoMsg {
//! #     fn kind(&self) -> &'static str {
//! #         match *self {}
//! #     }
//! # }
//! # #[derive(Default)]
//! # struct InMemory {
//! #     map: KvMap,
//! # }
//! # impl Machine for InMemory {
//! #     type Msg = NoMsg;
//! #     type Rec = ();
//! #     fn boot(&mut self, _: &mut Io<Self>) {}
//! #     fn on_message(&mut self, _: NodeId, m: NoMsg, _: &mut Io<Self>) {
//! #         match m {}
//! #     }
//! #     fn on_timer(&mut self, _: TimerId, _: &mut Io<Self>) {}
//! #     fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
//! #         let result = apply_to_map(&mut self.map, &req.op);
//! #         io.reply(req.req_id, ClientReply::Ok(result));
//! #     }
//! #     fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
//! # }
//!
//! // The store of sim's front page, which keeps its data in memory alone,
//! // with a scenario where nodes crash and one where none does.
//! fn registry() -> Registry {
//!     let mut registry = Registry::new();
//!     registry.add(ModelDef::new("in-memory", "a store that keeps nothing on disk", |_: Setup<'_, sim::NoConfig>| {
//!         Ok(|_| InMemory::default())
//!     }));
//!     for (name, crash) in [("calm", false), ("crashing", true)] {
//!         registry.scenario(&format!(
//!             r#"{{"name": "{name}", "model": "in-memory", "nodes": 1, "invariants": ["linearizable"],
//!                 "faults": {{"swarm": false, "crash": {crash}, "pause": false, "partition": false, "link": false}}}}"#
//!         ));
//!     }
//!     registry
//! }
//!
//! // Every seed of 0..20 passes where nothing crashes: no unexpected
//! // violation, every coverage goal reached.
//! let calm = dst_runner::fuzz(&registry(), &FuzzOptions::seeds("calm", 0..20))?;
//! assert!(calm.ok(), "{}", calm.failures().join("\n"));
//!
//! // Where nodes crash, acknowledged writes are lost: one line per failing
//! // seed, with the command that replays it.
//! let crashing = dst_runner::fuzz(&registry(), &FuzzOptions::seeds("crashing", 0..20))?;
//! let failures = crashing.failures();
//! assert!(!crashing.ok() && !failures.is_empty());
//! assert!(failures.iter().all(|line| line.contains("linearizable")), "{failures:?}");
//!
//! // Each seed replays to the same trace, on a fresh thread and from its own fault plan.
//! dst_runner::replays(registry, &registry().load("crashing")?, 0..3, &[])?;
//! # Ok::<(), String>(())
//! ```
//!
//! [`corpus`] replays a regression corpus line by line, [`shrink::shrink`]
//! makes a failing report smaller, [`search`] and [`mutants`] hunt by
//! coverage and over every bug switch, and [`explore`] walks every run
//! within small bounds.

pub mod audit;
pub mod ci;
pub mod claim;
mod corpus;
pub mod cursor;
mod drawn;
mod fuzz;
pub mod grow;
pub mod hint;
pub mod mutants;
pub(crate) mod outcome;
pub mod pool;
pub mod record;
mod replays;
pub mod search;
pub mod shrink;
mod tally;

pub use corpus::{corpus, CorpusCase, CorpusLine};
pub use drawn::{parse_events, read_drawn, Drawn, DRAWN_DEFAULT};
pub use fuzz::{fuzz, fuzz_from, fuzz_with, parse_seeds, parse_shard, FuzzOptions, FuzzSummary, ReportCap, SeedDone};
pub use outcome::{cause, cause_of, classify, describe, report, report_path, unclaimed, undecided, Class, PANIC};
pub use replays::replays;
pub use tally::{Declared, Finding, Judge, Tally};

use linearizability::one_line::one_line;
use sim::fault::PlanEntry;
use sim::trace::{Keep, TraceHash};
use sim::{Overrides, Registry, RunOutcome, Scenario};

/// Runs one seed and times it. A panic in the harness itself (not in a
/// model: that is a finding inside the outcome) becomes an error line.
pub fn run_seed(
    registry: &Registry,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    plan: Option<Vec<PlanEntry>>,
) -> Result<(RunOutcome, u64), String> {
    run_seed_with(
        registry,
        scenario,
        seed,
        bugs,
        Overrides {
            plan,
            ..Overrides::default()
        },
    )
}

/// Events a run of [`run_seed_lean`] holds: at least this many of the
/// latest, at most twice as many.
pub(crate) const HELD_LEAN: u64 = 512;

/// [`run_seed`] for a caller that reads of a passing run only its verdict,
/// coverage and counts (fuzz, mutants, bench). Checkers see every event as
/// it happens, so the run holds only its latest few hundred events and,
/// unless `hash_always` (a determinism check compares hashes of passing
/// runs), does not hash them: a passing seed neither builds and frees a
/// trace of tens of thousands of events nor pays for a hash nobody reads.
/// A run that did not simply pass (a violation, evidence, an undecided
/// check) is run again, hashed and holding its evidence window, and that
/// is what is returned, exactly as [`run_seed`] would have given it.
pub fn run_seed_lean(
    registry: &Registry,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    hash_always: bool,
) -> Result<(RunOutcome, u64), String> {
    let start = std::time::Instant::now();
    let fixed = Overrides {
        keep: Keep::Last(HELD_LEAN),
        hash: if hash_always { TraceHash::Words } else { TraceHash::Off },
        ..Overrides::default()
    };
    let mut out = run_guarded(registry, scenario, seed, bugs, fixed)?;
    let simple =
        out.verdict.status == sim::Status::Pass && out.verdict.evidence.is_empty() && !outcome::undecided(&out);
    if out.trace.hash_kind() == TraceHash::Off && !simple {
        let keep = match out.verdict.evidence.is_empty() {
            true => Keep::Last(HELD_LEAN),
            false => Keep::Ranges(sim::report::kept(out.trace.len() as u64, &out.verdict.evidence)),
        };
        let again = rerun_hashed(registry, scenario, bugs, &out, keep, TraceHash::Words)?;
        if again.verdict != out.verdict || again.trace.len() != out.trace.len() {
            return Err(format!(
                "nondeterministic: {} seed {seed} ran to {} events and then to {}",
                scenario.name,
                out.trace.len(),
                again.trace.len()
            ));
        }
        out = again;
    } else {
        out = holding_evidence(registry, scenario, bugs, out)?;
    }
    Ok((out, start.elapsed().as_millis() as u64))
}

/// [`run_seed`] with what `fixed` pins instead of drawing it (a report's
/// plan and calm messages) and the events it holds. Whatever it holds, the
/// outcome holds the events its verdict names and the window a compact
/// report keeps around them: a run that had dropped some is run again.
pub fn run_seed_with(
    registry: &Registry,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    fixed: Overrides,
) -> Result<(RunOutcome, u64), String> {
    let start = std::time::Instant::now();
    let out = run_guarded(registry, scenario, seed, bugs, fixed)?;
    let out = holding_evidence(registry, scenario, bugs, out)?;
    Ok((out, start.elapsed().as_millis() as u64))
}

/// `out`, or, if it dropped some of the events its verdict names or the
/// window a compact report keeps around them, its run again holding them.
fn holding_evidence(
    registry: &Registry,
    scenario: &Scenario,
    bugs: &[String],
    out: RunOutcome,
) -> Result<RunOutcome, String> {
    if out.verdict.evidence.is_empty() {
        return Ok(out);
    }
    let window = sim::report::kept(out.trace.len() as u64, &out.verdict.evidence);
    if out.trace.holds(&window) {
        return Ok(out);
    }
    rerun(registry, scenario, bugs, &out, Keep::Ranges(window))
}

pub(crate) fn run_guarded(
    registry: &Registry,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    fixed: Overrides,
) -> Result<RunOutcome, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        registry.run_with(scenario, seed, bugs, fixed)
    }))
    .map_err(|p| {
        format!(
            "harness panicked on {} seed {seed}: {}",
            scenario.name,
            sim::outcome::panic_text(&p)
        )
    })?
}

/// Every run of `scenario` with `bugs` within `limits` (`dst explore` as
/// a library call): each tape run as `seed` with the walk's knowledge, a
/// harness panic an error. `progress` hears of every run.
pub fn explore(
    registry: &Registry,
    scenario: &Scenario,
    seed: u64,
    bugs: &[String],
    limits: sim::explore::search::Limits,
    progress: impl FnMut(&sim::explore::search::Progress),
) -> Result<
    (
        sim::explore::search::Summary,
        Option<sim::explore::search::Found<RunOutcome>>,
    ),
    String,
> {
    let run = |tape: &sim::explore::Tape, known: &sim::explore::Known| {
        let fixed = Overrides {
            explore: Some(tape.clone()),
            explore_known: Some(known.clone()),
            ..Overrides::default()
        };
        run_guarded(registry, scenario, seed, bugs, fixed)
    };
    sim::explore::search::walk(limits, run, progress)
}

/// `out`'s run again (its seed, plan and calm messages) holding `keep`:
/// the events a run had dropped, regenerated. `scenario` is the one `out`
/// ran (before its knobs were drawn).
pub(crate) fn rerun(
    registry: &Registry,
    scenario: &Scenario,
    bugs: &[String],
    out: &RunOutcome,
    keep: Keep,
) -> Result<RunOutcome, String> {
    let again = rerun_hashed(registry, scenario, bugs, out, keep, out.trace.hash_kind())?;
    if again.trace.hash_hex() != out.trace.hash_hex() {
        return Err(format!(
            "nondeterministic: {} seed {} ran to trace {} and then to {}",
            scenario.name,
            out.seed,
            out.trace.hash_hex(),
            again.trace.hash_hex()
        ));
    }
    Ok(again)
}

/// `out`'s run again (its seed, plan and calm messages), hashed by `hash`.
fn rerun_hashed(
    registry: &Registry,
    scenario: &Scenario,
    bugs: &[String],
    out: &RunOutcome,
    keep: Keep,
    hash: TraceHash,
) -> Result<RunOutcome, String> {
    let fixed = Overrides {
        plan: Some(out.plan.clone()),
        calm: out.calm.clone(),
        keep,
        hash,
        cut_at: out.interrupted,
        explore: out.tape.clone(),
        explore_known: None,
    };
    run_guarded(registry, scenario, out.seed, bugs, fixed)
}

/// The report at `path`, whose replay command is the one for `path`: the
/// command it stored names where it was written, which a move, a copy or a
/// download leaves behind, and a command shown to be pasted must name a
/// file that is there.
fn read_as_found(path: &std::path::Path) -> Result<sim::report::Report, String> {
    let mut r = sim::report::Report::read(path)?;
    r.replay = hint::replay(path);
    Ok(r)
}

/// A report and the scenario it ran, both checked against the registry;
/// the error is one line.
pub fn load_report(registry: &Registry, path: &std::path::Path) -> Result<(sim::report::Report, Scenario), String> {
    let r = read_as_found(path)?;
    report_scenario(registry, &r)
        .map(|s| (r, s))
        .map_err(|e| one_line(&format!("{}: {e}", sim::host::files::shown(path))))
}

/// The report a summary's finding names, if it is a report of that very
/// finding: the scenario, seed and bug switches, the trace hash and the
/// cause. A summary is data; the path it names is read only as a claim to
/// check, never trusted to be what it says.
pub fn finding_report(
    registry: &Registry,
    f: &Finding,
    scenario: &str,
    seed: u64,
    bugs: &[String],
) -> Option<(sim::report::Report, Scenario)> {
    let (r, s) = load_report(registry, f.report.as_deref()?).ok()?;
    let same = r.scenario == scenario
        && r.seed == seed
        && r.bugs == bugs
        && r.trace_hash == f.trace_hash
        && cause_of(&r.verdict, &r.trace) == f.cause;
    same.then_some((r, s))
}

/// The report with its whole trace: as it is if it keeps it, else with the
/// trace its seed, plan and calm messages regenerate, which must hash to
/// the trace hash the report stores (a report of another dst or another
/// version of the model may not). `scenario` is the report's (see
/// [`report_scenario`]).
pub fn with_full_trace(
    registry: &Registry,
    scenario: &Scenario,
    mut r: sim::report::Report,
) -> Result<sim::report::Report, String> {
    if !r.is_compact() {
        return Ok(r);
    }
    r.trace = drawn::regenerate(registry, scenario, &r, &Drawn::whole(r.stats.events))?;
    r.window = None;
    Ok(r)
}

/// The report holding only its client operations' events, the history a
/// check reads: a compact report's regenerated (and checked against its
/// trace hash) holding nothing else, so that a long run's history costs
/// what its operations do, not what its run does.
pub fn with_history_trace(
    registry: &Registry,
    scenario: &Scenario,
    mut r: sim::report::Report,
) -> Result<sim::report::Report, String> {
    if r.is_compact() {
        r.trace = drawn::regenerate_keeping(registry, scenario, &r, Keep::Clients)?;
        r.window = None;
    } else {
        r.trace.retain(|e| e.kind.is_client_op());
    }
    Ok(r)
}

/// The scenario a parsed report ran, checked against the registry with the
/// report's bug switches, and the report's plan against that scenario's
/// cluster; the error is one line.
pub fn report_scenario(registry: &Registry, r: &sim::report::Report) -> Result<Scenario, String> {
    let scenario: Scenario = serde_json::from_value(r.config.clone())
        .map_err(|e| one_line(&format!("the report's scenario is invalid: {e}")))?;
    registry
        .validate(&scenario, &r.bugs)
        .and_then(|_| sim::fault::check_plan(&r.plan, scenario.nodes, &scenario.faults.spared))
        .map_err(|e| one_line(&e))?;
    Ok(scenario)
}
