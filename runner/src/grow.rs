//! A corpus that grows with every campaign. Each unexpected failure whose
//! signature the corpus lacks is shrunk and appended as one line, which the
//! regression replay (`dst_runner::corpus`, and so `cargo test`) runs like
//! any hand-written line: a file ready to commit. A signature names a kind
//! of failure, not a seed, so a bug that fails a thousand seeds adds one
//! line, and tomorrow's campaign adds nothing for it.

use super::corpus::{CorpusCase, CorpusLine};
use super::{load_report, outcome, run_seed, shrink, Finding};
use linearizability::one_line::one_line;
use sim::{Event, Expect, Registry, Scenario, Verdict};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One unexpected finding of a campaign, with the scenario it ran.
pub struct Candidate {
    /// The scenario as the campaign ran it.
    pub scenario: Scenario,
    /// The failing seed.
    pub seed: u64,
    /// What the seed did, from the campaign's tally: its cause, evidence kinds and report.
    pub finding: Finding,
}

/// What growing the corpus did.
#[derive(Default)]
pub struct Grown {
    /// Lines appended, in the order they were written.
    pub added: Vec<CorpusLine>,
    /// Findings whose signature the corpus already had.
    pub known: u64,
    /// Further seeds of a signature added by this campaign.
    pub repeats: u64,
    /// Findings that could not be turned into a line, one sentence each.
    pub failed: Vec<String>,
}

/// The kind of failure a finding is: where it happened, what broke, under
/// which bug switches, and what the evidence events were (their kinds and
/// message or model-event names, not their values or times, so that the
/// same bug found on two seeds has one signature).
pub fn signature(scenario: &str, cause: &str, bugs: &[String], evidence: &[String]) -> String {
    let mut bugs: Vec<&str> = bugs.iter().map(String::as_str).collect();
    bugs.sort_unstable();
    let bugs = if bugs.is_empty() {
        "-".to_string()
    } else {
        bugs.join("+")
    };
    let evidence = if evidence.is_empty() {
        "-".to_string()
    } else {
        evidence.join(",")
    };
    format!("{scenario} {cause} {bugs} {evidence}")
}

/// The evidence events of a verdict as kinds: `deliver:append`,
/// `model:journal-append`, `fault:crash`, `panic`.
pub fn evidence_kinds(verdict: &Verdict, trace: &[Event]) -> Vec<String> {
    verdict
        .evidence
        .iter()
        .filter_map(|i| sim::report::event_at(trace, *i))
        .map(event_kind)
        .collect()
}

fn event_kind(e: &Event) -> String {
    let v = serde_json::to_value(e).unwrap_or_default();
    let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("event");
    let named = |key: &str| match v.get(key) {
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Object(o)) => ["action", "kind"]
            .iter()
            .find_map(|k| o.get(*k).and_then(|x| x.as_str()).map(String::from)),
        _ => None,
    };
    match ["msg", "model", "action"].iter().find_map(|k| named(k)) {
        Some(q) => format!("{kind}:{q}"),
        None => kind.to_string(),
    }
}

/// Refuses a corpus path that is not a plain file (or not yet a file), and
/// returns the signatures already in it; the error is one line.
pub fn known_signatures(path: &Path) -> Result<BTreeSet<String>, String> {
    signatures_in(&read_corpus(path)?, path)
}

/// The corpus's text, empty if there is no file yet; a path that is not a
/// plain file is refused.
fn read_corpus(path: &Path) -> Result<String, String> {
    sim::host::files::refuse_special(path)?;
    match sim::host::files::read_input_text(path, sim::host::files::INPUT_BYTES_MAX) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("cannot read corpus {}: {e}", sim::host::files::shown(path))),
    }
}

fn signatures_in(text: &str, path: &Path) -> Result<BTreeSet<String>, String> {
    let mut known = BTreeSet::new();
    for (i, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line: CorpusLine = sim::host::strict::from_str(raw).map_err(|e| {
            one_line(&format!(
                "corpus {}:{}: not a corpus line ({e})",
                sim::host::files::shown(path),
                i + 1
            ))
        })?;
        known.extend(line.signature);
    }
    Ok(known)
}

/// Appends a line for every candidate whose signature `path` lacks (the
/// lowest seed of each new signature, shrunk within `shrink_runs` runs).
/// Scratch reports go to `scratch` and are removed. The error is one line
/// about the corpus file; a finding that cannot be shrunk is listed in
/// [`Grown::failed`] and the rest still grow the corpus.
pub fn grow(
    registry: &Registry,
    path: &Path,
    bugs: &[String],
    mut candidates: Vec<Candidate>,
    shrink_runs: u64,
    scratch: &Path,
) -> Result<Grown, String> {
    let mut known = known_signatures(path)?;
    candidates.sort_by_key(|c| c.seed);
    let mut grown = Grown::default();
    let mut fresh = BTreeSet::new();
    for c in candidates {
        if sim::host::interrupt::stopping() {
            break;
        }
        let cause = c.finding.cause.clone().unwrap_or_else(|| "error".into());
        let mut evidence = c.finding.evidence.clone();
        if evidence.is_empty() {
            // A summary written before signatures had evidence kinds: ask the run.
            if let Ok((out, _)) = run_seed(registry, &c.scenario, c.seed, bugs, None) {
                evidence = evidence_kinds(&out.verdict, out.trace.events());
            }
        }
        let sig = signature(&c.scenario.name, &cause, bugs, &evidence);
        if fresh.contains(&sig) {
            grown.repeats += 1;
            continue;
        }
        if known.contains(&sig) {
            grown.known += 1;
            continue;
        }
        match line_for(registry, &c, bugs, &cause, &sig, shrink_runs, scratch) {
            Ok(line) => {
                let added = append_new(path, &line, &sig)?;
                fresh.insert(sig.clone());
                known.insert(sig);
                if added {
                    grown.added.push(line);
                } else {
                    grown.known += 1;
                }
            }
            Err(e) => grown.failed.push(format!("{} seed {}: {e}", c.scenario.name, c.seed)),
        }
    }
    Ok(grown)
}

/// The corpus line of one finding: the report (the campaign's, or one
/// written now by running the seed again) shrunk, and the shrunk case
/// attached so that the line replays the small counterexample.
fn line_for(
    registry: &Registry,
    c: &Candidate,
    bugs: &[String],
    cause: &str,
    sig: &str,
    shrink_runs: u64,
    scratch: &Path,
) -> Result<CorpusLine, String> {
    sim::host::files::check_dir(scratch)?;
    let stem = format!(
        ".dst-grow-{}-{}",
        sim::host::files::name_from_data(&c.scenario.name),
        c.seed
    );
    let full = scratch.join(format!("{stem}.json"));
    let small = scratch.join(format!("{stem}.shrunk.json"));
    let result = (|| {
        let named = super::finding_report(registry, &c.finding, &c.scenario.name, c.seed, bugs);
        let report = match named.and(c.finding.report.as_ref()) {
            Some(p) => p.clone(),
            None => {
                let (out, ms) = run_seed(registry, &c.scenario, c.seed, bugs, None)?;
                let class = registry.classify(&out, &c.scenario, bugs);
                let style = sim::report::Style::default();
                outcome::report(registry, &out, class, &c.scenario, c.seed, bugs, ms, &full, style)?.write(&full)?;
                full.clone()
            }
        };
        // An exhausted budget or a harness error has no cause to keep while shrinking.
        let (kept, note): (PathBuf, String) =
            match shrink::shrink(registry, &report, Some(small.clone()), shrink_runs, Default::default()) {
                Ok(s) => (
                    small.clone(),
                    format!(
                        "shrunk from {} to {} events, {} to {} plan entries",
                        s.events_from, s.events_to, s.plan_from, s.plan_to
                    ),
                ),
                Err(_) if cause == "error" => (report, "not shrunk".into()),
                Err(e) => return Err(e),
            };
        let (r, _) = load_report(registry, &kept)?;
        let described = r.verdict.message.clone().unwrap_or_else(|| cause.to_string());
        let pass = bugs.is_empty() && matches!(c.scenario.expect, Expect::Pass);
        let (expect, until) = if pass {
            ("pass".to_string(), "; fails until fixed")
        } else {
            (cause.to_string(), "")
        };
        Ok(CorpusLine {
            scenario: c.scenario.name.clone(),
            seed: c.seed,
            bugs: bugs.to_vec(),
            expect,
            why: one_line(&format!("fuzz found {cause}: {described} ({note}){until}")),
            signature: Some(sig.to_string()),
            case: Some(CorpusCase {
                config: r.config,
                plan: r.plan,
                calm: r.calm,
            }),
        })
    })();
    for p in [&full, &small] {
        let _ = std::fs::remove_file(p);
    }
    result
}

/// Adds `line` at the end of the corpus, written whole or not at all,
/// unless a line of its signature is there already: another campaign may
/// have added the same kind meanwhile, so the check and the write are one
/// step under the corpus's lock. False if the kind was there.
fn append_new(path: &Path, line: &CorpusLine, sig: &str) -> Result<bool, String> {
    sim::host::files::locked(path, || {
        let mut text = read_corpus(path)?;
        if signatures_in(&text, path)?.contains(sig) {
            return Ok(false);
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&serde_json::to_string(line).map_err(|e| format!("cannot encode a corpus line: {e}"))?);
        text.push('\n');
        sim::host::files::write_atomic(path, text.as_bytes()).map_err(|e| format!("corpus not written: {e}"))?;
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_ignore_bug_order_and_name_missing_parts() {
        let a = signature("s", "inv", &["b".into(), "a".into()], &["deliver:append".into()]);
        let b = signature("s", "inv", &["a".into(), "b".into()], &["deliver:append".into()]);
        assert_eq!(a, b);
        assert_eq!(a, "s inv a+b deliver:append");
        assert_eq!(signature("s", "panic", &[], &[]), "s panic - -");
        assert_ne!(
            a,
            signature("s", "inv", &["a".into(), "b".into()], &["model:apply".into()])
        );
    }
}
