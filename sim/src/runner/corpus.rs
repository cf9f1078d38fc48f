//! The regression corpus: a JSON Lines file in which every line names a
//! scenario, a seed, bug switches and the outcome that seed must keep.
//! Replaying it is how a finding stays found.

use super::run_seed;
use crate::registry::Registry;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusLine {
    pub scenario: String,
    pub seed: u64,
    #[serde(default)]
    pub bugs: Vec<String>,
    /// "pass", the invariant that must be violated, "panic" for a panic in
    /// the model, or "error" for a run the harness had to stop.
    pub expect: String,
    /// Why the line is there.
    #[serde(default)]
    pub why: String,
}

/// Replays every line of the corpus at `path`. `Ok` holds the lines read;
/// the error lists every line that is malformed or changed its outcome,
/// one per line of text.
pub fn corpus(registry: &Registry, path: impl AsRef<Path>) -> Result<Vec<CorpusLine>, String> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for (i, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("{}:{}", path.display(), i + 1);
        let line: CorpusLine = match serde_json::from_str(raw) {
            Ok(l) => l,
            Err(e) => {
                wrong.push(format!("{at}: {e}"));
                continue;
            }
        };
        let got = registry
            .load(&line.scenario)
            .and_then(|s| run_seed(registry, &s, line.seed, &line.bugs, None))
            .map(|(out, _)| outcome_name(&out));
        match got {
            Ok(g) if g == line.expect => {}
            Ok(g) => wrong.push(format!(
                "{at}: {} seed {} {:?} gave {g}, not {} ({})",
                line.scenario, line.seed, line.bugs, line.expect, line.why
            )),
            Err(e) => wrong.push(format!("{at}: {e}")),
        }
        lines.push(line);
    }
    if wrong.is_empty() {
        Ok(lines)
    } else {
        Err(wrong.join("\n"))
    }
}

fn outcome_name(out: &crate::world::RunOutcome) -> String {
    match (out.verdict.status, super::cause(out)) {
        (crate::world::Status::Pass, _) => "pass".into(),
        (_, Some(c)) => c,
        (_, None) => "error".into(),
    }
}
