//! Many seeds of one or more scenarios, in parallel, with a report for
//! every seed that fails and a tally per scenario that judges the whole
//! range: no unexpected violation, every coverage goal reached, and the
//! violation a scenario declares seen at least once.

use super::outcome::{self, Class};
use super::tally::{Declared, Judge, Tally};
use super::{pool, run_seed_lean};
use linearizability::one_line::one_line;
use sim::{Expect, Registry, Scenario, Status};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to fuzz.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Scenario names or paths; empty means every built-in scenario.
    pub scenarios: Vec<String>,
    /// Seeds to run, `start` inclusive, `end` exclusive.
    pub seeds: Range<u64>,
    /// No new seed starts after this long.
    pub budget: Option<Duration>,
    /// Worker threads, each running whole seeds on its own runtimes.
    pub jobs: usize,
    /// Only seeds s with s % shard.1 == shard.0.
    pub shard: (u64, u64),
    /// Bug switches turned on in every run (`--bug`); empty runs the correct models.
    pub bugs: Vec<String>,
    /// Where reports of failing seeds go; `None` writes none.
    pub report_dir: Option<PathBuf>,
    /// Run every seed twice and count a differing trace hash as a failure.
    pub determinism: bool,
    /// Judge coverage and declared violations on this shard's slice alone
    /// instead of leaving them to a merge.
    pub judge_slice: bool,
    /// How many reports a campaign writes; every failing seed is still
    /// counted and listed with its replay command.
    pub reports: ReportCap,
    /// Compact or whole traces, gzipped or not.
    pub style: sim::report::Style,
}

/// Reports a campaign writes: a failing campaign must not fill the disk,
/// and nobody reads ten thousand reports of one bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportCap {
    /// Per kind of failure (its signature: scenario, cause, bug switches,
    /// evidence kinds).
    pub per_signature: u64,
    /// Over the whole campaign.
    pub total: u64,
    /// Bytes that must stay free in the report folder: below it no more
    /// reports are written (the fuzzing goes on).
    pub min_free: u64,
}

/// The default of [`ReportCap::min_free`].
pub const MIN_FREE_DEFAULT: u64 = 1 << 30;

impl Default for ReportCap {
    fn default() -> Self {
        ReportCap {
            per_signature: 3,
            total: 100,
            min_free: MIN_FREE_DEFAULT,
        }
    }
}

/// The reports a campaign has left to write, shared by its workers.
#[derive(Default)]
struct ReportBudget {
    cap: ReportCap,
    used: std::sync::Mutex<Used>,
}

#[derive(Default)]
struct Used {
    total: u64,
    per: std::collections::BTreeMap<String, u64>,
    /// Why reports stopped for lack of disk space, once they have.
    disk_low: Option<String>,
}

/// Whether a seed may write its report.
enum Room {
    Yes,
    /// The caps are spent.
    Capped,
    /// The disk is low: the first seed to find it so carries the line.
    DiskLow(Option<String>),
}

impl ReportBudget {
    /// Takes one report of kind `sig` into `dir`, if the caps and the free
    /// space there leave one.
    fn take(&self, sig: &str, dir: &Path) -> Room {
        let Ok(mut used) = self.used.lock() else {
            return Room::Capped;
        };
        if used.disk_low.is_some() {
            return Room::DiskLow(None);
        }
        let n = used.per.get(sig).copied().unwrap_or(0);
        if used.total >= self.cap.total || n >= self.cap.per_signature {
            return Room::Capped;
        }
        if let Some(free) = sim::host::files::free_bytes(dir).filter(|f| *f < self.cap.min_free) {
            let line = format!(
                "only {} MB free in {} (under the {} MB --min-free): no more reports are written; the fuzzing goes on",
                free >> 20,
                sim::host::files::shown(dir),
                self.cap.min_free >> 20
            );
            used.disk_low = Some(line.clone());
            return Room::DiskLow(Some(line));
        }
        used.total += 1;
        used.per.insert(sig.to_string(), n + 1);
        Room::Yes
    }

    fn disk_low(&self) -> Option<String> {
        self.used.lock().ok().and_then(|u| u.disk_low.clone())
    }
}

impl FuzzOptions {
    /// One scenario over a seed range, on one thread, writing no reports.
    pub fn seeds(scenario: &str, seeds: Range<u64>) -> FuzzOptions {
        FuzzOptions {
            scenarios: vec![scenario.to_string()],
            seeds,
            budget: None,
            jobs: 1,
            shard: (0, 1),
            bugs: Vec::new(),
            report_dir: None,
            determinism: false,
            judge_slice: false,
            reports: ReportCap::default(),
            style: sim::report::Style::default(),
        }
    }
}

/// One finished seed, as the caller sees it while the run goes on.
pub struct SeedDone {
    /// The scenario, by index into the campaign's scenarios and tallies.
    pub scenario: usize,
    /// The seed the run drew from; replaying it gives the same run.
    pub seed: u64,
    /// Pass, expected or unexpected; an error if the seed could not run or its two runs
    /// differed, which counts as unexpected.
    pub class: Result<Class, String>,
    /// A line for the user when the seed did not simply pass.
    pub line: String,
    /// Coverage goals the run reached, in name order.
    pub coverage: Vec<String>,
    /// The violated invariant or `panic`; none for a pass or an error such as an exhausted event budget.
    pub violated: Option<String>,
    /// Some check could not reach a verdict within its budget.
    pub undecided: bool,
    /// With `determinism`: the seed's two runs gave different traces.
    pub differed: bool,
    /// Where the seed's report was written; none if it passed or no report was written.
    pub report: Option<PathBuf>,
    /// Why the seed's report could not be written.
    pub report_error: Option<String>,
    /// The report caps (or a low disk) left this failing seed without a report.
    pub report_withheld: bool,
    /// Set on the seed that found the report folder's disk low: the one
    /// warning that no more reports are written.
    pub disk_low: Option<String>,
    /// The run's trace hash; empty if it could not run, and for a seed that
    /// simply passed unless determinism was checked (a passing fuzz run is
    /// not hashed, see [`super::run_seed_lean`]).
    pub trace_hash: String,
    /// The kinds of the verdict's evidence events (see [`super::grow::signature`]).
    pub evidence: Vec<String>,
}

/// The verdict over a whole fuzz run.
pub struct FuzzSummary {
    /// The scenarios that ran, as resolved from the options; the lists below follow their order.
    pub scenarios: Vec<Scenario>,
    /// Per scenario, the causes it declares expected.
    pub expected: Vec<Vec<String>>,
    /// Per scenario, what its seeds did.
    pub tallies: Vec<Tally>,
    /// The bug switches every run had on.
    pub bugs: Vec<String>,
    /// Wall-clock time of the seeds, from the first start to the last finish.
    pub took: Duration,
    /// An interruption stopped the run before every seed was taken: the
    /// tallies hold only the seeds that finished.
    pub interrupted: bool,
    /// Reports that could not be written, one line each: the run fails.
    pub unwritten: Vec<String>,
    /// Why reports stopped before the run did (the disk ran low), if they did.
    pub reports_stopped: Option<String>,
    /// One shard of several: coverage goals and declared violations are
    /// judged over all shards by `dst merge`, not on this slice.
    pub deferred: bool,
}

impl FuzzSummary {
    /// The verdict over scenario `i`'s seeds.
    pub fn judge(&self, i: usize) -> Judge<'_> {
        Judge {
            declared: Declared {
                goals: &self.scenarios[i].coverage,
                expected: &self.expected[i],
                real_bugs: matches!(self.scenarios[i].expect, Expect::RealBugs(_)),
                within: self.scenarios[i].expect_within_seeds.unwrap_or(1),
            },
            tally: &self.tallies[i],
            bugs: &self.bugs,
            deferred: self.deferred,
        }
    }

    /// Coverage goals of scenario `i` that no seed reached.
    pub fn missing(&self, i: usize) -> Vec<&String> {
        self.judge(i).missing()
    }

    /// The scenario declares a violation (or a real bug) that no seed showed.
    pub fn expect_unmet(&self, i: usize) -> bool {
        self.judge(i).expect_unmet()
    }

    /// Whether coverage goals count for scenario `i`; see [`Judge::judges_coverage`].
    pub fn judges_coverage(&self, i: usize) -> bool {
        self.judge(i).judges_coverage()
    }

    /// Whether scenario `i` passed as a whole.
    pub fn scenario_ok(&self, i: usize) -> bool {
        self.judge(i).ok()
    }

    /// Whether every scenario passed as a whole: the verdict over the run.
    pub fn ok(&self) -> bool {
        (0..self.scenarios.len()).all(|i| self.scenario_ok(i))
    }

    /// One line for each thing that failed, for a test's assertion message.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, (s, t)) in self.scenarios.iter().zip(&self.tallies).enumerate() {
            out.extend(t.failures.values().cloned());
            let missing = self.missing(i);
            if !missing.is_empty() && self.judges_coverage(i) {
                let m: Vec<&str> = missing.iter().map(|g| g.as_str()).collect();
                out.push(format!("{}: coverage goals no seed reached: {}", s.name, m.join(", ")));
            }
            if self.expect_unmet(i) {
                out.push(format!("{}: the expected violation was never seen", s.name));
            }
        }
        out
    }
}

/// "A..B" with B exclusive.
pub fn parse_seeds(s: &str) -> Result<(u64, u64), String> {
    parse_range(s, "seed range")
}

/// "A..B" with A < B, B exclusive: a range of `what` (the error names it).
pub(crate) fn parse_range(s: &str, what: &str) -> Result<(u64, u64), String> {
    let bad = || format!("invalid {what} '{}' (use A..B, B exclusive)", one_line(s));
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    if b <= a {
        return Err(bad());
    }
    Ok((a, b))
}

/// "I/N" with I < N.
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("invalid shard '{}' (use I/N with I < N)", one_line(s));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Fuzzes without telling anyone until the end; see [`fuzz_with`].
pub fn fuzz(registry: &Registry, opts: &FuzzOptions) -> Result<FuzzSummary, String> {
    fuzz_with(registry, opts, |_| {})
}

/// Resolves the scenarios, checks the bug switches, then runs every seed
/// of every scenario, seed-major so that a budget spreads evenly over the
/// scenarios. `on_seed` sees each seed as it finishes (on the calling
/// thread). The error is one line about the input.
pub fn fuzz_with(
    registry: &Registry,
    opts: &FuzzOptions,
    on_seed: impl FnMut(&SeedDone),
) -> Result<FuzzSummary, String> {
    fuzz_from(registry, opts, None, on_seed)
}

/// [`fuzz_with`], taking the seeds from a shared cursor instead of the
/// range when `claims` is given (which then bounds them itself). The
/// caller gives back what was claimed and not run
/// ([`super::claim::Claims::finish`]).
pub fn fuzz_from(
    registry: &Registry,
    opts: &FuzzOptions,
    claims: Option<&mut super::claim::Claims>,
    mut on_seed: impl FnMut(&SeedDone),
) -> Result<FuzzSummary, String> {
    let scenarios: Vec<Scenario> = if opts.scenarios.is_empty() {
        registry.scenarios().to_vec()
    } else {
        opts.scenarios
            .iter()
            .map(|n| registry.load(n))
            .collect::<Result<_, _>>()?
    };
    for s in &scenarios {
        registry.validate(s, &opts.bugs)?;
    }
    if let Some(dir) = &opts.report_dir {
        sim::host::files::check_dir(dir)?;
    }
    let (shard_i, shard_n) = opts.shard;
    if shard_n == 0 || shard_i >= shard_n {
        return Err(format!("invalid shard {shard_i}/{shard_n}"));
    }
    let started = Instant::now();
    // A budget too long to add to the clock is no budget at all.
    let deadline = opts.budget.and_then(|b| started.checked_add(b));
    let n_sc = scenarios.len();
    let items: Box<dyn Iterator<Item = (usize, u64)> + Send + '_> = match claims {
        Some(c) => Box::new(c),
        None => Box::new(
            opts.seeds
                .clone()
                .filter(move |s| s % shard_n == shard_i)
                .flat_map(move |seed| (0..n_sc).map(move |sc| (sc, seed))),
        ),
    };
    let mut tallies: Vec<Tally> = scenarios.iter().map(|_| Tally::default()).collect();
    let mut unwritten = Vec::new();
    let scs = &scenarios;
    let budget = ReportBudget {
        cap: opts.reports,
        used: Default::default(),
    };
    let budget = &budget;
    pool::run(
        items,
        opts.jobs.max(1),
        deadline,
        |(sc, seed)| one(registry, scs, sc, seed, opts, budget),
        |d: SeedDone| {
            tallies[d.scenario].record(&d);
            unwritten.extend(d.report_error.clone());
            on_seed(&d);
        },
    );
    for t in &mut tallies {
        t.sort();
    }
    Ok(FuzzSummary {
        expected: scenarios.iter().map(|s| registry.expected_causes(s)).collect(),
        scenarios,
        tallies,
        bugs: opts.bugs.clone(),
        took: started.elapsed(),
        interrupted: sim::host::interrupt::stopping(),
        unwritten,
        reports_stopped: budget.disk_low(),
        deferred: shard_n > 1 && !opts.judge_slice,
    })
}

fn one(
    registry: &Registry,
    scenarios: &[Scenario],
    sc: usize,
    seed: u64,
    opts: &FuzzOptions,
    budget: &ReportBudget,
) -> SeedDone {
    let (bugs, dir, twice) = (&opts.bugs, opts.report_dir.as_deref(), opts.determinism);
    let s = &scenarios[sc];
    let mut d = SeedDone {
        scenario: sc,
        seed,
        class: Ok(Class::Pass),
        line: String::new(),
        coverage: vec![],
        violated: None,
        undecided: false,
        differed: false,
        report: None,
        report_error: None,
        report_withheld: false,
        disk_low: None,
        trace_hash: String::new(),
        evidence: vec![],
    };
    let (out, wall_ms) = match run_seed_lean(registry, s, seed, bugs, twice) {
        Err(e) => {
            d.line = format!("{} seed {seed}: {e}", s.name);
            d.class = Err(e);
            return d;
        }
        Ok(x) => x,
    };
    if twice {
        let again = run_seed_lean(registry, s, seed, bugs, true).map(|(o, _)| o.trace.hash_hex());
        if again.as_ref() != Ok(&out.trace.hash_hex()) {
            let e = format!("nondeterministic: trace {} then {:?}", out.trace.hash_hex(), again);
            d.line = format!("UNEXPECTED {} seed {seed}: {e}", s.name);
            d.class = Err(e);
            d.differed = true;
            return d;
        }
    }
    let class = registry.classify(&out, s, bugs);
    d.trace_hash = out.trace.hash_hex();
    d.coverage = out.coverage.iter().cloned().collect();
    d.violated = outcome::cause(&out);
    d.undecided = outcome::undecided(&out);
    d.evidence = super::grow::evidence_kinds(&out.verdict, out.trace.events());
    if out.verdict.status != Status::Pass {
        let tag = if class == Class::Unexpected {
            "UNEXPECTED"
        } else {
            "expected"
        };
        d.line = format!("{tag} {} seed {seed}: {}", s.name, outcome::describe(&out));
        let cause = d.violated.clone().unwrap_or_else(|| "error".into());
        let sig = super::grow::signature(&s.name, &cause, bugs, &d.evidence);
        let dir = dir.filter(|dir| match budget.take(&sig, dir) {
            Room::Yes => true,
            Room::Capped => {
                d.report_withheld = true;
                false
            }
            Room::DiskLow(line) => {
                d.report_withheld = true;
                d.disk_low = line;
                false
            }
        });
        if let Some(dir) = dir {
            let path = outcome::unclaimed(
                &opts.style.path(outcome::report_path(dir, &s.name, seed, bugs)),
                seed,
                &out.trace.hash_hex(),
            );
            match path.and_then(|path| {
                outcome::report(registry, &out, class, s, seed, bugs, wall_ms, &path, opts.style)
                    .and_then(|r| r.write(&path))
                    .map(|()| path)
            }) {
                Ok(path) => d.report = Some(path),
                Err(e) => {
                    d.line.push_str(&format!(" (report not written: {e})"));
                    d.report_error = Some(e);
                }
            }
        }
    }
    d.class = Ok(class);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_and_shards_parse() {
        assert_eq!(parse_seeds("3..10").unwrap(), (3, 10));
        assert!(parse_seeds("10..3").is_err());
        assert!(parse_seeds("x").is_err());
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("1/0").is_err());
    }
}
