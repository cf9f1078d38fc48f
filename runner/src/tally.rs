//! What the seeds of one scenario did, and the verdict over them. One
//! process's fuzz and shards merged afterwards judge with the same code, so
//! a campaign split over machines gives the verdict it gives in one piece.

use super::fuzz::SeedDone;
use super::outcome::Class;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the seeds of one scenario did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tally {
    /// Seeds that finished, however they ended.
    pub seeds: u64,
    /// Seeds whose run passed, the `undecided` ones among them.
    pub pass: u64,
    /// Seeds that failed as the scenario or the bug switches call for.
    pub expected: u64,
    /// Seeds that failed otherwise or could not run: any fails the scenario.
    pub unexpected: u64,
    /// Seeds that passed only because a check ran out of budget undecided.
    pub undecided: u64,
    /// The seeds counted in `undecided`, in order.
    pub undecided_seeds: Vec<u64>,
    /// goal -> seeds that reached it
    pub coverage: BTreeMap<String, u64>,
    /// goal -> the lowest seed that reached it
    pub coverage_first: BTreeMap<String, u64>,
    /// cause (an invariant, or `panic`) -> seeds that showed it
    pub violations: BTreeMap<String, u64>,
    /// The seeds counted in `unexpected`, in order.
    pub failing_seeds: Vec<u64>,
    /// Seed -> its line, for the unexpected ones.
    pub failures: BTreeMap<u64, String>,
    /// Every seed that did not simply pass.
    pub findings: BTreeMap<u64, Finding>,
    /// Failing seeds whose report the campaign's caps left unwritten.
    pub reports_withheld: u64,
}

/// A seed that did not simply pass, with what replays it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// The violated invariant, `panic`, or none (an error such as an
    /// exhausted event budget).
    pub cause: Option<String>,
    /// The scenario or the bug switches call for this failure; false for an unexpected seed.
    pub expected: bool,
    /// Empty when the seed could not run at all.
    pub trace_hash: String,
    /// The seed's report, none if the campaign wrote none for it.
    pub report: Option<PathBuf>,
    /// The evidence events' kinds, for the failure's signature.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

impl Tally {
    /// Counts one finished seed.
    pub fn record(&mut self, d: &SeedDone) {
        self.seeds += 1;
        for g in &d.coverage {
            *self.coverage.entry(g.clone()).or_default() += 1;
            lowest(&mut self.coverage_first, g, d.seed);
        }
        if let Some(inv) = &d.violated {
            *self.violations.entry(inv.clone()).or_default() += 1;
        }
        self.reports_withheld += d.report_withheld as u64;
        if d.undecided {
            self.undecided += 1;
            self.undecided_seeds.push(d.seed);
        }
        let expected = match d.class {
            Ok(Class::Pass) => {
                self.pass += 1;
                return;
            }
            Ok(Class::Expected) => {
                self.expected += 1;
                true
            }
            Ok(Class::Unexpected) | Err(_) => {
                self.unexpected += 1;
                self.failing_seeds.push(d.seed);
                self.failures.insert(d.seed, d.line.clone());
                false
            }
        };
        let finding = Finding {
            cause: d.violated.clone(),
            expected,
            trace_hash: d.trace_hash.clone(),
            report: d.report.clone(),
            evidence: d.evidence.clone(),
        };
        self.findings.insert(d.seed, finding);
    }

    /// Adds the tally of other seeds of the same scenario (another shard).
    pub fn absorb(&mut self, o: &Tally) {
        self.seeds += o.seeds;
        self.pass += o.pass;
        self.expected += o.expected;
        self.unexpected += o.unexpected;
        self.undecided += o.undecided;
        self.reports_withheld += o.reports_withheld;
        self.undecided_seeds.extend(&o.undecided_seeds);
        for (g, n) in &o.coverage {
            *self.coverage.entry(g.clone()).or_default() += n;
        }
        for (g, s) in &o.coverage_first {
            lowest(&mut self.coverage_first, g, *s);
        }
        for (c, n) in &o.violations {
            *self.violations.entry(c.clone()).or_default() += n;
        }
        self.failing_seeds.extend(&o.failing_seeds);
        self.failures.extend(o.failures.iter().map(|(s, l)| (*s, l.clone())));
        self.findings.extend(o.findings.iter().map(|(s, f)| (*s, f.clone())));
        self.sort();
    }

    /// Seed lists in order, whatever order the seeds finished in.
    pub fn sort(&mut self) {
        self.undecided_seeds.sort_unstable();
        self.failing_seeds.sort_unstable();
    }
}

fn lowest(m: &mut BTreeMap<String, u64>, key: &str, seed: u64) {
    let e = m.entry(key.to_string()).or_insert(seed);
    *e = (*e).min(seed);
}

/// What a scenario declares that the verdict over its seeds depends on.
#[derive(Clone, Copy)]
pub struct Declared<'a> {
    /// Coverage goals some seed must reach.
    pub goals: &'a [String],
    /// Causes the scenario expects (a documented limit, a release's real bugs).
    pub expected: &'a [String],
    /// A pinned release with known real bugs: its runs stop at the violation.
    pub real_bugs: bool,
    /// Seeds a run needs before an unseen expected violation fails it
    /// (0 and 1 alike: any run).
    pub within: u64,
}

/// The verdict over one scenario's seeds.
#[derive(Clone, Copy)]
pub struct Judge<'a> {
    /// What the scenario declares: its goals, expected causes and the seeds they take.
    pub declared: Declared<'a>,
    /// What the scenario's seeds did, in one process or merged over shards.
    pub tally: &'a Tally,
    /// The bug switches the seeds ran with; with any, coverage and declared violations are not judged.
    pub bugs: &'a [String],
    /// Coverage and declared violations are left to a merge of all shards.
    pub deferred: bool,
}

impl<'a> Judge<'a> {
    /// Coverage goals no seed reached.
    pub fn missing(&self) -> Vec<&'a String> {
        let t = self.tally;
        self.declared
            .goals
            .iter()
            .filter(|g| !t.coverage.contains_key(*g))
            .collect()
    }

    /// Whether coverage goals count. Runs with a bug switch, or of a release
    /// with known real bugs, stop at the violation, so coverage is judged
    /// on correct models only.
    pub fn judges_coverage(&self) -> bool {
        !self.deferred && self.bugs.is_empty() && !self.declared.real_bugs && self.tally.seeds > 0
    }

    /// The scenario declares a violation (or a real bug) that no seed
    /// showed, over at least as many seeds as it says that takes.
    pub fn expect_unmet(&self) -> bool {
        self.expect_unseen() && self.tally.seeds >= self.declared.within.max(1)
    }

    /// A declared violation no seed showed, in a run too short to judge it.
    pub fn expect_unjudged(&self) -> bool {
        self.expect_unseen() && !self.expect_unmet()
    }

    fn expect_unseen(&self) -> bool {
        let (t, expected) = (self.tally, self.declared.expected);
        !self.deferred
            && self.bugs.is_empty()
            && t.seeds > 0
            && !expected.is_empty()
            && !expected.iter().any(|c| t.violations.contains_key(c))
    }

    /// Whether the scenario passed as a whole: no unexpected seed, every judged goal reached and no
    /// declared violation unmet.
    pub fn ok(&self) -> bool {
        self.tally.unexpected == 0 && (!self.judges_coverage() || self.missing().is_empty()) && !self.expect_unmet()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge<'a>(tally: &'a Tally, expected: &'a [String], within: u64) -> Judge<'a> {
        Judge {
            declared: Declared {
                goals: &[],
                expected,
                real_bugs: true,
                within,
            },
            tally,
            bugs: &[],
            deferred: false,
        }
    }

    #[test]
    fn an_unseen_expected_violation_fails_only_a_run_long_enough_to_show_it() {
        let expected = vec!["panic".to_string()];
        let mut t = Tally {
            seeds: 8,
            pass: 8,
            ..Tally::default()
        };
        assert!(judge(&t, &expected, 1).expect_unmet());
        assert!(!judge(&t, &expected, 200).expect_unmet());
        assert!(judge(&t, &expected, 200).expect_unjudged());
        assert!(judge(&t, &expected, 200).ok());
        t.seeds = 200;
        assert!(judge(&t, &expected, 200).expect_unmet());
        assert!(!judge(&t, &expected, 200).ok());
        t.violations.insert("panic".into(), 1);
        assert!(!judge(&t, &expected, 200).expect_unmet());
        assert!(!judge(&t, &expected, 200).expect_unjudged());
    }
}
