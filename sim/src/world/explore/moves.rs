//! What an explored run may do next: the events time allows, a message's
//! loss or second delivery, and the faults of the scenario's profile, each
//! within its bound.
//!
//! A fault that lasts (a crash, a cut, a pause, a storage fault) lasts
//! until a move ends it or the run settles: its end is a move like its
//! start, not an event due at some time, since a countdown in the state
//! would keep every state within a fault from ever meeting another.

use super::super::{Ev, World, MS};
use crate::event::{DropCause, EventKind};
use crate::explore::Bounds;
use crate::machine::{Machine, MsgInfo, NodeId};
use crate::nemesis::{Action, DiskFault, Target};
use crate::scenario::Scenario;

/// The faults the scenario's profile has: a walk injects no other kind.
#[derive(Clone, Debug)]
pub(in crate::world) struct Allowed {
    /// Nodes that may crash, pause or meet a storage fault (none the
    /// profile spares).
    fallible: Vec<NodeId>,
    crash: bool,
    /// How many nodes may be down at once.
    down_max: usize,
    drop: bool,
    duplicate: bool,
    /// One node cut off both ways (any partition kind draws that).
    partition: bool,
    /// One node deaf: it still sends but hears nothing (one-way cuts).
    deafen: bool,
    /// One direction of one link cut (rolling cuts of a leader's links).
    cut_links: bool,
    pause: bool,
    /// Clock steps to the profile's skew bound either way, and drift at
    /// its bound either way.
    clock: bool,
    /// A wall clock set this far ahead (beyond the skew bound a system
    /// assumes), if the profile leaps.
    leap_ns: Option<i64>,
    disk: bool,
    /// How long a lasting fault may last, at most.
    fault_ns: u64,
    skew_ns: i64,
    drift_ppm: i64,
}

impl Allowed {
    pub(in crate::world) fn of(sc: &Scenario) -> Allowed {
        let f = &sc.faults;
        // Plain crashes leave a majority up, as the plans fuzz draws do;
        // a power loss may take any number of nodes.
        let down_max = if f.power_loss {
            sc.nodes
        } else {
            ((sc.nodes - 1) / 2).max(1)
        };
        Allowed {
            fallible: (0..sc.nodes).filter(|n| !f.spared.contains(n)).collect(),
            crash: f.crash || f.power_loss,
            down_max,
            drop: f.drop_probability_max > 0.0 || f.partition || f.link,
            duplicate: f.duplicate_probability_max > 0.0,
            partition: f.partition || f.partition_one_way,
            deafen: f.partition_one_way,
            cut_links: f.partition_rolling,
            pause: f.pause,
            clock: f.clock,
            leap_ns: (f.clock && f.clock_leap_probability > 0.0 && f.clock_leap_ms > 0)
                .then(|| (f.clock_leap_ms * MS) as i64),
            disk: f.disk,
            fault_ns: f.fault_ms_max.max(1) * MS,
            skew_ns: (f.skew_ms_max * MS) as i64,
            drift_ppm: f.drift_ppm_max,
        }
    }
}

impl Allowed {
    /// `bounds` narrowed to each one kind of fault the profile has, that
    /// kind allowed as often as the deviation bound lets any move be, the
    /// others not at all: a bug that needs one kind of fault, maybe more
    /// than once, is reached with the branching of that kind alone rather
    /// than of every kind at once (swarm testing's feature omission, over
    /// an exhaustive walk). Named by the kind.
    pub(in crate::world) fn one_kind_each(&self, bounds: Bounds) -> Vec<(&'static str, Bounds)> {
        let none = Bounds {
            crashes: 0,
            drops: 0,
            duplicates: 0,
            partitions: 0,
            pauses: 0,
            clocks: 0,
            disks: 0,
            ..bounds
        };
        let n = bounds.deviations.max(1);
        let kinds = [
            (
                "crashes",
                self.crash && !self.fallible.is_empty(),
                Bounds { crashes: n, ..none },
            ),
            ("drops", self.drop, Bounds { drops: n, ..none }),
            ("duplicates", self.duplicate, Bounds { duplicates: n, ..none }),
            (
                "partitions",
                self.partition || self.deafen || self.cut_links,
                Bounds { partitions: n, ..none },
            ),
            (
                "pauses",
                self.pause && !self.fallible.is_empty(),
                Bounds { pauses: n, ..none },
            ),
            ("clocks", self.clock, Bounds { clocks: n, ..none }),
            // A storage fault shows only where a node boots from what the
            // disk kept, so the walk of disk faults crashes nodes too.
            (
                "disks",
                self.disk && !self.fallible.is_empty(),
                Bounds {
                    disks: n,
                    crashes: if self.crash { n } else { 0 },
                    ..none
                },
            ),
        ];
        kinds
            .into_iter()
            .filter(|k| k.1)
            .map(|(name, _, b)| (name, b))
            .collect()
    }
}

/// The faults injected so far.
#[derive(Clone, Copy, Debug, Default, Hash)]
pub(super) struct Used {
    pub(super) crashes: u32,
    pub(super) drops: u32,
    pub(super) duplicates: u32,
    pub(super) partitions: u32,
    pub(super) pauses: u32,
    pub(super) clocks: u32,
    pub(super) disks: u32,
    pub(super) ops: u32,
}

/// A clock fault a move makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ClockMove {
    /// The wall clock set to the skew bound ahead (or behind).
    Ahead,
    Behind,
    /// The clocks run fast (or slow) at the drift bound.
    Fast,
    Slow,
    /// The wall clock set beyond the skew bound, ahead.
    Leap,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Move {
    /// The pending event at this index happens, at this instant (or now,
    /// if that is later).
    Fire(usize, u64),
    /// The pending fsync at this index fails when it completes, at this
    /// instant, and none of what it covered reaches the disk.
    FailFsync(usize, u64),
    /// The message at this index is lost.
    Drop(usize),
    /// The message at this index will arrive twice.
    Duplicate(usize),
    /// The pending event at this index takes its longest: it happens at
    /// the end of its window.
    Defer(usize),
    /// The node crashes and stays down until a move restarts it (or the
    /// run settles).
    Crash(NodeId),
    Restart(NodeId),
    /// The node crashes and reboots as soon as it can, a millisecond
    /// later: one move for what a crash and a restart make in two, since
    /// losing what the disk had not synced and what the node held in
    /// memory needs no downtime to show.
    Bounce(NodeId),
    /// Cut this node off (`true`: inbound only), healing any cut before.
    Isolate(NodeId, bool),
    /// Lose what this node sends to that one, on top of the links cut
    /// before (a node cut off before heals first).
    CutLink(NodeId, NodeId),
    Heal,
    /// The node stops handling anything until it resumes.
    Pause(NodeId),
    /// What reached it meanwhile is handed over.
    Resume(NodeId),
    Clock(NodeId, ClockMove),
    /// A storage fault in force until it ends.
    Disk(NodeId, DiskFault),
    DiskEnds(NodeId, DiskFault),
}

/// What the events that may come next touch: the nodes that handle one,
/// and the links a message of them crosses.
struct Near {
    busy: Vec<bool>,
    flying: std::collections::BTreeSet<(NodeId, NodeId)>,
}

impl Near {
    fn new(nodes: usize) -> Near {
        Near {
            busy: vec![false; nodes],
            flying: Default::default(),
        }
    }

    fn add<Msg>(&mut self, ev: &Ev<Msg>) {
        let node = match ev {
            Ev::Reboot { node, .. } | Ev::Resume { node } | Ev::Probe { node, .. } => Some(*node),
            ev => ev.target(),
        };
        if let Some(n) = node {
            self.busy[n] = true;
        }
        if let Ev::Deliver { from, to, .. } = ev {
            self.flying.insert((*from, *to));
        }
    }
}

/// The storage faults that last until a move ends them. A read error
/// takes effect at the node's next boot, so it comes with a crash and a
/// restart, as fuzz's plans pair them. A failed fsync is also one fsync's
/// other outcome ([`Move::FailFsync`]): a failure exactly where it
/// matters costs one move, and failures that last (each fsync losing a
/// drawn share of what it covered) stay within reach.
const DISK_FAULTS: [DiskFault; 4] = [
    DiskFault::ReadError,
    DiskFault::FsyncError,
    DiskFault::NoSpace,
    DiskFault::Slow,
];

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// Every move possible now, in an order fixed by the state: the events
    /// time allows next (earliest window first), each message's loss and
    /// duplication, the natural event's deferral, then the faults.
    pub(super) fn moves(&self) -> Vec<Move> {
        let w = self.walk.as_ref().expect("exploring");
        let b = &w.bounds;
        let a = &w.allowed;
        let mut out = Vec::new();
        let mut near = Near::new(self.nodes.len());
        if let Some(close) = w.pending.iter().map(|p| p.hi).min() {
            let mut next: Vec<usize> = (0..w.pending.len())
                .filter(|&i| w.pending[i].lo <= close && self.in_turn(i))
                .collect();
            next.sort_by_key(|&i| (w.pending[i].at, w.pending[i].seq));
            for &i in &next {
                near.add(&w.pending[i].ev);
            }
            // The natural event may instead take its longest: one
            // deviation delays it past everything its window spans (a
            // slow message, a client thinking long), where firing each of
            // those first would cost one deviation apiece.
            let defer = next.first().copied().filter(|&i| w.pending[i].at < w.pending[i].hi);
            for (k, i) in next.into_iter().enumerate() {
                // The natural event at its natural instant; any other as
                // early as its window allows.
                let p = &w.pending[i];
                let t = if k == 0 { p.at } else { p.lo };
                out.push(Move::Fire(i, t));
                if let Ev::Fsync { node, .. } = &p.ev {
                    if a.disk && w.used.disks < b.disks && a.fallible.contains(node) {
                        out.push(Move::FailFsync(i, t));
                    }
                }
                if let Ev::Deliver { conn, .. } = &p.ev {
                    if a.drop && w.used.drops < b.drops {
                        out.push(Move::Drop(i));
                    }
                    // A connection delivers each byte once.
                    if conn.is_none() && a.duplicate && w.used.duplicates < b.duplicates {
                        out.push(Move::Duplicate(i));
                    }
                }
            }
            out.extend(defer.map(Move::Defer));
        }
        let up = |n: NodeId| self.nodes[n].machine.is_some();
        let down = self.nodes.iter().filter(|s| s.machine.is_none()).count();
        // A fault that nothing of a node or a link may meet before the
        // next move would meet it one move later just the same: it is
        // offered only where it may matter, and the walk reaches each state
        // it leads to once instead of once per step in between (partial
        // order reduction). A node's steps meet its crash, its storage
        // faults and its pause; a link's cut, its messages arriving (a
        // message sent while its link is cut is lost on arrival just as
        // one sent before the cut, so the cut may wait for that arrival).
        // A bounce moved one step later reboots later by as much.
        // Streams tie each direction of a link to the other and break on a
        // crash, so there cuts and crashes are offered everywhere.
        let datagram = self.links.all_datagram();
        let may_cut = |from: NodeId, to: NodeId| !datagram || near.flying.contains(&(from, to));
        let may_cut_off = |n: NodeId| (0..self.nodes.len()).any(|m| m != n && (may_cut(n, m) || may_cut(m, n)));
        if a.crash && w.used.crashes < b.crashes && down < a.down_max {
            let crashable = || {
                a.fallible
                    .iter()
                    .copied()
                    .filter(|&n| up(n) && (!datagram || near.busy[n]))
            };
            out.extend(crashable().map(Move::Crash));
            out.extend(crashable().map(Move::Bounce));
        }
        // A node down for good (it halted and waits for its reboot) is the
        // model's doing; one the walk took down comes back by a move.
        out.extend(
            (0..self.nodes.len())
                .filter(|&n| w.downed.contains(&n) && !up(n))
                .map(Move::Restart),
        );
        if w.cut_off.is_some() || !w.cut_links.is_empty() {
            out.push(Move::Heal);
        }
        if w.used.partitions < b.partitions && self.nodes.len() > 1 {
            // Cutting a node off heals the cut before it, which the links
            // that cut held may meet at once.
            let heals = w.cut_off.is_some() || !w.cut_links.is_empty();
            let ways = [(a.partition, false), (a.deafen, true)];
            for (_, inbound_only) in ways.into_iter().filter(|(on, _)| *on) {
                for n in 0..self.nodes.len() {
                    if w.cut_off != Some((n, inbound_only)) && (heals || may_cut_off(n)) {
                        out.push(Move::Isolate(n, inbound_only));
                    }
                }
            }
            if a.cut_links {
                let n = self.nodes.len();
                let links = (0..n).flat_map(|from| (0..n).map(move |to| (from, to)));
                let fresh = |&(from, to): &(NodeId, NodeId)| from != to && !w.cut_links.contains(&(from, to));
                let heals_node = w.cut_off.is_some();
                for (from, to) in links.filter(fresh) {
                    if heals_node || may_cut(from, to) {
                        out.push(Move::CutLink(from, to));
                    }
                }
            }
        }
        let paused = |n: NodeId| self.nodes[n].paused_until > self.now;
        out.extend((0..self.nodes.len()).filter(|&n| paused(n)).map(Move::Resume));
        if a.pause && w.used.pauses < b.pauses {
            out.extend(
                a.fallible
                    .iter()
                    .filter(|&&n| up(n) && !paused(n) && near.busy[n])
                    .map(|&n| Move::Pause(n)),
            );
        }
        if a.clock && w.used.clocks < b.clocks {
            let mut kinds = vec![ClockMove::Ahead, ClockMove::Behind, ClockMove::Fast, ClockMove::Slow];
            kinds.extend(a.leap_ns.map(|_| ClockMove::Leap));
            for n in 0..self.nodes.len() {
                out.extend(kinds.iter().map(|&k| Move::Clock(n, k)));
            }
        }
        for n in 0..self.nodes.len() {
            let u = &self.nodes[n].disk_until;
            let held = [u.read_error, u.fsync_error, u.no_space, u.slow];
            for (k, until) in DISK_FAULTS.into_iter().zip(held) {
                if until > self.now {
                    out.push(Move::DiskEnds(n, k));
                }
            }
        }
        if a.disk && w.used.disks < b.disks {
            for &n in a.fallible.iter().filter(|&&n| up(n)) {
                let may_crash = down < a.down_max;
                // A read error crashes the node now; a failing, full or
                // slow disk lasts until a move ends it, and only the
                // node's own steps meet it.
                let kinds = DISK_FAULTS.iter().filter(|&&k| match k {
                    DiskFault::ReadError => may_crash,
                    _ => near.busy[n],
                });
                out.extend(kinds.map(|&k| Move::Disk(n, k)));
            }
        }
        out
    }

    /// Makes move `m`: the event it fires, or `None` for a move that is a
    /// fault (made here).
    pub(super) fn make(&mut self, m: Move) -> Option<(u64, Ev<M::Msg>)> {
        let w = self.walk.as_mut().expect("exploring");
        let now = self.now;
        match m {
            Move::Fire(i, t) => {
                let p = w.pending.remove(i);
                return Some((t.max(now), p.ev));
            }
            Move::FailFsync(i, t) => {
                w.used.disks += 1;
                w.fail_fsync = true;
                let p = w.pending.remove(i);
                return Some((t.max(now), p.ev));
            }
            Move::Drop(i) => {
                w.used.drops += 1;
                let p = w.pending.remove(i);
                if let Ev::Deliver {
                    id,
                    from,
                    to,
                    msg,
                    conn,
                } = p.ev
                {
                    let kind = msg.kind();
                    let cause = DropCause::Loss;
                    self.record(
                        Some(from),
                        EventKind::Drop {
                            id,
                            from,
                            to,
                            msg: kind.into(),
                            cause,
                        },
                    );
                    if conn.is_some() {
                        self.break_link(from, to, cause, true);
                    }
                }
            }
            Move::Duplicate(i) => {
                w.used.duplicates += 1;
                let p = &w.pending[i];
                if let Ev::Deliver { id, from, to, msg, .. } = &p.ev {
                    let copy = Ev::Deliver {
                        id: *id,
                        from: *from,
                        to: *to,
                        msg: msg.clone(),
                        conn: None,
                    };
                    let (lo, hi, id, from) = (p.lo, p.hi, *id, *from);
                    w.push(lo, hi, copy);
                    self.record(Some(from), EventKind::Duplicate { id });
                }
            }
            Move::Defer(i) => {
                let p = &mut w.pending[i];
                p.lo = p.hi;
                p.at = p.hi;
            }
            Move::Crash(node) => {
                w.used.crashes += 1;
                w.downed.insert(node);
                self.apply(Action::Crash { node });
            }
            Move::Restart(node) => {
                w.downed.remove(&node);
                self.apply(Action::Restart { node });
            }
            Move::Bounce(node) => {
                w.used.crashes += 1;
                self.crash_and_reboot(node, (now + MS, now + MS));
            }
            Move::Isolate(node, inbound_only) => {
                w.used.partitions += 1;
                // One cut at a time: cutting off another node heals the
                // last, so a schedule of cuts costs no heals.
                let links = !std::mem::take(&mut w.cut_links).is_empty();
                if w.cut_off.replace((node, inbound_only)).is_some() | links {
                    self.apply(Action::Heal);
                }
                self.apply(Action::Isolate {
                    target: Target::Node(node),
                    inbound_only,
                });
            }
            Move::CutLink(from, to) => {
                w.used.partitions += 1;
                // Link cuts add up, as a rolling cut's do; a node cut off
                // before heals first (no link was cut meanwhile).
                w.cut_links.insert((from, to));
                if w.cut_off.take().is_some() {
                    self.apply(Action::Heal);
                }
                self.apply(Action::PartitionOneWay {
                    from: vec![from],
                    to: vec![to],
                });
            }
            Move::Heal => {
                w.cut_off = None;
                w.cut_links.clear();
                self.apply(Action::Heal);
            }
            Move::Pause(node) => {
                w.used.pauses += 1;
                // The trace names a pause by how long it may last at most;
                // the walk ends it by a move.
                let ms = w.allowed.fault_ns / MS;
                self.nodes[node].paused_until = u64::MAX;
                self.record(
                    None,
                    EventKind::Fault {
                        action: Action::Pause { node, ms },
                    },
                );
            }
            Move::Resume(node) => self.resume(node),
            Move::Clock(node, k) => {
                w.used.clocks += 1;
                let a = &w.allowed;
                let action = match k {
                    ClockMove::Ahead => Action::ClockOffset { node, ns: a.skew_ns },
                    ClockMove::Behind => Action::ClockOffset { node, ns: -a.skew_ns },
                    ClockMove::Fast => Action::ClockDrift { node, ppm: a.drift_ppm },
                    ClockMove::Slow => Action::ClockDrift {
                        node,
                        ppm: -a.drift_ppm,
                    },
                    ClockMove::Leap => Action::ClockOffset {
                        node,
                        ns: a.leap_ns.unwrap_or(a.skew_ns),
                    },
                };
                self.apply(action);
            }
            Move::Disk(node, fault) => {
                w.used.disks += 1;
                // In force until a move ends it; the trace names it by how
                // long it may last at most.
                let ms = w.allowed.fault_ns / MS;
                let half = (w.allowed.fault_ns / 2).max(MS);
                self.record(
                    None,
                    EventKind::Fault {
                        action: Action::Disk { node, fault, ms },
                    },
                );
                let u = &mut self.nodes[node].disk_until;
                *match fault {
                    DiskFault::ReadError => &mut u.read_error,
                    DiskFault::FsyncError => &mut u.fsync_error,
                    DiskFault::NoSpace => &mut u.no_space,
                    DiskFault::Slow => &mut u.slow,
                } = u64::MAX;
                if fault == DiskFault::ReadError {
                    // Met at the next boot: down now and back within half
                    // the fault's longest, as fuzz's plans restart such a
                    // node; a boot that fails on it halts and reboots
                    // until a move (or the run settling) ends the fault.
                    self.crash_and_reboot(node, (now + MS, now + half));
                }
            }
            Move::DiskEnds(node, fault) => self.apply(Action::Disk { node, fault, ms: 0 }),
        }
        None
    }

    /// Crashes `node` and queues its reboot within `window`, as the
    /// incarnation the crash began.
    fn crash_and_reboot(&mut self, node: NodeId, (lo, hi): (u64, u64)) {
        self.apply(Action::Crash { node });
        let inc = self.nodes[node].inc;
        self.walk
            .as_mut()
            .expect("exploring")
            .push(lo, hi, Ev::Reboot { node, inc });
    }
}
