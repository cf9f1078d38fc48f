//! The summary of a fuzz run as a file (`fuzz --summary`, `fuzz --json`):
//! everything needed to merge shards into one verdict, and the merge.

use super::fuzz::FuzzSummary;
use super::tally::{Declared, Judge, Tally};
use linearizability::one_line::one_line;
use serde::{Deserialize, Serialize};
use sim::{Expect, Scenario};
use std::path::PathBuf;

/// The summary format this dst writes and reads.
pub const FORMAT: &str = "dst-fuzz-summary/1";

/// A fuzz run's summary as a file: one shard's, or the merge of all shards.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuzzRecord {
    /// Always [`FORMAT`]: a file of another format is refused.
    pub format: String,
    /// The dst version that wrote it: shards of other versions are not merged.
    pub dst_version: String,
    /// The campaign's whole seed range, before sharding: the same in every shard.
    pub seeds: SeedSpan,
    /// Which shard ran; 0 of 1 for an unsharded run and for a merge.
    pub shard: ShardOf,
    /// The time budget the run had, as given.
    pub budget: Option<String>,
    /// Bug switches every run had on.
    pub bugs: Vec<String>,
    /// Wall time of the run in seconds; for a merge, its longest shard's.
    pub seconds: f64,
    /// An interruption stopped the run before every seed was taken; a merge is interrupted if any
    /// shard was.
    pub interrupted: bool,
    /// Coverage and declared violations were left to the merge.
    pub deferred: bool,
    /// The shards a merged record was made of (empty for one run).
    #[serde(default)]
    pub merged: Vec<ShardOf>,
    /// The verdict: every scenario passed (and, for a merge, no shard was interrupted).
    pub ok: bool,
    /// Each scenario the run took, with what it declares, its tally and its verdict.
    pub scenarios: Vec<ScenarioRecord>,
}

/// The seeds a campaign covers, before sharding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedSpan {
    /// The first seed (inclusive).
    pub start: u64,
    /// Exclusive; none for a run bounded only by its budget.
    pub end: Option<u64>,
}

/// One shard of a campaign: it runs the seeds `s` with `s % count == index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardOf {
    /// This shard's number, from 0.
    pub index: u64,
    /// How many shards the campaign is split into.
    pub count: u64,
}

/// One scenario of a fuzz record: what it declares, what its seeds did, and the verdict.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioRecord {
    /// The scenario's name.
    pub scenario: String,
    /// A hash of the scenario as it ran (model, knobs, faults, invariants):
    /// shards of different scenarios under one name are not merged.
    pub fingerprint: String,
    /// Coverage goals the scenario declares.
    pub goals: Vec<String>,
    /// Causes it declares expected: a documented limit, a release's real bugs.
    pub expected_causes: Vec<String>,
    /// A pinned release with known real bugs: its runs stop at the violation, and coverage is not
    /// judged.
    pub real_bugs: bool,
    /// The verdict over its seeds; a merge judges it again over all shards.
    pub ok: bool,
    /// Coverage goals no seed reached; they fail the scenario only where coverage is judged.
    pub coverage_missing: Vec<String>,
    /// It declares a violation that no seed showed over as many seeds as that takes: it fails.
    pub expected_violation_unseen: bool,
    /// Seeds the scenario needs before an unseen expected violation fails
    /// it (absent: one).
    #[serde(default, skip_serializing_if = "is_one")]
    pub expect_within_seeds: u64,
    /// The scenario file the campaign read, if the scenario is not built
    /// in: what a command that runs a seed of it again must name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What its seeds did; a merge adds up the shards' tallies.
    pub tally: Tally,
}

fn is_one(n: &u64) -> bool {
    *n <= 1
}

/// The fingerprint of a scenario: the same scenario, the same string.
pub fn fingerprint(s: &Scenario) -> String {
    let text = serde_json::to_string(s).unwrap_or_default();
    format!("{:016x}", sim::hash::stable_hash(&text))
}

impl FuzzRecord {
    /// The record of a finished fuzz run, with the seed range, shard and budget it was given;
    /// `source` is left unset.
    pub fn of(s: &FuzzSummary, seeds: SeedSpan, shard: ShardOf, budget: Option<String>) -> FuzzRecord {
        let scenarios = (0..s.scenarios.len())
            .map(|i| {
                let sc = &s.scenarios[i];
                ScenarioRecord {
                    scenario: sc.name.clone(),
                    fingerprint: fingerprint(sc),
                    goals: sc.coverage.clone(),
                    expected_causes: s.expected[i].clone(),
                    real_bugs: matches!(sc.expect, Expect::RealBugs(_)),
                    ok: s.scenario_ok(i),
                    coverage_missing: s.missing(i).into_iter().cloned().collect(),
                    expected_violation_unseen: s.expect_unmet(i),
                    expect_within_seeds: sc.expect_within_seeds.unwrap_or(1),
                    source: None,
                    tally: s.tallies[i].clone(),
                }
            })
            .collect();
        FuzzRecord {
            format: FORMAT.to_string(),
            dst_version: env!("CARGO_PKG_VERSION").to_string(),
            seeds,
            shard,
            budget,
            bugs: s.bugs.clone(),
            seconds: s.took.as_secs_f64(),
            interrupted: s.interrupted,
            deferred: s.deferred,
            merged: Vec::new(),
            ok: s.ok(),
            scenarios,
        }
    }

    /// The verdict over scenario `i`'s seeds.
    pub fn judge(&self, i: usize) -> Judge<'_> {
        let r = &self.scenarios[i];
        Judge {
            declared: Declared {
                goals: &r.goals,
                expected: &r.expected_causes,
                real_bugs: r.real_bugs,
                within: r.expect_within_seeds,
            },
            tally: &r.tally,
            bugs: &self.bugs,
            deferred: self.deferred,
        }
    }

    /// Reads a summary file; the error is one line.
    pub fn read(path: &std::path::Path) -> Result<FuzzRecord, String> {
        let text = sim::host::files::read_input_text(path, sim::host::files::INPUT_BYTES_MAX)
            .map_err(|e| format!("cannot read {}: {e}", sim::host::files::shown(path)))?;
        // Read straight into the record, whose every level refuses a key
        // it does not know: a JSON value of a summary of many failing
        // seeds took ten times its text, twice over.
        sim::host::strict::check_keys(&text)
            .map_err(|e| format!("{}: not a fuzz summary ({e})", sim::host::files::shown(path)))?;
        #[derive(serde::Deserialize)]
        struct Head {
            format: Option<serde_json::Value>,
        }
        let head = serde_json::from_str::<Head>(&text).ok().and_then(|h| h.format);
        match head.as_ref().and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(f) => {
                return Err(format!(
                    "{}: summary format {f} (this dst reads {FORMAT})",
                    sim::host::files::shown(path)
                ))
            }
            None => {
                return Err(format!(
                    "{}: not a fuzz summary (no format field)",
                    sim::host::files::shown(path)
                ))
            }
        }
        serde_json::from_str(&text).map_err(|e| {
            one_line(&format!(
                "{}: invalid fuzz summary ({e})",
                sim::host::files::shown(path)
            ))
        })
    }
}

/// Missing shards a refused merge names before it counts the rest.
const MISSING_NAMED: usize = 10;

/// One verdict over the shards of one campaign. Refused (one line): files
/// of other dst versions, seed ranges, bug sets or scenarios; a shard twice
/// or missing; shard counts that differ.
pub fn merge(records: &[(PathBuf, FuzzRecord)]) -> Result<FuzzRecord, String> {
    let Some((first_path, first)) = records.first() else {
        return Err("merge needs at least one summary".into());
    };
    for (path, r) in records {
        super::audit::check(r).map_err(|e| format!("{}: {e}", sim::host::files::shown(path)))?;
    }
    let mut out = first.clone();
    let mut shards = vec![first.shard];
    for (path, r) in &records[1..] {
        let differs = |what: &str, a: String, b: String| {
            Err(format!(
                "{} and {} differ in {what} ({a} against {b})",
                sim::host::files::shown(first_path),
                sim::host::files::shown(path)
            ))
        };
        if r.dst_version != first.dst_version {
            return differs("dst version", first.dst_version.clone(), r.dst_version.clone());
        }
        if r.seeds != first.seeds {
            return differs("seed range", format!("{:?}", first.seeds), format!("{:?}", r.seeds));
        }
        if r.bugs != first.bugs {
            return differs("bug switches", first.bugs.join(" "), r.bugs.join(" "));
        }
        if r.shard.count != first.shard.count {
            return differs("shard count", first.shard.count.to_string(), r.shard.count.to_string());
        }
        let names = |x: &FuzzRecord| {
            x.scenarios
                .iter()
                .map(|s| s.scenario.clone())
                .collect::<Vec<_>>()
                .join(" ")
        };
        if names(r) != names(first) {
            return differs("scenarios", names(first), names(r));
        }
        for (a, b) in first.scenarios.iter().zip(&r.scenarios) {
            if a.fingerprint != b.fingerprint {
                return differs(
                    &format!("scenario {}", a.scenario),
                    a.fingerprint.clone(),
                    b.fingerprint.clone(),
                );
            }
        }
        if shards.contains(&r.shard) {
            return Err(format!(
                "{}: shard {}/{} given twice",
                sim::host::files::shown(path),
                r.shard.index,
                r.shard.count
            ));
        }
        shards.push(r.shard);
        for (into, from) in out.scenarios.iter_mut().zip(&r.scenarios) {
            into.tally.absorb(&from.tally);
        }
        out.seconds = out.seconds.max(r.seconds);
        out.interrupted |= r.interrupted;
    }
    shards.sort();
    let count = first.shard.count;
    // The count is the file's word: as large as a u64, where the shards
    // given are a handful. Name the first few missing, count the rest.
    let have: std::collections::BTreeSet<u64> = shards.iter().map(|s| s.index).filter(|i| *i < count).collect();
    let missing = count - have.len() as u64;
    if missing > 0 {
        let named: Vec<String> = (0..count)
            .filter(|i| !have.contains(i))
            .take(MISSING_NAMED)
            .map(|i| format!("{i}/{count}"))
            .collect();
        let more = match missing.saturating_sub(MISSING_NAMED as u64) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        return Err(format!("shards missing from the merge: {}{more}", named.join(", ")));
    }
    out.shard = ShardOf { index: 0, count: 1 };
    out.merged = shards;
    out.deferred = false;
    for i in 0..out.scenarios.len() {
        let (ok, missing, unmet) = {
            let j = out.judge(i);
            (j.ok(), j.missing().into_iter().cloned().collect(), j.expect_unmet())
        };
        let r = &mut out.scenarios[i];
        r.ok = ok;
        r.coverage_missing = missing;
        r.expected_violation_unseen = unmet;
    }
    out.ok = out.scenarios.iter().all(|s| s.ok) && !out.interrupted;
    Ok(out)
}
