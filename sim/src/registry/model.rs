//! What one model brings to the registry: its bug switches, the real bugs
//! of the release it runs, its own invariants, and how to build its nodes
//! from a scenario's config.

use crate::check::Invariant;
use crate::machine::{Machine, NodeId};
use crate::scenario::Scenario;
use crate::world::{RunOutcome, RunSpec};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::Arc;

/// A bug switch: a defect the model can be told to have (`--bug ID`), and
/// where it must be caught.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bug {
    /// The id `--bug` takes; unique among the registry's bug switches.
    pub id: &'static str,
    /// "safety" or "liveness".
    pub kind: &'static str,
    /// The invariants that may catch it, the expected one first.
    pub invariants: &'static [&'static str],
    /// The scenario that exposes it.
    pub scenario: &'static str,
    /// What the defect does, as `dst list` shows it.
    pub summary: &'static str,
}

/// A defect of a pinned third-party release, found by running that release
/// itself: no switch, the buggy code is the model. Its fixed release, where
/// one exists, runs the same faults under `fixed_scenario` and must pass.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RealBug {
    /// The id a scenario's `{"real-bugs": [..]}` expectation names it by; unique
    /// among the registry's real bugs.
    pub id: &'static str,
    /// The release that has it ("raft 0.4.3").
    pub release: &'static str,
    /// The first release without it, and the change that fixed it; for a
    /// line that never released a fix, what did fix it elsewhere, if anything.
    pub fixed_in: &'static str,
    /// Where it is documented (an issue, a pull request).
    pub reference: &'static str,
    /// "safety" or "liveness".
    pub kind: &'static str,
    /// What may show it: invariants, and `panic` where the release's own
    /// assertions catch it first.
    pub invariants: &'static [&'static str],
    /// The scenario on the buggy release that exposes it.
    pub scenario: &'static str,
    /// The same faults on the fixed release; `None` when no release of
    /// the line fixes it (it was archived first), so nothing can pass in
    /// its place.
    pub fixed_scenario: Option<&'static str>,
    /// What goes wrong and how it shows, as `dst list` shows it.
    pub summary: &'static str,
}

/// Builds a model's invariant checker for a scenario.
pub(super) type BuildInvariant = Arc<dyn Fn(&Scenario) -> Box<dyn Invariant> + Send + Sync>;

/// A model's own invariant: its id, what it holds, and how to build its
/// checker for a scenario.
#[derive(Clone)]
pub struct InvariantDef {
    /// The name a scenario's `invariants` list it by; never a generic invariant's.
    pub id: &'static str,
    /// The property it checks, in one line, as `dst list` shows it.
    pub holds_when: &'static str,
    pub(super) build: BuildInvariant,
}

impl InvariantDef {
    /// The invariant `id`, holding when `holds_when`, whose checker `build` makes
    /// for a scenario that names it.
    pub fn new<F>(id: &'static str, holds_when: &'static str, build: F) -> InvariantDef
    where
        F: Fn(&Scenario) -> Box<dyn Invariant> + Send + Sync + 'static,
    {
        InvariantDef {
            id,
            holds_when,
            build: Arc::new(build),
        }
    }
}

/// The config of a model that has none: a scenario's `config` must then be
/// absent, `null` or `{}`, and any key in it is refused by name, as a
/// model with a config refuses a key it does not know. (serde's
/// `IgnoredAny` would take any config silently: a misspelt scenario would
/// run as if it said nothing.)
#[derive(Clone, Copy, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoConfig {}

/// What a model's builder gets: its parsed config, the scenario, and the
/// bug switches turned on (each already checked to be one of the model's).
pub struct Setup<'a, C> {
    /// The scenario's `config`, parsed as the model's config type.
    pub config: C,
    /// The scenario the nodes are built for.
    pub scenario: &'a Scenario,
    /// The ids of the bug switches turned on (see [`Setup::bug`]).
    pub bugs: &'a [String],
}

impl<C> Setup<'_, C> {
    /// Whether bug switch `id` is on.
    pub fn bug(&self, id: &str) -> bool {
        self.bugs.iter().any(|b| b == id)
    }
}

pub(super) type Runner = Box<dyn for<'s> FnOnce(RunSpec<'s>) -> RunOutcome>;
type Prepare = dyn Fn(&Scenario, &[String]) -> Result<Runner, String> + Send + Sync;

/// One model as dst knows it.
pub struct ModelDef {
    /// The name a scenario's `"model"` gives; unique in the registry.
    pub name: String,
    /// What the model is, in one line, as `dst list` shows it.
    pub about: String,
    /// Its bug switches.
    pub bugs: Vec<Bug>,
    /// Defects of the pinned release it runs.
    pub real_bugs: Vec<RealBug>,
    /// `sometimes` goals the model can mark reached: id and meaning.
    pub goals: Vec<(&'static str, &'static str)>,
    /// Its own invariants, which its scenarios may name beside the generic ones.
    pub invariants: Vec<InvariantDef>,
    /// The generic invariants whose events the model reports; `None`: all
    /// of them. A scenario may name no other, since a checker fed none of
    /// its events would pass without judging anything.
    pub generic: Option<Vec<&'static str>>,
    /// Whether its nodes are async code: each of its runs gets a thread
    /// of its own (see [`crate::async_node`]).
    pub is_async: bool,
    pub(super) prepare: Box<Prepare>,
}

impl ModelDef {
    /// A model named `name` whose scenario `config` parses as `C` (a JSON
    /// `null` or absent config reads as `{}`). `build` checks the config and
    /// returns the factory that makes a node's machine at every boot.
    pub fn new<C, M, G, F>(name: &str, about: &str, build: F) -> ModelDef
    where
        C: DeserializeOwned,
        M: Machine + 'static,
        G: Fn(NodeId) -> M + 'static,
        F: Fn(Setup<'_, C>) -> Result<G, String> + Send + Sync + 'static,
    {
        let model = name.to_string();
        let prepare = move |scenario: &Scenario, bugs: &[String]| -> Result<Runner, String> {
            let config: C = parse_config(&model, scenario)?;
            let factory =
                build(Setup { config, scenario, bugs }).map_err(|e| format!("scenario {}: {e}", scenario.name))?;
            Ok(Box::new(move |spec: RunSpec<'_>| crate::world::run(spec, factory)))
        };
        ModelDef::with_prepare(name, about, false, Box::new(prepare))
    }

    /// A model whose nodes are async code: `build` checks the config and
    /// returns the function every node incarnation runs as its main task
    /// (see [`crate::async_node`]). Everything else is as for
    /// [`ModelDef::new`].
    ///
    /// ```
    /// use sim::async_node::Ctx;
    /// use sim::{ModelDef, Registry, Setup};
    /// use sim::{ClientReply, KvResult};
    /// # #[derive(Clone, Debug, serde::Serialize)] struct Ping;
    /// # impl sim::MsgInfo for Ping { fn kind(&self) -> &'static str { "ping" } }
    ///
    /// async fn node(ctx: Ctx<Ping, ()>, eager: bool) {
    ///     loop {
    ///         let req = ctx.client_request().await;
    ///         let reply = if eager { ClientReply::Ok(KvResult::Done) } else { ClientReply::Unknown };
    ///         ctx.client_reply(req.req_id, reply);
    ///     }
    /// }
    ///
    /// let mut registry = Registry::new();
    /// registry.add(ModelDef::new_async("acker", "answers every client", |setup: Setup<'_, serde_json::Value>| {
    ///     let eager = !setup.bug("lazy");
    ///     Ok(move |ctx: Ctx<Ping, ()>| node(ctx, eager))
    /// }));
    /// assert!(registry.model("acker").unwrap().is_async);
    /// ```
    pub fn new_async<C, Msg, Rec, G, Fut, F>(name: &str, about: &str, build: F) -> ModelDef
    where
        C: DeserializeOwned,
        Msg: crate::async_node::Message,
        Rec: crate::async_node::Record,
        G: Fn(crate::async_node::Ctx<Msg, Rec>) -> Fut + 'static,
        Fut: std::future::Future<Output = ()> + 'static,
        F: Fn(Setup<'_, C>) -> Result<G, String> + Send + Sync + 'static,
    {
        let model = name.to_string();
        let prepare = move |scenario: &Scenario, bugs: &[String]| -> Result<Runner, String> {
            let config: C = parse_config(&model, scenario)?;
            let main =
                build(Setup { config, scenario, bugs }).map_err(|e| format!("scenario {}: {e}", scenario.name))?;
            let main: crate::async_node::host::MainFn<Msg, Rec> = std::rc::Rc::new(move |ctx| {
                Box::pin(main(ctx)) as std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>
            });
            Ok(Box::new(move |spec: RunSpec<'_>| {
                crate::world::run_async_nodes(spec, main)
            }))
        };
        ModelDef::with_prepare(name, about, true, Box::new(prepare))
    }

    fn with_prepare(name: &str, about: &str, is_async: bool, prepare: Box<Prepare>) -> ModelDef {
        ModelDef {
            name: name.to_string(),
            about: about.to_string(),
            bugs: Vec::new(),
            real_bugs: Vec::new(),
            goals: Vec::new(),
            invariants: Vec::new(),
            generic: None,
            is_async,
            prepare,
        }
    }

    /// Its bug switches.
    pub fn bugs(mut self, bugs: &[Bug]) -> Self {
        self.bugs.extend_from_slice(bugs);
        self
    }

    /// Defects of the pinned release this model runs.
    pub fn real_bugs(mut self, bugs: &[RealBug]) -> Self {
        self.real_bugs.extend_from_slice(bugs);
        self
    }

    /// The coverage goals it can reach: (id, what reaching it means).
    pub fn goals(mut self, goals: &[(&'static str, &'static str)]) -> Self {
        self.goals.extend_from_slice(goals);
        self
    }

    /// The only generic invariants its scenarios may check: those whose
    /// events it reports (by default, every one).
    pub fn generic(mut self, ids: &[&'static str]) -> Self {
        self.generic = Some(ids.to_vec());
        self
    }

    /// One of its own invariants.
    pub fn invariant(mut self, inv: InvariantDef) -> Self {
        self.invariants.push(inv);
        self
    }
}

/// A scenario's `config` as the model's config type: a JSON `null` or
/// absent config reads as `{}`.
fn parse_config<C: DeserializeOwned>(model: &str, scenario: &Scenario) -> Result<C, String> {
    // serde would also read a struct from an array; a config is an object.
    let raw = match &scenario.config {
        serde_json::Value::Null => serde_json::json!({}),
        v @ serde_json::Value::Object(_) => v.clone(),
        v => {
            return Err(format!(
                "scenario {}: invalid {model} config: a JSON object, not {v}",
                scenario.name
            ))
        }
    };
    serde_json::from_value(raw).map_err(|e| format!("scenario {}: invalid {model} config: {e}", scenario.name))
}

impl std::fmt::Debug for ModelDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelDef")
            .field("name", &self.name)
            .field("bugs", &self.bugs.iter().map(|b| b.id).collect::<Vec<_>>())
            .field("real_bugs", &self.real_bugs.iter().map(|b| b.id).collect::<Vec<_>>())
            .field("goals", &self.goals.iter().map(|g| g.0).collect::<Vec<_>>())
            .field("invariants", &self.invariants.iter().map(|i| i.id).collect::<Vec<_>>())
            .finish()
    }
}
