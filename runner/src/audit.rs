//! A fuzz summary read back from a file is checked against itself before
//! `merge` counts it: every count adds up, every seed it names is one its
//! shard ran, and every verdict it states is the one its tallies give. A
//! summary edited by hand, cut and pasted from another campaign, or
//! written by a broken tool is refused with what does not add up, instead
//! of turning into a verdict.

use super::record::{FuzzRecord, ScenarioRecord, SeedSpan, ShardOf};
use super::tally::Tally;
use linearizability::one_line::one_line;
use std::collections::BTreeSet;

/// Whether `r` is a summary dst could have written; the error names the
/// first thing that is not.
pub fn check(r: &FuzzRecord) -> Result<(), String> {
    let ShardOf { index, count } = r.shard;
    if count == 0 || index >= count {
        return Err(format!("shard {index}/{count} is not a shard"));
    }
    if let Some(end) = r.seeds.end {
        if end < r.seeds.start {
            return Err(format!("seed range {}..{end} ends before it starts", r.seeds.start));
        }
    }
    if !r.merged.is_empty() {
        let n = r.merged[0].count;
        let whole: Vec<ShardOf> = (0..n).map(|index| ShardOf { index, count: n }).collect();
        if r.merged != whole || r.shard != (ShardOf { index: 0, count: 1 }) {
            return Err("its list of merged shards is not one whole campaign".into());
        }
    }
    if !r.seconds.is_finite() || r.seconds < 0.0 {
        return Err(format!("seconds {} is not a duration", r.seconds));
    }
    let shard = if r.merged.is_empty() {
        r.shard
    } else {
        ShardOf { index: 0, count: 1 }
    };
    let names: BTreeSet<&str> = r.scenarios.iter().map(|s| s.scenario.as_str()).collect();
    if names.len() != r.scenarios.len() {
        return Err("a scenario is listed twice".into());
    }
    for (i, s) in r.scenarios.iter().enumerate() {
        tally(&s.tally, r.seeds, shard)
            .and_then(|()| findings(s, &r.bugs))
            .and_then(|()| verdict(r, i))
            .map_err(|e| format!("scenario {}: {e}", one_line(&s.scenario)))?;
    }
    let ok = r.scenarios.iter().all(|s| s.ok) && (!r.interrupted || r.merged.is_empty());
    if r.ok != ok {
        return Err(format!("it says ok: {} where its scenarios give {ok}", r.ok));
    }
    Ok(())
}

/// Seeds of `[seeds.start, seeds.end)` that shard `i` of `n` runs.
fn seeds_of(seeds: SeedSpan, shard: ShardOf) -> Option<u64> {
    let end = seeds.end?;
    let below = |x: u64| x / shard.count + u64::from(x % shard.count > shard.index);
    Some(below(end) - below(seeds.start))
}

fn tally(t: &Tally, seeds: SeedSpan, shard: ShardOf) -> Result<(), String> {
    let sum = t.pass.checked_add(t.expected).and_then(|n| n.checked_add(t.unexpected));
    if sum != Some(t.seeds) {
        return Err(format!(
            "pass {} + expected {} + unexpected {} is not its {} seeds",
            t.pass, t.expected, t.unexpected, t.seeds
        ));
    }
    if let Some(most) = seeds_of(seeds, shard) {
        if t.seeds > most {
            return Err(format!(
                "{} seeds, but shard {}/{} of the range has {most}",
                t.seeds, shard.index, shard.count
            ));
        }
    }
    let runs = |s: u64| s >= seeds.start && seeds.end.is_none_or(|e| s < e) && s % shard.count == shard.index;
    let listed = |what: &str, list: &[u64], n: u64| -> Result<(), String> {
        let distinct: BTreeSet<u64> = list.iter().copied().collect();
        if distinct.len() != list.len() || list.len() as u64 != n {
            return Err(format!(
                "{n} {what} seeds, but {} listed ({} distinct)",
                list.len(),
                distinct.len()
            ));
        }
        match list.iter().find(|s| !runs(**s)) {
            Some(s) => Err(format!(
                "{what} seed {s} is not one shard {}/{} of its range runs",
                shard.index, shard.count
            )),
            None => Ok(()),
        }
    };
    listed("undecided", &t.undecided_seeds, t.undecided)?;
    listed("failing", &t.failing_seeds, t.unexpected)?;
    let failing: BTreeSet<u64> = t.failing_seeds.iter().copied().collect();
    if t.failures.keys().copied().collect::<BTreeSet<u64>>() != failing {
        return Err("its failure lines are not those of its failing seeds".into());
    }
    if t.undecided > t.seeds {
        return Err(format!("{} undecided of {} seeds", t.undecided, t.seeds));
    }
    let findings: Vec<u64> = t.findings.keys().copied().collect();
    listed("finding", &findings, t.expected.saturating_add(t.unexpected))?;
    let unexpected: BTreeSet<u64> = t
        .findings
        .iter()
        .filter(|(_, f)| !f.expected)
        .map(|(s, _)| *s)
        .collect();
    if unexpected != failing {
        return Err("its unexpected findings are not its failing seeds".into());
    }
    if t.reports_withheld > t.expected.saturating_add(t.unexpected) {
        return Err(format!(
            "{} reports withheld of {} findings",
            t.reports_withheld,
            t.expected.saturating_add(t.unexpected)
        ));
    }
    let goals: BTreeSet<&String> = t.coverage.keys().collect();
    if goals != t.coverage_first.keys().collect() {
        return Err("its coverage counts and first seeds name different goals".into());
    }
    for (g, n) in &t.coverage {
        if *n == 0 || *n > t.seeds {
            return Err(format!("goal {} reached by {n} of {} seeds", one_line(g), t.seeds));
        }
        let first = t.coverage_first[g];
        if !runs(first) {
            return Err(format!(
                "goal {} first reached at seed {first}, which shard {}/{} of its range does not run",
                one_line(g),
                shard.index,
                shard.count
            ));
        }
    }
    for (c, n) in &t.violations {
        let shown = t.findings.values().filter(|f| f.cause.as_ref() == Some(c)).count() as u64;
        if *n != shown {
            return Err(format!(
                "{n} seeds violate {}, but {shown} findings name it",
                one_line(c)
            ));
        }
    }
    if let Some(f) = t
        .findings
        .values()
        .find_map(|f| f.cause.as_ref().filter(|c| !t.violations.contains_key(*c)))
    {
        return Err(format!(
            "a finding names {}, which it counts no seed violating",
            one_line(f)
        ));
    }
    Ok(())
}

/// Each finding is expected or not as the scenario's declared causes and
/// the bug switches make it.
fn findings(s: &ScenarioRecord, bugs: &[String]) -> Result<(), String> {
    for (seed, f) in &s.tally.findings {
        let declared = f.cause.as_ref().is_some_and(|c| s.expected_causes.contains(c));
        let wrong = if f.expected {
            // Expected: a declared cause, or a violation a bug switch asked for.
            !(declared || (!bugs.is_empty() && f.cause.is_some()))
        } else {
            declared
        };
        if wrong {
            return Err(format!(
                "seed {seed} is called {}expected, which its cause {} is not",
                if f.expected { "" } else { "un" },
                f.cause.as_deref().map_or("(none)".into(), one_line)
            ));
        }
        if !f.trace_hash.is_empty() && !sim::hash::is_hex_hash(&f.trace_hash) {
            return Err(format!("seed {seed}'s trace hash is not a hash"));
        }
    }
    Ok(())
}

/// The scenario's stated verdict is the one its tallies give.
fn verdict(r: &FuzzRecord, i: usize) -> Result<(), String> {
    let j = r.judge(i);
    let s = &r.scenarios[i];
    let missing: Vec<String> = j.missing().into_iter().cloned().collect();
    if missing != s.coverage_missing {
        return Err("its missing coverage is not the goals its seeds left unreached".into());
    }
    if j.expect_unmet() != s.expected_violation_unseen {
        return Err("it misstates whether its expected violation was seen".into());
    }
    if j.ok() != s.ok {
        return Err(format!("it says ok: {} where its seeds give {}", s.ok, j.ok()));
    }
    Ok(())
}
