//! One pass over the trace: what each event opens, closes or marks. Spans
//! (a role, a crash, a pause, a cut, a client op) are closed by a later
//! event or by the end of the trace, so every slice has an end.

use super::lanes::{args_text, Item, Lane, Shape};
use super::names;
use serde_json::{json, Value};
use sim::fault::Action;
use sim::{Event, EventKind, ModelEvent, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// The width of a message's slice. A flow binds to the slice around its
/// point, and a node may send many messages in one microsecond, so each
/// send, delivery or drop takes a slot of its own on its node's message
/// lane, on whole microseconds (as the export writes time), shifted past
/// the one before when they would overlap; its flow leaves or lands at its
/// middle, inside it and no other.
const SLOT_NS: u64 = 2_000;

/// The process of events that belong to no node: faults, the heal point.
pub(super) const WORLD: u64 = 0;

pub(super) fn node_pid(n: NodeId) -> u64 {
    n as u64 + 1
}

/// A span whose start is known and whose end is not yet.
struct Open {
    t_ns: u64,
    name: String,
    cat: String,
    args: Value,
}

struct Walk {
    items: Vec<Item>,
    clients: u64,
    roles: BTreeMap<NodeId, Open>,
    crashed: BTreeMap<NodeId, Open>,
    /// A node's pause, with when it ends unless the heal point ends it first.
    paused: BTreeMap<NodeId, (Open, u64)>,
    /// Network faults in force: every one of them ends at the next heal.
    cuts: Vec<Open>,
    /// Client ops by op id: (client, span).
    ops: BTreeMap<u64, (u32, Open)>,
    /// When each node's message lane is free again.
    free_ns: BTreeMap<NodeId, u64>,
    /// Messages that get a flow: sent, then delivered at least once.
    flows: BTreeSet<u64>,
    /// Where a flow's send slot starts, until its first delivery ends it.
    sent_ns: BTreeMap<u64, u64>,
    /// Messages delivered so far: a later delivery is a duplicate's copy.
    delivered: BTreeSet<u64>,
}

/// Every item the trace draws, but for the evidence of the verdict; `end_ns`
/// closes what is still open, `clients` is the process of the client ops.
pub(super) fn walk(trace: &[Event], end_ns: u64, clients: u64) -> Vec<Item> {
    let mut w = Walk {
        items: Vec::new(),
        clients,
        roles: BTreeMap::new(),
        crashed: BTreeMap::new(),
        paused: BTreeMap::new(),
        cuts: Vec::new(),
        ops: BTreeMap::new(),
        free_ns: BTreeMap::new(),
        flows: flows(trace),
        sent_ns: BTreeMap::new(),
        delivered: BTreeSet::new(),
    };
    for e in trace {
        w.event(e);
    }
    w.finish(end_ns);
    w.items
}

/// Messages delivered after their send: only those get a flow, so no flow
/// starts without an end and none ends without a start (a message that is
/// dropped, or a delivery whose send is not in the trace, gets none).
fn flows(trace: &[Event]) -> BTreeSet<u64> {
    let mut sent = BTreeSet::new();
    let mut delivered = BTreeSet::new();
    for e in trace {
        match e.kind {
            EventKind::Send { id, .. } => {
                sent.insert(id);
            }
            EventKind::Deliver { id, .. } if sent.contains(&id) => {
                delivered.insert(id);
            }
            _ => {}
        }
    }
    delivered
}

/// An event's own fields, without those every event has.
fn fields(e: &Event) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        for k in ["i", "t_ns", "node", "kind", "model"] {
            m.remove(k);
        }
        m.insert("event".into(), json!(e.i));
    }
    v
}

impl Walk {
    /// Draws an item at `(process, lane)`.
    fn push(&mut self, (pid, lane): (u64, Lane), t_ns: u64, shape: Shape, name: String, cat: &str, args: Value) {
        self.items.push(Item {
            pid,
            lane,
            sub: 0,
            t_ns,
            shape,
            name,
            cat: cat.into(),
            args: args_text(args),
        });
    }

    fn mark(&mut self, place: (u64, Lane), t_ns: u64, name: String, cat: &str, args: Value) {
        self.push(place, t_ns, Shape::Instant { scope: "t" }, name, cat, args);
    }

    /// Ends `open` at `end_ns`: a slice.
    fn close(&mut self, place: (u64, Lane), open: Open, end_ns: u64) {
        let dur_ns = end_ns.saturating_sub(open.t_ns);
        let shape = Shape::Slice { dur_ns };
        self.push(place, open.t_ns, shape, open.name, &open.cat, open.args);
    }

    /// A message's slot on `node`'s lane, with its flow's point in the middle.
    fn message(&mut self, node: NodeId, at: u64, msg: &str, args: Value, flow: Option<Shape>) {
        let place = (node_pid(node), Lane::Messages);
        self.push(place, at, Shape::Slice { dur_ns: SLOT_NS }, msg.into(), "msg", args);
        if let Some(shape) = flow {
            self.push(place, at + SLOT_NS / 2, shape, msg.into(), "msg", Value::Null);
        }
    }

    /// The next free slot of `node`'s message lane at or after the
    /// microsecond of `t_ns`.
    fn slot(&mut self, node: NodeId, t_ns: u64) -> u64 {
        let free = self.free_ns.entry(node).or_default();
        let at = (t_ns / 1_000 * 1_000).max(*free);
        *free = at + SLOT_NS;
        at
    }

    fn event(&mut self, e: &Event) {
        let t = e.t_ns;
        match (&e.kind, e.node) {
            (EventKind::Fault { action }, _) => self.fault(e, action),
            (EventKind::Heal { impaired }, _) => self.heal(e, impaired),
            (EventKind::Send { id, to, msg }, Some(n)) => {
                let at = self.slot(n, t);
                let flow = self.flows.contains(id).then(|| {
                    self.sent_ns.insert(*id, at);
                    Shape::FlowStart { id: *id }
                });
                self.message(n, at, msg, json!({"id": id, "to": to, "event": e.i}), flow);
            }
            (EventKind::Deliver { id, from, msg }, Some(n)) => {
                // A delivery is drawn no earlier than its send, so no flow runs backwards.
                let sent = self.sent_ns.remove(id);
                let at = self.slot(n, t.max(sent.unwrap_or(0)));
                let again = !self.delivered.insert(*id);
                let args = json!({"id": id, "from": from, "event": e.i, "duplicate": again});
                let flow = sent.map(|_| Shape::FlowEnd { id: *id });
                self.message(n, at, msg, args, flow);
            }
            (EventKind::Drop { .. } | EventKind::Duplicate { .. }, Some(n)) => {
                let at = self.slot(n, t);
                let cat = names::kind(&e.kind);
                self.mark(
                    (node_pid(n), Lane::Messages),
                    at,
                    names::event(&e.kind),
                    &cat,
                    fields(e),
                );
            }
            (EventKind::Invoke { client, op_id, op, .. }, _) => {
                let op = serde_json::to_value(op).unwrap_or(Value::Null);
                let name = names::op(&op);
                let span = Open {
                    t_ns: t,
                    name,
                    cat: "open".into(),
                    args: json!({"op_id": op_id, "op": op, "event": e.i}),
                };
                // One op at a time per client; should a report hold two, the first ends here.
                if let Some((c, old)) = self.ops.insert(*op_id, (*client, span)) {
                    self.close((self.clients, Lane::Client(c)), old, t);
                }
            }
            (
                EventKind::Ok {
                    client, op_id, result, ..
                },
                _,
            ) => {
                let result = serde_json::to_value(result).unwrap_or(Value::Null);
                self.complete(e, *client, *op_id, "ok", "result", result);
            }
            (EventKind::Fail { client, op_id, why, .. }, _) => {
                self.complete(e, *client, *op_id, "fail", "why", json!(why))
            }
            (EventKind::Info { client, op_id, why, .. }, _) => {
                self.complete(e, *client, *op_id, "info", "why", json!(why))
            }
            (EventKind::Model(ModelEvent::Role { term, role, ballot, .. }), Some(n)) => {
                if let Some(old) = self.roles.remove(&n) {
                    self.close((node_pid(n), Lane::Role), old, t);
                }
                let role = names::role(*role);
                let epoch = match ballot {
                    Some(b) => format!("b{}", b.0.iter().map(u64::to_string).collect::<Vec<_>>().join(".")),
                    None => format!("t{term}"),
                };
                let span = Open {
                    t_ns: t,
                    name: format!("{role} {epoch}"),
                    cat: role,
                    args: fields(e),
                };
                self.roles.insert(n, span);
            }
            (kind, node) => {
                let pid = node.map_or(WORLD, node_pid);
                let cat = names::kind(kind);
                self.mark((pid, Lane::Events), t, names::event(kind), &cat, fields(e));
            }
        }
    }

    fn complete(&mut self, e: &Event, client: u32, op_id: u64, cat: &str, key: &str, outcome: Value) {
        match self.ops.remove(&op_id) {
            Some((c, mut span)) => {
                span.cat = cat.into();
                if let Value::Object(m) = &mut span.args {
                    m.insert(key.into(), outcome);
                    m.insert("end_event".into(), json!(e.i));
                }
                self.close((self.clients, Lane::Client(c)), span, e.t_ns);
            }
            // An outcome of an op never invoked: shown where it happened, as it is.
            None => {
                let name = format!("{cat} (never invoked)");
                self.mark((self.clients, Lane::Client(client)), e.t_ns, name, cat, fields(e));
            }
        }
    }

    fn fault(&mut self, e: &Event, action: &Action) {
        let t = e.t_ns;
        let name = names::action(action);
        self.mark((WORLD, Lane::Faults), t, name.clone(), "fault", fields(e));
        match action {
            Action::Partition { .. }
            | Action::PartitionOneWay { .. }
            | Action::Isolate { .. }
            | Action::Link { .. }
            | Action::CutLeaderLink { .. } => self.cuts.push(Open {
                t_ns: t,
                name,
                cat: "network".into(),
                args: fields(e),
            }),
            Action::Heal => self.end_cuts(t),
            Action::Crash { node } => {
                if let Some(role) = self.roles.remove(node) {
                    self.close((node_pid(*node), Lane::Role), role, t);
                }
                if !self.crashed.contains_key(node) {
                    let span = Open {
                        t_ns: t,
                        name: "down".into(),
                        cat: "crash".into(),
                        args: fields(e),
                    };
                    self.crashed.insert(*node, span);
                }
            }
            Action::Restart { node } => {
                if let Some(span) = self.crashed.remove(node) {
                    self.close((node_pid(*node), Lane::Crashed), span, t);
                }
            }
            Action::Pause { node, ms } => {
                let until = t.saturating_add(ms.saturating_mul(1_000_000));
                match self.paused.remove(node) {
                    // A pause within a pause extends it, as the world does.
                    Some((span, end)) if end > t => {
                        self.paused.insert(*node, (span, end.max(until)));
                    }
                    old => {
                        if let Some((span, end)) = old {
                            self.close((node_pid(*node), Lane::Paused), span, end);
                        }
                        let span = Open {
                            t_ns: t,
                            name: "paused".into(),
                            cat: "pause".into(),
                            args: fields(e),
                        };
                        self.paused.insert(*node, (span, until));
                    }
                }
            }
            _ => {}
        }
    }

    fn end_cuts(&mut self, t_ns: u64) {
        for span in std::mem::take(&mut self.cuts) {
            self.close((WORLD, Lane::Network), span, t_ns);
        }
    }

    /// The heal point: faults stop, pauses end, and a minority may stay cut off.
    fn heal(&mut self, e: &Event, impaired: &[NodeId]) {
        let t = e.t_ns;
        let global = Shape::Instant { scope: "g" };
        self.push((WORLD, Lane::Faults), t, global, "heal point".into(), "heal", fields(e));
        self.end_cuts(t);
        for (node, (span, end)) in std::mem::take(&mut self.paused) {
            self.close((node_pid(node), Lane::Paused), span, end.min(t));
        }
        for &node in impaired {
            self.cuts.push(Open {
                t_ns: t,
                name: format!("node {node} cut off (impaired)"),
                cat: "network".into(),
                args: fields(e),
            });
        }
    }

    fn finish(&mut self, end_ns: u64) {
        self.end_cuts(end_ns);
        for (node, span) in std::mem::take(&mut self.roles) {
            self.close((node_pid(node), Lane::Role), span, end_ns);
        }
        for (node, span) in std::mem::take(&mut self.crashed) {
            self.close((node_pid(node), Lane::Crashed), span, end_ns);
        }
        for (node, (span, end)) in std::mem::take(&mut self.paused) {
            self.close((node_pid(node), Lane::Paused), span, end.min(end_ns));
        }
        // Ops never completed stay open to the end, in category "open".
        for (_, (client, span)) in std::mem::take(&mut self.ops) {
            self.close((self.clients, Lane::Client(client)), span, end_ns);
        }
    }
}

#[cfg(test)]
mod tests;
