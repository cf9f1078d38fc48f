//! A node's name in a run, below every module that speaks of nodes (the
//! machine contract, events, faults, links), so that none of them need the
//! others for it.

/// A node's number: 0 to the scenario's node count, less one.
pub type NodeId = usize;
