//! The systems under test, each a sans-IO [`sim::machine::Machine`] with its
//! catalogued bug switches.

pub mod raft;
pub mod snapshot;

pub mod catalogue;
pub mod scenarios;
