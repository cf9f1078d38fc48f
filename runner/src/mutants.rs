//! Every catalogued bug against its scenario: is it found, by which
//! invariant, after how many seeds? A bug switch is hunted by turning it
//! on; a real bug of a pinned release by running that release as it is.
//! The correct model (or the fixed release) runs the same seeds and must
//! find nothing.

use crate::outcome::{self, Class};
use crate::{pool, run_seed_lean};
use serde::Serialize;
use sim::explore::search::{Limits, Order};
use sim::explore::Bounds;
use sim::{Registry, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One bug to hunt.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    /// The bug's id in the catalogue: a switch's `--bug` name or a real bug's id.
    pub bug: String,
    /// "switch" (a `--bug` of a model) or "real" (a pinned release).
    pub source: &'static str,
    /// The scenario that shows the bug: the model's, run with the switch on, or the pinned release's.
    pub scenario: String,
    /// Where the correct model, or the fixed release, runs the same seeds;
    /// `None` for a real bug no release of its line fixes.
    pub control: Option<String>,
    /// The invariants the catalogue says find the bug; a find by any other is misattributed.
    pub invariants: Vec<String>,
    /// The pinned release, for a real bug.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
}

/// One bug hunted by plain seeds from 0 up, and by other means as asked.
#[derive(Debug, Serialize)]
pub struct Hunt {
    /// The bug hunted.
    #[serde(flatten)]
    pub target: Target,
    /// The cause (an invariant or `panic`) of the first violation not passed over; none if no seed
    /// found the bug.
    pub found_by: Option<String>,
    /// Seeds run until the first violation (inclusive), or all of them.
    pub seeds: u64,
    /// Seeds that broke only what the scenario declares (another bug of
    /// the same release, a documented limit), passed over in the hunt.
    pub passed_over: u64,
    /// Seeds that stalled or ran out of their event budget: not the bug
    /// showing through its invariant, so counted apart and passed over.
    pub stall_seeds: Vec<u64>,
    /// Wall time of the plain hunt in ms (the guided, explored and shrinking work not included).
    pub wall_ms: u64,
    /// The report of the seed that found the bug, if it was written.
    pub report: Option<PathBuf>,
    /// Why the hunt failed: the scenario did not load, a seed could not run, or the report was not
    /// written.
    pub error: Option<String>,
    /// The same hunt by coverage-guided search, if asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guided: Option<GuidedHunt>,
    /// The find shrunk, if asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<ShrunkFind>,
    /// The same hunt by exploration, if asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explored: Option<ExploreHunt>,
}

/// A hunt by `dst explore`'s walks (see `hunt_explored`): fewest
/// deviations first, so that a find is a shortest counterexample, then
/// one fault kind at a time, then new protocol shapes first, then long
/// runs that depart little.
#[derive(Debug, Serialize)]
pub struct ExploreHunt {
    /// The cause of the find (or, without one, what the run ended in); none if no walk found it.
    pub found_by: Option<String>,
    /// The order of the walk that found it ("breadth" or "guided").
    pub order: Option<&'static str>,
    /// The faults that walk allowed: "all" the profile has, or one kind
    /// ("crashes", "partitions", ...); "all, long" for the walk of long
    /// runs that depart little.
    pub faults: Option<&'static str>,
    /// Deviations of the find's tape.
    pub deviations: Option<u32>,
    /// Choices of the find's tape (up to its last deviation).
    pub choices: Option<u32>,
    /// Distinct states met until the find, or in all, over every walk.
    pub states: u64,
    /// Wall time of all the walks, in ms.
    pub wall_ms: u64,
    /// Why a walk could not run: the scenario did not load, or exploring failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How far the find shrank.
#[derive(Debug, Serialize)]
pub struct ShrunkFind {
    /// Trace events of the find before shrinking.
    pub events_from: u64,
    /// Trace events after shrinking.
    pub events_to: u64,
    /// Fault plan entries before shrinking.
    pub plan_from: usize,
    /// Fault plan entries after shrinking.
    pub plan_to: usize,
    /// Runs the shrinking made.
    pub runs: u64,
}

/// What a hunt does besides plain fuzzing.
#[derive(Clone, Copy, Debug, Default)]
pub struct HuntOptions {
    /// Hunt also by guided search, as many runs.
    pub guided: bool,
    /// Shrink the find within this many runs (0: do not).
    pub shrink_runs: u64,
    /// How its reports are written.
    pub style: sim::report::Style,
    /// Hunt also by exploration within these limits.
    pub explore: Option<sim::explore::search::Limits>,
}

/// A hunt by coverage-guided search: runs until the first find.
#[derive(Debug, Serialize)]
pub struct GuidedHunt {
    /// The cause of the first find; none if the runs found none, `error: ...` if the search could
    /// not run.
    pub found_by: Option<String>,
    /// Run number of the first find, or every run made if none; 0 if the search could not run.
    pub runs: u64,
    /// Wall time of the search, in ms.
    pub wall_ms: u64,
}

impl Hunt {
    /// Found, but by an invariant the catalogue does not name for it.
    pub fn misattributed(&self) -> bool {
        self.found_by
            .as_ref()
            .is_some_and(|f| !self.target.invariants.contains(f))
    }
}

/// The control runs of one scenario: seeds run and what went wrong.
#[derive(Debug, Default, Serialize)]
pub struct Control {
    /// Seeds run: as many as the longest hunt that names this scenario as its control.
    pub seeds: u64,
    /// One line per seed that showed what the scenario does not expect, or could not run.
    pub unexpected: Vec<String>,
}

/// What `mutants` found: every hunt, and the control runs of each control scenario.
pub struct MutantsSummary {
    /// The hunts, in the order the targets were given.
    pub hunts: Vec<Hunt>,
    /// The control runs, by control scenario.
    pub controls: BTreeMap<String, Control>,
    /// An interruption cut hunts short: a bug not found may not have had its seeds.
    pub interrupted: bool,
}

impl MutantsSummary {
    /// Hunts that found nothing, those that failed included.
    pub fn unfound(&self) -> usize {
        self.hunts.iter().filter(|h| h.found_by.is_none()).count()
    }
    /// Seeds to first find, median and max, over the bugs found.
    pub fn seeds_to_find(&self) -> (Option<u64>, Option<u64>) {
        let mut s: Vec<u64> = self
            .hunts
            .iter()
            .filter(|h| h.found_by.is_some())
            .map(|h| h.seeds)
            .collect();
        s.sort_unstable();
        (s.get(s.len().saturating_sub(1) / 2).copied(), s.last().copied())
    }
    /// Runs of guided search to first find, median and max, over the bugs it found.
    pub fn runs_to_find_guided(&self) -> (Option<u64>, Option<u64>) {
        let mut s: Vec<u64> = self
            .hunts
            .iter()
            .filter_map(|h| h.guided.as_ref())
            .filter(|g| g.found_by.is_some())
            .map(|g| g.runs)
            .collect();
        s.sort_unstable();
        (s.get(s.len().saturating_sub(1) / 2).copied(), s.last().copied())
    }
    /// Every bug found by an invariant catalogued for it, no hunt failed, and no control run
    /// showed anything unexpected.
    pub fn ok(&self) -> bool {
        self.unfound() == 0
            && !self.hunts.iter().any(|h| h.misattributed() || h.error.is_some())
            && self.controls.values().all(|c| c.unexpected.is_empty())
    }
}

/// Every bug switch and real bug of the registry, or only those named.
pub fn targets(registry: &Registry, only: &[String]) -> Result<Vec<Target>, String> {
    let switch = |(_, b): (_, &sim::Bug)| Target {
        bug: b.id.to_string(),
        source: "switch",
        scenario: b.scenario.to_string(),
        control: Some(b.scenario.to_string()),
        invariants: b.invariants.iter().map(|s| s.to_string()).collect(),
        release: None,
    };
    let real = |(_, b): (_, &sim::RealBug)| Target {
        bug: b.id.to_string(),
        source: "real",
        scenario: b.scenario.to_string(),
        control: b.fixed_scenario.map(str::to_string),
        invariants: b.invariants.iter().map(|s| s.to_string()).collect(),
        release: Some(b.release.to_string()),
    };
    if only.is_empty() {
        return Ok(registry
            .bugs()
            .map(switch)
            .chain(registry.real_bugs().map(real))
            .collect());
    }
    only.iter()
        .map(|id| match registry.find_real_bug(id) {
            Some(r) => Ok(real(r)),
            None => registry.find_bug(id).map(switch),
        })
        .collect()
}

/// Hunts every target over at most `max_seeds` seeds, `jobs` at a time
/// (and, as `how` asks, by a search campaign of as many runs beside it,
/// and the find shrunk),
/// then runs the controls over as many seeds as their bugs needed.
/// `on_hunt` sees each hunt as it ends.
pub fn mutants(
    registry: &Registry,
    targets: Vec<Target>,
    max_seeds: u64,
    jobs: usize,
    how: HuntOptions,
    dir: &Path,
    mut on_hunt: impl FnMut(&Hunt),
) -> MutantsSummary {
    let order: Vec<String> = targets.iter().map(|t| t.bug.clone()).collect();
    let mut hunts: Vec<Hunt> = Vec::new();
    pool::run(
        targets.into_iter(),
        jobs,
        None,
        |t| {
            let mut h = hunt(registry, t, max_seeds, dir, how.style);
            if how.guided && h.error.is_none() {
                h.guided = Some(hunt_guided(registry, &h.target, max_seeds));
            }
            if let (Some(limits), None) = (how.explore, &h.error) {
                h.explored = Some(hunt_explored(registry, &h.target, limits));
            }
            if let (Some(report), true) = (&h.report, how.shrink_runs > 0) {
                h.shrunk = crate::shrink::shrink(registry, report, None, how.shrink_runs, how.style)
                    .ok()
                    .map(|s| ShrunkFind {
                        events_from: s.events_from,
                        events_to: s.events_to,
                        plan_from: s.plan_from,
                        plan_to: s.plan_to,
                        runs: s.runs,
                    });
            }
            h
        },
        |h| {
            on_hunt(&h);
            hunts.push(h);
        },
    );
    hunts.sort_by_key(|h| order.iter().position(|b| *b == h.target.bug));

    let mut span: BTreeMap<String, u64> = BTreeMap::new();
    for h in &hunts {
        let Some(control) = &h.target.control else { continue };
        let e = span.entry(control.clone()).or_default();
        *e = (*e).max(h.seeds);
    }
    let items: Vec<(String, u64)> = span
        .iter()
        .flat_map(|(s, n)| (0..*n).map(move |seed| (s.clone(), seed)))
        .collect();
    let mut controls: BTreeMap<String, Control> = BTreeMap::new();
    pool::run(
        items.into_iter(),
        jobs,
        None,
        |(name, seed)| {
            let r = registry
                .load(&name)
                .and_then(|s| run_seed_lean(registry, &s, seed, &[], false).map(|(o, _)| (s, o)));
            let bad = match r {
                Ok((s, out)) => (registry.classify(&out, &s, &[]) == Class::Unexpected)
                    .then(|| format!("seed {seed}: {}", outcome::describe(&out))),
                Err(e) => Some(e),
            };
            (name, bad)
        },
        |(name, bad)| {
            let c = controls.entry(name).or_default();
            c.seeds += 1;
            c.unexpected.extend(bad);
        },
    );
    MutantsSummary {
        hunts,
        controls,
        interrupted: sim::host::interrupt::stopping(),
    }
}

fn hunt(registry: &Registry, target: Target, max_seeds: u64, dir: &Path, style: sim::report::Style) -> Hunt {
    let start = Instant::now();
    let bugs = bugs_of(&target);
    let mut h = Hunt {
        target,
        found_by: None,
        seeds: 0,
        passed_over: 0,
        stall_seeds: Vec::new(),
        wall_ms: 0,
        report: None,
        error: None,
        guided: None,
        shrunk: None,
        explored: None,
    };
    let scenario = match registry.load(&h.target.scenario) {
        Ok(s) => s,
        Err(e) => {
            h.error = Some(e);
            return h;
        }
    };
    let skip = passed_over(&h.target, &registry.expected_causes(&scenario));
    for seed in 0..max_seeds {
        if sim::host::interrupt::stopping() {
            break;
        }
        h.seeds = seed + 1;
        let (out, wall_ms) = match run_seed_lean(registry, &scenario, seed, &bugs, false) {
            Err(e) => {
                h.error = Some(e);
                break;
            }
            Ok(x) => x,
        };
        if out.verdict.status == Status::Pass {
            continue;
        }
        let Some(cause) = outcome::cause(&out) else {
            h.stall_seeds.push(seed);
            continue;
        };
        if skip.contains(&cause) {
            h.passed_over += 1;
            continue;
        }
        h.found_by = Some(cause);
        let path = outcome::unclaimed(
            &style.path(outcome::report_path(dir, &scenario.name, seed, &bugs)),
            seed,
            &out.trace.hash_hex(),
        );
        let class = registry.classify(&out, &scenario, &bugs);
        match path.and_then(|path| {
            outcome::report(registry, &out, class, &scenario, seed, &bugs, wall_ms, &path, style)
                .and_then(|r| r.write(&path))
                .map(|()| path)
        }) {
            Ok(path) => h.report = Some(path),
            Err(e) => h.error = Some(format!("report not written: {e}")),
        }
        break;
    }
    h.wall_ms = start.elapsed().as_millis() as u64;
    h
}

/// What the scenario itself declares (a documented limit, or the other real
/// bugs of the same release) is not this bug showing: a hunt keeps looking.
fn passed_over(target: &Target, declared: &[String]) -> Vec<String> {
    declared
        .iter()
        .filter(|c| !target.invariants.contains(c))
        .cloned()
        .collect()
}

fn bugs_of(target: &Target) -> Vec<String> {
    match target.source {
        "switch" => vec![target.bug.clone()],
        _ => Vec::new(),
    }
}

/// The hunt by guided search, on one thread like the plain one.
fn hunt_guided(registry: &Registry, target: &Target, max_runs: u64) -> GuidedHunt {
    let start = Instant::now();
    let declared = registry
        .load(&target.scenario)
        .map(|s| registry.expected_causes(&s))
        .unwrap_or_default();
    let mut opts = crate::search::SearchOptions::new(&target.scenario, max_runs);
    opts.bugs = bugs_of(target);
    opts.stop_at_first = true;
    opts.passed_over = passed_over(target, &declared);
    let (found_by, runs) = match crate::search::search(registry, &opts, |_| {}) {
        Ok(s) => match s.guided.first_violation {
            Some((run, cause)) => (Some(cause), run),
            None => (None, s.guided.runs),
        },
        Err(e) => (Some(format!("error: {e}")), 0),
    };
    GuidedHunt {
        found_by,
        runs,
        wall_ms: start.elapsed().as_millis() as u64,
    }
}

/// The long walk's runs make this many times the choices of the others,
/// with this many times the client operations, at no more than this many
/// deviations: at `raft-snapshot` a log reaches its compaction point (8
/// entries) within 1,000 choices and 12 operations, not within 200 and 3.
const LONG_DEPTH: u32 = 5;
const LONG_OPS: u32 = 4;
const LONG_DEVIATIONS: u32 = 2;

/// The hunt by exploration: its walk until the first find.
fn hunt_explored(registry: &Registry, target: &Target, limits: Limits) -> ExploreHunt {
    let start = Instant::now();
    let bugs = bugs_of(target);
    let mut h = ExploreHunt {
        found_by: None,
        order: None,
        faults: None,
        deviations: None,
        choices: None,
        states: 0,
        wall_ms: 0,
        error: None,
    };
    let scenario = match registry.load(&target.scenario) {
        Ok(s) => s,
        Err(e) => {
            h.error = Some(e);
            return h;
        }
    };
    // Fewest deviations first with every fault kind of the profile (the
    // shortest finds); then each kind alone, as far as the deviations
    // allow (a bug that needs one kind twice, as a crash and a restart);
    // then new protocol shapes first with every kind (several exact
    // turns); then long runs that depart little (a bug that needs the run
    // to go on rather than more turns: a lease to lapse and be taken
    // again, a log to grow past its compaction point). Each walk has an
    // equal share of the states the walks before it left.
    // The first walk has every fault kind within the short bounds: once
    // it covers its whole space, the walks of one kind and the guided
    // order would walk the same states; only the long runs (`true`) go
    // where it did not.
    let b = limits.bounds;
    let mut walks = vec![("all", Order::Breadth, b, false)];
    walks.extend(
        sim::outcome::one_fault_kind_each(&scenario, b)
            .into_iter()
            .map(|(kind, b)| (kind, Order::Breadth, b, false)),
    );
    walks.push(("all", Order::Guided, b, false));
    let long = Bounds {
        depth: b.depth.saturating_mul(LONG_DEPTH),
        ops: b.ops.saturating_mul(LONG_OPS),
        deviations: b.deviations.min(LONG_DEVIATIONS),
        ..b
    };
    walks.push(("all, long", Order::Breadth, long, true));
    let count = walks.len() as u64;
    let mut covered = false;
    for (i, (faults, order, bounds, long)) in walks.into_iter().enumerate() {
        if covered && !long {
            continue;
        }
        // An equal share of what is left: a walk that covers its whole
        // space early leaves the rest to the walks after it.
        let share = (limits.states_max.saturating_sub(h.states) / (count - i as u64)).max(1);
        let l = Limits {
            order,
            bounds,
            states_max: share,
            ..limits
        };
        match crate::explore(registry, &scenario, 0, &bugs, l, |_| {}) {
            Ok((sum, found)) => {
                h.states += sum.states;
                if let Some(f) = found {
                    h.found_by = Some(outcome::cause(&f.outcome).unwrap_or_else(|| outcome::describe(&f.outcome)));
                    h.order = Some(order.name());
                    h.faults = Some(faults);
                    h.deviations = Some(f.deviations);
                    h.choices = Some(f.tape.choices.len() as u32);
                    break;
                }
                if sum.complete() && i == 0 {
                    covered = true;
                }
            }
            Err(e) => {
                h.error = Some(e);
                break;
            }
        }
    }
    h.wall_ms = start.elapsed().as_millis() as u64;
    h
}
