//! Coverage-guided search: instead of drawing every run afresh from a new
//! seed, keep the runs that reached something no run reached before (an
//! abstract state, a transition, a message pattern) and
//! mutate them: their fault plans, seeds and drawn configurations. Runs go
//! out in batches and come back in batch order, so a campaign is the same
//! for a campaign seed whatever the number of threads; every finding is an
//! ordinary report that `dst replay` re-runs.
//!
//! With `compare`, every batch also runs as many plain seeds, measured with
//! the same features, so the two are compared on the same CPU time.

mod features;
mod mutate;

use crate::{cause, pool, report, run_seed_with, unclaimed, Class};
use features::Features;
use linearizability::one_line::one_line;
use mutate::{mutate, Candidate, Space};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sim::rng::{stream, Stream};
use sim::{Expect, Overrides, Registry, RunOutcome, Scenario, Status};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A search campaign.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// A built-in scenario's name or a scenario file's path.
    pub scenario: String,
    /// Runs to make (guided runs; with `compare`, as many plain ones too).
    pub runs: u64,
    /// No new batch starts after this long.
    pub budget: Option<Duration>,
    /// Worker threads (at least one); the campaign is the same whatever their number.
    pub jobs: usize,
    /// The campaign's own seed: the same seed, the same campaign.
    pub seed: u64,
    /// Bug switches every run has on.
    pub bugs: Vec<String>,
    /// Where each side's first find and first stall are reported; `None` writes no report.
    pub report_dir: Option<PathBuf>,
    /// Compact or whole traces, gzipped or not.
    pub style: sim::report::Style,
    /// Also run plain seeds, as many, in the same batches.
    pub compare: bool,
    /// Stop once each side has a find (see [`Side::first_violation`]).
    pub stop_at_first: bool,
    /// Count a run that stalled or ran out of its event budget as a find,
    /// for `stop_at_first` and the first find; by default it is counted
    /// apart, as what it is.
    pub stalls_are_finds: bool,
    /// Causes that do not count as a finding (what the scenario declares
    /// besides the bug hunted): the search goes on past them.
    pub passed_over: Vec<String>,
}

impl SearchOptions {
    /// A campaign of `runs` runs over `scenario`, every other option at its default: one thread,
    /// campaign seed 0, no reports, no comparison.
    pub fn new(scenario: &str, runs: u64) -> SearchOptions {
        SearchOptions {
            scenario: scenario.to_string(),
            runs,
            budget: None,
            jobs: 1,
            seed: 0,
            bugs: Vec::new(),
            report_dir: None,
            style: sim::report::Style::default(),
            compare: false,
            stop_at_first: false,
            stalls_are_finds: false,
            passed_over: Vec::new(),
        }
    }
}

/// One side of a campaign (guided or plain).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Side {
    /// "guided" or "plain": what its reports are named after.
    #[serde(skip)]
    pub name: &'static str,
    /// Runs made on this side.
    pub runs: u64,
    /// Time spent running this side's runs, summed over threads.
    pub run_seconds: f64,
    /// Distinct features reached, counted when the campaign ends.
    pub features: usize,
    /// Of the features, distinct abstract states and transitions.
    pub states: usize,
    /// Of the features, distinct transitions between abstract states.
    pub transitions: usize,
    /// Run number (1-based) of the first find, and what it was: a
    /// violation the scenario does not declare as a documented limit (nor
    /// the campaign as passed over), or with `stalls_are_finds` a stall.
    pub first_violation: Option<(u64, String)>,
    /// Runs that ended in a violation or a panic.
    pub violations: u64,
    /// Runs that ended without a verdict of the invariants: a stall, an
    /// exhausted event budget (a livelock of the model, or a harness limit).
    pub stalls: u64,
    /// The first of them: run number and what ended it.
    pub first_stall: Option<(u64, String)>,
    /// Per cause (an invariant, `panic`, `error`): the violating runs and
    /// the run number of the first, so that a campaign over a release with
    /// several bugs says which it reached and when.
    pub by_cause: BTreeMap<String, CauseCount>,
    /// Runs that ended in a violation the scenario does not expect: any fails the campaign.
    pub unexpected: u64,
    /// Reports written, of the first find and the first stall (with a `report_dir`).
    pub reports: Vec<PathBuf>,
    /// Every feature reached, with the number of runs that reached it.
    #[serde(skip)]
    seen: BTreeMap<u64, u32>,
}

/// Violating runs of one cause.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CauseCount {
    /// Runs that violated it.
    pub runs: u64,
    /// Run number (1-based) of the first of them.
    pub first_run: u64,
}

/// How coverage grew: after each batch. Run seconds are each side's own
/// CPU time, so the two sides can be compared at equal cost.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    /// Guided runs made so far.
    pub runs: u64,
    /// Wall time since the campaign started, in seconds.
    pub seconds: f64,
    /// Distinct features the guided side has reached.
    pub guided: usize,
    /// Distinct features the plain side has reached; none without `compare`.
    pub plain: Option<usize>,
    /// Runs kept in the corpus to mutate.
    pub corpus: usize,
    /// Abstract states the guided side has reached.
    pub guided_states: usize,
    /// Abstract states the plain side has reached; none without `compare`.
    pub plain_states: Option<usize>,
    /// Seconds spent in guided runs, summed over threads.
    pub guided_run_seconds: f64,
    /// Seconds spent in plain runs, summed over threads; none without `compare`.
    pub plain_run_seconds: Option<f64>,
}

/// Features and abstract states of one side at a run cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct AtCost {
    /// Seconds spent in the side's runs, summed over threads.
    pub run_seconds: f64,
    /// Distinct features reached by then.
    pub features: usize,
    /// Of the features, distinct abstract states.
    pub states: usize,
}

/// Both sides at the same CPU time: the cost of the cheaper side's whole
/// campaign, and each side's coverage at the last batch within it.
pub fn at_equal_cost(curve: &[Point]) -> Option<(AtCost, AtCost)> {
    let guided = |p: &Point| {
        Some(AtCost {
            run_seconds: p.guided_run_seconds,
            features: p.guided,
            states: p.guided_states,
        })
    };
    let plain = |p: &Point| {
        Some(AtCost {
            run_seconds: p.plain_run_seconds?,
            features: p.plain?,
            states: p.plain_states?,
        })
    };
    let last = curve.last()?;
    let budget = guided(last)?.run_seconds.min(plain(last)?.run_seconds);
    let within = |side: &dyn Fn(&Point) -> Option<AtCost>| {
        curve
            .iter()
            .filter_map(side)
            .filter(|c| c.run_seconds <= budget)
            .last()
            .unwrap_or_default()
    };
    Some((within(&guided), within(&plain)))
}

/// What a campaign did: each side's counts and the coverage curve.
pub struct SearchSummary {
    /// The scenario as loaded.
    pub scenario: Scenario,
    /// The guided side.
    pub guided: Side,
    /// The plain side; none without `compare`.
    pub plain: Option<Side>,
    /// Runs kept in the corpus when the campaign ended.
    pub corpus: usize,
    /// Coverage after each batch.
    pub curve: Vec<Point>,
    /// Wall time of the whole campaign.
    pub took: Duration,
    /// An interruption ended the campaign early.
    pub interrupted: bool,
}

impl SearchSummary {
    /// No violation nobody asked for.
    pub fn ok(&self) -> bool {
        self.guided.unexpected == 0 && self.plain.as_ref().is_none_or(|p| p.unexpected == 0)
    }
}

/// A corpus entry: a run that reached something first.
struct Entry {
    cand: Candidate,
    picks: u64,
    /// The features it reached first, with when it reached them.
    novel: Vec<(u64, u64)>,
    /// Its trace's length in events: what a mutant of it will roughly cost
    /// (a count, not a time, so that the campaign stays the same on any
    /// machine).
    events: u64,
}

/// The share of runs that start afresh from a new seed: what the corpus
/// cannot reach by mutation a fresh seed may reach by chance. (Sharing runs
/// by the immediate yield of each kind measured worse: fresh seeds pay more
/// at once, mutants pay later, from where the corpus got to.)
const FRESH: f64 = 0.2;

/// Runs per batch: fixed, not a multiple of the threads, so that a
/// campaign seed makes the same campaign on any machine.
const BATCH: u64 = 16;

/// Runs a campaign; `on_batch` sees the curve as it grows.
pub fn search(
    registry: &Registry,
    opts: &SearchOptions,
    mut on_batch: impl FnMut(&Point),
) -> Result<SearchSummary, String> {
    let scenario = registry.load(&opts.scenario)?;
    registry.validate(&scenario, &opts.bugs)?;
    if let Some(dir) = &opts.report_dir {
        sim::host::files::check_dir(dir)?;
    }
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let space = Space::new(&scenario, &mut stream(opts.seed, Stream::Plan));
    let jobs = opts.jobs.max(1);
    let batch = BATCH;
    // The first runs are plain seeds: the corpus starts from what they reach.
    let initial = batch.min(opts.runs).max(1);
    let mut corpus: Vec<Entry> = Vec::new();
    let mut guided = Side {
        name: "guided",
        ..Side::default()
    };
    let mut plain = opts.compare.then(|| Side {
        name: "plain",
        ..Side::default()
    });
    let mut curve = Vec::new();
    let plain_base = opts.seed.wrapping_mul(1_000_003).wrapping_add(1 << 40);
    while guided.runs < opts.runs
        && opts.budget.is_none_or(|b| started.elapsed() < b)
        && !sim::host::interrupt::stopping()
    {
        let n = batch.min(opts.runs - guided.runs);
        let cands: Vec<Option<Candidate>> = (0..n)
            .map(|k| {
                let run = guided.runs + k;
                if run < initial || corpus.is_empty() || sim::rng::chance(&mut rng, FRESH) {
                    None
                } else {
                    Some(next_candidate(&mut corpus, &guided.seen, &space, &mut rng))
                }
            })
            .collect();
        let mut jobs_list: Vec<(usize, Job)> = cands
            .into_iter()
            .enumerate()
            .map(|(k, c)| {
                let job = match c {
                    Some(c) => Job::Guided(c),
                    None => Job::Seed(opts.seed.wrapping_add(guided.runs + k as u64)),
                };
                (k, job)
            })
            .collect();
        if plain.is_some() {
            let start = plain.as_ref().map_or(0, |p| p.runs);
            jobs_list.extend((0..n).map(|k| (n as usize + k as usize, Job::Plain(plain_base + start + k))));
        }
        let mut results: Vec<(usize, Job, RunResult)> = Vec::new();
        pool::run(
            jobs_list.into_iter(),
            jobs,
            None,
            |(k, job)| {
                let r = job.run(registry, &scenario, &opts.bugs);
                (k, job, r)
            },
            |r| results.push(r),
        );
        results.sort_by_key(|r| r.0);
        for (_, job, result) in results {
            let (out, wall_ms) = result.map_err(|e| format!("{}: {e}", scenario.name))?;
            let side = match &job {
                Job::Plain(_) => plain.as_mut().expect("plain jobs only when comparing"),
                _ => &mut guided,
            };
            side.runs += 1;
            side.run_seconds += wall_ms as f64 / 1000.0;
            let novel = absorb(side, &features::features(out.trace.events()));
            record(registry, side, &scenario, &out, wall_ms, opts)?;
            if !novel.is_empty() && !matches!(job, Job::Plain(_)) {
                corpus.push(Entry {
                    cand: job.candidate(&out),
                    picks: 0,
                    novel,
                    events: out.trace.len() as u64,
                });
            }
        }
        let point = Point {
            runs: guided.runs,
            seconds: started.elapsed().as_secs_f64(),
            guided: guided.seen.len(),
            plain: plain.as_ref().map(|p| p.seen.len()),
            corpus: corpus.len(),
            guided_states: guided.states,
            plain_states: plain.as_ref().map(|p| p.states),
            guided_run_seconds: guided.run_seconds,
            plain_run_seconds: plain.as_ref().map(|p| p.run_seconds),
        };
        on_batch(&point);
        curve.push(point);
        let found = |s: &Side| s.first_violation.is_some();
        if opts.stop_at_first && found(&guided) && plain.as_ref().is_none_or(found) {
            break;
        }
    }
    guided.tally();
    if let Some(p) = plain.as_mut() {
        p.tally();
    }
    Ok(SearchSummary {
        scenario,
        guided,
        plain,
        corpus: corpus.len(),
        curve,
        took: started.elapsed(),
        interrupted: sim::host::interrupt::stopping(),
    })
}

/// A run to make: a plain seed (as `fuzz` runs it), or a guided candidate.
enum Job {
    Seed(u64),
    Plain(u64),
    Guided(Candidate),
}

impl Job {
    fn run(&self, registry: &Registry, scenario: &Scenario, bugs: &[String]) -> Result<(RunOutcome, u64), String> {
        match self {
            // Coverage is read off the whole trace.
            Job::Seed(seed) | Job::Plain(seed) => {
                run_seed_with(registry, scenario, *seed, bugs, Overrides::default().keeping_all())
            }
            Job::Guided(c) => {
                let concrete = if c.knobs.is_empty() {
                    scenario.clone()
                } else {
                    scenario.with_knobs(&c.knobs)?
                };
                let fixed = Overrides {
                    plan: Some(c.plan.clone()),
                    ..Overrides::default()
                };
                run_seed_with(registry, &concrete, c.seed, bugs, fixed.keeping_all())
            }
        }
    }

    fn candidate(&self, out: &RunOutcome) -> Candidate {
        match self {
            Job::Guided(c) => c.clone(),
            Job::Seed(seed) | Job::Plain(seed) => Candidate {
                seed: *seed,
                plan: out.plan.clone(),
                knobs: out.scenario.varied.clone(),
            },
        }
    }
}

/// Picks a parent and mutates it around the moment it reached its rarest
/// first feature. A parent's weight is how rare what it reached first still
/// is (features many runs reach since weigh little), damped by how often it
/// was picked and divided by its length: the search spends its runs where
/// the frontier is, and reaches it cheaply. (Without the length, long runs
/// win: they reach more features only by being long, and their mutants
/// cost twice what a fresh seed does.)
fn next_candidate(corpus: &mut [Entry], seen: &BTreeMap<u64, u32>, space: &Space, rng: &mut ChaCha8Rng) -> Candidate {
    let hits = |f: &u64| seen.get(f).copied().unwrap_or(1).max(1) as f64;
    let weights: Vec<f64> = corpus
        .iter()
        .map(|e| {
            e.novel.iter().map(|(f, _)| 1.0 / hits(f)).sum::<f64>()
                / (1.0 + e.picks as f64).sqrt()
                / (e.events.max(1) as f64)
        })
        .collect();
    let i = pick_weighted(&weights, rng);
    let j = sim::rng::range(rng, 0, corpus.len() as u64 - 1) as usize;
    corpus[i].picks += 1;
    let focus = corpus[i]
        .novel
        .iter()
        .min_by(|a, b| hits(&a.0).total_cmp(&hits(&b.0)).then(a.1.cmp(&b.1)))
        .map(|&(_, t)| t);
    mutate(&corpus[i].cand, &corpus[j].cand, focus, space, rng)
}

/// A run's outcome and its wall time in ms, or why it could not run.
type RunResult = Result<(RunOutcome, u64), String>;

fn pick_weighted(weights: &[f64], rng: &mut ChaCha8Rng) -> usize {
    use rand::Rng;
    let total: f64 = weights.iter().sum();
    // A NaN total (no weight to go by) draws uniformly, as a zero total does.
    if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return sim::rng::range(rng, 0, weights.len() as u64 - 1) as usize;
    }
    let mut x = rng.gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

impl Side {
    fn tally(&mut self) {
        self.features = self.seen.len();
        let count = |k| self.seen.keys().filter(|&&f| features::kind(f) == k).count();
        self.states = count(features::STATE);
        self.transitions = count(features::TRANSITION);
    }
}

/// Adds a run's features to a side; returns those no run reached before.
fn absorb(side: &mut Side, f: &Features) -> Vec<(u64, u64)> {
    let mut novel = Vec::new();
    for (&feature, &t) in f {
        let n = side.seen.entry(feature).or_insert(0);
        if *n == 0 {
            novel.push((feature, t));
            if features::kind(feature) == features::STATE {
                side.states += 1;
            }
        }
        *n += 1;
    }
    novel
}

fn record(
    registry: &Registry,
    side: &mut Side,
    scenario: &Scenario,
    out: &RunOutcome,
    wall_ms: u64,
    opts: &SearchOptions,
) -> Result<(), String> {
    if out.verdict.status == Status::Pass {
        return Ok(());
    }
    let class = registry.classify(out, scenario, &opts.bugs);
    if class == Class::Unexpected {
        side.unexpected += 1;
    }
    let stalled = cause(out).is_none();
    let cause = cause(out).unwrap_or_else(|| STALL.into());
    let count = side.by_cause.entry(cause.clone()).or_insert(CauseCount {
        runs: 0,
        first_run: side.runs,
    });
    count.runs += 1;
    let mut what = None;
    if stalled {
        side.stalls += 1;
        if side.first_stall.is_none() {
            let message = out.verdict.message.clone().unwrap_or_default();
            side.first_stall = Some((side.runs, one_line(&message)));
            what = Some("stall");
        }
    } else {
        side.violations += 1;
    }
    // A documented limit is what the scenario says its runs may show: a
    // campaign that stops at it stops at nothing it was looking for.
    let limit = matches!(&scenario.expect, Expect::Violation(id) if *id == cause);
    let finds = !limit && !opts.passed_over.contains(&cause) && (!stalled || opts.stalls_are_finds);
    if side.first_violation.is_none() && finds {
        side.first_violation = Some((side.runs, cause));
        what = Some("find");
    }
    if let (Some(what), Some(dir)) = (what, &opts.report_dir) {
        // Each side and kind names its own file: the two sides of a
        // comparison often first find at the same run number.
        let name = format!(
            "{}-search-{}-{}-{what}-run-{}.json",
            sim::host::files::name_from_data(&scenario.name),
            opts.seed,
            side.name,
            side.runs
        );
        let path = unclaimed(&opts.style.path(dir.join(name)), out.seed, &out.trace.hash_hex())?;
        report(
            registry, out, class, scenario, out.seed, &opts.bugs, wall_ms, &path, opts.style,
        )?
        .write(&path)?;
        side.reports.push(path);
    }
    Ok(())
}

/// The cause a run that ended without a verdict counts under.
pub(crate) const STALL: &str = "stall";

#[cfg(test)]
mod tests {
    use super::*;

    fn point(g: (f64, usize, usize), p: (f64, usize, usize)) -> Point {
        Point {
            runs: 0,
            seconds: 0.0,
            guided: g.1,
            plain: Some(p.1),
            corpus: 0,
            guided_states: g.2,
            plain_states: Some(p.2),
            guided_run_seconds: g.0,
            plain_run_seconds: Some(p.0),
        }
    }

    #[test]
    fn sides_are_compared_at_the_cheaper_sides_whole_cost() {
        // Guided runs cost more: at plain's 3 s, guided had reached its 2.5 s point.
        let curve = vec![
            point((1.5, 10, 2), (1.0, 9, 2)),
            point((2.5, 30, 6), (2.0, 14, 3)),
            point((4.0, 50, 9), (3.0, 20, 4)),
        ];
        let (g, p) = at_equal_cost(&curve).unwrap();
        assert_eq!((g.run_seconds, g.features, g.states), (2.5, 30, 6));
        assert_eq!((p.run_seconds, p.features, p.states), (3.0, 20, 4));
        let mut alone = curve;
        alone.iter_mut().for_each(|p| p.plain_run_seconds = None);
        assert_eq!(at_equal_cost(&alone), None);
    }
}
