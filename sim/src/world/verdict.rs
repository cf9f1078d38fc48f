//! What a run is asked to do and what it hands back.

use crate::calm::Calm;
use crate::check::{Invariant, Violation};
use crate::nemesis::{PlanEntry, SwarmDraw};
use crate::net::Chaos;
use crate::scenario::Scenario;
use crate::trace::{Keep, Trace, TraceHash};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Violation,
    /// The run itself broke: a panic in a model, an exhausted event budget.
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invariant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
    #[serde(default)]
    pub evidence: Vec<u64>,
}

impl Verdict {
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
    pub scenario: &'a Scenario,
    pub seed: u64,
    /// Replay this plan instead of drawing one (an edited or shrunk plan).
    pub plan: Option<Vec<PlanEntry>>,
    /// Messages whose chaos is switched off (a shrunk report's).
    pub calm: Calm,
    pub checkers: Vec<Box<dyn Invariant>>,
    /// Which events the run holds in memory (its hash covers all of them).
    pub keep: Keep,
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
    pub plan: Option<Vec<PlanEntry>>,
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
    pub seed: u64,
    pub verdict: Verdict,
    pub draw: SwarmDraw,
    pub plan: Vec<PlanEntry>,
    /// The messages the run kept calm.
    pub calm: Calm,
    pub trace: Trace,
    pub coverage: BTreeSet<String>,
    pub counters: BTreeMap<String, u64>,
    pub messages: u64,
    /// The messages chaos dropped, duplicated or held back, by id in
    /// order; calm messages are not among them.
    pub chaos: Vec<(u64, Chaos)>,
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
