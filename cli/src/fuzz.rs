//! `dst fuzz`: the runner's fuzz with a progress bar, a line for every seed
//! that did not simply pass, and a summary per scenario; also as a file to
//! merge shards by, as JUnit XML and as a CI job summary.

use super::args::{FuzzArgs, VerdictOut};
use super::progress::Progress;
use super::Exit;
use dst_runner::claim::Claims;
use dst_runner::cursor::{self, Cursor};
use dst_runner::record::{FuzzRecord, SeedSpan, ShardOf};
use dst_runner::{ci, fuzz_from, parse_seeds, parse_shard, FuzzOptions, SeedDone};
use sim::Registry;
use std::time::Duration;

/// With no seed range and no budget, fuzz runs about this long.
const DEFAULT_BUDGET: Duration = Duration::from_secs(60);

pub fn main(reg: &Registry, a: FuzzArgs) -> Exit {
    let (lo, hi) = match a.seeds.as_deref().map(parse_seeds).transpose() {
        Ok(r) => r.unwrap_or((0, u64::MAX)),
        Err(e) => return Exit::Bad(e),
    };
    let budget = match super::values::budget(a.budget.as_deref()) {
        Ok(Some(b)) => Some(b),
        Ok(None) if a.seeds.is_none() => Some(DEFAULT_BUDGET),
        Ok(None) => None,
        Err(e) => return Exit::Bad(e),
    };
    let jobs = match super::values::jobs(a.jobs) {
        Ok(j) => j,
        Err(e) => return Exit::Bad(e),
    };
    let shard = match a.shard.as_deref().map(parse_shard).transpose() {
        Ok(Some(s)) => s,
        Ok(None) => match shard_from_env(&|k| std::env::var(k).ok()) {
            Ok(s) => s.unwrap_or((0, 1)),
            Err(e) => return Exit::Bad(e),
        },
        Err(e) => return Exit::Bad(e),
    };
    if let Err(e) = check_targets(&a.out).and_then(|_| super::corpus::check(&a.corpus)) {
        return Exit::Bad(e);
    }
    let mut lo = lo;
    let n_sc = if a.scenario == "all" {
        reg.scenarios().len() as u64
    } else {
        1
    };
    // With a cursor the seeds come from its file, a block at a time, so
    // that campaigns sharing it never run a seed twice; `lo` is then only
    // where the first block starts if the file does not exist yet.
    let mut claims = match &a.cursor {
        Some(path) => match cursor_start(reg, &a, path, shard, hi) {
            Ok((id, frontier)) => {
                let c = Claims::new(path.clone(), id, (lo, hi), shard, n_sc as usize, jobs);
                // The summary says where the campaign began: the cursor's frontier.
                lo = frontier.unwrap_or(lo);
                Some(c)
            }
            Err(e) => return Exit::Bad(e),
        },
        None => None,
    };
    let opts = FuzzOptions {
        scenarios: if a.scenario == "all" {
            vec![]
        } else {
            vec![a.scenario.clone()]
        },
        seeds: lo..hi,
        budget,
        jobs,
        shard,
        bugs: a.bugs.clone(),
        report_dir: Some(a.report_dir.clone()),
        determinism: a.determinism,
        judge_slice: a.judge_slice,
        reports: dst_runner::ReportCap {
            per_signature: if a.no_reports { 0 } else { a.max_reports },
            total: if a.no_reports { 0 } else { a.max_reports_total },
            min_free: a.min_free,
        },
        style: a.style.style(),
    };
    let total = (hi != u64::MAX && claims.is_none()).then(|| (hi - lo).div_ceil(shard.1) * n_sc);
    let mut progress = Progress::new(total, a.out.json);
    let (mut done, mut bad) = (0u64, 0u64);
    // With --determinism: seeds that ran (twice) and those whose two runs differed.
    let (mut twice, mut differed) = (0u64, 0u64);
    let summary = fuzz_from(reg, &opts, claims.as_mut(), |d: &SeedDone| {
        done += 1;
        // A seed that could not run at all ran neither once nor twice.
        if d.class.is_ok() || d.differed {
            twice += 1;
        }
        differed += u64::from(d.differed);
        if !matches!(d.class, Ok(dst_runner::Class::Pass | dst_runner::Class::Expected)) {
            bad += 1;
        }
        if let (true, Some(p)) = (a.html, &d.report) {
            if let Err(e) = crate::view::write_page(reg, p, None, None) {
                progress.line(&format!("dst: view of {} not written: {e}", sim::host::files::shown(p)));
            }
        }
        if let Some(low) = &d.disk_low {
            progress.line(&format!("dst: warning: {low}"));
        }
        let quiet = matches!(d.class, Ok(dst_runner::Class::Expected)) && !a.verbose;
        if !d.line.is_empty() && !quiet {
            let replay = d
                .report
                .as_ref()
                .map(|p| format!("\n  replay: {}", dst_runner::hint::replay(p)))
                .unwrap_or_default();
            progress.line(&format!("{}{replay}", d.line));
        }
        progress.update(done, bad);
    });
    progress.finish();
    let given_back = claims.as_mut().map_or(Ok(()), Claims::finish);
    let s = match summary {
        Ok(s) => s,
        Err(e) => return Exit::Bad(e),
    };
    let seeds = SeedSpan {
        start: lo,
        end: (hi != u64::MAX).then_some(hi),
    };
    let shard = ShardOf {
        index: shard.0,
        count: shard.1,
    };
    let mut rec = FuzzRecord::of(&s, seeds, shard, a.budget.clone());
    if a.scenario != "all" && reg.builtin(&a.scenario).is_none() {
        for sc in &mut rec.scenarios {
            sc.source = Some(a.scenario.clone());
        }
    }
    let exit = publish(&rec, &a.out);
    if a.determinism && !a.out.json {
        sim::outln!("determinism: {twice} seeds run twice, {differed} of them differed");
    }
    if let Err(e) = given_back {
        return Exit::Bad(e);
    }
    let ran = |name: &str, print: &str| {
        s.scenarios
            .iter()
            .find(|sc| sc.name == name && dst_runner::record::fingerprint(sc) == print)
            .cloned()
    };
    if let Err(e) = super::corpus::grow_from(reg, &rec, &a.corpus, &ran) {
        return Exit::Bad(e);
    }
    if let Some(low) = &s.reports_stopped {
        sim::errln!("dst: warning: reports stopped early: {low}");
    }
    match s.unwritten.first() {
        Some(first) if matches!(exit, Exit::Clean | Exit::Found) => Exit::Bad(format!(
            "{} report(s) could not be written (first: {first})",
            s.unwritten.len()
        )),
        _ => exit,
    }
}

/// The campaign id for `--cursor`, once its file (if there is one) is
/// known to be this campaign's and to leave seeds to run.
fn cursor_start(
    reg: &Registry,
    a: &FuzzArgs,
    path: &std::path::Path,
    shard: (u64, u64),
    hi: u64,
) -> Result<(String, Option<u64>), String> {
    sim::host::files::refuse_special(path)?;
    let scenarios = if a.scenario == "all" {
        reg.scenarios().to_vec()
    } else {
        vec![reg.load(&a.scenario)?]
    };
    let id = cursor::campaign(&scenarios, &a.bugs, shard);
    let Some(c) = Cursor::load(path, &id)? else {
        return Ok((id, None));
    };
    if c.next_seed >= hi && !c.free.iter().any(|g| g.from_seed < hi) {
        return Err(format!(
            "cursor {} is at seed {}, past the seed range: nothing left to run",
            sim::host::files::shown(path),
            c.next_seed
        ));
    }
    // Free stretches lie below the frontier: the first is where this begins.
    Ok((id, Some(c.free.first().map_or(c.next_seed, |g| g.from_seed))))
}

/// The shard from the environment a scheduler sets: `DST_SHARD` and
/// `DST_SHARDS`, or a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` with
/// `DST_SHARDS`. None when neither is set.
pub fn shard_from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<(u64, u64)>, String> {
    let index = var("DST_SHARD").map(|v| ("DST_SHARD", v));
    let index = index.or_else(|| var("JOB_COMPLETION_INDEX").map(|v| ("JOB_COMPLETION_INDEX", v)));
    let count = var("DST_SHARDS");
    match (index, count) {
        (None, None) => Ok(None),
        (Some((name, _)), None) => Err(format!("{name} is set but DST_SHARDS (the shard count) is not")),
        (None, Some(_)) => Err("DST_SHARDS is set but neither DST_SHARD nor JOB_COMPLETION_INDEX is".into()),
        (Some((name, i)), Some(n)) => parse_shard(&format!("{}/{}", i.trim(), n.trim()))
            .map(Some)
            .map_err(|e| format!("{name}={i}, DST_SHARDS={n}: {e}")),
    }
}

/// Prints a verdict and writes it where asked: the summary file, JUnit XML,
/// and the job summary of GitHub Actions when `GITHUB_STEP_SUMMARY` names one.
/// The outputs were checked before the work; one that still cannot be
/// written (a full disk) is named on stderr, exit 2, after the verdict is
/// printed, so the verdict and the finds' replay lines are never lost.
pub(crate) fn publish(rec: &FuzzRecord, out: &VerdictOut) -> Exit {
    let mut failed = Vec::new();
    if let Some(path) = &out.summary {
        let text = serde_json::to_vec_pretty(rec).unwrap_or_default();
        if let Err(e) = sim::host::files::write_atomic(path, &text) {
            failed.push(format!("summary not written: {e}"));
        }
    }
    if let Some(path) = &out.junit {
        if let Err(e) = sim::host::files::write_atomic(path, ci::junit(rec).as_bytes()) {
            failed.push(format!("JUnit XML not written: {e}"));
        }
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        use std::io::Write;
        // A FIFO would block the command and a link would write elsewhere.
        let appended = sim::host::files::refuse_special(std::path::Path::new(&path)).and_then(|()| {
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .and_then(|mut f| f.write_all(ci::markdown(rec).as_bytes()))
                .map_err(|e| e.to_string())
        });
        if let Err(e) = appended {
            sim::errln!(
                "dst: job summary not written to {}: {e}",
                sim::host::files::shown(std::path::Path::new(&path))
            );
        }
    }
    let verdict = print(rec, out.json);
    match failed.pop() {
        Some(last) => {
            for e in failed {
                sim::errln!("dst: {e}");
            }
            Exit::Bad(last)
        }
        None => verdict,
    }
}

/// The files a verdict goes to, refused before any work if they are not
/// plain files.
pub(crate) fn check_targets(out: &VerdictOut) -> Result<(), String> {
    [&out.summary, &out.junit]
        .into_iter()
        .flatten()
        .try_for_each(|p| sim::host::files::refuse_special(p))
}

/// Up to ten seeds, and how many more there are: a count and its list
/// never disagree.
fn listed(seeds: &[u64]) -> String {
    let mut shown: Vec<String> = seeds.iter().take(10).map(|s| s.to_string()).collect();
    if seeds.len() > 10 {
        shown.push(format!("and {} more", seeds.len() - 10));
    }
    shown.join(" ")
}

/// The expected findings of a scenario counted by cause, each with its
/// first seed: what a campaign with bug switches or a documented limit
/// shows, in one line instead of one per seed.
fn expected_by_cause(t: &dst_runner::Tally) -> Option<String> {
    // Findings are in seed order, so the first one met per cause is its first seed.
    let mut by: std::collections::BTreeMap<&str, (u64, u64, Option<&std::path::Path>)> =
        std::collections::BTreeMap::new();
    for (seed, f) in t.findings.iter().filter(|(_, f)| f.expected) {
        let e = by
            .entry(f.cause.as_deref().unwrap_or("stall"))
            .or_insert((0, *seed, f.report.as_deref()));
        e.0 += 1;
    }
    let shown: Vec<String> = by
        .iter()
        .map(|(c, (n, first, report))| {
            let replay = report.map_or(String::new(), |p| format!(" ({})", dst_runner::hint::replay(p)));
            format!("{c} on {n} seed(s), first {first}{replay}")
        })
        .collect();
    (!shown.is_empty()).then(|| shown.join("; "))
}

fn print(s: &FuzzRecord, json: bool) -> Exit {
    if json {
        sim::outln!("{}", serde_json::to_string(s).unwrap_or_default());
    } else {
        let shards = match (s.merged.len(), s.shard.count) {
            (0, 1) => String::new(),
            (0, n) => format!(", shard {}/{n}", s.shard.index),
            (m, _) => format!(", {m} shards merged"),
        };
        sim::outln!(
            "fuzz summary ({:.1} s{shards}{}{}):",
            s.seconds,
            if s.interrupted { ", interrupted" } else { "" },
            if s.bugs.is_empty() {
                String::new()
            } else {
                format!(", bugs: {}", s.bugs.join(" "))
            }
        );
        let w = s
            .scenarios
            .iter()
            .map(|sc| sc.scenario.len())
            .max()
            .unwrap_or(0)
            .max(22);
        for (i, sc) in s.scenarios.iter().enumerate() {
            let t = &sc.tally;
            let judge = s.judge(i);
            sim::outln!(
                "  {:<w$} {:>6} seeds  {:>6} pass  {:>5} expected  {:>4} unexpected  coverage {}/{}  {}",
                sc.scenario,
                t.seeds,
                t.pass,
                t.expected,
                t.unexpected,
                sc.goals.len().saturating_sub(sc.coverage_missing.len()),
                sc.goals.len(),
                match (sc.ok, s.deferred) {
                    (false, _) => "FAILED".to_string(),
                    (true, true) => format!(
                        "ok so far (coverage and declared violations: {} merge)",
                        dst_runner::hint::program()
                    ),
                    (true, false) => "ok".to_string(),
                }
            );
            if !sc.coverage_missing.is_empty() && judge.judges_coverage() {
                sim::outln!(
                    "      coverage goals no seed reached: {}",
                    sc.coverage_missing.join(", ")
                );
            }
            if sc.expected_violation_unseen {
                sim::outln!("      the expected violation was never seen");
            } else if judge.expect_unjudged() {
                sim::outln!(
                    "      the expected violation is not judged: {} of the {} seeds it may take",
                    t.seeds,
                    sc.expect_within_seeds
                );
            }
            if let Some(line) = expected_by_cause(t) {
                sim::outln!("      expected: {line}");
            }
            if t.undecided > 0 {
                sim::outln!(
                    "      {} seeds passed undecided (a check ran out of budget): {}",
                    t.undecided,
                    listed(&t.undecided_seeds)
                );
            }
            let stalls: Vec<u64> = t
                .findings
                .iter()
                .filter(|(_, f)| f.cause.is_none())
                .map(|(s, _)| *s)
                .collect();
            if !stalls.is_empty() {
                sim::outln!(
                    "      {} seeds stalled or ran out of their event budget (no invariant failed): {}",
                    stalls.len(),
                    listed(&stalls)
                );
            }
            for seed in t.failing_seeds.iter().take(10) {
                sim::outln!(
                    "      unexpected seed {seed}: {}",
                    ci::replay_command(s, &sc.scenario, *seed)
                );
            }
            if t.failing_seeds.len() > 10 {
                sim::outln!("      and {} more unexpected seeds", t.failing_seeds.len() - 10);
            }
            if t.reports_withheld > 0 {
                sim::outln!(
                    "      {} failing seeds have no report (--no-reports, or the caps --max-reports, --max-reports-total, --min-free); `{} run` with the seed writes one",
                    t.reports_withheld,
                    dst_runner::hint::program()
                );
            }
        }
    }
    if s.interrupted {
        super::interrupted_note("the summary counts only the seeds that finished");
    }
    if s.ok {
        Exit::Clean
    } else {
        Exit::Found
    }
}

#[cfg(test)]
mod tests {
    use super::shard_from_env;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn the_shard_comes_from_what_schedulers_set() {
        assert_eq!(shard_from_env(&env(&[])), Ok(None));
        assert_eq!(
            shard_from_env(&env(&[("DST_SHARD", "2"), ("DST_SHARDS", "8")])),
            Ok(Some((2, 8)))
        );
        assert_eq!(
            shard_from_env(&env(&[("JOB_COMPLETION_INDEX", "7"), ("DST_SHARDS", "8")])),
            Ok(Some((7, 8)))
        );
        assert!(shard_from_env(&env(&[("JOB_COMPLETION_INDEX", "8"), ("DST_SHARDS", "8")])).is_err());
        assert!(shard_from_env(&env(&[("DST_SHARD", "1")]))
            .unwrap_err()
            .contains("DST_SHARDS"));
        assert!(shard_from_env(&env(&[("DST_SHARDS", "4")])).is_err());
    }
}
