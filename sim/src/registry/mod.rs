//! The registry: every model dst can run, registered once with its config
//! type, its machine factory, its bug switches, its coverage goals and its
//! own invariants, together with the scenarios that come built in. Every
//! command reads this and nothing else, so a user's model behaves exactly
//! like a built-in one: scenarios name it by `"model"`, `dst list` shows it,
//! reports replay it.
//!
//! ```
//! use sim::{Bug, ModelDef, Registry};
//! # use sim::{Io, Machine, MsgInfo, NodeId, SyncTicket, TimerId};
//! # use sim::{ClientReply, ClientReq};
//! # #[derive(Clone, Debug, serde::Serialize)] struct Ping;
//! # impl MsgInfo for Ping { fn kind(&self) -> &'static str { "ping" } }
//! # struct Node { slow: bool }
//! # impl Machine for Node {
//! #     type Msg = Ping; type Rec = ();
//! #     fn boot(&mut self, _: &mut Io<Self>) {}
//! #     fn on_message(&mut self, _: NodeId, _: Ping, _: &mut Io<Self>) {}
//! #     fn on_timer(&mut self, _: TimerId, _: &mut Io<Self>) {}
//! #     fn on_client(&mut self, r: ClientReq, io: &mut Io<Self>) { io.reply(r.req_id, ClientReply::Unknown) }
//! #     fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
//! # }
//! #[derive(Clone, Default, serde::Deserialize)]
//! #[serde(default, deny_unknown_fields)]
//! struct Config { tick_ms: u64 }
//!
//! let mut registry = Registry::new();
//! registry.add(
//!     ModelDef::new("pinger", "a toy", |setup: sim::Setup<'_, Config>| {
//!         let slow = setup.bug("slow-ack");
//!         Ok(move |_id| Node { slow })
//!     })
//!     .bugs(&[Bug {
//!         id: "slow-ack",
//!         kind: "liveness",
//!         invariants: &["liveness"],
//!         scenario: "pinger-basic",
//!         summary: "acks wait for the next tick",
//!     }])
//!     .goals(&[("pinged", "a ping went round")]),
//! );
//! assert!(registry.model("pinger").is_ok());
//! assert!(registry.model("paxos").unwrap_err().contains("unknown model 'paxos'"));
//! ```

mod model;
mod switches;

use model::Runner;
pub use model::{Bug, InvariantDef, ModelDef, NoConfig, RealBug, Setup};
pub use switches::catalogue_matches;

use crate::check::{self, Invariant};
use crate::nemesis::PlanEntry;
use crate::scenario::{Expect, Scenario};
use crate::world::{Overrides, RunOutcome, RunSpec};

/// The stack of the thread an async run gets: deep futures (a Raft
/// library's core loop inside its runtime glue) need more than a thread's
/// default.
const ASYNC_STACK_BYTES: usize = 64 << 20;

/// Every model and built-in scenario one `dst` binary knows.
#[derive(Default)]
pub struct Registry {
    models: Vec<ModelDef>,
    scenarios: Vec<Scenario>,
}

impl Registry {
    /// An empty registry: no model, no built-in scenario.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a model. Its name, bug ids and invariant ids must be new:
    /// a clash is a defect of the program that builds the registry, so it
    /// panics at once.
    pub fn add(&mut self, model: ModelDef) -> &mut Self {
        assert!(
            self.model(&model.name).is_err(),
            "model '{}' is registered twice",
            model.name
        );
        for b in &model.bugs {
            assert!(self.find_bug(b.id).is_err(), "bug id '{}' is registered twice", b.id);
        }
        for b in &model.real_bugs {
            assert!(
                self.find_real_bug(b.id).is_none(),
                "real bug '{}' is registered twice",
                b.id
            );
        }
        for id in model.generic.iter().flatten() {
            assert!(
                check::GENERIC.iter().any(|(g, _)| g == id),
                "model '{}' names '{id}', which is no generic invariant",
                model.name
            );
        }
        for inv in &model.invariants {
            assert!(
                !check::GENERIC.iter().any(|(id, _)| *id == inv.id),
                "model '{}' redefines the generic invariant '{}'",
                model.name,
                inv.id
            );
        }
        self.models.push(model);
        self
    }

    /// Adds a built-in scenario from its JSON text (for example an
    /// `include_str!` of a file). Panics if the text is not a scenario: it
    /// is compiled into the program, so that is a defect of the program;
    /// [`Registry::check`] validates every built-in scenario in a test.
    pub fn scenario(&mut self, json: &str) -> &mut Self {
        let s = Scenario::from_json(json).unwrap_or_else(|e| panic!("a built-in scenario is invalid: {e}"));
        assert!(
            self.builtin(&s.name).is_none(),
            "built-in scenario '{}' is registered twice",
            s.name
        );
        self.scenarios.push(s);
        self
    }

    /// The registered models, in the order they were added.
    pub fn models(&self) -> &[ModelDef] {
        &self.models
    }

    /// The built-in scenarios, in the order they were added.
    pub fn scenarios(&self) -> &[Scenario] {
        &self.scenarios
    }

    /// The built-in scenario called `name`.
    pub fn builtin(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.name == name)
    }

    /// The model called `name`, or an error that lists the known ones.
    pub fn model(&self, name: &str) -> Result<&ModelDef, String> {
        self.models.iter().find(|m| m.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.models.iter().map(|m| m.name.as_str()).collect();
            format!("unknown model '{name}' (known: {})", known.join(", "))
        })
    }

    /// Every bug switch with the model it belongs to.
    pub fn bugs(&self) -> impl Iterator<Item = (&ModelDef, &Bug)> {
        self.models.iter().flat_map(|m| m.bugs.iter().map(move |b| (m, b)))
    }

    /// Every real bug with the model (the buggy release) it belongs to.
    pub fn real_bugs(&self) -> impl Iterator<Item = (&ModelDef, &RealBug)> {
        self.models.iter().flat_map(|m| m.real_bugs.iter().map(move |b| (m, b)))
    }

    /// The bug switch `id` with its model, or an error that lists the known ids.
    pub fn find_bug(&self, id: &str) -> Result<(&ModelDef, &Bug), String> {
        self.bugs().find(|(_, b)| b.id == id).ok_or_else(|| {
            let ids: Vec<&str> = self.bugs().map(|(_, b)| b.id).collect();
            format!("unknown bug '{id}' (known: {})", ids.join(", "))
        })
    }

    /// The real bug `id` with its model (the buggy release); `None` if unknown.
    pub fn find_real_bug(&self, id: &str) -> Option<(&ModelDef, &RealBug)> {
        self.real_bugs().find(|(_, b)| b.id == id)
    }

    /// Every invariant a scenario of `model` may name: the generic ones,
    /// then the model's own.
    pub fn invariants_of<'a>(&'a self, model: &'a ModelDef) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        check::GENERIC
            .iter()
            .copied()
            .filter(|(id, _)| model.generic.as_ref().is_none_or(|g| g.contains(id)))
            .chain(model.invariants.iter().map(|i| (i.id, i.holds_when)))
    }

    /// Every invariant any registered model may use, each once.
    pub fn all_invariants(&self) -> Vec<(&str, &str)> {
        let mut all: Vec<(&str, &str)> = check::GENERIC.to_vec();
        for m in &self.models {
            for i in &m.invariants {
                if !all.iter().any(|(id, _)| *id == i.id) {
                    all.push((i.id, i.holds_when));
                }
            }
        }
        all
    }

    /// A built-in scenario by name, or a scenario file by path, validated
    /// against its model; the error is one line (naming the file, if any).
    pub fn load(&self, name_or_path: &str) -> Result<Scenario, String> {
        self.load_unescaped(name_or_path)
            .map_err(|e| crate::one_line::one_line(&e))
    }

    fn load_unescaped(&self, name_or_path: &str) -> Result<Scenario, String> {
        if let Some(s) = self.builtin(name_or_path) {
            let s = s.clone();
            self.validate(&s, &[])?;
            self.validate_draws(&s)?;
            return Ok(s);
        }
        if !name_or_path.ends_with(".json") && !std::path::Path::new(name_or_path).exists() {
            let names: Vec<&str> = self.scenarios.iter().map(|s| s.name.as_str()).collect();
            return Err(format!(
                "unknown scenario '{name_or_path}' (built-in: {}; or give a .json path)",
                names.join(", ")
            ));
        }
        let text = crate::host::files::read_input_text(
            std::path::Path::new(name_or_path),
            crate::host::files::SMALL_INPUT_BYTES_MAX,
        )
        .map_err(|e| format!("cannot read scenario {name_or_path}: {e}"))?;
        Scenario::from_json(&text)
            .and_then(|s| match s.varied.is_empty() {
                true => Ok(s),
                // Written by dst into a scenario as it ran; a file that
                // claims it would say it ran what it never drew.
                false => Err(format!(
                    "scenario {}: `varied` is what a run drew, written by dst into a report's config; a scenario file asks for draws with `vary`",
                    s.name
                )),
            })
            .and_then(|s| self.validate(&s, &[]).map(|_| s))
            .and_then(|s| self.validate_draws(&s).map(|_| s))
            .map_err(|e| format!("{name_or_path}: {e}"))
    }

    /// Checks that no draw of the scenario's `vary` can give a scenario
    /// out of range or a config its model refuses: every combination of
    /// the knobs' extremes is tried.
    pub fn validate_draws(&self, scenario: &Scenario) -> Result<(), String> {
        for values in crate::vary::corners(&scenario.vary) {
            let when = |e: String| {
                let knobs: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{e} (when vary draws {})", knobs.join(", "))
            };
            let corner = scenario.with_knobs(&values).map_err(when)?;
            self.validate(&corner, &[]).map_err(when)?;
        }
        Ok(())
    }

    /// Checks a scenario and bug switches against the registry: a known
    /// model, invariants it may use, coverage goals it declares, bugs of
    /// its own, and a config its builder accepts. The error is one line.
    pub fn validate(&self, scenario: &Scenario, bugs: &[String]) -> Result<(), String> {
        self.prepare(scenario, bugs).map(|_| ())
    }

    fn prepare(&self, scenario: &Scenario, bugs: &[String]) -> Result<Runner, String> {
        let n = &scenario.name;
        scenario.validate()?;
        let model = self.model(&scenario.model).map_err(|e| format!("scenario {n}: {e}"))?;
        for (field, ids) in [("invariants", &scenario.invariants), ("coverage", &scenario.coverage)] {
            if let Some(id) = ids
                .iter()
                .enumerate()
                .find_map(|(i, id)| ids[..i].contains(id).then_some(id))
            {
                return Err(format!("scenario {n}: {field} lists '{id}' twice"));
            }
        }
        for id in &scenario.invariants {
            if !self.invariants_of(model).any(|(i, _)| i == id) {
                let known: Vec<&str> = self.invariants_of(model).map(|(i, _)| i).collect();
                return Err(format!(
                    "scenario {n}: unknown invariant '{id}' for model {} (known: {})",
                    model.name,
                    known.join(", ")
                ));
            }
        }
        match &scenario.expect {
            Expect::Violation(id) if !scenario.invariants.contains(id) => {
                return Err(format!(
                    "scenario {n}: expects a violation of '{id}', which it does not check"
                ));
            }
            Expect::RealBugs(ids) => {
                if let Some(id) = ids.iter().find(|id| !model.real_bugs.iter().any(|b| b.id == *id)) {
                    return Err(format!(
                        "scenario {n}: expects real bug '{id}', which model {} does not carry",
                        model.name
                    ));
                }
                if ids.is_empty() {
                    return Err(format!("scenario {n}: expects real bugs but names none"));
                }
            }
            _ => {}
        }
        for goal in &scenario.coverage {
            if !model.goals.iter().any(|(g, _)| g == goal) {
                let known: Vec<&str> = model.goals.iter().map(|(g, _)| *g).collect();
                return Err(format!(
                    "scenario {n}: unknown coverage goal '{goal}' for model {} (known: {})",
                    model.name,
                    known.join(", ")
                ));
            }
        }
        for id in bugs {
            let (owner, _) = self.find_bug(id)?;
            if owner.name != model.name {
                return Err(format!(
                    "bug '{id}' belongs to model {}, not to scenario {n}'s {}",
                    owner.name, model.name
                ));
            }
        }
        let runner = (model.prepare)(scenario, bugs)?;
        if scenario.invariants.is_empty() {
            return Err(format!(
                "scenario {n}: invariants is empty, so only a panic could fail a run (name at least one of model {}'s)",
                model.name
            ));
        }
        Ok(runner)
    }

    /// What a scenario declares its runs may show without it being a
    /// finding: the invariant of a documented limit, or what a real bug of
    /// its pinned release shows as.
    pub fn expected_causes(&self, scenario: &Scenario) -> Vec<String> {
        match &scenario.expect {
            Expect::Pass => Vec::new(),
            Expect::Violation(id) => vec![id.clone()],
            Expect::RealBugs(ids) => {
                let mut causes: Vec<String> = Vec::new();
                for (_, b) in ids.iter().filter_map(|id| self.find_real_bug(id)) {
                    for i in b.invariants {
                        if !causes.iter().any(|c| c == i) {
                            causes.push(i.to_string());
                        }
                    }
                }
                causes
            }
        }
    }

    /// How a run of `scenario` with `bugs` on counts: pass, expected, or a finding.
    pub fn classify(&self, out: &RunOutcome, scenario: &Scenario, bugs: &[String]) -> crate::world::Class {
        crate::world::classify(out, &self.expected_causes(scenario), bugs)
    }

    /// The checkers a scenario asks for.
    pub fn checkers(&self, scenario: &Scenario) -> Result<Vec<Box<dyn Invariant>>, String> {
        let model = self.model(&scenario.model)?;
        scenario
            .invariants
            .iter()
            .map(|id| {
                generic_checker(id, scenario)
                    .or_else(|| {
                        model
                            .invariants
                            .iter()
                            .find(|i| i.id == id)
                            .map(|i| (i.build)(scenario))
                    })
                    .ok_or_else(|| format!("scenario {}: unknown invariant '{id}'", scenario.name))
            })
            .collect()
    }

    /// Runs one seed of `scenario` with `bugs` on: draws its configuration
    /// (if it varies any) and its fault plan from the seed, unless `plan` is
    /// given. The outcome holds the scenario as it ran.
    pub fn run(
        &self,
        scenario: &Scenario,
        seed: u64,
        bugs: &[String],
        plan: Option<Vec<PlanEntry>>,
    ) -> Result<RunOutcome, String> {
        self.run_with(
            scenario,
            seed,
            bugs,
            Overrides {
                plan,
                ..Overrides::default()
            },
        )
    }

    /// [`Registry::run`] with what `fixed` pins instead of drawing it.
    pub fn run_with(
        &self,
        scenario: &Scenario,
        seed: u64,
        bugs: &[String],
        fixed: Overrides,
    ) -> Result<RunOutcome, String> {
        let is_async = self.model(&scenario.model).is_ok_and(|m| m.is_async);
        if !is_async {
            return self.run_here(scenario, seed, bugs, fixed);
        }
        if fixed.explore.is_some() {
            return Err(format!(
                "scenario {}: model {} runs async nodes, which explore does not drive yet (sans-IO models only)",
                scenario.name, scenario.model
            ));
        }
        // An async run gets a thread of its own: std's hash keys are drawn
        // once per thread, and madsim seeds them only on a fresh one. The
        // thread's heap peak counts as this thread's (for `dst bench`).
        let ran = std::thread::scope(|s| {
            let thread = std::thread::Builder::new()
                .name(format!("dst-seed-{seed}"))
                .stack_size(ASYNC_STACK_BYTES)
                .spawn_scoped(s, || {
                    let mark = crate::mem::mark();
                    let out = self.run_here(scenario, seed, bugs, fixed);
                    (out, crate::mem::peak_since(mark))
                })
                .map_err(|e| format!("cannot start a thread for seed {seed}: {e}"))?;
            Ok::<_, String>(thread.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        });
        let (out, peak) = ran?;
        if let Some(bytes) = peak {
            crate::mem::note_peak(bytes);
        }
        out
    }

    fn run_here(
        &self,
        scenario: &Scenario,
        seed: u64,
        bugs: &[String],
        fixed: Overrides,
    ) -> Result<RunOutcome, String> {
        let scenario = &scenario.drawn(seed)?;
        let runner = self.prepare(scenario, bugs)?;
        if let Some(plan) = &fixed.plan {
            crate::nemesis::check_plan(plan, scenario.nodes, &scenario.faults.spared)
                .map_err(|e| format!("scenario {}: {e}", scenario.name))?;
        }
        let spec = RunSpec {
            scenario,
            seed,
            plan: fixed.plan,
            calm: fixed.calm,
            checkers: self.checkers(scenario)?,
            keep: fixed.keep,
            hash: fixed.hash,
            cut_at: fixed.cut_at,
            explore: fixed.explore,
            explore_known: fixed.explore_known,
        };
        Ok(runner(spec))
    }

    /// Validates every built-in scenario and every bug's and real bug's
    /// scenario reference: for a test of the program that builds the registry.
    pub fn check(&self) -> Result<(), String> {
        for s in &self.scenarios {
            self.validate(s, &[])?;
            self.validate_draws(s)?;
            if s.coverage.is_empty() {
                return Err(format!("scenario {}: no coverage goal", s.name));
            }
        }
        for (m, b) in self.bugs() {
            let s = self.load(b.scenario).map_err(|e| format!("bug {}: {e}", b.id))?;
            if s.model != m.name {
                return Err(format!(
                    "bug {}: scenario {} runs model {}, not {}",
                    b.id, s.name, s.model, m.name
                ));
            }
            for inv in b.invariants {
                if !s.invariants.iter().any(|i| i == inv) {
                    return Err(format!("bug {}: scenario {} does not check {inv}", b.id, s.name));
                }
            }
        }
        for (m, b) in self.real_bugs() {
            let s = self.load(b.scenario).map_err(|e| format!("real bug {}: {e}", b.id))?;
            if s.model != m.name {
                return Err(format!(
                    "real bug {}: scenario {} runs model {}, not {}",
                    b.id, s.name, s.model, m.name
                ));
            }
            if let Some(fixed) = b.fixed_scenario {
                self.load(fixed).map_err(|e| format!("real bug {}: {e}", b.id))?;
            }
        }
        Ok(())
    }
}

/// Builds the generic checker named `id` for a scenario; `None` if `sim`
/// has no invariant of that name. Checkers take their parameters (cluster
/// size, bounds, deadlines) from the scenario.
fn generic_checker(id: &str, scenario: &Scenario) -> Option<Box<dyn Invariant>> {
    let (nodes, liveness) = (scenario.nodes, &scenario.liveness);
    Some(match id {
        "no-dual-leaders" => Box::new(check::NoDualLeaders::default()),
        "state-machine-safety" => Box::new(check::StateMachineSafety::default()),
        "no-double-apply" => Box::new(check::NoDoubleApply::default()),
        "liveness" => Box::new(check::Liveness::new(liveness.clone(), nodes)),
        "linearizable" => Box::new(check::Linearizable::default()),
        "bounded-staleness" => Box::new(check::BoundedStaleness::default()),
        "lease-exclusive" => Box::new(check::LeaseExclusive::default()),
        "hlc-bounded" => Box::new(check::HlcBounded::new(scenario.max_clock_skew_ms)),
        _ => return None,
    })
}
