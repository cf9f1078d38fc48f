//! What a run is asked to do and what it hands back.

use crate::calm::Calm;
use crate::check::{Invariant, Violation};
use crate::nemesis::{PlanEntry, SwarmDraw};
use crate::net::Chaos;
use crate::scenario::Scenario;
use crate::trace::{Keep, Trace, TraceHash};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// No invariant broke, and neither did the run itself.
    Pass,
    /// An invariant broke; [`Verdict::invariant`] names it.
    Violation,
    /// The run itself broke: a panic in a model, an exhausted event budget.
    Error,
}

/// How a run ended, and the trace events that show why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether the run passed, an invariant broke, or the run itself did.
    pub status: Status,
    /// The id of the violated invariant; `None` unless `status` is a violation.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invariant: Option<String>,
    /// What went wrong, in words; `None` for a pass.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
    /// Positions in the trace ([`crate::Event::i`]) of the events that show it.
    #[serde(default)]
    pub evidence: Vec<u64>,
}

impl Verdict {
    /// The verdict of a run that passed.
    pub fn pass() -> Self {
        Verdict {
            status: Status::Pass,
            invariant: None,
            message: None,
            evidence: vec![],
        }
    }
    pub(super) fn violation(v: Violation) -> Self {
        Verdict {
            status: Status::Violation,
            invariant: Some(v.invariant),
            message: Some(v.message),
            evidence: v.evidence,
        }
    }
    pub(super) fn error(message: String, evidence: Vec<u64>) -> Self {
        Verdict {
            status: Status::Error,
            invariant: None,
            message: Some(message),
            evidence,
        }
    }
}

/// One run to do.
pub struct RunSpec<'a> {
    /// The scenario to run.
    pub scenario: &'a Scenario,
    /// The seed that fixes every draw of the run.
    pub seed: u64,
    /// Replay this plan instead of drawing one (an edited or shrunk plan).
    pub plan: Option<Vec<PlanEntry>>,
    /// Messages whose chaos is switched off (a shrunk report's).
    pub calm: Calm,
    /// The invariants fed every event as it happens; the first violation ends the run.
    pub checkers: Vec<Box<dyn Invariant>>,
    /// Which events the run holds in memory (its hash covers all of them).
    pub keep: Keep,
    /// The trace hash function (see [`Overrides::hash`]).
    pub hash: TraceHash,
    /// See [`Overrides::cut_at`].
    pub cut_at: Option<u64>,
    /// See [`Overrides::explore`].
    pub explore: Option<crate::explore::Tape>,
    /// See [`Overrides::explore_known`].
    pub explore_known: Option<crate::explore::Known>,
}

impl<'a> RunSpec<'a> {
    /// Seed `seed` of `scenario` as the seed draws it, with no checker,
    /// holding every event of its trace: set the fields that differ
    /// (`RunSpec { plan: Some(plan), ..RunSpec::new(&s, 3) }`).
    pub fn new(scenario: &'a Scenario, seed: u64) -> Self {
        RunSpec {
            scenario,
            seed,
            plan: None,
            calm: Calm::default(),
            checkers: Vec::new(),
            keep: Keep::All,
            hash: TraceHash::default(),
            cut_at: None,
            explore: None,
            explore_known: None,
        }
    }
}

/// What a run replays instead of drawing it from the seed (an edited or
/// shrunk plan, and messages kept calm), and how much of its trace it holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// Replay this plan instead of drawing one; `None`: the seed draws it.
    pub plan: Option<Vec<PlanEntry>>,
    /// Messages whose chaos is switched off.
    pub calm: Calm,
    /// By default the latest events ([`Keep::Last`]): a run of any length
    /// fits in bounded memory.
    pub keep: Keep,
    /// The trace hash function: a replayed report's own.
    pub hash: TraceHash,
    /// End the run as interrupted once it has taken this many events from
    /// its queue: an interrupted run's, so that it replays to its cut.
    pub cut_at: Option<u64>,
    /// Make the run's choices from this tape instead of drawing them (an
    /// explored run's; see [`crate::explore`]).
    pub explore: Option<crate::explore::Tape>,
    /// An explored run stops at the first state its walk has expanded.
    pub explore_known: Option<crate::explore::Known>,
}

impl Overrides {
    /// These overrides, holding every event of the run (for what reads
    /// the whole trace: replay's offline check, a view, search coverage).
    pub fn keeping_all(self) -> Overrides {
        Overrides {
            keep: Keep::All,
            ..self
        }
    }
}

/// What one run produced.
pub struct RunOutcome {
    /// The scenario as it ran (with a swarm over configuration, the drawn one).
    pub scenario: Scenario,
    /// The seed it ran.
    pub seed: u64,
    /// How it ended; a pass unless something broke.
    pub verdict: Verdict,
    /// What the swarm drew for the seed: fault kinds and message chaos.
    pub draw: SwarmDraw,
    /// The fault plan it carried out, drawn or replayed.
    pub plan: Vec<PlanEntry>,
    /// The messages the run kept calm.
    pub calm: Calm,
    /// Its events as [`RunSpec::keep`] held them, and the hash over all of them.
    pub trace: Trace,
    /// The `sometimes` goals the nodes reached.
    pub coverage: BTreeSet<String>,
    /// Numbers the checkers and the targeted faults report, by name.
    pub counters: BTreeMap<String, u64>,
    /// How many messages the nodes sent; their ids run from 1 to this.
    pub messages: u64,
    /// The messages chaos dropped, duplicated or held back, by id in
    /// order; calm messages are not among them.
    pub chaos: Vec<(u64, Chaos)>,
    /// True simulated time when the run ended, in ns since it began.
    pub sim_ns: u64,
    /// Set when an interruption cut the run short: how many events it had
    /// taken from its queue. Its verdict judges only the events before.
    pub interrupted: Option<u64>,
    /// The choices an explored run passed after its tape ran out, in order.
    pub points: Vec<crate::explore::Point>,
    /// An explored run's tape.
    pub tape: Option<crate::explore::Tape>,
}

impl crate::explore::search::Walked for RunOutcome {
    fn interrupted(&self) -> bool {
        self.interrupted.is_some()
    }

    fn coverage(&self) -> &BTreeSet<String> {
        &self.coverage
    }

    fn points(&self) -> &[crate::explore::Point] {
        &self.points
    }

    fn failed(&self) -> bool {
        self.verdict.status != Status::Pass
    }
}
