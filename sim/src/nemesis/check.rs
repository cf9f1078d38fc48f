//! What a fault profile and a plan may hold: a profile's knobs within their
//! ranges, and a plan (drawn, edited by hand, or read from a report) that
//! names only nodes the cluster has and durations the world can add up.

use super::{Action, FaultProfile, PlanEntry, Target, Trigger};
use crate::bounds::{self, ms, ordered, probability, within};
use crate::id::NodeId;

/// The largest rate error a clock fault may draw, in parts per million: the
/// clock runs at half or one and a half times true speed at the extremes,
/// and never stops or runs backwards.
pub const DRIFT_PPM_MAX: i64 = 500_000;

const MS: i64 = 1_000_000;

impl FaultProfile {
    /// Every knob within its range, for a cluster of `nodes`; the error is
    /// one line naming the knob.
    pub fn validate(&self, nodes: usize) -> Result<(), String> {
        ms("faults.interval_ms_mean", self.interval_ms_mean, 1)?;
        ms("faults.fault_ms_max", self.fault_ms_max, 0)?;
        for (field, p) in [
            ("faults.drop_probability_max", self.drop_probability_max),
            ("faults.duplicate_probability_max", self.duplicate_probability_max),
            ("faults.reorder_probability_max", self.reorder_probability_max),
            ("faults.torn_write_probability", self.torn_write_probability),
            ("faults.clock_leap_probability", self.clock_leap_probability),
            ("faults.impair_leader_probability", self.impair_leader_probability),
        ] {
            probability(field, p)?;
        }
        ms("faults.delay_ms_min", self.delay_ms_min, 0)?;
        ms("faults.delay_ms_max", self.delay_ms_max, 0)?;
        ordered(
            "faults.delay_ms_min",
            self.delay_ms_min,
            "faults.delay_ms_max",
            self.delay_ms_max,
        )?;
        ms("faults.fsync_ms_min", self.fsync_ms_min, 0)?;
        ms("faults.fsync_ms_max", self.fsync_ms_max, 0)?;
        ordered(
            "faults.fsync_ms_min",
            self.fsync_ms_min,
            "faults.fsync_ms_max",
            self.fsync_ms_max,
        )?;
        ms("faults.skew_ms_max", self.skew_ms_max, 0)?;
        within("faults.drift_ppm_max", self.drift_ppm_max, 0..=DRIFT_PPM_MAX)?;
        ms("faults.clock_leap_ms", self.clock_leap_ms, 0)?;
        for (i, &node) in self.spared.iter().enumerate() {
            node_of("faults.spared", node, nodes)?;
            if self.spared[..i].contains(&node) {
                return Err(format!("faults.spared lists node {node} twice"));
            }
        }
        Ok(())
    }
}

fn node_of(field: &str, node: NodeId, nodes: usize) -> Result<(), String> {
    within(field, node, 0..=nodes.saturating_sub(1))
}

/// Checks that every entry of `plan` names only nodes `0..nodes` and
/// durations within [`bounds::TIME_MS_MAX`]: a report's plan may have been
/// edited by hand, and the world would panic on a node it does not have.
/// Nor may it crash or pause a node the scenario spares: what a scenario
/// claims may rest on those nodes staying up (an owner that is always
/// there to take a partition over), and no drawn, searched or shrunk plan
/// touches them.
pub fn check_plan(plan: &[PlanEntry], nodes: usize, spared: &[NodeId]) -> Result<(), String> {
    for (i, e) in plan.iter().enumerate() {
        check_action(&e.action, nodes).map_err(|err| format!("plan[{i}].{err}"))?;
        if let Action::Crash { node } | Action::Pause { node, .. } = &e.action {
            if spared.contains(node) {
                return Err(format!(
                    "plan[{i}] stops node {node}, which the scenario spares (faults.spared)"
                ));
            }
        }
    }
    Ok(())
}

fn check_action(action: &Action, nodes: usize) -> Result<(), String> {
    let node = |n: NodeId| node_of("node", n, nodes);
    let all = |field: &str, ns: &[NodeId]| ns.iter().try_for_each(|&n| node_of(field, n, nodes));
    let clock_ns = |ns: i64| {
        let most = bounds::TIME_MS_MAX as i64 * MS;
        within("ns", ns, -most..=most)
    };
    match action {
        Action::Partition { groups } => groups.iter().try_for_each(|g| all("groups", g)),
        Action::PartitionOneWay { from, to } => all("from", from).and_then(|_| all("to", to)),
        Action::Isolate { target, .. } => match target {
            Target::Node(n) => node_of("target", *n, nodes),
            Target::Leader => Ok(()),
        },
        Action::Link {
            from,
            to,
            drop_per_million,
            delay_ms_extra,
        } => {
            node_of("from", *from, nodes)?;
            node_of("to", *to, nodes)?;
            within("drop_per_million", *drop_per_million, 0..=1_000_000)?;
            ms("delay_ms_extra", *delay_ms_extra, 0)
        }
        Action::LinkMode { a, b, .. } => node_of("a", *a, nodes).and_then(|_| node_of("b", *b, nodes)),
        Action::Heal | Action::CutLeaderLink { .. } | Action::ClockDriftLeader { .. } | Action::Reseed { .. } => Ok(()),
        Action::Crash { node: n } | Action::Restart { node: n } | Action::ClockDrift { node: n, .. } => node(*n),
        Action::Pause { node: n, ms: d } | Action::Disk { node: n, ms: d, .. } => {
            node(*n).and_then(|_| ms("ms", *d, 0))
        }
        Action::DiskRot { node: n, per_million } => {
            node(*n).and_then(|_| within("per_million", *per_million, 0..=999_999))
        }
        Action::PauseLeader { ms: d } => ms("ms", *d, 0),
        Action::ClockOffset { node: n, ns } | Action::ClockJump { node: n, ns } => node(*n).and_then(|_| clock_ns(*ns)),
        Action::Targeted { trigger, ms: d } => {
            ms("ms", *d, 0)?;
            match trigger {
                Trigger::Unsynced { node: Some(n) } => node(*n),
                Trigger::LeaseExpiring { before_ms } => ms("before_ms", *before_ms, 0),
                _ => Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(action: Action) -> PlanEntry {
        PlanEntry { at_ns: 5, action }
    }

    #[test]
    fn a_plan_naming_a_node_the_cluster_lacks_is_refused_with_its_position() {
        let plan = vec![entry(Action::Heal), entry(Action::Crash { node: 99 })];
        assert_eq!(
            check_plan(&plan, 3, &[]).unwrap_err(),
            "plan[1].node = 99 is out of range 0..=2"
        );
        let cut = vec![entry(Action::Partition {
            groups: vec![vec![0], vec![1, 7]],
        })];
        assert!(check_plan(&cut, 3, &[]).unwrap_err().starts_with("plan[0].groups = 7"));
        let pause = vec![entry(Action::Pause { node: 0, ms: u64::MAX })];
        assert!(check_plan(&pause, 3, &[]).unwrap_err().starts_with("plan[0].ms = "));
        let drawn = FaultProfile::default();
        let mut rng = crate::rng::stream(1, crate::rng::Stream::Plan);
        let draw = drawn.draw(&mut rng);
        assert!(check_plan(&drawn.plan(&draw, 5, 10_000_000_000, &mut rng), 5, &[]).is_ok());
        let spared = FaultProfile {
            spared: vec![0, 2],
            ..FaultProfile::default()
        };
        let draw = spared.draw(&mut rng);
        assert!(check_plan(&spared.plan(&draw, 5, 10_000_000_000, &mut rng), 5, &spared.spared).is_ok());
        let crash = vec![entry(Action::Restart { node: 2 }), entry(Action::Crash { node: 2 })];
        assert_eq!(
            check_plan(&crash, 3, &[2]).unwrap_err(),
            "plan[1] stops node 2, which the scenario spares (faults.spared)"
        );
    }

    #[test]
    fn a_profile_out_of_range_names_the_knob() {
        let p = FaultProfile {
            drop_probability_max: 1.5,
            ..FaultProfile::default()
        };
        assert_eq!(
            p.validate(3).unwrap_err(),
            "faults.drop_probability_max = 1.5 is out of range 0..=1"
        );
        let p = FaultProfile {
            fsync_ms_min: 9,
            fsync_ms_max: 2,
            ..FaultProfile::default()
        };
        assert_eq!(
            p.validate(3).unwrap_err(),
            "faults.fsync_ms_min = 9 exceeds faults.fsync_ms_max = 2"
        );
        let p = FaultProfile {
            spared: vec![3],
            ..FaultProfile::default()
        };
        assert!(p.validate(3).unwrap_err().starts_with("faults.spared = 3"));
        assert!(FaultProfile::default().validate(3).is_ok());
    }
}
