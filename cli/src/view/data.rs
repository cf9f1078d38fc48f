//! What the page draws, as JSON: the header, the trace, the client
//! operations as bars, and for a linearizability failure the longest
//! partial linearization the checker found. The page's script derives the
//! lanes (roles, down time, cuts) from the trace itself.

use dst_runner::Drawn;
use linearizability::{self as lin, DstKv, History, Model, Outcome};
use serde::Serialize;
use serde_json::{json, Value};
use sim::lin::DstHistory;
use sim::report::Report;
use sim::{Event, EventKind};
use std::collections::BTreeMap;

/// One client operation from invoke to completion.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewOp {
    /// The client (a process, in a history file) that ran it.
    pub client: u64,
    /// Invoke time (ns), or its position in a history file.
    pub start: u64,
    /// Completion time or position; none if it never completed.
    pub end: Option<u64>,
    /// `ok`, `fail`, `info`, or `open` (never completed).
    pub status: &'static str,
    /// The op and its result, as the page prints them.
    pub text: String,
    /// Trace index of the invoke (reports only).
    pub invoke_i: Option<u64>,
    /// Trace index of the completion (reports only).
    pub complete_i: Option<u64>,
}

/// The view of a report whose trace holds the events `drawn`, but for
/// those events (see [`event_json`]), as the data's keys and values.
pub fn report_fields(r: &Report, drawn: &Drawn) -> Vec<(&'static str, Value)> {
    let nodes = r.nodes();
    let end = r.end_ns();
    let ops = report_ops(&r.trace);
    // The checker needs the whole history: a window's ops are not one.
    let lin = (drawn.is_whole() && r.verdict.invariant.as_deref() == Some("linearizable"))
        .then(|| report_lin(&r.trace, &ops))
        .flatten();
    let plan: Vec<String> = r
        .plan
        .iter()
        .map(|p| {
            let mut a = serde_json::to_value(&p.action).unwrap_or_default();
            let what = a
                .as_object_mut()
                .and_then(|o| o.remove("action"))
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            format!("{:>9.3} ms  {what} {a}", p.at_ns as f64 / 1e6)
        })
        .collect();
    let mut header = vec![
        ("scenario", r.scenario.clone()),
        ("seed", r.seed.to_string()),
        (
            "bugs",
            if r.bugs.is_empty() {
                "none".into()
            } else {
                r.bugs.join(" ")
            },
        ),
        ("expected", if r.expected { "yes".into() } else { "no".into() }),
        ("coverage", r.coverage.iter().cloned().collect::<Vec<_>>().join(", ")),
        (
            "events",
            format!(
                "{} ({} messages, {:.3} s simulated)",
                drawn.of,
                r.stats.messages,
                r.stats.sim_ns as f64 / 1e9
            ),
        ),
        ("trace hash", r.trace_hash.clone()),
        ("swarm draw", serde_json::to_string(&r.swarm).unwrap_or_default()),
    ];
    if let Some(note) = drawn.note() {
        header.push(("drawn", note));
    }
    let start = if drawn.from == 0 {
        0
    } else {
        r.trace.first().map_or(0, |e| e.t_ns)
    };
    vec![
        ("kind", json!("report")),
        ("unit", json!("ns")),
        ("title", json!(format!("{} seed {}", r.scenario, r.seed))),
        ("header", json!(header)),
        ("plan", json!(plan)),
        ("config", r.config.clone()),
        ("verdict", json!(r.verdict)),
        ("replay", json!(r.replay)),
        ("nodes", json!(nodes)),
        ("start", json!(start)),
        ("end", json!(end)),
        ("ops", json!(ops)),
        ("lin", json!(lin)),
    ]
}

/// One trace event as the page reads it.
pub fn event_json(e: &Event) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or_default();
    exact_in_js(&mut v);
    v
}

/// Integers a browser cannot hold exactly (beyond 2^53, such as state
/// digests) as decimal strings, so the page shows the number the trace has.
fn exact_in_js(v: &mut Value) {
    const SAFE: u64 = (1 << 53) - 1;
    match v {
        Value::Number(n) if n.as_u64().is_some_and(|x| x > SAFE) || n.as_i64().is_some_and(|x| x < -(SAFE as i64)) => {
            *v = Value::String(n.to_string());
        }
        Value::Array(a) => a.iter_mut().for_each(exact_in_js),
        Value::Object(o) => o.values_mut().for_each(exact_in_js),
        _ => {}
    }
}

/// Client operations of a trace, matched by client and op id.
fn report_ops(trace: &[Event]) -> Vec<ViewOp> {
    let mut ops: Vec<ViewOp> = Vec::new();
    let mut open: BTreeMap<(u32, u64), usize> = BTreeMap::new();
    for e in trace {
        match &e.kind {
            EventKind::Invoke { client, op_id, op, .. } => {
                open.insert((*client, *op_id), ops.len());
                ops.push(ViewOp {
                    client: *client as u64,
                    start: e.t_ns,
                    end: None,
                    status: "open",
                    text: DstKv.describe_op(op, None),
                    invoke_i: Some(e.i),
                    complete_i: None,
                });
            }
            EventKind::Ok {
                client, op_id, result, ..
            } => close(&mut ops, &mut open, (*client, *op_id), e, "ok", |op| {
                format!("{} -> {}", op.text, serde_json::to_string(result).unwrap_or_default())
            }),
            EventKind::Fail { client, op_id, why, .. } => {
                close(&mut ops, &mut open, (*client, *op_id), e, "fail", |op| {
                    format!("{} failed: {why}", op.text)
                })
            }
            EventKind::Info { client, op_id, why, .. } => {
                close(&mut ops, &mut open, (*client, *op_id), e, "info", |op| {
                    format!("{} unknown: {why}", op.text)
                })
            }
            _ => {}
        }
    }
    ops
}

fn close(
    ops: &mut [ViewOp],
    open: &mut BTreeMap<(u32, u64), usize>,
    key: (u32, u64),
    e: &Event,
    status: &'static str,
    text: impl Fn(&ViewOp) -> String,
) {
    if let Some(k) = open.remove(&key) {
        let op = &mut ops[k];
        op.end = Some(e.t_ns);
        op.status = status;
        op.complete_i = Some(e.i);
        op.text = text(op);
    }
}

/// The checker's failure on the report's own client history, as indices
/// into `ops` (matched by the invoke's trace index).
fn report_lin(trace: &[Event], ops: &[ViewOp]) -> Option<Value> {
    let mut h = DstHistory::default();
    for e in trace {
        h.push(e).ok()?;
    }
    let history = h.finish();
    let checked = lin::check(&DstKv, &history, &lin::Options::default());
    let Outcome::NotLinearizable(f) = checked.outcome else {
        return None;
    };
    let at = |hi: usize| {
        let invoke = history.ops[hi].invoke;
        ops.iter().position(|o| o.invoke_i == Some(invoke))
    };
    Some(json!({
        "key": f.key,
        "order": f.linearized.iter().filter_map(|&i| at(i)).collect::<Vec<_>>(),
        "unplaced": at(f.unplaced),
        "state": f.state,
        "message": f.message(&DstKv, &history, "event"),
    }))
}

/// The view of a history checked by `dst check`: client bars over the
/// history's positions (line numbers or event indices), and the verdict.
pub fn history_data<M: Model>(
    model: &M,
    h: &History<M::Input, M::Output>,
    outcome: &Outcome,
    file: &str,
    unit: &str,
    verdict: &str,
) -> Value {
    let end = h.ops.iter().map(|o| o.complete.unwrap_or(o.invoke)).max().unwrap_or(0) + 1;
    let ops: Vec<ViewOp> = h
        .ops
        .iter()
        .map(|o| ViewOp {
            client: o.client,
            start: o.invoke,
            end: o.complete,
            status: match (&o.output, o.complete) {
                (Some(_), Some(_)) => "ok",
                (None, Some(_)) => "info",
                _ => "open",
            },
            text: model.describe_op(&o.input, o.output.as_ref()),
            invoke_i: None,
            complete_i: None,
        })
        .collect();
    let lin = match outcome {
        Outcome::NotLinearizable(f) => json!({
            "key": f.key,
            "order": f.linearized,
            "unplaced": f.unplaced,
            "state": f.state,
            "message": f.message(model, h, unit),
        }),
        _ => Value::Null,
    };
    let clients = ops
        .iter()
        .map(|o| o.client)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    json!({
        "kind": "history",
        "unit": unit,
        "title": file,
        "header": [("history", file.to_string()), ("ops", h.ops.len().to_string()), ("clients", clients.to_string()), ("verdict", verdict.to_string())],
        "plan": [],
        "verdict": {"status": match outcome {
                        Outcome::Linearizable => "pass",
                        Outcome::Unknown { .. } => "unknown",
                        Outcome::NotLinearizable(_) => "violation",
                    }, "invariant": "linearizable",
                    "message": lin.get("message").cloned().unwrap_or(Value::Null), "evidence": []},
        "nodes": 0,
        "end": end,
        "events": [],
        "ops": ops,
        "lin": lin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_integers_become_strings_and_small_ones_stay() {
        let mut v = json!({"digest": 9181298282468240123u64, "i": 5, "neg": -9007199254740993i64, "f": 0.5});
        exact_in_js(&mut v);
        assert_eq!(
            v,
            json!({"digest": "9181298282468240123", "i": 5, "neg": "-9007199254740993", "f": 0.5})
        );
    }
}
