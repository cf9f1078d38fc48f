//! The regression corpus: a JSON Lines file in which every line names a
//! scenario, a seed, bug switches and the outcome that seed must keep.
//! Replaying it is how a finding stays found.

use super::{run_seed, run_seed_with};
use linearizability::one_line::one_line;
use serde::{Deserialize, Serialize};
use sim::Registry;
use std::path::Path;

/// One line of the corpus: a run and the outcome it must keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusLine {
    /// The scenario to run, by name or path; with a `case`, the case's config runs instead.
    pub scenario: String,
    /// The seed of the run, which draws everything the `case` does not pin.
    pub seed: u64,
    /// Bug switches the run turns on; empty (the default) for the correct model.
    #[serde(default)]
    pub bugs: Vec<String>,
    /// "pass", the invariant that must be violated, "panic" for a panic in
    /// the model, or "error" for a run the harness had to stop.
    pub expect: String,
    /// Why the line is there.
    #[serde(default)]
    pub why: String,
    /// What kind of failure the line keeps (see [`super::grow::signature`]);
    /// a campaign that grows the corpus adds no second line of a kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The shrunk counterexample: run this instead of the seed's own draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<CorpusCase>,
}

/// A run pinned beyond its seed, as a shrunk report pins it: the scenario
/// as it ran (drawn and simplified), the fault plan and the calmed messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusCase {
    /// The scenario as it ran, as JSON: it runs instead of the named one.
    pub config: serde_json::Value,
    /// The fault plan the run follows instead of drawing one.
    pub plan: Vec<sim::fault::PlanEntry>,
    /// The messages, by id, that chaos leaves alone.
    #[serde(default)]
    pub calm: sim::fault::Calm,
}

/// Replays every line of the corpus at `path`. `Ok` holds the lines read;
/// the error lists every line that is malformed or changed its outcome,
/// one per line of text.
pub fn corpus(registry: &Registry, path: impl AsRef<Path>) -> Result<Vec<CorpusLine>, String> {
    let path = path.as_ref();
    let text = sim::host::files::read_input_text(path, sim::host::files::INPUT_BYTES_MAX)
        .map_err(|e| format!("cannot read {}: {e}", sim::host::files::shown(path)))?;
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for (i, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = format!("{}:{}", sim::host::files::shown(path), i + 1);
        let line: CorpusLine = match sim::host::strict::from_str(raw) {
            Ok(l) => l,
            Err(e) => {
                wrong.push(format!("{at}: {e}"));
                continue;
            }
        };
        let got = run_line(registry, &line).map(|out| outcome_name(&out));
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

/// Runs a line: its seed of the named scenario, or its attached case.
fn run_line(registry: &Registry, line: &CorpusLine) -> Result<sim::RunOutcome, String> {
    let Some(case) = &line.case else {
        let s = registry.load(&line.scenario)?;
        return run_seed(registry, &s, line.seed, &line.bugs, None).map(|(out, _)| out);
    };
    let scenario: sim::Scenario = serde_json::from_value(case.config.clone())
        .map_err(|e| one_line(&format!("the line's case is not a scenario: {e}")))?;
    registry
        .validate(&scenario, &line.bugs)
        .and_then(|_| sim::fault::check_plan(&case.plan, scenario.nodes, &scenario.faults.spared))
        .map_err(|e| one_line(&e))?;
    let fixed = sim::Overrides {
        plan: Some(case.plan.clone()),
        calm: case.calm.clone(),
        ..sim::Overrides::default()
    };
    run_seed_with(registry, &scenario, line.seed, &line.bugs, fixed).map(|(out, _)| out)
}

fn outcome_name(out: &sim::RunOutcome) -> String {
    match (out.verdict.status, super::cause(out)) {
        (sim::Status::Pass, _) => "pass".into(),
        (_, Some(c)) => c,
        (_, None) => "error".into(),
    }
}
