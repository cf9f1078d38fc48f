//! The drawn configuration at its simplest: each knob the scenario varies
//! at its simplest value, and fewer clients.

use super::judge::{Case, Judge};
use serde_json::Value;
use sim::fault::{Action, PlanEntry, Target};
use sim::{NodeId, Scenario, Vary};
use std::collections::BTreeMap;

/// Tries each knob of `knobs` (as the scenario declares them) at its
/// simplest value, in the order of their paths, then each smaller client
/// count from one up, keeping what still fails the same way.
pub(super) fn config(j: &mut Judge<'_>, knobs: &BTreeMap<String, Vary>) -> Result<(), String> {
    for (path, knob) in knobs {
        let now = &j.best.scenario;
        let simple = simplest(knob);
        if now.varied.get(path).is_none_or(|v| *v == simple) {
            continue;
        }
        let mut values = now.varied.clone();
        values.insert(path.clone(), simple);
        // A value the model refuses here is one the scenario can draw only
        // with other knobs; it is simply not simpler. Nor is a cluster too
        // small for the faults the failure needs.
        match now.with_knobs(&values) {
            Ok(scenario) if aims_within(&j.best.plan, scenario.nodes) => {
                j.try_case(Case {
                    scenario,
                    ..j.best.clone()
                });
            }
            _ => {}
        }
    }
    for clients in 1..j.best.scenario.workload.clients {
        if j.try_case(Case {
            scenario: with_clients(&j.best.scenario, clients),
            ..j.best.clone()
        }) {
            break;
        }
    }
    Ok(())
}

/// Whether every node the plan names exists in a cluster of `nodes`.
fn aims_within(plan: &[PlanEntry], nodes: usize) -> bool {
    let ok = |n: &NodeId| *n < nodes;
    plan.iter().all(|e| match &e.action {
        Action::Crash { node }
        | Action::Restart { node }
        | Action::Pause { node, .. }
        | Action::ClockOffset { node, .. }
        | Action::ClockDrift { node, .. }
        | Action::ClockJump { node, .. } => ok(node),
        Action::Link { from, to, .. } => ok(from) && ok(to),
        Action::Partition { groups } => groups.iter().flatten().all(ok),
        Action::PartitionOneWay { from, to } => from.iter().chain(to).all(ok),
        Action::Isolate {
            target: Target::Node(node),
            ..
        } => ok(node),
        _ => true,
    })
}

/// The low end of a range, the first of a list.
fn simplest(knob: &Vary) -> Value {
    match knob {
        Vary::Range([lo, _]) => (*lo).into(),
        Vary::OneOf(values) => values.first().cloned().unwrap_or(Value::Null),
    }
}

fn with_clients(s: &Scenario, clients: u32) -> Scenario {
    let mut s = s.clone();
    s.workload.clients = clients;
    // Keep the record of drawn values true to the run.
    if let Some(v) = s.varied.get_mut("workload.clients") {
        *v = clients.into();
    }
    s
}

/// What shrinking changed in the scenario, as "path before -> after".
pub(super) fn changes(before: &Scenario, after: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let mut note = |path: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{path} {a} -> {b}"));
        }
    };
    note("safety_ms", before.safety_ms.to_string(), after.safety_ms.to_string());
    note(
        "liveness_ms",
        before.liveness_ms.to_string(),
        after.liveness_ms.to_string(),
    );
    for (path, b) in &after.varied {
        if let Some(a) = before.varied.get(path) {
            note(path, a.to_string(), b.to_string());
        }
    }
    if !after.varied.contains_key("workload.clients") {
        note(
            "workload.clients",
            before.workload.clients.to_string(),
            after.workload.clients.to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simplest_value_is_the_low_end_or_the_first() {
        assert_eq!(simplest(&Vary::Range([4, 64])), Value::from(4));
        assert_eq!(
            simplest(&Vary::OneOf(vec!["lease".into(), "read-index".into()])),
            Value::from("lease")
        );
    }

    #[test]
    fn a_plan_aimed_at_a_missing_node_does_not_fit_a_smaller_cluster() {
        let at = |action| PlanEntry { at_ns: 0, action };
        let plan = vec![
            at(Action::Crash { node: 2 }),
            at(Action::Partition {
                groups: vec![vec![0], vec![4, 1]],
            }),
        ];
        assert!(aims_within(&plan, 5));
        assert!(!aims_within(&plan, 3));
        assert!(aims_within(&plan[..1], 3));
        assert!(!aims_within(&plan[..1], 2));
    }

    #[test]
    fn changes_name_each_setting_that_moved() {
        let mut a = Scenario::from_json(r#"{"name":"x","model":"m","nodes":3,"invariants":[]}"#).unwrap();
        a.varied.insert("config.batch".into(), 9.into());
        let mut b = with_clients(&a, 1);
        b.safety_ms = 1_234;
        b.varied.insert("config.batch".into(), 1.into());
        assert_eq!(
            changes(&a, &b),
            vec![
                "safety_ms 10000 -> 1234",
                "config.batch 9 -> 1",
                "workload.clients 3 -> 1"
            ]
        );
        assert!(changes(&a, &a).is_empty());
    }
}
