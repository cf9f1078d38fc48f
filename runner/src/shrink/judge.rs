//! The judge of candidates: each is a run of the report's seed, kept as the
//! best so far if it fails with the report's cause in no more trace events.
//! The steps that take faults, chaos and run length away live here; the
//! configuration's in `simplify`.

use super::minimize;
use crate::{cause, describe, run_seed_with};
use sim::explore::Tape;
use sim::fault::Calm;
use sim::fault::PlanEntry;
use sim::{Overrides, Registry, RunOutcome, Scenario};

const MS: u64 = 1_000_000;

/// How many times the report's events a run may take while the plan is
/// shrunk on the cause alone.
const FREE_GROWTH_MAX: u64 = 2;

/// What a candidate run may differ in from the report's.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Case {
    pub scenario: Scenario,
    pub plan: Vec<PlanEntry>,
    pub calm: Calm,
    /// An explored run's tape: the moves that make its run.
    pub tape: Option<Tape>,
}

impl Case {
    fn overrides(&self) -> Overrides {
        Overrides {
            plan: Some(self.plan.clone()),
            calm: self.calm.clone(),
            explore: self.tape.clone(),
            ..Overrides::default()
        }
    }
}

/// What else a failing run must show to count as the same failure (see
/// [`super::shrink_keeping`]).
pub(super) type Keep<'a> = &'a dyn Fn(&RunOutcome) -> bool;

pub(super) struct Judge<'a> {
    registry: &'a Registry,
    seed: u64,
    bugs: &'a [String],
    target: String,
    keep: Keep<'a>,
    max_runs: u64,
    pub runs: u64,
    pub best: Case,
    pub best_out: RunOutcome,
}

/// How big a counterexample is; shrinking repeats its steps while a pass changes this.
#[derive(PartialEq)]
pub(super) struct Size {
    events: usize,
    plan: usize,
    chaos: usize,
    deviations: usize,
    scenario: Scenario,
}

impl<'a> Judge<'a> {
    /// Replays `start` (the report as it is): it must still fail with `target`.
    pub fn start(
        registry: &'a Registry,
        seed: u64,
        bugs: &'a [String],
        target: String,
        keep: Keep<'a>,
        start: Case,
        max_runs: u64,
    ) -> Result<Judge<'a>, String> {
        let (out, _) = run_seed_with(registry, &start.scenario, seed, bugs, start.overrides())?;
        if cause(&out).as_deref() != Some(target.as_str()) {
            return Err(format!(
                "the report no longer fails with {target} when replayed ({}), so there is nothing to shrink",
                describe(&out)
            ));
        }
        if !keep(&out) {
            return Err(format!(
                "the report's run fails with {target} but not as the caller asks of it, so there is nothing to shrink"
            ));
        }
        Ok(Judge {
            registry,
            seed,
            bugs,
            target,
            keep,
            max_runs,
            runs: 1,
            best: start,
            best_out: out,
        })
    }

    /// Runs still allowed: none once an interruption asks to stop, so the
    /// best case so far is written instead of lost.
    fn left(&self) -> u64 {
        if sim::host::interrupt::stopping() {
            return 0;
        }
        self.max_runs.saturating_sub(self.runs)
    }

    pub fn exhausted(&self) -> bool {
        self.left() == 0
    }

    pub fn size(&self) -> Size {
        Size {
            events: self.best_out.trace.len(),
            plan: self.best.plan.len(),
            chaos: self.best_out.chaos.len(),
            deviations: self.deviations(),
            scenario: self.best.scenario.clone(),
        }
    }

    /// Moves of the best case's tape other than the natural one.
    pub fn deviations(&self) -> usize {
        self.best
            .tape
            .as_ref()
            .map_or(0, |t| t.choices.iter().filter(|&&c| c != 0).count())
    }

    /// Runs `case` and keeps it if it fails the same way in no more events.
    pub fn try_case(&mut self, case: Case) -> bool {
        // A run longer than the best is not kept, so it may stop there; one
        // that fails within that many events runs exactly as without the
        // cap, since a verdict ends a run before the budget is looked at.
        let cap = self.best_out.trace.len() as u64;
        let Some(out) = self.run_failing(&case, cap) else {
            return false;
        };
        let keep = out.trace.len() <= self.best_out.trace.len();
        if keep {
            self.best = case;
            self.best_out = out;
        }
        keep
    }

    /// The outcome of `case`, stopped after `cap` events, if it fails with
    /// the target cause and the budget of runs allows the run.
    fn run_failing(&mut self, case: &Case, cap: u64) -> Option<RunOutcome> {
        if self.exhausted() {
            return None;
        }
        self.runs += 1;
        let mut capped = case.scenario.clone();
        capped.event_budget = capped.event_budget.min(cap);
        // A configuration the model refuses, or a plan that names a node a
        // smaller cluster lacks, is a candidate that does not fail the same way.
        let (out, _) = run_seed_with(self.registry, &capped, self.seed, self.bugs, case.overrides()).ok()?;
        (cause(&out).as_deref() == Some(self.target.as_str()) && (self.keep)(&out)).then_some(out)
    }

    /// Fewer fault-plan entries: first judged on the cause alone, since a
    /// run that goes on longer on the way may end shorter than the report's
    /// (kept only if it does), then with every step no longer than the best.
    pub fn plan(&mut self, freely: bool) -> Result<(), String> {
        if freely {
            self.plan_freely()?;
        }
        let left = self.left();
        let entries = self.best.plan.clone();
        minimize(entries, left, &mut |plan| {
            let case = Case {
                plan: plan.to_vec(),
                ..self.best.clone()
            };
            Ok(self.try_case(case))
        })?;
        Ok(())
    }

    fn plan_freely(&mut self) -> Result<(), String> {
        let base = self.best.clone();
        // Runs far longer than the report's are not worth their time here.
        let cap = self.best_out.trace.len() as u64 * FREE_GROWTH_MAX;
        let mut last = None;
        minimize(base.plan.clone(), self.left(), &mut |plan| {
            let case = Case {
                plan: plan.to_vec(),
                ..base.clone()
            };
            let out = self.run_failing(&case, cap);
            let fails = out.is_some();
            if let Some(out) = out {
                last = Some((case, out));
            }
            Ok(fails)
        })?;
        if let Some((case, out)) = last.filter(|(_, out)| out.trace.len() <= self.best_out.trace.len()) {
            self.best = case;
            self.best_out = out;
        }
        Ok(())
    }

    /// An explored run's deviations taken back one at a time, the latest
    /// first (a deviation is a move other than the natural one): each the
    /// walk made that the failure does not need. Past the last deviation a
    /// tape takes natural moves, so it ends there.
    pub fn tape(&mut self) -> Result<(), String> {
        let Some(tape) = self.best.tape.clone() else {
            return Ok(());
        };
        for at in (0..tape.choices.len()).rev() {
            if self.exhausted() {
                break;
            }
            let Some(mut t) = self
                .best
                .tape
                .clone()
                .filter(|t| t.choices.get(at).is_some_and(|&c| c != 0))
            else {
                continue;
            };
            t.choices[at] = 0;
            while t.choices.last() == Some(&0) {
                t.choices.pop();
            }
            let case = Case {
                tape: Some(t),
                ..self.best.clone()
            };
            self.try_case(case);
        }
        Ok(())
    }

    /// Chaos kept only on the messages the failure needs.
    pub fn chaos(&mut self) -> Result<(), String> {
        let ids = self.chaos_ids();
        if ids.is_empty() {
            return Ok(());
        }
        // The same run said the other way round: every other message calm.
        // Calming a message chaos left alone changes nothing.
        self.best.calm = Calm::all_but(&ids);
        let left = self.left();
        minimize(ids, left, &mut |kept| {
            let case = Case {
                calm: Calm::all_but(kept),
                ..self.best.clone()
            };
            Ok(self.try_case(case))
        })?;
        // A kept id may name a message chaos no longer touches in this run.
        self.best.calm = Calm::all_but(&self.chaos_ids());
        Ok(())
    }

    fn chaos_ids(&self) -> Vec<u64> {
        self.best_out.chaos.iter().map(|(id, _)| *id).collect()
    }

    /// The run cut off just after the violation: a verdict reached in the
    /// safety phase needs no liveness phase after it. A verdict judged at
    /// the end of the run (liveness) leaves nothing to cut.
    pub fn length(&mut self) -> Result<(), String> {
        let now = &self.best.scenario;
        let end_ms = self.best_out.sim_ns / MS + 1;
        let mut s = now.clone();
        if end_ms < now.safety_ms {
            s.safety_ms = end_ms;
            s.liveness_ms = shortest_liveness_ms(&s);
        } else if end_ms < now.safety_ms + now.liveness_ms {
            s.liveness_ms = (end_ms - now.safety_ms).max(shortest_liveness_ms(&s));
        }
        if s != *now {
            let case = Case {
                scenario: s,
                ..self.best.clone()
            };
            self.try_case(case);
        }
        Ok(())
    }

    /// Runs the best case once more, without the cap on events, for the
    /// report; it must repeat itself.
    pub fn confirm(&mut self) -> Result<(RunOutcome, u64), String> {
        self.runs += 1;
        let b = &self.best;
        let (out, wall_ms) = run_seed_with(self.registry, &b.scenario, self.seed, self.bugs, b.overrides())?;
        let (was, now) = (self.best_out.trace.hash_hex(), out.trace.hash_hex());
        if was != now {
            return Err(format!(
                "the shrunk run did not repeat itself (trace {was}, then {now}): a determinism defect"
            ));
        }
        Ok((out, wall_ms))
    }
}

/// The shortest liveness phase the scenario allows: none, unless it checks
/// liveness, whose closing tail must fit inside the phase.
fn shortest_liveness_ms(s: &Scenario) -> u64 {
    if s.invariants.iter().any(|i| i == "liveness") {
        s.liveness.tail_ms + 1
    } else {
        0
    }
}
