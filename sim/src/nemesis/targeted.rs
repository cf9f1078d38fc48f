//! Targeted faults: a plan entry armed at its time that fires at the first
//! protocol moment after it, rather than at a wall-clock instant. Triggers
//! read only what the world sees of any system (sends with their peers, disk
//! writes, and the generic role, hard-state, commit, apply and lease events
//! a model reports), so they aim at any model without knowing it.
//!
//! When one fires, the trace records the concrete fault it became (a
//! `crash`, `partition` or `pause` of named nodes), followed by its undo
//! (`restart` or `heal`) after `ms`, unless the safety phase ends first.

use crate::id::NodeId;
use crate::rng::{chance, range};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The moment a targeted entry waits for, and what it does then.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "kebab-case")]
pub enum Trigger {
    /// The leader has just sent its `sends`-th message of one step to a
    /// distinct peer, and the same step still has messages for other peers
    /// (its burst reached some but not all of them). With `fresh`, only a
    /// step that also wrote to its disk counts (new entries, not a bare
    /// heartbeat). The rest of the burst never leaves a crashed leader; an
    /// isolated one keeps the peers it already reached, so what is in
    /// flight still lands on them.
    LeaderBurst {
        /// How many distinct peers the step has sent to when it fires.
        sends: usize,
        /// Only a step that also wrote to its disk counts.
        fresh: bool,
        /// What happens to the leader then.
        then: BurstFault,
    },
    /// A node (`node`, or whichever writes first) has just issued a disk
    /// write: it crashes before any fsync covers it, losing it.
    Unsynced {
        /// The node to watch; `None`: whichever node writes first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<NodeId>,
    },
    /// The nodes holding the newest entry are exactly `holders` many (and
    /// not all): they are partitioned from the rest. "Newest" is the highest
    /// index any node has reported committing or applying (`commit`,
    /// `apply`, `sm-reset`), the closest the generic events come to "has the
    /// entry": a node that holds an entry it has not yet learned is
    /// committed counts as not holding it.
    NewestHolders {
        /// How many nodes must hold the newest entry for it to fire.
        holders: usize,
    },
    /// A node's term (from `role` or `hard-state`) has just risen above
    /// every other node's: once that step is done, it crashes, and restarts
    /// after `ms`.
    TermAhead,
    /// A node holds a lease (`lease-start`) that its own clock will see
    /// expire within `before_ms`: it is paused. Never fires for a model
    /// that reports no leases.
    LeaseExpiring {
        /// How near the expiry must be, in ms of the holder's own clock.
        before_ms: u64,
    },
}

impl Trigger {
    /// Its `on` name, as in a plan.
    pub fn name(&self) -> &'static str {
        match self {
            Trigger::LeaderBurst { .. } => "leader-burst",
            Trigger::Unsynced { .. } => "unsynced",
            Trigger::NewestHolders { .. } => "newest-holders",
            Trigger::TermAhead => "term-ahead",
            Trigger::LeaseExpiring { .. } => "lease-expiring",
        }
    }
}

/// What happens to a leader caught mid-burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BurstFault {
    /// Crash the leader: the rest of the burst is never sent.
    Crash,
    /// Partition the leader, with the peers the burst reached, from the rest.
    Isolate,
}

/// The kinds of fault a targeted entry may become: those its profile enables.
#[derive(Clone, Copy, Debug)]
pub struct Allowed {
    pub crash: bool,
    pub pause: bool,
    /// Partitions of any sort.
    pub cut: bool,
}

/// A targeted entry for a cluster of `nodes`, lasting `ms` once it fires,
/// drawn among the triggers whose fault is allowed (none: no entry). Spared
/// nodes are never named; the world also refuses to crash or pause them
/// when a trigger lands on one.
pub fn draw(
    rng: &mut ChaCha8Rng,
    nodes: usize,
    spared: &[NodeId],
    ms: u64,
    allowed: Allowed,
) -> Option<(Trigger, u64)> {
    let menu: Vec<usize> = [
        allowed.crash || allowed.cut,
        allowed.crash,
        allowed.cut,
        allowed.crash,
        allowed.pause,
    ]
    .iter()
    .enumerate()
    .filter_map(|(k, &ok)| ok.then_some(k))
    .collect();
    let pick = *menu.get(range(rng, 0, menu.len().checked_sub(1)? as u64) as usize)?;
    let peers_max = nodes.saturating_sub(2).max(1) as u64;
    Some(match pick {
        0 => {
            // A spared node may lead: then the leader is only cut off.
            let crash = allowed.crash && (!allowed.cut || (spared.is_empty() && chance(rng, 0.5)));
            let then = if crash { BurstFault::Crash } else { BurstFault::Isolate };
            let trigger = Trigger::LeaderBurst {
                sends: range(rng, 1, peers_max) as usize,
                fresh: chance(rng, 0.5),
                then,
            };
            (trigger, ms)
        }
        1 => {
            let candidates: Vec<NodeId> = (0..nodes).filter(|n| !spared.contains(n)).collect();
            let node = if chance(rng, 0.5) {
                candidates.choose(rng).copied()
            } else {
                None
            };
            (Trigger::Unsynced { node }, ms)
        }
        2 => {
            let holders = range(rng, 1, nodes.saturating_sub(1).max(1) as u64) as usize;
            (Trigger::NewestHolders { holders }, ms)
        }
        // A quick restart: the node comes back while the term it raised is
        // still being fought over.
        3 => (Trigger::TermAhead, ms / 4 + 1),
        _ => {
            let before_ms = range(rng, 1, 100);
            (Trigger::LeaseExpiring { before_ms }, ms / 2 + before_ms)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nemesis::{Action, PlanEntry};
    use crate::rng::{stream, Stream};

    fn entry(trigger: Trigger) -> PlanEntry {
        PlanEntry {
            at_ns: 7,
            action: Action::Targeted { trigger, ms: 300 },
        }
    }

    #[test]
    fn a_targeted_entry_reads_as_flat_json() {
        let e = entry(Trigger::LeaderBurst {
            sends: 1,
            fresh: true,
            then: BurstFault::Isolate,
        });
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"at_ns":7,"action":"targeted","on":"leader-burst","sends":1,"fresh":true,"then":"isolate","ms":300}"#
        );
        let any = serde_json::to_string(&entry(Trigger::Unsynced { node: None })).unwrap();
        assert_eq!(any, r#"{"at_ns":7,"action":"targeted","on":"unsynced","ms":300}"#);
    }

    #[test]
    fn every_trigger_round_trips_through_json() {
        let all = [
            Trigger::LeaderBurst {
                sends: 2,
                fresh: false,
                then: BurstFault::Crash,
            },
            Trigger::Unsynced { node: Some(3) },
            Trigger::Unsynced { node: None },
            Trigger::NewestHolders { holders: 2 },
            Trigger::TermAhead,
            Trigger::LeaseExpiring { before_ms: 40 },
        ];
        for t in all {
            let e = entry(t);
            let back: PlanEntry = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
            assert_eq!(back, e);
        }
    }

    #[test]
    fn a_plan_written_before_targeted_entries_parses_unchanged() {
        let old = r#"[{"at_ns":412000000,"action":"crash","node":3},
                      {"at_ns":500000000,"action":"pause-leader","ms":80},
                      {"at_ns":600000000,"action":"isolate","target":"leader","inbound_only":true},
                      {"at_ns":700000000,"action":"heal"}]"#;
        let plan: Vec<PlanEntry> = serde_json::from_str(old).unwrap();
        assert_eq!(plan[0].action, Action::Crash { node: 3 });
        assert_eq!(plan[1].action, Action::PauseLeader { ms: 80 });
        assert_eq!(plan[3].action, Action::Heal);
        let again: serde_json::Value = serde_json::to_value(&plan).unwrap();
        let first: serde_json::Value = serde_json::from_str(old).unwrap();
        assert_eq!(again, first, "an old plan writes back byte for byte the same");
    }

    #[test]
    fn an_unknown_trigger_is_an_error_not_a_panic() {
        let bad = r#"{"at_ns":1,"action":"targeted","on":"full-moon","ms":3}"#;
        let err = serde_json::from_str::<PlanEntry>(bad).unwrap_err().to_string();
        assert!(err.contains("full-moon"), "{err}");
    }

    const ALL: Allowed = Allowed {
        crash: true,
        pause: true,
        cut: true,
    };

    #[test]
    fn draws_cover_every_trigger_and_name_no_spared_node() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let (t, ms) = draw(&mut stream(seed, Stream::Plan), 5, &[0, 1], 400, ALL).unwrap();
            assert!(ms > 0);
            match &t {
                Trigger::LeaderBurst { sends, then, .. } => {
                    assert!((1..=3).contains(sends));
                    assert_eq!(*then, BurstFault::Isolate, "a spared node may lead: no crash");
                }
                Trigger::Unsynced { node: Some(n) } => assert!(*n >= 2),
                Trigger::NewestHolders { holders } => assert!((1..=4).contains(holders)),
                Trigger::LeaseExpiring { before_ms } => assert!(ms >= *before_ms),
                _ => {}
            }
            let on = serde_json::to_value(&t).unwrap()["on"].as_str().unwrap().to_string();
            assert_eq!(on, t.name());
            seen.insert(on);
        }
        assert_eq!(seen.len(), 5);
    }

    #[test]
    fn draws_become_only_the_faults_the_profile_allows() {
        let only = |crash, pause, cut| Allowed { crash, pause, cut };
        for seed in 0..100 {
            let mut rng = stream(seed, Stream::Plan);
            match draw(&mut rng, 5, &[], 400, only(false, false, true)).unwrap().0 {
                Trigger::LeaderBurst { then, .. } => assert_eq!(then, BurstFault::Isolate),
                Trigger::NewestHolders { .. } => {}
                t => panic!("{t:?} stops a node, and only cuts are allowed"),
            }
            match draw(&mut rng, 5, &[], 400, only(true, false, false)).unwrap().0 {
                Trigger::LeaderBurst { then, .. } => assert_eq!(then, BurstFault::Crash),
                Trigger::Unsynced { .. } | Trigger::TermAhead => {}
                t => panic!("{t:?} is not a crash"),
            }
            let t = draw(&mut rng, 5, &[], 400, only(false, true, false)).unwrap().0;
            assert!(matches!(t, Trigger::LeaseExpiring { .. }), "{t:?}");
        }
        assert!(draw(&mut stream(1, Stream::Plan), 5, &[], 400, only(false, false, false)).is_none());
    }
}
