//! `--corpus FILE` on fuzz and merge: the campaign's new kinds of failure,
//! shrunk, appended to a corpus file to commit.

use super::args::CorpusOut;
use dst_runner::grow::{self, Candidate};
use dst_runner::record::{fingerprint, FuzzRecord};
use sim::{Registry, Scenario};
use std::path::Path;

/// Refuses a corpus file that cannot be grown before any seed runs.
pub fn check(c: &CorpusOut) -> Result<(), String> {
    match &c.corpus {
        Some(path) => grow::known_signatures(path).map(|_| ()),
        None => Ok(()),
    }
}

/// Grows the corpus with the unexpected findings of `rec`, whose scenarios
/// `scenario` resolves by name and fingerprint, and says what it did.
pub fn grow_from(
    reg: &Registry,
    rec: &FuzzRecord,
    c: &CorpusOut,
    scenario: &dyn Fn(&str, &str) -> Option<Scenario>,
) -> Result<(), String> {
    let Some(path) = &c.corpus else { return Ok(()) };
    let mut candidates = Vec::new();
    let mut unresolved = Vec::new();
    for sc in &rec.scenarios {
        let known = scenario(&sc.scenario, &sc.fingerprint);
        for (seed, f) in sc.tally.findings.iter().filter(|(_, f)| !f.expected) {
            // A scenario file the registry cannot name: the report holds it as it ran.
            let s = known
                .clone()
                .or_else(|| dst_runner::finding_report(reg, f, &sc.scenario, *seed, &rec.bugs).map(|(_, s)| s));
            match s {
                Some(s) => candidates.push(Candidate {
                    scenario: s,
                    seed: *seed,
                    finding: f.clone(),
                }),
                None => unresolved.push(format!("{} seed {seed}", sc.scenario)),
            }
        }
    }
    let scratch = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let g = grow::grow(reg, path, &rec.bugs, candidates, c.corpus_shrink_runs, scratch)?;
    let added: Vec<String> = g
        .added
        .iter()
        .map(|l| format!("{} seed {} ({})", l.scenario, l.seed, l.expect))
        .collect();
    sim::outln!(
        "corpus {}: {} line(s) added{}; {} finding(s) of kinds it had, {} more seed(s) of the new kinds",
        sim::host::files::shown(path),
        added.len(),
        if added.is_empty() {
            String::new()
        } else {
            format!(": {}", added.join(", "))
        },
        g.known,
        g.repeats
    );
    for f in &g.failed {
        sim::errln!("dst: corpus: not added: {f}");
    }
    if let Some(first) = unresolved.first() {
        sim::errln!(
            "dst: corpus: {} finding(s) not added: their scenario is not this registry's (or changed since the run) and no report of theirs is here (first: {first})",
            unresolved.len()
        );
    }
    Ok(())
}

/// Resolves a merged record's scenario by name from the registry, if it is
/// still the scenario that ran.
pub fn from_registry(reg: &Registry) -> impl Fn(&str, &str) -> Option<Scenario> + '_ {
    move |name, print| reg.load(name).ok().filter(|s| fingerprint(s) == print)
}
