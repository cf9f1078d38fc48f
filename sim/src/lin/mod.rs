//! dst's own histories for the `linearizability` crate's checker: a run's
//! client events read as a history ([`DstHistory`]), and a report or a
//! trace file read into one ([`parse_dst`]). The checker, its models and
//! the other history formats are that crate's; depend on it to use them.

pub mod parse_dst;

pub use crate::check::DstHistory;
