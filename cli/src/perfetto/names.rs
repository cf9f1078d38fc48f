//! What a slice or mark is called: short, in the words of the trace.

use serde_json::Value;
use sim::fault::{Action, Target};
use sim::{EventKind, NodeId, Role};

fn list(nodes: &[NodeId]) -> String {
    nodes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",")
}

/// A string field of an enum's JSON form: its serde tag.
fn tag<T: serde::Serialize>(x: &T, key: &str) -> String {
    match serde_json::to_value(x) {
        Ok(Value::Object(m)) => m.get(key).and_then(Value::as_str).unwrap_or(key).to_string(),
        Ok(Value::String(s)) => s,
        _ => key.to_string(),
    }
}

pub(super) fn role(r: Role) -> String {
    tag(&r, "role")
}

/// A fault as it took effect, naming the nodes it hits.
pub(super) fn action(a: &Action) -> String {
    match a {
        Action::Partition { groups } => {
            let sides: Vec<String> = groups.iter().map(|g| list(g)).collect();
            format!("partition {}", sides.join(" | "))
        }
        Action::PartitionOneWay { from, to } => format!("cut {} -> {}", list(from), list(to)),
        Action::Isolate { target, inbound_only } => {
            let who = match target {
                Target::Node(n) => format!("node {n}"),
                Target::Leader => "the leader".into(),
            };
            let how = if *inbound_only { "deafen" } else { "isolate" };
            format!("{how} {who}")
        }
        Action::Link { from, to, .. } => format!("degrade link {from} -> {to}"),
        Action::Heal => "heal".into(),
        Action::LinkMode { a, b, mode } => format!("link {a} <-> {b} becomes {}", tag(mode, "")),
        Action::Crash { node } => format!("crash node {node}"),
        Action::Restart { node } => format!("restart node {node}"),
        Action::Pause { node, ms } => format!("pause node {node} for {ms} ms"),
        other => {
            let node = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("node").and_then(Value::as_u64));
            match node {
                Some(n) => format!("{} node {n}", tag(other, "action")),
                None => tag(other, "action"),
            }
        }
    }
}

/// An event drawn as a mark: a model event by its own name.
pub(super) fn event(k: &EventKind) -> String {
    match k {
        EventKind::Model(_) => tag(k, "model"),
        EventKind::Boot { restart: true } => "restart".into(),
        EventKind::Reached { goal } => format!("reached {goal}"),
        EventKind::Drop { msg, .. } => format!("drop {msg}"),
        _ => tag(k, "kind"),
    }
}

/// The category of an event's mark: `model` for any model event.
pub(super) fn kind(k: &EventKind) -> String {
    tag(k, "kind")
}

/// A client op by what it does and to which key: `put k1`.
pub(super) fn op(op: &Value) -> String {
    let f = op.get("f").and_then(Value::as_str).unwrap_or("op");
    match op.get("key").and_then(Value::as_u64) {
        Some(k) => format!("{f} k{k}"),
        None => f.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_and_roles_read_as_words() {
        let p = Action::Partition {
            groups: vec![vec![0, 1], vec![2]],
        };
        assert_eq!(action(&p), "partition 0,1 | 2");
        assert_eq!(action(&Action::ClockJump { node: 3, ns: 5 }), "clock-jump node 3");
        assert_eq!(role(Role::PreCandidate), "pre-candidate");
    }
}
