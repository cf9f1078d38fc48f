//! A report's trace in the Chrome Trace Event format (its JSON object form),
//! which <https://ui.perfetto.dev> and chrome://tracing open.
//!
//! Node n is process n + 1, with lanes for its role (a slice per role and
//! term), its crashes and pauses, its messages (a short slice per send,
//! delivery or drop, each message a flow from send to delivery) and its
//! other events as marks. Process 0, "world", holds the faults (network
//! faults as slices up to the heal that ends them) and the heal point; the
//! last process, "clients", holds a lane per client with each op a slice.
//! `ts` and `dur` are whole microseconds of simulated time. The export is a pure
//! function of the report: the same report gives the same bytes.

mod lanes;
mod names;
mod walk;

use dst_runner::Drawn;
use lanes::{args_text, Item, Lane, Shape};
use serde_json::{json, Value};
use sim::report::Report;
use sim::{Event, EventKind, Verdict};
use std::collections::BTreeMap;
use walk::{node_pid, WORLD};

/// The trace of `report` as a Trace Event JSON object.
#[cfg(test)]
pub fn perfetto(report: &Report) -> Value {
    let mut text = String::new();
    write(report, &Drawn::whole(report.trace.len() as u64), &mut |piece| {
        text.push_str(piece);
        Ok(())
    })
    .expect("a string takes any text");
    serde_json::from_str(&text).expect("the export is JSON")
}

/// The trace of `report`, whose trace holds the events `drawn`, as Trace
/// Event JSON text, handed to `out` a piece at a time (the metadata, then
/// each event), so that the text of a long run is never held whole: the
/// same bytes as the JSON object serialized, its keys in order. How many
/// trace events it holds.
pub fn write(
    report: &Report,
    drawn: &Drawn,
    out: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<usize> {
    let end_ns = report.end_ns();
    let clients = node_pid(report.nodes());
    let mut items = walk::walk(&report.trace, end_ns, clients);
    items.extend(evidence(&report.trace, &report.verdict, clients));
    lanes::spread(&mut items);
    let threads = lanes::threads(&items, clients + 1);
    // Slices first among equals, so a mark or flow at a slice's start falls inside it.
    items.sort_by_key(|it| (it.t_ns, rank(&it.shape)));
    out("{\"displayTimeUnit\":\"ms\",\"metadata\":")?;
    out(&metadata(report, drawn).to_string())?;
    out(",\"traceEvents\":[")?;
    let names = names_of(&threads, clients);
    let events = names.len() + items.len();
    let rendered = names
        .into_iter()
        .map(|n| n.to_string())
        .chain(items.iter().map(|it| render(it, &threads)));
    for (i, e) in rendered.enumerate() {
        if i > 0 {
            out(",")?;
        }
        out(&e)?;
    }
    out("]}")?;
    Ok(events)
}

fn rank(s: &Shape) -> u8 {
    match s {
        Shape::Slice { .. } => 0,
        Shape::Instant { .. } => 1,
        Shape::FlowStart { .. } => 2,
        Shape::FlowEnd { .. } => 3,
    }
}

/// A mark for each event of the verdict's evidence, where that event is
/// drawn, and one across the whole trace at the last of them.
fn evidence(trace: &[Event], verdict: &Verdict, clients: u64) -> Vec<Item> {
    let status = serde_json::to_value(verdict.status).ok();
    let status = status.as_ref().and_then(Value::as_str).unwrap_or("verdict");
    let what = verdict.invariant.as_deref().unwrap_or(status);
    let find = |i: u64| {
        let at = trace.get(i as usize).filter(|e| e.i == i);
        at.or_else(|| trace.iter().find(|e| e.i == i))
    };
    let mut items = Vec::new();
    for e in verdict.evidence.iter().filter_map(|&i| find(i)) {
        let (pid, lane) = match (&e.kind, e.node) {
            (
                EventKind::Invoke { client, .. }
                | EventKind::Ok { client, .. }
                | EventKind::Fail { client, .. }
                | EventKind::Info { client, .. },
                _,
            ) => (clients, Lane::Client(*client)),
            (_, Some(n)) => (node_pid(n), Lane::Events),
            (_, None) => (WORLD, Lane::Events),
        };
        items.push(Item {
            pid,
            lane,
            sub: 0,
            t_ns: e.t_ns,
            shape: Shape::Instant { scope: "t" },
            name: format!("evidence: {what}"),
            cat: "evidence".into(),
            args: args_text(json!({"message": verdict.message, "event": e.i, "kind": names::event(&e.kind)})),
        });
    }
    if let Some(last) = items.iter().map(|it| it.t_ns).max() {
        items.push(Item {
            pid: WORLD,
            lane: Lane::Faults,
            sub: 0,
            t_ns: last,
            shape: Shape::Instant { scope: "g" },
            name: format!("{status}: {what}"),
            cat: "verdict".into(),
            args: args_text(json!({"message": verdict.message, "evidence": verdict.evidence})),
        });
    }
    items
}

/// Time is written in whole microseconds. A fraction would be read back
/// rounded either way, so a slice could end a nanosecond after the next one
/// on its row begins and no longer nest; whole numbers are read exactly, and
/// rounding start and end down keeps every row's order. Nothing in a run
/// happens on a finer scale that a reader would see.
fn us(ns: u64) -> u64 {
    ns / 1_000
}

fn render(it: &Item, threads: &BTreeMap<(u64, Lane, u32), (u64, String)>) -> String {
    let tid = threads.get(&(it.pid, it.lane, it.sub)).map_or(0, |t| t.0);
    let mut v = json!({"name": it.name, "cat": it.cat, "ts": us(it.t_ns), "pid": it.pid, "tid": tid});
    match it.shape {
        Shape::Slice { dur_ns } => {
            v["ph"] = json!("X");
            v["dur"] = json!(us(it.t_ns.saturating_add(dur_ns)) - us(it.t_ns));
        }
        Shape::Instant { scope } => {
            v["ph"] = json!("i");
            v["s"] = json!(scope);
        }
        Shape::FlowStart { id } => {
            v["ph"] = json!("s");
            v["id"] = json!(id);
        }
        Shape::FlowEnd { id } => {
            v["ph"] = json!("f");
            v["id"] = json!(id);
            v["bp"] = json!("e");
        }
    }
    let text = v.to_string();
    match &it.args {
        // Keys are written in order, and `args` comes first of them.
        Some(args) => format!("{{\"args\":{args},{}", &text[1..]),
        None => text,
    }
}

/// `M` events naming every process and thread in use.
fn names_of(threads: &BTreeMap<(u64, Lane, u32), (u64, String)>, clients: u64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut named = None;
    for (&(pid, _, _), (tid, name)) in threads {
        if named != Some(pid) {
            named = Some(pid);
            let process = match pid {
                WORLD => "world".to_string(),
                p if p == clients => "clients".to_string(),
                p => format!("node {}", p - 1),
            };
            out.push(json!({"name": "process_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": process}}));
        }
        out.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}));
    }
    out
}

/// What a reader needs beside the picture: the run, its verdict and how to
/// replay it.
fn metadata(r: &Report, drawn: &Drawn) -> Value {
    let mut m = json!({
        "tool": "dst",
        "dst_version": r.dst_version,
        "schema": r.schema,
        "scenario": r.scenario,
        "seed": r.seed,
        "bugs": r.bugs,
        "verdict": r.verdict,
        "expected": r.expected,
        "coverage": r.coverage,
        "trace_hash": r.trace_hash,
        "replay": r.replay,
        "events": drawn.of,
        "messages": r.stats.messages,
        "sim_ns": r.stats.sim_ns,
        "time": "simulated; ts and dur in whole microseconds",
    });
    if !drawn.is_whole() {
        m["drawn"] = json!({"from": drawn.from, "to": drawn.to});
    }
    m
}
