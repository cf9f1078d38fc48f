//! Register histories drawn from a seeded stream, for benchmarks and tests:
//! clients run against a simulated atomic register, so the history is
//! linearizable by construction; [`inject_stale_read`] then breaks it.

use super::history::{History, Op};
use super::register::{RegisterOp, RegisterOutput};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

/// The shape of a generated history.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Ops in the history (failed cas ops are not counted: they drop out).
    pub ops: usize,
    /// Clients, each with at most one op open at a time.
    pub clients: usize,
    /// How many ops end with an unknown outcome, drawn in this range.
    pub unknown_min: usize,
    /// The most ops with an unknown outcome (see `unknown_min`).
    pub unknown_max: usize,
    /// `None`: every write's value is new, as dst's own workload writes
    /// them. `Some(k)`: values are drawn from 1..=k and repeat, as in
    /// Jepsen's etcd and Knossos register tests.
    pub distinct_values: Option<i64>,
}

enum Step {
    Invoke(usize),
    /// The op's atomic moment: it reads or changes the register.
    Apply(usize),
    Complete(usize),
}

struct Pending {
    client: usize,
    input: RegisterOp,
    output: Option<RegisterOutput>,
    invoke: u64,
    /// Unknown outcome: applied or not, its completion is `info`.
    unknown: bool,
    applies: bool,
}

/// A linearizable single-register history of `shape`, the same for the
/// same seed. Reads, writes and cas mix 5:3:2.
pub fn register_history(seed: u64, shape: Shape) -> History<RegisterOp, RegisterOutput> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let unknown = rng.gen_range(shape.unknown_min..=shape.unknown_max.max(shape.unknown_min));
    let unknown: BTreeSet<usize> = sample(&mut rng, shape.ops, unknown.min(shape.ops))
        .into_iter()
        .collect();
    let clients = shape.clients.max(1);
    let mut queue: BTreeMap<(u64, u64), Step> = BTreeMap::new();
    let mut seq = 0u64;
    let mut at = |queue: &mut BTreeMap<(u64, u64), Step>, t: u64, s: Step| {
        seq += 1;
        queue.insert((t, seq), s);
    };
    for c in 0..clients {
        at(&mut queue, rng.gen_range(0..5), Step::Invoke(c));
    }
    let (mut register, mut next_value, mut position) = (None::<i64>, 0i64, 0u64);
    let mut pending: Vec<Pending> = Vec::new();
    let mut done: Vec<Op<RegisterOp, RegisterOutput>> = Vec::new();
    while let Some(((t, _), step)) = queue.pop_first() {
        match step {
            Step::Invoke(client) => {
                if pending.len() == shape.ops {
                    continue;
                }
                next_value += 1;
                let value = match shape.distinct_values {
                    None => next_value,
                    Some(k) => rng.gen_range(1..=k.max(1)),
                };
                let input = match rng.gen_range(0..10) {
                    0..=4 => RegisterOp::Read,
                    5..=7 => RegisterOp::Write(value),
                    // The expected value is settled when the cas applies, so
                    // a completed cas always succeeds: a failed one would
                    // drop out of the history.
                    _ => RegisterOp::Cas(register.unwrap_or(0), value),
                };
                let is_unknown = unknown.contains(&pending.len());
                position += 1;
                pending.push(Pending {
                    client,
                    input,
                    output: None,
                    invoke: position,
                    unknown: is_unknown,
                    applies: !is_unknown || rng.gen_bool(0.5),
                });
                let id = pending.len() - 1;
                let apply_at = t + rng.gen_range(1..20);
                at(&mut queue, apply_at, Step::Apply(id));
                at(&mut queue, apply_at + rng.gen_range(1..20), Step::Complete(id));
            }
            Step::Apply(id) => {
                let p = &mut pending[id];
                if !p.applies {
                    continue;
                }
                p.output = Some(match p.input {
                    RegisterOp::Read => RegisterOutput::Read(register),
                    RegisterOp::Write(v) | RegisterOp::Cas(_, v) => {
                        p.input = match register {
                            Some(old) if matches!(p.input, RegisterOp::Cas(..)) => RegisterOp::Cas(old, v),
                            _ => RegisterOp::Write(v),
                        };
                        register = Some(v);
                        RegisterOutput::Done
                    }
                });
            }
            Step::Complete(id) => {
                position += 1;
                let p = &pending[id];
                done.push(Op {
                    client: p.client as u64,
                    input: p.input,
                    output: if p.unknown { None } else { p.output },
                    invoke: p.invoke,
                    complete: Some(position),
                });
                at(&mut queue, t + rng.gen_range(0..10), Step::Invoke(p.client));
            }
        }
    }
    done.sort_by_key(|o| o.invoke);
    History { ops: done }
}

/// Make one completed read return a value that two writes, one strictly
/// after the other, overwrote before the read began. With unique values no
/// order explains it (with repeated ones, one may). False when the history
/// has no such read.
pub fn inject_stale_read(history: &mut History<RegisterOp, RegisterOutput>, seed: u64) -> bool {
    let ops = &history.ops;
    let sets = |o: &Op<RegisterOp, RegisterOutput>| match o.input {
        RegisterOp::Write(v) | RegisterOp::Cas(_, v) => o.complete.filter(|_| o.is_completed()).map(|c| (v, c)),
        _ => None,
    };
    // Completed writes in history order, and the earliest completion among
    // the first k of them: the first write that completed before a given
    // position is found by a binary search.
    let writes: Vec<(i64, u64, u64)> = ops
        .iter()
        .filter_map(|o| sets(o).map(|(v, c)| (v, o.invoke, c)))
        .collect();
    let mut earliest: Vec<u64> = Vec::with_capacity(writes.len());
    for &(_, _, c) in &writes {
        earliest.push(earliest.last().map_or(c, |&e| e.min(c)));
    }
    // By completion: the latest invoke (and its value) among the writes
    // completed so far, so that the second write is found the same way.
    let mut by_complete: Vec<(u64, u64, i64)> = writes.iter().map(|&(v, i, c)| (c, i, v)).collect();
    by_complete.sort_unstable();
    let mut latest: Vec<(u64, i64)> = Vec::with_capacity(by_complete.len());
    for &(_, i, v) in &by_complete {
        latest.push(match latest.last() {
            Some(&(li, lv)) if li >= i => (li, lv),
            _ => (i, v),
        });
    }
    let mut candidates = Vec::new();
    for (r, read) in ops.iter().enumerate() {
        if read.input != RegisterOp::Read || !read.is_completed() {
            continue;
        }
        // The second write: completed before the read began, invoked last.
        let done = by_complete.partition_point(|&(c, _, _)| c < read.invoke);
        let Some(&(second_invoke, second_value)) = done.checked_sub(1).map(|k| &latest[k]) else {
            continue;
        };
        // The first write: the earliest in history order that completed
        // before the second began.
        let first = earliest.partition_point(|&e| e >= second_invoke);
        let Some(&(v, _, _)) = writes.get(first) else {
            continue;
        };
        // With repeated values the two writes may set the same value; such
        // a read is passed over.
        if v != second_value && read.output != Some(RegisterOutput::Read(Some(v))) {
            candidates.push((r, v));
        }
    }
    if candidates.is_empty() {
        return false;
    }
    let pick = ChaCha8Rng::seed_from_u64(seed).gen_range(0..candidates.len());
    let (r, v) = candidates[pick];
    history.ops[r].output = Some(RegisterOutput::Read(Some(v)));
    true
}

/// `h` as Jepsen's `history.edn`, one op map a line in position order, so
/// that `dst check` reads it back with the same order of events. An op
/// with unknown outcome ends `:info`.
pub fn to_jepsen_edn(h: &History<RegisterOp, RegisterOutput>) -> String {
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(h.ops.len() * 2);
    for (i, o) in h.ops.iter().enumerate() {
        events.push((o.invoke, false, i));
        if let Some(c) = o.complete {
            events.push((c, true, i));
        }
    }
    events.sort_unstable();
    let show = |v: &Option<i64>| v.map_or("nil".to_string(), |v| v.to_string());
    let mut out = String::with_capacity(events.len() * 56);
    for (_, completes, i) in events {
        let o = &h.ops[i];
        let (f, value) = match (&o.input, &o.output) {
            (RegisterOp::Read, Some(RegisterOutput::Read(v))) if completes => ("read", show(v)),
            (RegisterOp::Read, _) => ("read", "nil".to_string()),
            (RegisterOp::Write(v), _) => ("write", v.to_string()),
            (RegisterOp::Cas(old, new), _) => ("cas", format!("[{old} {new}]")),
        };
        let kind = match (completes, &o.output) {
            (false, _) => "invoke",
            (true, Some(_)) => "ok",
            (true, None) => "info",
        };
        out.push_str(&format!(
            "{{:process {}, :type :{kind}, :f :{f}, :value {value}}}\n",
            o.client
        ));
    }
    out
}
