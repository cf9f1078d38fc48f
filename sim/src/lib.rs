//! `sim`: the deterministic world of dst.
//!
//! One seed fixes a run: [`world::run`] builds a madsim runtime, draws a
//! fault plan from the scenario's [`nemesis::FaultProfile`], boots every node
//! (a sans-IO [`machine::Machine`]), drives clients against them, and feeds
//! every [`event::Event`] to the [`check`] invariants as it happens. A run
//! ends with a [`world::Verdict`], the plan, coverage, and a [`trace::Trace`]
//! whose hash is the same wherever the seed is replayed.

pub mod async_node;
pub mod bounds;
pub mod calm;
pub mod check;
pub mod cli;
pub mod clock;
pub mod disk;
pub mod event;
pub mod explore;
pub mod export;
pub mod files;
pub mod hash;
pub mod hint;
pub mod id;
pub mod interrupt;
pub mod lin;
pub mod links;
pub mod machine;
pub mod mutants;
pub mod nemesis;
pub mod net;
pub mod panics;
pub mod registry;
pub mod report;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod search;
pub mod strict;
pub mod text_input;
pub mod trace;
pub mod vary;
pub mod view;
pub mod workload;
pub mod world;

pub use linearizability::{mem, one_line};
pub use machine::{Io, Machine, MsgInfo, NodeId};
pub use scenario::Scenario;
pub use world::{run, Overrides, RunOutcome, RunSpec, Status, Verdict};
