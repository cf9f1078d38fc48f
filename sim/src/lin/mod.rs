//! Linearizability checking of client histories: the checker is the
//! `linearizability` crate, re-exported whole; here is what reads dst's
//! own traces and reports into it.

mod dst_history;
pub mod parse_dst;

pub use dst_history::DstHistory;
pub use linearizability::*;
