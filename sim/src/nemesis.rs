//! The nemesis: faults as data. A plan is a timed list of actions drawn from
//! the plan stream of the seed; it is stored in every report and can be
//! replayed or edited. Message-level chaos is drawn per message in `net`.

use crate::id::NodeId;
use crate::rng::{chance, range};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

mod check;
mod targeted;
pub use check::{check_plan, DRIFT_PPM_MAX};
pub use targeted::{BurstFault, Trigger};

/// Which node an action hits. `Leader` is resolved when the action fires,
/// to the node that most recently claimed leadership in the highest term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// That node, by id.
    Node(NodeId),
    /// Whichever node leads when the action fires.
    Leader,
}

/// A fault or its undo: what a plan entry does, and what a `fault` event records.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    /// Nodes in different groups cannot reach each other; nodes in no group
    /// keep all their links.
    Partition {
        /// The groups, each a list of node ids.
        groups: Vec<Vec<NodeId>>,
    },
    /// Messages from any of `from` to any of `to` are lost; the reverse direction works.
    PartitionOneWay {
        /// The nodes whose messages are lost.
        from: Vec<NodeId>,
        /// The nodes those messages no longer reach.
        to: Vec<NodeId>,
    },
    /// Cut one node off. `inbound_only`: it can still send but hears nothing.
    Isolate {
        /// The node cut off.
        target: Target,
        /// Only what it receives is lost; what it sends still arrives.
        inbound_only: bool,
    },
    /// A degraded link: extra loss and delay from `from` to `to`.
    Link {
        /// The sending end of the link.
        from: NodeId,
        /// The receiving end of the link.
        to: NodeId,
        /// The chance, in parts per million, that a message on the link is lost.
        drop_per_million: u32,
        /// The delay added to each message on the link, in ms.
        delay_ms_extra: u64,
    },
    /// Remove every partition and link fault.
    Heal,
    /// Stop a node: its volatile state is gone, and so are its unsynced writes but for a torn prefix.
    Crash {
        /// The node that stops.
        node: NodeId,
    },
    /// Boot a crashed node again from its disk; nothing happens if it is up.
    Restart {
        /// The node that boots.
        node: NodeId,
    },
    /// Cut one direction of one of the current leader's links: to (or from,
    /// if not `outbound`) its `peer`-th peer in id order. Recorded as the
    /// `partition-one-way` it became.
    CutLeaderLink {
        /// Which of the leader's peers, by position in id order (modulo their number).
        peer: usize,
        /// Cut the leader's messages to the peer; if false, the peer's messages to the leader.
        outbound: bool,
    },
    /// Stall a node (a GC pause): it handles nothing, its clock runs on.
    /// What reached it meanwhile is handled on resume, each sender's
    /// messages in order but the senders interleaved at random, as a
    /// server draining many connections after a stall would.
    Pause {
        /// The node stalled.
        node: NodeId,
        /// How long it stalls, in ms of true time.
        ms: u64,
    },
    /// Stall whichever node leads when the fault starts; recorded in the
    /// trace as the `pause` it became.
    PauseLeader {
        /// How long it stalls, in ms of true time.
        ms: u64,
    },
    /// Set the rate of whichever node leads; recorded as the `clock-drift`
    /// it became.
    ClockDriftLeader {
        /// The rate error, in parts per million: +100 runs 100 µs/s fast.
        ppm: i64,
    },
    /// Set a node's wall clock to true time plus `ns`; its monotonic clock does not move.
    ClockOffset {
        /// The node whose wall clock is set.
        node: NodeId,
        /// The offset from true time, in ns (negative: behind).
        ns: i64,
    },
    /// Make a node's wall and monotonic clocks run fast or slow from now on.
    ClockDrift {
        /// The node whose clocks drift.
        node: NodeId,
        /// The rate error, in parts per million: +100 runs 100 µs/s fast.
        ppm: i64,
    },
    /// Step a node's wall clock (an NTP correction); its monotonic clock does not move.
    ClockJump {
        /// The node whose wall clock steps.
        node: NodeId,
        /// How far it steps, in ns (negative: back).
        ns: i64,
    },
    /// Armed at `at_ns`; fires at the first moment after it that `trigger`
    /// matches, as the concrete fault the trigger names, undone after `ms`.
    /// Recorded as that fault (and its undo), never as itself.
    Targeted {
        /// The protocol moment it waits for, and the fault it becomes.
        #[serde(flatten)]
        trigger: Trigger,
        /// How long the fault lasts once fired, in ms, before its undo.
        ms: u64,
    },
    /// A storage fault on one node's disk for `ms` (see [`DiskFault`]); in
    /// an explored run, `ms` 0 ends the one in force.
    Disk {
        /// The node whose disk fails.
        node: NodeId,
        /// What fails.
        fault: DiskFault,
        /// How long the fault lasts, in ms.
        ms: u64,
    },
    /// One durable record of a node's disk rots: the one `per_million` of
    /// the way through it. It fails its checksum until the disk is
    /// rewritten (an [`Io::disk_replace`](crate::Io::disk_replace)).
    DiskRot {
        /// The node whose disk rots.
        node: NodeId,
        /// Which record rots: this many millionths of the way through the durable ones.
        per_million: u32,
    },
    /// From here on the run's chance is drawn afresh from `seed`: message
    /// loss, delay, duplication and order, disk outcomes, the workload and
    /// every node's own randomness. Everything before is untouched, so the
    /// run forks: the coverage-guided search puts these in plans to try
    /// other continuations of a situation it reached. No profile draws one.
    Reseed {
        /// The seed everything from here on is drawn from.
        seed: u64,
    },
    /// The link between `a` and `b` becomes `mode` (see
    /// [`crate::links::LinkMode`]); an open stream made datagrams breaks.
    LinkMode {
        /// One end of the link.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// What the link becomes: datagrams or a stream.
        mode: crate::links::LinkMode,
    },
}

/// A storage fault that lasts a while. A model sees it as a
/// [`crate::DiskError`] value, or as a failed fsync.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiskFault {
    /// Reads fail: a boot in the window finds the disk unreadable.
    ReadError,
    /// Fsyncs that complete in the window fail; each write they covered
    /// lands or is lost, and none is retried.
    FsyncError,
    /// Writes are refused: no space left.
    NoSpace,
    /// Fsyncs issued in the window take [`SLOW_DISK_FACTOR`] times as long.
    Slow,
}

/// How much slower a slow disk's fsyncs are.
pub const SLOW_DISK_FACTOR: u64 = 50;

/// One timed action of a plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanEntry {
    /// When it takes effect (a targeted one: when it is armed), in ns since the run began.
    pub at_ns: u64,
    /// What happens then.
    #[serde(flatten)]
    pub action: Action,
}

/// The fault profile of a scenario: which kinds may happen and how hard.
/// With `swarm`, each seed enables a random subset of the kinds and draws
/// its rates below the maxima, so different seeds stress different mixes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaultProfile {
    /// When set, each seed enables a random subset of the kinds below and draws rates below their maxima.
    pub swarm: bool,
    /// Split the nodes: a minority from a majority, one node from the rest, or two sides one node bridges.
    pub partition: bool,
    /// Cut one node, or the leader, off: both ways, or only from what it receives.
    pub partition_one_way: bool,
    /// The leader's links fail one at a time: each direction of each of its
    /// links is cut at its own moment within the fault, and all heal
    /// together. Followers then lose the leader at different times, and the
    /// leader loses their answers at yet others.
    pub partition_rolling: bool,
    /// Degrade one directed link between two nodes with extra loss and delay.
    pub link: bool,
    /// Crash nodes one by one, at most a minority down at once, each restarted when its fault ends.
    pub crash: bool,
    /// Crash a majority or all nodes at once (a power loss), restarting each soon after.
    pub power_loss: bool,
    /// Stall one node, or the leader, for a while (a GC pause).
    pub pause: bool,
    /// Offset, drift or jump one node's clocks, within `skew_ms_max` and `drift_ppm_max`.
    pub clock: bool,
    /// Mix in targeted faults: armed at a drawn time, they fire at a
    /// protocol moment (a leader mid-burst, a write not yet synced, the
    /// nodes holding the newest entry, a node ahead in term, a lease about
    /// to expire). Each becomes only a fault the profile enables: a crash
    /// (`crash` or `power_loss`), a pause, or a cut (any partition kind).
    /// See [`Trigger`].
    pub targeted: bool,
    /// Storage faults on one node at a time: read errors and rotten records
    /// met at a reboot, failed fsyncs, a full disk, a slow disk. A node the
    /// fault makes reboot counts as down for the crash budget.
    pub disk: bool,
    /// Mean time between plan actions.
    pub interval_ms_mean: u64,
    /// How long a partition, pause or crash lasts before its undo, at most.
    pub fault_ms_max: u64,
    /// The highest chance that message chaos loses a message.
    pub drop_probability_max: f64,
    /// The highest chance that a message arrives twice.
    pub duplicate_probability_max: f64,
    /// The highest chance that a message is held back so that later ones overtake it.
    pub reorder_probability_max: f64,
    /// The shortest message delay, in ms.
    pub delay_ms_min: u64,
    /// The longest message delay, in ms: each seed draws its own maximum between `delay_ms_min` and this.
    pub delay_ms_max: u64,
    /// Probability that a crash keeps a random prefix of unsynced writes.
    pub torn_write_probability: f64,
    /// The shortest time an fsync takes, in ms.
    pub fsync_ms_min: u64,
    /// The longest time an fsync takes on a healthy disk, in ms.
    pub fsync_ms_max: u64,
    /// A clock offset or jump never leaves a node's wall clock further than
    /// this from true time (drift aside), so a scenario can stay within the
    /// skew bound its system assumes.
    pub skew_ms_max: u64,
    /// The largest rate error a clock fault draws, in parts per million, fast or slow.
    pub drift_ppm_max: i64,
    /// With this probability one node's wall clock is set `clock_leap_ms`
    /// ahead early in the run and left there (no later clock fault touches
    /// that node): skew beyond MAX_CLOCK_SKEW when the leap exceeds it.
    pub clock_leap_probability: f64,
    /// How far ahead a leaped clock is set, in ms.
    pub clock_leap_ms: u64,
    /// In the liveness phase, leave the leader cut off (or deaf, if
    /// `inbound_only` is drawn) with this probability.
    pub impair_leader_probability: f64,
    /// Nodes that crashes, power losses and pauses never hit: services a
    /// model treats as durable and available (they can still be cut off).
    pub spared: Vec<NodeId>,
}

impl Default for FaultProfile {
    fn default() -> Self {
        FaultProfile {
            swarm: true,
            partition: true,
            partition_one_way: true,
            partition_rolling: false,
            link: true,
            crash: true,
            power_loss: false,
            pause: true,
            clock: false,
            targeted: false,
            disk: false,
            interval_ms_mean: 500,
            fault_ms_max: 2_000,
            drop_probability_max: 0.05,
            duplicate_probability_max: 0.03,
            reorder_probability_max: 0.05,
            delay_ms_min: 1,
            delay_ms_max: 15,
            torn_write_probability: 0.5,
            fsync_ms_min: 1,
            fsync_ms_max: 5,
            skew_ms_max: 100,
            drift_ppm_max: 200,
            clock_leap_probability: 0.0,
            clock_leap_ms: 0,
            impair_leader_probability: 0.3,
            spared: Vec::new(),
        }
    }
}

/// What the swarm drew for one seed: the enabled kinds and the message chaos.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwarmDraw {
    /// The fault kinds this seed enables, by their kebab-case names (`partition`, `crash`, ..).
    pub kinds: Vec<String>,
    /// The chance that message chaos loses a message.
    pub drop_probability: f64,
    /// The chance that a message arrives twice.
    pub duplicate_probability: f64,
    /// The chance that a message is held back so that later ones overtake it.
    pub reorder_probability: f64,
    /// The shortest message delay, in ms.
    pub delay_ms_min: u64,
    /// The longest message delay, in ms.
    pub delay_ms_max: u64,
    /// The chance that a crash keeps a random prefix of unsynced writes.
    pub torn_write_probability: f64,
    /// The shortest time an fsync takes, in ms.
    pub fsync_ms_min: u64,
    /// The longest time an fsync takes on a healthy disk, in ms.
    pub fsync_ms_max: u64,
    /// Whether the liveness phase leaves the leader cut off: `Some(true)` only from
    /// what it receives, `Some(false)` both ways; `None`: not at all.
    pub impair_leader: Option<bool>,
}

const KINDS: [&str; 10] = [
    "partition",
    "partition-one-way",
    "partition-rolling",
    "link",
    "crash",
    "power-loss",
    "pause",
    "clock",
    // Last, so a profile without them draws exactly what it drew before.
    "targeted",
    "disk",
];

impl FaultProfile {
    fn enabled(&self, kind: &str) -> bool {
        match kind {
            "partition" => self.partition,
            "partition-one-way" => self.partition_one_way,
            "partition-rolling" => self.partition_rolling,
            "link" => self.link,
            "crash" => self.crash,
            "power-loss" => self.power_loss,
            "pause" => self.pause,
            "clock" => self.clock,
            "targeted" => self.targeted,
            "disk" => self.disk,
            _ => false,
        }
    }

    /// Draw what one seed runs with: the fault kinds it enables and its message and disk chaos.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> SwarmDraw {
        let all: Vec<&str> = KINDS.iter().copied().filter(|k| self.enabled(k)).collect();
        let mut kinds: Vec<String> = if self.swarm {
            all.iter().filter(|_| chance(rng, 0.6)).map(|k| k.to_string()).collect()
        } else {
            all.iter().map(|k| k.to_string()).collect()
        };
        if kinds.is_empty() {
            if let Some(k) = all.choose(rng) {
                kinds.push(k.to_string());
            }
        }
        let scale = |rng: &mut ChaCha8Rng, max: f64| {
            if self.swarm {
                max * range(rng, 0, 1000) as f64 / 1000.0
            } else {
                max
            }
        };
        let impair = if chance(rng, self.impair_leader_probability) {
            Some(chance(rng, 0.5))
        } else {
            None
        };
        SwarmDraw {
            drop_probability: scale(rng, self.drop_probability_max),
            duplicate_probability: scale(rng, self.duplicate_probability_max),
            reorder_probability: scale(rng, self.reorder_probability_max),
            delay_ms_min: self.delay_ms_min,
            delay_ms_max: range(rng, self.delay_ms_min, self.delay_ms_max.max(self.delay_ms_min)),
            torn_write_probability: self.torn_write_probability,
            fsync_ms_min: self.fsync_ms_min,
            fsync_ms_max: self.fsync_ms_max.max(self.fsync_ms_min),
            impair_leader: impair,
            kinds,
        }
    }

    /// Draw the safety-phase plan over `[0, until_ns)`. Every fault is undone
    /// before `until_ns`, except what the liveness phase leaves impaired.
    pub fn plan(&self, draw: &SwarmDraw, nodes: usize, until_ns: u64, rng: &mut ChaCha8Rng) -> Vec<PlanEntry> {
        const MS: u64 = 1_000_000;
        let mut plan = Vec::new();
        let mut down: Vec<(NodeId, u64)> = Vec::new(); // crashed until
        let minority = (nodes - 1) / 2;
        let mut t = range(rng, 0, self.interval_ms_mean * 2) * MS;
        let all: Vec<NodeId> = (0..nodes).collect();
        // Each node's wall-clock offset as planned so far, to bound jumps.
        let mut offset_ns = vec![0i64; nodes];
        let mut rotted = false;
        let mut leaped = None;
        if self.clock_leap_probability > 0.0 && chance(rng, self.clock_leap_probability) {
            let node = *all.choose(rng).expect("nodes");
            plan.push(PlanEntry {
                at_ns: range(rng, 0, self.interval_ms_mean * 2) * MS,
                action: Action::ClockOffset {
                    node,
                    ns: (self.clock_leap_ms * MS) as i64,
                },
            });
            leaped = Some(node);
        }
        while t < until_ns && !draw.kinds.is_empty() {
            let kind = draw.kinds.choose(rng).expect("non-empty").as_str();
            let dur = range(rng, self.fault_ms_max / 10, self.fault_ms_max) * MS;
            let end = (t + dur).min(until_ns.saturating_sub(MS));
            down.retain(|(_, until)| *until > t);
            match kind {
                "partition" => {
                    let mut shuffled = all.clone();
                    shuffled.shuffle(rng);
                    let groups = match range(rng, 0, 2) {
                        // majority / minority
                        0 => {
                            let cut = range(rng, 1, minority.max(1) as u64) as usize;
                            vec![shuffled[..cut].to_vec(), shuffled[cut..].to_vec()]
                        }
                        // a bridge: two sides that only one node can reach both of
                        1 if nodes >= 3 => {
                            let bridge = shuffled[0];
                            let rest = &shuffled[1..];
                            let half = rest.len() / 2;
                            let mut a = rest[..half].to_vec();
                            let mut b = rest[half..].to_vec();
                            a.push(bridge);
                            b.push(bridge);
                            bridge_links(&a, &b, bridge, t, end, &mut plan);
                            t += exp_gap(rng, self.interval_ms_mean) * MS;
                            continue;
                        }
                        _ => vec![vec![shuffled[0]], shuffled[1..].to_vec()],
                    };
                    plan.push(PlanEntry {
                        at_ns: t,
                        action: Action::Partition { groups },
                    });
                    plan.push(PlanEntry {
                        at_ns: end,
                        action: Action::Heal,
                    });
                }
                "partition-one-way" => {
                    let (target, inbound_only) = if chance(rng, 0.5) {
                        (Target::Leader, chance(rng, 0.5))
                    } else {
                        (Target::Node(*all.choose(rng).expect("nodes")), chance(rng, 0.5))
                    };
                    plan.push(PlanEntry {
                        at_ns: t,
                        action: Action::Isolate { target, inbound_only },
                    });
                    plan.push(PlanEntry {
                        at_ns: end,
                        action: Action::Heal,
                    });
                }
                "partition-rolling" if nodes >= 2 => {
                    for peer in 0..nodes - 1 {
                        for outbound in [true, false] {
                            plan.push(PlanEntry {
                                at_ns: range(rng, t, end.max(t)),
                                action: Action::CutLeaderLink { peer, outbound },
                            });
                        }
                    }
                    plan.push(PlanEntry {
                        at_ns: end,
                        action: Action::Heal,
                    });
                }
                "link" => {
                    let from = *all.choose(rng).expect("nodes");
                    let to = *all.choose(rng).expect("nodes");
                    if from != to {
                        let drop_per_million = range(rng, 0, 500_000) as u32;
                        let delay_ms_extra = range(rng, 0, 200);
                        plan.push(PlanEntry {
                            at_ns: t,
                            action: Action::Link {
                                from,
                                to,
                                drop_per_million,
                                delay_ms_extra,
                            },
                        });
                        plan.push(PlanEntry {
                            at_ns: end,
                            action: Action::Heal,
                        });
                    }
                }
                "crash" => {
                    let node = *all.choose(rng).expect("nodes");
                    if down.len() < minority.max(1)
                        && !down.iter().any(|(n, _)| *n == node)
                        && !self.spared.contains(&node)
                    {
                        crash_until(&mut plan, node, t, end);
                        down.push((node, end));
                    }
                }
                "power-loss" if down.is_empty() => {
                    let mut victims = all.clone();
                    victims.shuffle(rng);
                    victims.truncate(range(rng, (minority + 1) as u64, nodes as u64) as usize);
                    for node in victims {
                        let back =
                            (t + range(rng, 20, (self.fault_ms_max / 4).max(21)) * MS).min(until_ns.saturating_sub(MS));
                        if self.spared.contains(&node) {
                            continue;
                        }
                        crash_until(&mut plan, node, t, back);
                        down.push((node, back));
                    }
                }
                "pause" => {
                    let node = *all.choose(rng).expect("nodes");
                    let ms = (end - t) / MS / 2 + 1;
                    // A stalled leader is the case leases must survive; a
                    // spared node may lead, so only then is it left out.
                    if self.spared.is_empty() && chance(rng, 0.5) {
                        plan.push(PlanEntry {
                            at_ns: t,
                            action: Action::PauseLeader { ms },
                        });
                    } else if !self.spared.contains(&node) {
                        plan.push(PlanEntry {
                            at_ns: t,
                            action: Action::Pause { node, ms },
                        });
                    }
                }
                "clock" => {
                    let node = *all.choose(rng).expect("nodes");
                    let skew = (self.skew_ms_max * MS) as i64;
                    let action = match range(rng, 0, 2) {
                        0 => Action::ClockOffset {
                            node,
                            ns: range(rng, 0, 2 * skew as u64) as i64 - skew,
                        },
                        // A leader's clock running slow is what stretches
                        // its lease, so drift it as often as the rest.
                        1 if leaped.is_none() && chance(rng, 0.5) => Action::ClockDriftLeader {
                            ppm: range(rng, 0, 2 * self.drift_ppm_max as u64) as i64 - self.drift_ppm_max,
                        },
                        1 => Action::ClockDrift {
                            node,
                            ppm: range(rng, 0, 2 * self.drift_ppm_max as u64) as i64 - self.drift_ppm_max,
                        },
                        _ => Action::ClockJump {
                            node,
                            ns: range(rng, 0, 2 * skew as u64) as i64 - skew,
                        },
                    };
                    let action = match action {
                        Action::ClockOffset { node, ns } => {
                            offset_ns[node] = ns;
                            Action::ClockOffset { node, ns }
                        }
                        Action::ClockJump { node, ns } => {
                            let to = (offset_ns[node] + ns).clamp(-skew, skew);
                            let by = to - offset_ns[node];
                            offset_ns[node] = to;
                            Action::ClockJump { node, ns: by }
                        }
                        a => a,
                    };
                    if leaped != Some(node) {
                        plan.push(PlanEntry { at_ns: t, action });
                    }
                }
                "targeted" => {
                    let allowed = targeted::Allowed {
                        crash: self.crash || self.power_loss,
                        pause: self.pause,
                        cut: self.partition || self.partition_one_way || self.partition_rolling,
                    };
                    let ms = end.saturating_sub(t) / MS;
                    if let Some((trigger, ms)) = targeted::draw(rng, nodes, &self.spared, ms, allowed) {
                        plan.push(PlanEntry {
                            at_ns: t,
                            action: Action::Targeted { trigger, ms },
                        });
                    }
                }
                "disk" => {
                    let node = *all.choose(rng).expect("nodes");
                    let free = !down.iter().any(|(n, _)| *n == node) && !self.spared.contains(&node);
                    if free && end > t + 2 * MS {
                        let ms = (end - t) / MS;
                        let may_crash = down.len() < minority.max(1);
                        // A rotten record may keep its node from booting for
                        // good: one per run, and that node stays counted down.
                        let may_rot = may_crash && !rotted;
                        if disk_fault(rng, node, t, ms, may_crash, may_rot, &mut plan) {
                            rotted = true;
                            down.push((node, u64::MAX));
                        } else {
                            down.push((node, end));
                        }
                    }
                }
                _ => {}
            }
            t += exp_gap(rng, self.interval_ms_mean) * MS;
        }
        plan.sort_by_key(|e| e.at_ns);
        plan
    }
}

/// One storage fault on `node` from `t` for `ms`. Read errors and rot show
/// only when the disk is read, at boot, so they come with a crash at `t`
/// and a restart inside the window (when `may_crash`: within the crash
/// budget); the other faults hit a running node. True if a record rotted.
fn disk_fault(
    rng: &mut ChaCha8Rng,
    node: NodeId,
    t: u64,
    ms: u64,
    may_crash: bool,
    may_rot: bool,
    plan: &mut Vec<PlanEntry>,
) -> bool {
    const MS: u64 = 1_000_000;
    let kinds: &[&str] = match (may_crash, may_rot) {
        (true, true) => &["read-error", "rot", "fsync-error", "no-space", "slow"],
        (true, false) => &["read-error", "fsync-error", "no-space", "slow"],
        _ => &["fsync-error", "no-space", "slow"],
    };
    let at = |action| PlanEntry { at_ns: t, action };
    let fault = match *kinds.choose(rng).expect("kinds") {
        "read-error" => DiskFault::ReadError,
        "rot" => {
            plan.push(at(Action::DiskRot {
                node,
                per_million: range(rng, 0, 999_999) as u32,
            }));
            let back = t + range(rng, 1, ms.max(1)) * MS;
            crash_until(plan, node, t, back);
            return true;
        }
        "fsync-error" => DiskFault::FsyncError,
        "no-space" => DiskFault::NoSpace,
        _ => DiskFault::Slow,
    };
    plan.push(at(Action::Disk { node, fault, ms }));
    if fault == DiskFault::ReadError {
        let back = t + range(rng, 1, (ms / 2).max(1)) * MS;
        crash_until(plan, node, t, back);
    }
    false
}

/// `node` crashes at `at_ns` and boots again at `back_ns`.
fn crash_until(plan: &mut Vec<PlanEntry>, node: NodeId, at_ns: u64, back_ns: u64) {
    plan.push(PlanEntry {
        at_ns,
        action: Action::Crash { node },
    });
    plan.push(PlanEntry {
        at_ns: back_ns,
        action: Action::Restart { node },
    });
}

/// A bridge: the sides cannot hear each other, the bridge node hears both.
fn bridge_links(a: &[NodeId], b: &[NodeId], bridge: NodeId, t: u64, end: u64, plan: &mut Vec<PlanEntry>) {
    let a: Vec<NodeId> = a.iter().copied().filter(|n| *n != bridge).collect();
    let b: Vec<NodeId> = b.iter().copied().filter(|n| *n != bridge).collect();
    plan.push(PlanEntry {
        at_ns: t,
        action: Action::PartitionOneWay {
            from: a.clone(),
            to: b.clone(),
        },
    });
    plan.push(PlanEntry {
        at_ns: t,
        action: Action::PartitionOneWay { from: b, to: a },
    });
    plan.push(PlanEntry {
        at_ns: end,
        action: Action::Heal,
    });
}

/// An exponential gap with the given mean, in ms, at least 1.
fn exp_gap(rng: &mut ChaCha8Rng, mean_ms: u64) -> u64 {
    use rand::Rng;
    let u: f64 = rng.gen_range(1e-9..1.0);
    ((-u.ln()) * mean_ms as f64).max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn plan_is_sorted_and_crashes_stay_a_minority() {
        let p = FaultProfile {
            swarm: false,
            ..FaultProfile::default()
        };
        for seed in 0..50 {
            let draw = p.draw(&mut stream(seed, Stream::Swarm));
            let plan = p.plan(&draw, 5, 10_000_000_000, &mut stream(seed, Stream::Plan));
            assert!(plan.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
            let mut down = std::collections::BTreeSet::new();
            for e in &plan {
                match e.action {
                    Action::Crash { node } => assert!(down.insert(node)),
                    Action::Restart { node } => assert!(down.remove(&node)),
                    _ => {}
                }
                assert!(down.len() <= 2, "seed {seed}: more than a minority down");
            }
            assert!(down.is_empty(), "seed {seed}: a crash is never undone");
        }
    }

    #[test]
    fn a_rolling_partition_cuts_each_direction_of_each_leader_link_at_its_own_time() {
        let p = FaultProfile {
            swarm: false,
            partition: false,
            partition_one_way: false,
            partition_rolling: true,
            link: false,
            crash: false,
            pause: false,
            ..FaultProfile::default()
        };
        let draw = p.draw(&mut stream(4, Stream::Swarm));
        let plan = p.plan(&draw, 3, 10_000_000_000, &mut stream(4, Stream::Plan));
        let heals = plan.iter().filter(|e| e.action == Action::Heal).count();
        assert!(heals >= 3, "{plan:?}");
        let mut per_link = std::collections::BTreeMap::new();
        for e in &plan {
            if let Action::CutLeaderLink { peer, outbound } = e.action {
                *per_link.entry((peer, outbound)).or_insert(0) += 1;
            }
        }
        assert_eq!(per_link.len(), 4, "two peers, both directions");
        assert!(per_link.values().all(|&c| c == heals), "{per_link:?}");
        let times: std::collections::BTreeSet<u64> = plan.iter().map(|e| e.at_ns).collect();
        assert!(times.len() > 4 * heals, "the cuts of one fault come at different times");
    }

    #[test]
    fn power_loss_takes_down_a_majority_and_brings_every_node_back() {
        let p = FaultProfile {
            swarm: false,
            partition: false,
            partition_one_way: false,
            link: false,
            crash: false,
            pause: false,
            power_loss: true,
            ..FaultProfile::default()
        };
        let draw = p.draw(&mut stream(1, Stream::Swarm));
        let plan = p.plan(&draw, 5, 10_000_000_000, &mut stream(1, Stream::Plan));
        let mut down = std::collections::BTreeSet::new();
        let mut most = 0;
        for e in &plan {
            match e.action {
                Action::Crash { node } => assert!(down.insert(node)),
                Action::Restart { node } => assert!(down.remove(&node)),
                _ => unreachable!(),
            }
            most = most.max(down.len());
        }
        assert!(most >= 3);
        assert!(down.is_empty());
    }

    fn clock_only(skew_ms_max: u64) -> FaultProfile {
        FaultProfile {
            swarm: false,
            partition: false,
            partition_one_way: false,
            link: false,
            crash: false,
            pause: false,
            clock: true,
            interval_ms_mean: 50,
            skew_ms_max,
            ..FaultProfile::default()
        }
    }

    #[test]
    fn offsets_and_jumps_keep_every_clock_within_skew_ms_max() {
        let p = clock_only(300);
        let bound = 300 * 1_000_000;
        for seed in 0..20 {
            let draw = p.draw(&mut stream(seed, Stream::Swarm));
            let plan = p.plan(&draw, 3, 10_000_000_000, &mut stream(seed, Stream::Plan));
            let mut offset = [0i64; 3];
            let mut jumps = 0;
            for e in &plan {
                match e.action {
                    Action::ClockOffset { node, ns } => offset[node] = ns,
                    Action::ClockJump { node, ns } => {
                        offset[node] += ns;
                        jumps += 1;
                    }
                    _ => {}
                }
                assert!(offset.iter().all(|o| o.abs() <= bound), "seed {seed}: {offset:?}");
            }
            assert!(jumps > 0);
        }
    }

    #[test]
    fn a_leaped_clock_stays_ahead() {
        let p = FaultProfile {
            clock_leap_probability: 1.0,
            clock_leap_ms: 9_000,
            ..clock_only(300)
        };
        let draw = p.draw(&mut stream(4, Stream::Swarm));
        let plan = p.plan(&draw, 3, 10_000_000_000, &mut stream(4, Stream::Plan));
        let leap = plan
            .iter()
            .find_map(|e| match e.action {
                Action::ClockOffset {
                    node,
                    ns: 9_000_000_000,
                } => Some((e.at_ns, node)),
                _ => None,
            })
            .expect("a leap");
        assert!(leap.0 <= 100_000_000, "the leap comes early");
        let touched = plan.iter().filter(|e| match e.action {
            Action::ClockOffset { node, .. } | Action::ClockJump { node, .. } | Action::ClockDrift { node, .. } => {
                node == leap.1
            }
            _ => false,
        });
        assert_eq!(touched.count(), 1, "no later clock fault undoes the leap");
    }

    #[test]
    fn spared_nodes_are_never_crashed_or_paused() {
        let p = FaultProfile {
            swarm: false,
            power_loss: true,
            spared: vec![0, 1],
            ..FaultProfile::default()
        };
        for seed in 0..30 {
            let draw = p.draw(&mut stream(seed, Stream::Swarm));
            let plan = p.plan(&draw, 5, 10_000_000_000, &mut stream(seed, Stream::Plan));
            for e in &plan {
                if let Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } = e.action {
                    assert!(node >= 2, "seed {seed}: {:?} hits a spared node", e.action);
                }
            }
        }
    }

    #[test]
    fn plan_round_trips_through_json() {
        let p = FaultProfile::default();
        let draw = p.draw(&mut stream(3, Stream::Swarm));
        let plan = p.plan(&draw, 3, 5_000_000_000, &mut stream(3, Stream::Plan));
        let json = serde_json::to_string(&plan).unwrap();
        let back: Vec<PlanEntry> = serde_json::from_str(&json).unwrap();
        assert_eq!(plan, back);
    }
}
