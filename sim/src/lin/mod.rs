//! Linearizability checking of client histories: the checker is the
//! `linearizability` crate, re-exported here (its memory cap, message
//! helpers and key-value ops are at `sim::mem`, `sim::one_line` and
//! `sim::workload`), with what reads dst's own traces and reports into it.

pub mod parse_dst;

pub use crate::check::DstHistory;
pub use linearizability::{
    check, describe_op, edn, gen, gen_kv, parse_edn, parse_jepsen, parse_jepsen_edn, Access, Checked, DstKv, Element,
    Events, Failure, FifoQueue, History, JepsenModel, JepsenOps, KeyCheck, Limit, Model, ModelUser, Mutex, MutexOp, Op,
    Options, Outcome, ParseError, QueueOp, QueueOutput, Recorder, Register, RegisterOp, RegisterOutput, RegisterValue,
    Seen, Set, SetOp, SetOutput, StrKvOp, StrKvOutput, StringKv, UnorderedQueue, CHECK_BUDGET_PER_KEY,
    DEFAULT_BUDGET_PER_KEY, DEFAULT_MEMO_MIB_MAX,
};
