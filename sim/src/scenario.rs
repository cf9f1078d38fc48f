//! A scenario: the cluster, its workload, its fault profile, the invariants
//! it checks, the coverage goals it must reach and the outcome it expects.

use crate::bounds;
use crate::check::LivenessParams;
use crate::links::LinkMode;
use crate::nemesis::FaultProfile;
use crate::one_line::one_line;
use crate::vary::{self, Vary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A scenario as its JSON file gives it; every run of one seed of it is the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The name commands, reports and report file names use: one line, at most [`NAME_MAX`] bytes.
    pub name: String,
    /// What `dst list` shows beside the name; empty if absent.
    #[serde(default)]
    pub description: String,
    /// Which registered model runs ("raft").
    pub model: String,
    /// Nodes in the cluster, numbered from 0; 1 to [`NODES_MAX`].
    pub nodes: usize,
    /// How messages travel (see [`crate::links::LinkMode`]): `datagram`,
    /// each its own fate, or `stream`, connections as TCP gives them.
    #[serde(default, skip_serializing_if = "LinkMode::is_datagram")]
    pub links: LinkMode,
    /// Model knobs, read by the model (election timeouts, compaction, ..).
    #[serde(default)]
    pub config: serde_json::Value,
    /// The clients and the ops they send.
    #[serde(default)]
    pub workload: WorkloadConfig,
    /// Which faults the run may inject, and how hard.
    #[serde(default)]
    pub faults: FaultProfile,
    /// Length of the phase with faults.
    #[serde(default = "default_safety_ms")]
    pub safety_ms: u64,
    /// Length of the phase after the heal, in which the system must converge.
    #[serde(default = "default_liveness_ms")]
    pub liveness_ms: u64,
    /// Ids of the invariants checked on every event ("linearizable", "no-dual-leaders", ..).
    pub invariants: Vec<String>,
    /// What the `liveness` invariant allows after the heal.
    #[serde(default)]
    pub liveness: LivenessParams,
    /// The clock-skew bound the system assumes (MAX_CLOCK_SKEW): models
    /// size their margins by it and checkers judge against it. Faults may
    /// exceed it on purpose.
    #[serde(default = "default_max_clock_skew_ms")]
    pub max_clock_skew_ms: u64,
    /// `sometimes` goals: states a run should reach; fuzz fails a scenario
    /// whose goals no seed reached.
    #[serde(default)]
    pub coverage: Vec<String>,
    /// The outcome the scenario expects of the correct model; a pass if absent.
    #[serde(default)]
    pub expect: Expect,
    /// How many seeds a run needs before an expected violation that no
    /// seed showed fails it: a real bug one seed in a hundred shows is not
    /// missing from a run of eight. A run of fewer seeds says so and leaves
    /// the expectation unjudged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_within_seeds: Option<u64>,
    /// Upper bound on trace events; a run that needs more is a finding.
    #[serde(default = "default_event_budget")]
    pub event_budget: u64,
    /// Knobs drawn per seed ("config.heartbeat_ms": {"range": [20, 60]},
    /// "nodes": {"one-of": [3, 5]}): swarm over configuration.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vary: BTreeMap<String, Vary>,
    /// In a scenario as it ran: the values its `vary` drew for the seed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub varied: BTreeMap<String, serde_json::Value>,
}

/// The largest cluster a scenario may run.
pub const NODES_MAX: usize = 9;
/// The most clients a workload may run.
pub const CLIENTS_MAX: u32 = 100;
/// The most keys a workload may touch.
pub const KEYS_MAX: u32 = 1_000_000;
/// The largest weight of one op kind, and the most retries of one op.
pub const WEIGHT_MAX: u32 = 1_000_000;
/// The most retries of one op (`workload.retries_max`).
pub const RETRIES_MAX: u32 = 1_000;
/// Invariants that judge the client history: with no client they would
/// pass without judging anything.
const CLIENT_INVARIANTS: &[&str] = &["linearizable", "bounded-staleness", "liveness"];

fn default_safety_ms() -> u64 {
    10_000
}
fn default_liveness_ms() -> u64 {
    10_000
}
fn default_max_clock_skew_ms() -> u64 {
    5_000
}
fn default_event_budget() -> u64 {
    2_000_000
}

/// What a scenario's runs should show: `"pass"`, `{"violation": ID}` or `{"real-bugs": [..]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// The correct model violates nothing.
    #[default]
    Pass,
    /// The correct model must violate this invariant: a documented limit
    /// (for example clock skew beyond the bound a lease relies on).
    Violation(String),
    /// The model is a pinned release with these registered real bugs: what
    /// they show as (their invariants, or the release's own panic) is
    /// expected, and some seed must show it.
    RealBugs(Vec<String>),
}

/// The clients of a scenario (`workload`) and the mix of ops they send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkloadConfig {
    /// Clients, each with one op in flight at a time; 0 to [`CLIENTS_MAX`].
    pub clients: u32,
    /// Keys the ops touch, numbered from 0; each op draws one.
    pub keys: u32,
    /// Pause between one op's end and the next invoke, drawn up to this.
    pub think_ms_max: u64,
    /// A reply not back by then makes the op `info` (outcome unknown).
    pub op_timeout_ms: u64,
    /// Retries of a definitely-rejected op (not the leader, node down).
    pub retries_max: u32,
    /// Longest wait before a retry, in ms: each wait is drawn from 1 ms up to it.
    pub retry_backoff_ms: u64,
    /// Relative weights of the op mix.
    pub put_weight: u32,
    /// Weight of appends, which add the op's unique value to the key's list.
    pub append_weight: u32,
    /// Weight of linearizable reads of a whole value.
    pub get_weight: u32,
    /// Weight of compare-and-sets.
    pub cas_weight: u32,
    /// Reads any replica may serve within the staleness bound (`follower-get`).
    pub follower_get_weight: u32,
    /// Cut the run into spells this long (0: off), each read-only with
    /// probability one half: a read-mostly service sees quiet stretches
    /// between bursts of writes. In a read-only spell writes become gets.
    pub read_spell_ms: u64,
    /// Each client starts every op at its own node (client i at node
    /// i mod nodes), as a client bound to one server does, and follows
    /// refusals from there; otherwise it starts at the last node that
    /// served it as leader.
    pub bound_clients: bool,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            clients: 3,
            keys: 3,
            think_ms_max: 50,
            op_timeout_ms: 1_000,
            retries_max: 10,
            retry_backoff_ms: 20,
            put_weight: 2,
            append_weight: 4,
            get_weight: 3,
            cas_weight: 1,
            follower_get_weight: 0,
            read_spell_ms: 0,
            bound_clients: false,
        }
    }
}

impl WorkloadConfig {
    fn validate(&self) -> Result<(), String> {
        bounds::within("workload.clients", self.clients, 0..=CLIENTS_MAX)?;
        bounds::within("workload.keys", self.keys, 1..=KEYS_MAX)?;
        bounds::ms("workload.think_ms_max", self.think_ms_max, 0)?;
        bounds::ms("workload.op_timeout_ms", self.op_timeout_ms, 1)?;
        bounds::within("workload.retries_max", self.retries_max, 0..=RETRIES_MAX)?;
        bounds::ms("workload.retry_backoff_ms", self.retry_backoff_ms, 0)?;
        bounds::ms("workload.read_spell_ms", self.read_spell_ms, 0)?;
        let weights = [
            ("workload.put_weight", self.put_weight),
            ("workload.append_weight", self.append_weight),
            ("workload.get_weight", self.get_weight),
            ("workload.cas_weight", self.cas_weight),
            ("workload.follower_get_weight", self.follower_get_weight),
        ];
        for (field, w) in weights {
            bounds::within(field, w, 0..=WEIGHT_MAX)?;
        }
        if weights.iter().all(|(_, w)| *w == 0) {
            return Err("workload: every op weight is 0, so clients have no op to send".into());
        }
        Ok(())
    }
}

/// Longest scenario name, in bytes.
pub const NAME_MAX: usize = 120;

/// A scenario's name is printed, put in file names and in summaries: one
/// line of printable text, bounded. (File names take a safe form of it.)
fn check_name(name: &str) -> Result<(), String> {
    if !crate::one_line::is_one_line(name) || name.trim() != name {
        return Err(format!(
            "scenario name {} must be one line of printable text, without leading or trailing spaces",
            one_line(&format!("{name:?}"))
        ));
    }
    if name.len() > NAME_MAX {
        return Err(format!(
            "scenario name {}... is {} bytes long; at most {NAME_MAX} are allowed",
            name.chars().take(40).collect::<String>(),
            name.len()
        ));
    }
    Ok(())
}

impl Scenario {
    /// This scenario with its labels blanked (name, description, model and
    /// what it expects): the world it runs. Scenarios of two releases of one
    /// system under the same knobs compare equal this way.
    pub fn world_only(&self) -> Scenario {
        Scenario {
            name: String::new(),
            description: String::new(),
            model: String::new(),
            expect: Expect::Pass,
            expect_within_seeds: None,
            ..self.clone()
        }
    }

    /// Parse and check what needs no model; the error is one line fit for a
    /// user. [`crate::Registry::validate`] checks the rest.
    pub fn from_json(text: &str) -> Result<Scenario, String> {
        let s: Scenario =
            crate::host::strict::from_str(text).map_err(|e| one_line(&format!("invalid scenario JSON: {e}")))?;
        s.validate().map_err(|e| one_line(&e))?;
        Ok(s)
    }

    /// The scenario with each knob set to `values[path]`, re-read so that every
    /// value is checked as if the file had held it.
    pub fn with_knobs(&self, values: &BTreeMap<String, serde_json::Value>) -> Result<Scenario, String> {
        let name = &self.name;
        let mut json = serde_json::to_value(self).map_err(|e| format!("scenario {name}: {e}"))?;
        for (path, value) in values {
            vary::set(&mut json, path, value.clone()).map_err(|e| format!("scenario {name}: vary.{path}: {e}"))?;
        }
        json["vary"] = serde_json::Value::Object(Default::default());
        json["varied"] = serde_json::to_value(values).expect("a map serializes");
        let s: Scenario = serde_json::from_value(json)
            .map_err(|e| format!("scenario {name}: a drawn configuration is invalid: {e}"))?;
        s.validate()?;
        Ok(s)
    }

    /// Every knob within its documented range (see [`crate::bounds`]);
    /// the error is one line naming the knob, its value and the range.
    pub fn validate(&self) -> Result<(), String> {
        check_name(&self.name)?;
        self.check_knobs().map_err(|e| format!("scenario {}: {e}", self.name))
    }

    fn check_knobs(&self) -> Result<(), String> {
        vary::check(&self.vary)?;
        bounds::within("nodes", self.nodes, 1..=NODES_MAX)?;
        bounds::ms("safety_ms", self.safety_ms, 1)?;
        // Zero is allowed: a shrunk safety violation needs no liveness phase.
        bounds::ms("liveness_ms", self.liveness_ms, 0)?;
        bounds::ms("max_clock_skew_ms", self.max_clock_skew_ms, 0)?;
        bounds::within("event_budget", self.event_budget, 1..=bounds::EVENT_BUDGET_MAX)?;
        if let Some(n) = self.expect_within_seeds {
            if self.expect == Expect::Pass {
                return Err("expect_within_seeds needs an expected violation or real bugs in `expect`".into());
            }
            bounds::within("expect_within_seeds", n, 1..=1_000_000)?;
        }
        bounds::ms("liveness.tail_ms", self.liveness.tail_ms, 0)?;
        if self.checks("liveness") {
            bounds::within_because(
                "liveness_ms",
                self.liveness_ms,
                1..=bounds::TIME_MS_MAX,
                "liveness is checked",
            )?;
            bounds::within_because(
                "liveness.tail_ms",
                self.liveness.tail_ms,
                0..=self.liveness_ms - 1,
                "shorter than liveness_ms",
            )?;
        }
        self.workload.validate()?;
        if let Some(id) = CLIENT_INVARIANTS.iter().find(|id| self.checks(id)) {
            bounds::within_because(
                "workload.clients",
                self.workload.clients,
                1..=CLIENTS_MAX,
                &format!("{id} judges client ops"),
            )?;
        }
        self.faults.validate(self.nodes)
    }

    fn checks(&self, invariant: &str) -> bool {
        self.invariants.iter().any(|i| i == invariant)
    }

    /// The scenario as seed `seed` runs it: every knob of `vary` drawn and
    /// set, `vary` emptied, the drawn values listed in `varied`.
    pub fn drawn(&self, seed: u64) -> Result<Scenario, String> {
        if self.vary.is_empty() {
            return Ok(self.clone());
        }
        self.with_knobs(&vary::draw(&self.vary, seed))
    }

    /// The scenario with its knobs at each combination of their extremes.
    pub fn corners(&self) -> Result<Vec<Scenario>, String> {
        vary::corners(&self.vary)
            .iter()
            .map(|values| self.with_knobs(values))
            .collect()
    }
}
