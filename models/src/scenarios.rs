//! The built-in scenarios (JSON files in scenarios/, compiled in), also
//! loadable from a path.

use sim::Scenario;

pub const BUILTIN: &[(&str, &str)] = &[
    ("raft-partitions", include_str!("../../scenarios/raft-partitions.json")),
    (
        "raft-crash-restart",
        include_str!("../../scenarios/raft-crash-restart.json"),
    ),
    ("raft-snapshot", include_str!("../../scenarios/raft-snapshot.json")),
    ("raft-seven", include_str!("../../scenarios/raft-seven.json")),
    ("raft-clock-skew", include_str!("../../scenarios/raft-clock-skew.json")),
    (
        "raft-skew-beyond-bound",
        include_str!("../../scenarios/raft-skew-beyond-bound.json"),
    ),
    ("raft-membership", include_str!("../../scenarios/raft-membership.json")),
    ("raft-read-index", include_str!("../../scenarios/raft-read-index.json")),
    (
        "raft-lease-reads",
        include_str!("../../scenarios/raft-lease-reads.json"),
    ),
    (
        "raft-lease-votes",
        include_str!("../../scenarios/raft-lease-votes.json"),
    ),
    (
        "raft-check-quorum-reads",
        include_str!("../../scenarios/raft-check-quorum-reads.json"),
    ),
    ("raft-drift", include_str!("../../scenarios/raft-drift.json")),
    (
        "raft-follower-reads",
        include_str!("../../scenarios/raft-follower-reads.json"),
    ),
    (
        "snapshot-handover",
        include_str!("../../scenarios/snapshot-handover.json"),
    ),
    (
        "snapshot-replay-window",
        include_str!("../../scenarios/snapshot-replay-window.json"),
    ),
    (
        "snapshot-events-recovery",
        include_str!("../../scenarios/snapshot-events-recovery.json"),
    ),
    (
        "snapshot-ttl-limit",
        include_str!("../../scenarios/snapshot-ttl-limit.json"),
    ),
    (
        "snapshot-ttl-safe",
        include_str!("../../scenarios/snapshot-ttl-safe.json"),
    ),
    (
        "snapshot-guard-expired",
        include_str!("../../scenarios/snapshot-guard-expired.json"),
    ),
];

pub fn all() -> Vec<Scenario> {
    BUILTIN
        .iter()
        .map(|(n, _)| load(n).expect("built-in scenarios are valid"))
        .collect()
}

/// A built-in name, or a path to a scenario file; the error is one line.
pub fn load(name_or_path: &str) -> Result<Scenario, String> {
    let text = match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
        Some((_, text)) => text.to_string(),
        None if name_or_path.ends_with(".json") || std::path::Path::new(name_or_path).exists() => {
            std::fs::read_to_string(name_or_path).map_err(|e| format!("cannot read scenario {name_or_path}: {e}"))?
        }
        None => {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown scenario '{name_or_path}' (built-in: {}; or give a .json path)",
                names.join(", ")
            ));
        }
    };
    let s = Scenario::from_json(&text).map_err(|e| format!("{name_or_path}: {e}"))?;
    crate::catalogue::validate(&s, &[])?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_scenario_is_valid_and_named_after_its_file() {
        for (name, _) in super::BUILTIN {
            let s = super::load(name).unwrap();
            assert_eq!(&s.name, name);
            assert!(!s.coverage.is_empty(), "{name} has no coverage goal");
        }
    }
}
