//! Targeted plan entries on the Raft model: each trigger fires, and the
//! fault lands at the moment it names, read back from the trace alone.

use models::registry;
use sim::fault::{Action, BurstFault, PlanEntry, Trigger};
use sim::{DropCause, Event, EventKind, ModelEvent, NodeId, Role, RunOutcome, Status};

const MS: u64 = 1_000_000;

/// Runs `scenario` on `seed` with one targeted entry armed at 2 s, and
/// the `extra` entries.
fn run_with(scenario: &str, seed: u64, trigger: Trigger, extra: &[PlanEntry]) -> RunOutcome {
    let reg = registry();
    let s = reg.load(scenario).unwrap();
    let mut plan = vec![PlanEntry {
        at_ns: 2_000 * MS,
        action: Action::Targeted { trigger, ms: 300 },
    }];
    plan.extend(extra.iter().cloned());
    let out = reg.run(&s, seed, &[], Some(plan)).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
    out
}

/// The first fault of the run that `extra` did not cause, and its trace position.
fn first_fault(out: &RunOutcome, extra: &[PlanEntry]) -> Option<(usize, Action)> {
    let ev = out.trace.events();
    ev.iter().enumerate().find_map(|(i, e)| match &e.kind {
        EventKind::Fault { action } if !extra.iter().any(|x| x.at_ns == e.t_ns) => Some((i, action.clone())),
        _ => None,
    })
}

/// Seeds (of the first `n`) on which the entry fired, with their runs.
fn fired(scenario: &str, n: u64, trigger: Trigger) -> Vec<(usize, Action, RunOutcome)> {
    fired_beside(scenario, n, trigger, &[])
}

fn fired_beside(scenario: &str, n: u64, trigger: Trigger, extra: &[PlanEntry]) -> Vec<(usize, Action, RunOutcome)> {
    let runs: Vec<_> = (0..n)
        .filter_map(|seed| {
            let out = run_with(scenario, seed, trigger.clone(), extra);
            first_fault(&out, extra).map(|(i, a)| (i, a, out))
        })
        .collect();
    assert!(
        runs.len() as u64 * 2 >= n,
        "{trigger:?} fired on {} of {n} seeds",
        runs.len()
    );
    runs
}

fn role_before(ev: &[Event], node: NodeId) -> Option<(Role, u64)> {
    ev.iter()
        .rev()
        .filter(|e| e.node == Some(node))
        .find_map(|e| match e.kind {
            EventKind::Model(ModelEvent::Role { role, term, .. }) => Some((role, term)),
            _ => None,
        })
}

#[test]
fn a_leader_crashed_mid_append_reached_one_of_its_two_peers() {
    let t = Trigger::LeaderBurst {
        sends: 1,
        fresh: true,
        then: BurstFault::Crash,
    };
    for (c, action, out) in fired("raft-crash-restart-targeted", 12, t) {
        let ev = out.trace.events();
        let Action::Crash { node } = action else {
            panic!("{action:?}")
        };
        assert_eq!(role_before(&ev[..c], node).map(|r| r.0), Some(Role::Leader));
        let sent: Vec<&Event> = ev[..c]
            .iter()
            .rev()
            .take_while(|e| e.t_ns == ev[c].t_ns && e.node == Some(node))
            .filter(|e| matches!(e.kind, EventKind::Send { .. }))
            .collect();
        assert_eq!(sent.len(), 1, "one append left before the crash");
        assert!(matches!(&sent[0].kind, EventKind::Send { msg, .. } if msg == "append"));
        // The entry it wrote in that step was not durable yet.
        assert!(
            matches!(ev[c + 1].kind, EventKind::DiskLoss { .. }) && ev[c + 1].node == Some(node),
            "{:?}",
            ev[c + 1]
        );
    }
}

#[test]
fn an_isolated_leader_loses_the_rest_of_its_burst() {
    let t = Trigger::LeaderBurst {
        sends: 2,
        fresh: false,
        then: BurstFault::Isolate,
    };
    for (c, action, out) in fired("raft-partitions-targeted", 8, t) {
        let ev = out.trace.events();
        let Action::PartitionOneWay { from, to } = action else {
            panic!("{action:?}")
        };
        let leader = from[0];
        assert_eq!(to.len(), 2, "two of four peers are still to be sent to");
        let dropped = ev[c..]
            .iter()
            .take_while(|e| e.t_ns == ev[c].t_ns)
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Drop {
                        cause: DropCause::Partition,
                        ..
                    }
                ) && e.node == Some(leader)
            })
            .count();
        assert_eq!(dropped, 2, "the rest of the burst is cut off");
    }
}

#[test]
fn a_crash_after_a_write_loses_it() {
    for (c, action, out) in fired("raft-crash-restart-targeted", 8, Trigger::Unsynced { node: None }) {
        let ev = out.trace.events();
        let Action::Crash { node } = action else {
            panic!("{action:?}")
        };
        let EventKind::DiskLoss { lost, kept } = ev[c + 1].kind else {
            panic!("the crash lost nothing: {:?}", ev[c + 1])
        };
        assert!(lost >= 1 && ev[c + 1].node == Some(node), "lost {lost}, kept {kept}");
    }
}

#[test]
fn the_newest_committers_are_cut_off_from_the_rest() {
    for (c, action, out) in fired("raft-partitions-targeted", 8, Trigger::NewestHolders { holders: 2 }) {
        let ev = out.trace.events();
        let Action::Partition { groups } = action else {
            panic!("{action:?}")
        };
        let best = |n: NodeId| {
            ev[..c]
                .iter()
                .filter(|e| e.node == Some(n))
                .filter_map(|e| match e.kind {
                    EventKind::Model(ModelEvent::Commit { index } | ModelEvent::Apply { index, .. }) => Some(index),
                    EventKind::Model(ModelEvent::SmReset { applied, .. }) => Some(applied),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        let top = groups[0].iter().map(|&n| best(n)).collect::<Vec<_>>();
        assert_eq!(top.len(), 2);
        assert!(top.iter().all(|&i| i == top[0]), "{top:?}");
        assert!(
            groups[1].iter().all(|&n| best(n) < top[0]),
            "the rest lag behind {}",
            top[0]
        );
    }
}

#[test]
fn the_node_ahead_in_term_restarts() {
    // A stalled leader makes a follower campaign in a new term.
    let stall = [PlanEntry {
        at_ns: 2_500 * MS,
        action: Action::PauseLeader { ms: 1_000 },
    }];
    for (c, action, out) in fired_beside("raft-crash-restart-targeted", 8, Trigger::TermAhead, &stall) {
        let ev = out.trace.events();
        let Action::Crash { node } = action else {
            panic!("{action:?}")
        };
        let term = |n: NodeId| {
            ev[..c]
                .iter()
                .filter(|e| e.node == Some(n))
                .filter_map(|e| match e.kind {
                    EventKind::Model(ModelEvent::Role { term, .. } | ModelEvent::HardState { term, .. }) => Some(term),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        };
        assert!((0..3).filter(|&m| m != node).all(|m| term(m) < term(node)));
        let restart = ev[c..]
            .iter()
            .find(|e| matches!(e.kind, EventKind::Fault { action: Action::Restart { node: n } } if n == node))
            .expect("a restart");
        assert_eq!(restart.t_ns, ev[c].t_ns + 300 * MS);
    }
}

#[test]
fn a_lease_holder_is_paused_before_its_lease_runs_out() {
    let t = Trigger::LeaseExpiring { before_ms: 50 };
    for (c, action, out) in fired("raft-clock-skew-targeted", 8, t) {
        let ev = out.trace.events();
        let Action::Pause { node, .. } = action else {
            panic!("{action:?}")
        };
        // Since it last booted it started a lease, and stopped none after.
        let last = ev[..c].iter().rev().find(|e| {
            e.node == Some(node)
                && matches!(
                    e.kind,
                    EventKind::Boot { .. }
                        | EventKind::Model(ModelEvent::LeaseStart { .. } | ModelEvent::LeaseStop { .. })
                )
        });
        assert!(
            matches!(
                last.map(|e| &e.kind),
                Some(EventKind::Model(ModelEvent::LeaseStart { .. }))
            ),
            "{last:?}"
        );
    }
}
