#![deny(missing_docs)]
#![warn(unnameable_types)]
//! `sim`: the deterministic world of dst, and what a model needs from it.
//!
//! A node is a sans-IO [`Machine`]; a [`registry::Registry`] knows it by
//! name; a [`Scenario`] says how many nodes run, under which faults and
//! which invariants; one seed fixes the whole run. Here one node serves a
//! key-value store from memory alone: without crashes it is linearizable,
//! and once crashes are on, the `linearizable` checker catches a read that
//! lost an acknowledged write.
//!
//! ```
//! use sim::{apply_to_map, ClientReply, ClientReq, Io, KvMap, Machine, MsgInfo, NodeId};
//! use sim::{ModelDef, Registry, Scenario, Setup, Status, SyncTicket, TimerId};
//!
//! #[derive(Clone, Debug, serde::Serialize)]
//! enum NoMsg {}
//! impl MsgInfo for NoMsg {
//!     fn kind(&self) -> &'static str {
//!         match *self {}
//!     }
//! }
//!
//! #[derive(Default)]
//! struct InMemory {
//!     map: KvMap,
//! }
//!
//! impl Machine for InMemory {
//!     type Msg = NoMsg;
//!     type Rec = ();
//!     fn boot(&mut self, _: &mut Io<Self>) {}
//!     fn on_message(&mut self, _: NodeId, m: NoMsg, _: &mut Io<Self>) {
//!         match m {}
//!     }
//!     fn on_timer(&mut self, _: TimerId, _: &mut Io<Self>) {}
//!     fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
//!         let result = apply_to_map(&mut self.map, &req.op);
//!         io.reply(req.req_id, ClientReply::Ok(result));
//!     }
//!     fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
//! }
//!
//! let mut registry = Registry::new();
//! registry.add(ModelDef::new("in-memory", "a store that keeps nothing on disk", |_: Setup<'_, sim::NoConfig>| {
//!     Ok(|_| InMemory::default())
//! }));
//! let scenario = |crash: bool| {
//!     Scenario::from_json(&format!(
//!         r#"{{"name": "in-memory", "model": "in-memory", "nodes": 1, "invariants": ["linearizable"],
//!             "faults": {{"swarm": false, "crash": {crash}, "pause": false, "partition": false, "link": false}}}}"#
//!     ))
//! };
//! let calm = scenario(false)?;
//! registry.validate(&calm, &[])?;
//! assert!((0..5).all(|seed| registry.run(&calm, seed, &[], None).unwrap().verdict.status == Status::Pass));
//!
//! let crashing = scenario(true)?;
//! let (seed, run) = (0..20)
//!     .map(|seed| (seed, registry.run(&crashing, seed, &[], None).unwrap()))
//!     .find(|(_, run)| run.verdict.status == Status::Violation)
//!     .expect("a crash loses a write within 20 seeds");
//! assert_eq!(run.verdict.invariant.as_deref(), Some("linearizable"));
//! // The seed replays to the same trace, from its own fault plan too.
//! let again = registry.run(&crashing, seed, &[], Some(run.plan.clone()))?;
//! assert_eq!(again.trace.hash_hex(), run.trace.hash_hex());
//! # Ok::<(), String>(())
//! ```
//!
//! How a run goes: [`run`] builds a madsim runtime, draws a fault plan
//! from the scenario's [`fault::FaultProfile`], boots every node, drives
//! clients against them, and feeds every [`Event`] to the scenario's
//! [`Invariant`]s as it happens. A run ends with a [`Verdict`], the plan,
//! coverage, and a [`trace::Trace`] whose hash is the same wherever the
//! seed is replayed. Campaigns over many seeds (fuzz, shrink, search) are
//! the `dst-runner` crate's, the command line the `dst-cli` crate's.
//!
//! What a model needs is here at the root: the contract ([`Machine`],
//! [`Io`], [`MsgInfo`]), its registration ([`Registry`], [`ModelDef`],
//! [`Setup`], [`Bug`], [`InvariantDef`]), events and checkers of its own
//! ([`Event`], [`ModelEvent`], [`CustomEvent`], [`Invariant`],
//! [`Violation`]), the clients' requests ([`ClientReq`], [`ClientReply`])
//! and one run ([`Scenario`], [`run`], [`Verdict`]). The public modules
//! are namespaces of their own: an async node's context ([`async_node`]),
//! the ranges a config knob must lie in ([`bounds`]), faults as data
//! ([`fault`]), seeded streams and stable hashes ([`rng`], [`hash`]), the
//! trace and the report a run leaves ([`trace`], [`report`]), the walk
//! over choice tapes ([`explore`]), the checker with dst's own histories
//! ([`lin`]), and for the crates above, how a campaign reads a run
//! ([`outcome`]) and what runs around it on the real machine ([`host`]).

pub mod async_node;
pub mod bounds;
mod calm;
mod check;
mod clock;
mod disk;
mod event;
pub mod explore;
pub mod fault;
pub mod hash;
pub mod host;
mod id;
pub mod lin;
mod links;
mod machine;
mod nemesis;
mod net;
pub mod outcome;
mod panics;
mod registry;
pub mod report;
pub mod rng;
mod scenario;
pub mod trace;
mod vary;
mod workload;
mod world;

pub use check::{check_trace, Invariant, LivenessParams, Violation, GENERIC};
pub use event::{
    Ballot, CustomEvent, DropCause, Event, EventKind, MemberState, ModelEvent, Role, RoleCause, RoleChange, RoleWatch,
    GENERIC_KINDS,
};
use linearizability::{mem, one_line};
pub use machine::{DiskError, Io, Machine, MsgInfo, NodeId, Now, SyncTicket, TimerId, STEP_OUTPUTS_MAX};
pub use registry::{catalogue_matches, Bug, InvariantDef, ModelDef, NoConfig, RealBug, Registry, Setup};
pub use scenario::{
    Expect, Scenario, WorkloadConfig, CLIENTS_MAX, KEYS_MAX, NAME_MAX, NODES_MAX, RETRIES_MAX, WEIGHT_MAX,
};
pub use vary::Vary;
pub use workload::{apply_kv, apply_to_map, ClientReply, ClientReq, KvMap, KvOp, KvResult, Value};
pub use world::{run, Overrides, RunOutcome, RunSpec, Status, Verdict};
