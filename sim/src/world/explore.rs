//! The world under exploration (see [`crate::explore`]): every event waits
//! in a window of time instead of at a drawn instant, and a tape picks
//! which move comes next among those time allows.

use super::{Ev, Verdict, World, MS};
use crate::clock::WALL_EPOCH_NS;
use crate::event::{DropCause, EventKind};
use crate::explore::{Bounds, Known, Point, Tape};
use crate::hash::{debug_digest, StableHasher};
use crate::machine::{Machine, MsgInfo, NodeId, Now};
use crate::nemesis::{Action, Target};
use crate::rng::range;
use rand_chacha::ChaCha8Rng;
use std::hash::{Hash, Hasher};

pub(super) struct Walk<Msg> {
    pub(super) bounds: Bounds,
    tape: Vec<u32>,
    /// Choices made so far: the next tape entry to read.
    cursor: usize,
    /// Events not yet happened, in the order they were queued.
    pending: Vec<Pending<Msg>>,
    seq: u64,
    used: Used,
    /// Nodes an explored crash took down, until a move restarts them.
    crashed: Vec<NodeId>,
    /// The node cut off from the others (and whether inbound only), until
    /// a move heals the cut or cuts off another.
    cut_off: Option<(NodeId, bool)>,
    /// The choices met after the tape ran out.
    points: Vec<Point>,
    allowed: Allowed,
    /// The walk's expanded states: the run stops at the first it reaches.
    known: Option<Known>,
    /// Deviations the tape makes (its choices that are not move 0).
    spent: u32,
    /// The run stopped at a state explored before: its history is cut
    /// there, not ended, so the checkers judge no end of it.
    pub(super) met: bool,
    /// Past the run's last choice: every fault healed, events happen in
    /// their natural order until the liveness deadline.
    settling: bool,
}

/// The faults the scenario's profile has: a walk injects no other kind.
#[derive(Clone, Debug)]
pub(super) struct Allowed {
    /// Nodes that may crash (none the profile spares).
    crash: Vec<NodeId>,
    /// How many nodes may be down at once.
    down_max: usize,
    drop: bool,
    duplicate: bool,
    /// One node cut off both ways (any partition kind draws that).
    partition: bool,
    /// One node deaf: it still sends but hears nothing (one-way cuts).
    deafen: bool,
}

impl Allowed {
    pub(super) fn of(sc: &crate::scenario::Scenario) -> Allowed {
        let f = &sc.faults;
        let crash = match f.crash || f.power_loss {
            true => (0..sc.nodes).filter(|n| !f.spared.contains(n)).collect(),
            false => Vec::new(),
        };
        // Plain crashes leave a majority up, as the plans fuzz draws do;
        // a power loss may take any number of nodes.
        let down_max = if f.power_loss {
            sc.nodes
        } else {
            ((sc.nodes - 1) / 2).max(1)
        };
        Allowed {
            crash,
            down_max,
            drop: f.drop_probability_max > 0.0 || f.partition || f.link,
            duplicate: f.duplicate_probability_max > 0.0,
            partition: f.partition || f.partition_one_way,
            deafen: f.partition_one_way,
        }
    }
}

struct Pending<Msg> {
    /// The window in which the event happens (true time, inclusive).
    lo: u64,
    hi: u64,
    /// When it happens in the natural order: the window's start, or its
    /// end for a wait that is the waiting party's own choice (a client's
    /// retry backoff).
    at: u64,
    seq: u64,
    ev: Ev<Msg>,
}

/// The faults injected so far.
#[derive(Clone, Copy, Debug, Default, Hash)]
struct Used {
    crashes: u32,
    drops: u32,
    duplicates: u32,
    partitions: u32,
    ops: u32,
}

#[derive(Clone, Copy, Debug)]
enum Move {
    /// The pending event at this index happens, at this instant (or now,
    /// if that is later).
    Fire(usize, u64),
    /// The message at this index is lost.
    Drop(usize),
    /// The message at this index will arrive twice.
    Duplicate(usize),
    Crash(NodeId),
    Restart(NodeId),
    /// Cut this node off (`true`: inbound only), healing any cut before.
    Isolate(NodeId, bool),
    Heal,
    /// The pending event at this index takes its longest: it happens at
    /// the end of its window.
    Defer(usize),
}

/// Which stream a sampled delay is drawn from.
#[derive(Clone, Copy)]
pub(super) enum Dice {
    Work,
    Disk,
}

impl<Msg> Walk<Msg> {
    pub(super) fn new(tape: Tape, allowed: Allowed, known: Option<Known>) -> Self {
        Walk {
            spent: tape.choices.iter().filter(|c| **c != 0).count() as u32,
            known,
            met: false,
            settling: false,
            bounds: tape.bounds,
            tape: tape.choices,
            cursor: 0,
            pending: Vec::new(),
            seq: 0,
            used: Used::default(),
            crashed: Vec::new(),
            cut_off: None,
            points: Vec::new(),
            allowed,
        }
    }

    pub(super) fn push(&mut self, lo: u64, hi: u64, ev: Ev<Msg>) {
        self.push_at(lo, hi, lo, ev);
    }

    fn push_at(&mut self, lo: u64, hi: u64, at: u64, ev: Ev<Msg>) {
        self.seq += 1;
        self.pending.push(Pending {
            lo,
            hi: hi.max(lo),
            at: at.clamp(lo, hi.max(lo)),
            seq: self.seq,
            ev,
        });
    }

    pub(super) fn len(&self) -> usize {
        self.pending.len()
    }

    /// The states passed after the tape ran out, and the tape the run was
    /// given (what replays it).
    pub(super) fn end(self) -> (Vec<Point>, Tape) {
        let tape = Tape {
            bounds: self.bounds,
            choices: self.tape,
        };
        (self.points, tape)
    }
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// A delay of `lo..=hi` ns from now: drawn from `dice` in a sampled
    /// run (exactly as `range` draws it), the whole window under
    /// exploration. Returned as the window it is to end in.
    pub(super) fn span(&mut self, lo: u64, hi: u64, dice: Dice) -> (u64, u64) {
        if self.walk.is_some() {
            return (self.now + lo, self.now + hi);
        }
        let t = self.now + range(self.dice(dice), lo, hi);
        (t, t)
    }

    /// [`World::span`] for a delay drawn in whole milliseconds (as a
    /// sampled run draws `range(lo_ms, hi_ms) * MS`).
    pub(super) fn span_ms(&mut self, lo_ms: u64, hi_ms: u64, dice: Dice) -> (u64, u64) {
        if self.walk.is_some() {
            return (self.now + lo_ms * MS, self.now + hi_ms * MS);
        }
        let t = self.now + range(self.dice(dice), lo_ms, hi_ms) * MS;
        (t, t)
    }

    fn dice(&mut self, dice: Dice) -> &mut ChaCha8Rng {
        match dice {
            Dice::Work => &mut self.work_rng,
            Dice::Disk => &mut self.disk_rng,
        }
    }

    /// Queues `ev` to happen within `window` (one instant in a sampled run).
    pub(super) fn at_span(&mut self, (lo, hi): (u64, u64), ev: Ev<M::Msg>) {
        match &mut self.walk {
            Some(w) => w.push(lo.max(self.now), hi.max(self.now), ev),
            None => self.at(lo, ev),
        }
    }

    /// [`World::at_span`] for a wait whose length is the waiting party's
    /// own choice: in the natural order it waits it out, so that a client
    /// refused by a leaderless cluster backs off as its policy says
    /// instead of hammering it every millisecond until its retries run out.
    pub(super) fn at_span_late(&mut self, (lo, hi): (u64, u64), ev: Ev<M::Msg>) {
        let now = self.now;
        match &mut self.walk {
            Some(w) => w.push_at(lo.max(now), hi.max(now), hi.max(now), ev),
            None => self.at(lo, ev),
        }
    }

    /// Whether a client may invoke another op: always in a sampled run
    /// and once an explored run settles, within the op bound while it
    /// makes choices (and then it counts).
    pub(super) fn may_invoke(&mut self) -> bool {
        let Some(w) = &mut self.walk else { return true };
        // Settling, the clients work on as in a sampled run's liveness
        // phase: its judgement asks for ops completed near its end.
        if w.settling {
            return true;
        }
        if w.used.ops >= w.bounds.ops {
            return false;
        }
        w.used.ops += 1;
        true
    }

    /// An op every node refused (it took no effect) gives back its place
    /// under the op bound while the run makes choices: otherwise a
    /// cluster with no leader yet would use up the bound before any op
    /// could matter, as refusals come and go within milliseconds.
    pub(super) fn refund_op(&mut self) {
        if let Some(w) = self.walk.as_mut().filter(|w| !w.settling) {
            w.used.ops = w.used.ops.saturating_sub(1);
        }
    }

    /// The next event under exploration, after making every move the tape
    /// picks that is not an event (a fault); `None` once the run stops:
    /// nothing can happen, the tape ran out at a choice, or a move broke
    /// an invariant.
    pub(super) fn explore_next(&mut self) -> Option<(u64, Ev<M::Msg>)> {
        loop {
            if self.verdict.is_some() {
                return None;
            }
            self.drop_void();
            let moves = self.moves();
            let w = self.walk.as_mut().expect("exploring");
            if w.settling {
                let Some(&Move::Fire(i, t)) = moves.first() else {
                    return None;
                };
                let p = w.pending.remove(i);
                return Some((t.max(self.now), p.ev));
            }
            let pick = match moves.len() {
                0 => return None,
                1 => 0,
                _ if w.cursor >= w.bounds.depth as usize => return None,
                n if w.cursor < w.tape.len() => {
                    let c = w.tape[w.cursor] as usize;
                    w.cursor += 1;
                    if c >= n {
                        let msg = format!(
                            "choice {} of the tape is move {c} of {n}: the tape was not made by this \
                             scenario, seed and bug switches",
                            w.cursor
                        );
                        self.verdict = Some(Verdict::error(msg, vec![]));
                        return None;
                    }
                    c
                }
                n => {
                    let digest = self.digest();
                    let shape = self.shape();
                    let w = self.walk.as_mut().expect("exploring");
                    w.points.push(Point {
                        digest,
                        moves: n as u32,
                        shape,
                    });
                    // What follows a state the walk expanded with as much
                    // budget was explored from there: the run ends, and
                    // the walk counts the meeting. A run meeting its own
                    // earlier state goes round a cycle it has walked.
                    let left = (
                        w.bounds.deviations.saturating_sub(w.spent),
                        w.bounds.depth.saturating_sub(w.cursor as u32),
                    );
                    let again = w.points[..w.points.len() - 1].iter().any(|p| p.digest == digest);
                    if again || w.known.as_ref().is_some_and(|k| k.covers(digest, left)) {
                        w.met = true;
                        return None;
                    }
                    w.cursor += 1;
                    0
                }
            };
            let w = self.walk.as_mut().expect("exploring");
            match moves[pick] {
                Move::Fire(i, t) => {
                    let p = w.pending.remove(i);
                    return Some((t.max(self.now), p.ev));
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
                        ..
                    } = p.ev
                    {
                        let kind = msg.kind();
                        self.record(
                            Some(from),
                            EventKind::Drop {
                                id,
                                from,
                                to,
                                msg: kind.into(),
                                cause: DropCause::Loss,
                            },
                        );
                        if conn.is_some() {
                            self.break_link(from, to, DropCause::Loss, true);
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
                Move::Crash(node) => {
                    w.used.crashes += 1;
                    w.crashed.push(node);
                    self.apply(Action::Crash { node });
                }
                Move::Restart(node) => {
                    w.crashed.retain(|n| *n != node);
                    self.apply(Action::Restart { node });
                }
                Move::Isolate(node, inbound_only) => {
                    w.used.partitions += 1;
                    // One cut at a time: cutting off another node heals
                    // the last, so a schedule of cuts costs no heals.
                    if w.cut_off.replace((node, inbound_only)).is_some() {
                        self.apply(Action::Heal);
                    }
                    self.apply(Action::Isolate {
                        target: Target::Node(node),
                        inbound_only,
                    });
                }
                Move::Defer(i) => {
                    let p = &mut w.pending[i];
                    p.lo = p.hi;
                    p.at = p.hi;
                }
                Move::Heal => {
                    w.cut_off = None;
                    self.apply(Action::Heal);
                }
            }
        }
    }

    /// Whether the run is explored and still makes choices: only then do
    /// its nodes' states need digests (and their draws keys). A settling
    /// run draws on from where its streams stand, alike on every replay.
    pub(super) fn choosing(&self) -> bool {
        self.walk.as_ref().is_some_and(|w| !w.settling)
    }

    /// Where an explored run's choices end, the run goes on as a sampled
    /// run does: events in their natural order, with no choice and no new
    /// fault, to the heal at the end of the safety phase (every fault
    /// heals, crashed nodes come back) and on to the liveness deadline; so
    /// the checkers judge liveness after every fault schedule the walk
    /// tries. False if the run has settled already.
    pub(super) fn settle(&mut self) -> bool {
        let w = self.walk.as_mut().expect("exploring");
        if w.settling {
            return false;
        }
        w.settling = true;
        w.crashed.clear();
        w.cut_off = None;
        // The sampled timeline from here: the heal at the end of the
        // safety phase (a model may count on its work stopping by then,
        // as the snapshot store's producers do), the deadline after it.
        let sc = self.scenario;
        let heal = self.now.max(sc.safety_ms.saturating_mul(MS));
        let end = heal.saturating_add(sc.liveness_ms.saturating_mul(MS));
        w.push(heal, heal, Ev::Heal);
        w.push(end, end, Ev::End);
        // A client that found the op bound spent stopped ticking; it
        // starts again.
        let stopped: Vec<u32> = (0..self.clients.len() as u32)
            .filter(|&c| self.clients[c as usize].idle())
            .filter(|&c| {
                !w.pending
                    .iter()
                    .any(|p| matches!(p.ev, Ev::ClientTick { client } if client == c))
            })
            .collect();
        for c in stopped {
            self.next_tick(c);
        }
        true
    }

    /// Every move possible now, in an order fixed by the state: the events
    /// time allows next (earliest window first), each message's loss and
    /// duplication, then the faults.
    fn moves(&self) -> Vec<Move> {
        let w = self.walk.as_ref().expect("exploring");
        let b = &w.bounds;
        let mut out = Vec::new();
        if let Some(close) = w.pending.iter().map(|p| p.hi).min() {
            let mut next: Vec<usize> = (0..w.pending.len())
                .filter(|&i| w.pending[i].lo <= close && self.in_turn(i))
                .collect();
            next.sort_by_key(|&i| (w.pending[i].at, w.pending[i].seq));
            // The natural event may instead take its longest: one
            // deviation delays it past everything its window spans (a
            // slow message, a client thinking long), where firing each of
            // those first would cost one deviation apiece.
            let defer = next.first().copied().filter(|&i| w.pending[i].at < w.pending[i].hi);
            for (k, i) in next.into_iter().enumerate() {
                // The natural event at its natural instant; any other as
                // early as its window allows.
                let p = &w.pending[i];
                out.push(Move::Fire(i, if k == 0 { p.at } else { p.lo }));
                if let Ev::Deliver { conn, .. } = &w.pending[i].ev {
                    if w.allowed.drop && w.used.drops < b.drops {
                        out.push(Move::Drop(i));
                    }
                    // A connection delivers each byte once.
                    if conn.is_none() && w.allowed.duplicate && w.used.duplicates < b.duplicates {
                        out.push(Move::Duplicate(i));
                    }
                }
            }
            out.extend(defer.map(Move::Defer));
        }
        let down = self.nodes.iter().filter(|s| s.machine.is_none()).count();
        if w.used.crashes < b.crashes && down < w.allowed.down_max {
            for &n in &w.allowed.crash {
                if self.nodes[n].machine.is_some() {
                    out.push(Move::Crash(n));
                }
            }
        }
        for &n in &w.crashed {
            out.push(Move::Restart(n));
        }
        if w.cut_off.is_some() {
            out.push(Move::Heal);
        }
        if w.used.partitions < b.partitions && self.nodes.len() > 1 {
            let ways = [(w.allowed.partition, false), (w.allowed.deafen, true)];
            for (_, inbound_only) in ways.into_iter().filter(|(on, _)| *on) {
                for n in 0..self.nodes.len() {
                    if w.cut_off != Some((n, inbound_only)) {
                        out.push(Move::Isolate(n, inbound_only));
                    }
                }
            }
        }
        out
    }

    /// An fsync completes after every fsync its node issued before it.
    fn in_turn(&self, i: usize) -> bool {
        let w = self.walk.as_ref().expect("exploring");
        let Ev::Fsync { node, .. } = &w.pending[i].ev else {
            return true;
        };
        !w.pending[..i]
            .iter()
            .any(|p| matches!(&p.ev, Ev::Fsync { node: n, .. } if n == node))
    }

    /// Removes the events that would do nothing (a cancelled timer, an
    /// fsync of an earlier incarnation, an answer no client waits for):
    /// they are no choice, and only their time would pass.
    fn drop_void(&mut self) {
        let Some(mut w) = self.walk.take() else { return };
        w.pending.retain(|p| !self.is_void(&p.ev));
        self.walk = Some(w);
    }

    fn is_void(&self, ev: &Ev<M::Msg>) -> bool {
        match ev {
            Ev::Timer { node, inc, id, gen } => !self.nodes[*node].timer_live(*inc, *id, *gen),
            Ev::Fsync { node, inc, .. } => self.nodes[*node].inc != *inc,
            Ev::LinkBroken { node, inc, .. } => self.nodes[*node].inc != *inc || self.nodes[*node].machine.is_none(),
            Ev::Reboot { node, inc } => self.nodes[*node].inc != *inc || self.nodes[*node].machine.is_some(),
            Ev::ClientTimeout { client, op_id } => !self.clients[*client as usize].runs(*op_id),
            Ev::ClientResp { req_id, .. } => !self.clients.iter().any(|c| c.awaits(*req_id)),
            _ => false,
        }
    }

    /// A digest of the whole world as far as what may happen next depends
    /// on it: time, each node's state (its own digest, or everything it
    /// was handed since boot), disks, random streams, the events pending
    /// with their windows (as a multiset), the clients, the links and the
    /// faults still allowed. The checkers' state is not in it: two runs
    /// that reach one state by different histories are explored once.
    ///
    /// Time enters relative to now wherever it can: windows, clocks, and
    /// each node's digest with the time since it was taken. Now itself is
    /// left out only while every node, record and message in flight gives
    /// a relative digest ([`Machine::digest_at`]) and no read-only spell
    /// hangs on the absolute time; otherwise it is in, as it must be.
    pub(super) fn digest(&self) -> u64 {
        let w = self.walk.as_ref().expect("exploring");
        let now = self.now;
        let in_flight = Now {
            mono_ns: now,
            wall_ns: WALL_EPOCH_NS + now,
        };
        let mut relative = self.read_only_spells.is_empty();
        let mut h = StableHasher::default();
        for slot in &self.nodes {
            let clocks = Now {
                mono_ns: slot.clock.mono_ns(now),
                wall_ns: slot.clock.wall_ns(now),
            };
            (slot.clock.skew_ns(now), clocks.mono_ns as i128 - now as i128).hash(&mut h);
            match (&slot.machine, slot.kept) {
                (None, _) => 0u8.hash(&mut h),
                (Some(_), Some(k)) => {
                    relative &= k.relative;
                    (1u8, k.digest, now - k.at).hash(&mut h);
                }
                (Some(_), None) => {
                    relative = false;
                    (2u8, slot.history, slot.rng.get_word_pos()).hash(&mut h);
                }
            }
            match slot.disk.digest_with(|r| M::record_digest_at(r, &clocks)) {
                Some(d) => d.hash(&mut h),
                None => {
                    relative = false;
                    debug_digest(&slot.disk).hash(&mut h);
                }
            }
            slot.next_ticket().hash(&mut h);
        }
        let mut events: Vec<u64> = w
            .pending
            .iter()
            .map(|p| {
                let mut e = StableHasher::default();
                (p.lo.max(now) - now, p.hi.max(now) - now, p.at.max(now) - now).hash(&mut e);
                relative &= self.ev_digest(&p.ev, &in_flight, &mut e);
                e.finish()
            })
            .collect();
        events.sort_unstable();
        events.hash(&mut h);
        debug_digest(&self.clients).hash(&mut h);
        (self.next_op, self.next_req).hash(&mut h);
        self.work_rng.get_word_pos().hash(&mut h);
        self.disk_rng.get_word_pos().hash(&mut h);
        (w.used, &w.crashed, w.cut_off).hash(&mut h);
        if !self.links.all_datagram() {
            debug_digest(&self.links).hash(&mut h);
            for (k, (_, msg)) in &self.held {
                (k, self.msg_digest(msg, &in_flight, &mut relative)).hash(&mut h);
            }
        }
        if !relative {
            now.hash(&mut h);
        }
        relative.hash(&mut h);
        h.finish()
    }

    /// The state as the protocol sees it (see [`Point::shape`]).
    fn shape(&self) -> u64 {
        let w = self.walk.as_ref().expect("exploring");
        let mut h = StableHasher::default();
        for slot in &self.nodes {
            (slot.machine.is_some(), &slot.role, slot.shape).hash(&mut h);
        }
        (&w.crashed, w.cut_off).hash(&mut h);
        h.finish()
    }

    /// A message's digest, relative to `now` where it gives one (and
    /// `relative` cleared where it does not).
    fn msg_digest(&self, msg: &M::Msg, now: &Now, relative: &mut bool) -> u64 {
        match msg.digest_at(now) {
            Some(d) => d,
            None => {
                *relative = false;
                debug_digest(msg)
            }
        }
    }

    /// An event's part of the digest, without the ids the world numbers
    /// its events by (no node sees them); false where it holds a message
    /// that gives no relative digest.
    fn ev_digest(&self, ev: &Ev<M::Msg>, now: &Now, h: &mut StableHasher) -> bool {
        let mut relative = true;
        match ev {
            Ev::Deliver {
                from, to, msg, conn, ..
            } => {
                (1u8, from, to, self.msg_digest(msg, now, &mut relative)).hash(h);
                conn.map(|t| (t.epoch, t.seq)).hash(h);
            }
            Ev::Timer { node, id, .. } => (2u8, node, id).hash(h),
            Ev::Fsync { node, ticket, mark, .. } => (3u8, node, ticket, mark).hash(h),
            Ev::ClientReq { node, req } => (4u8, node, debug_digest(req)).hash(h),
            Ev::ClientResp { req_id, reply } => (5u8, req_id, debug_digest(reply)).hash(h),
            Ev::ClientTick { client } => (6u8, client).hash(h),
            Ev::ClientTimeout { client, op_id } => (7u8, client, op_id).hash(h),
            Ev::LinkBroken { node, peer, cause, .. } => (8u8, node, peer, debug_digest(cause)).hash(h),
            Ev::Reboot { node, .. } => (9u8, node).hash(h),
            Ev::Plan(i) => (10u8, i).hash(h),
            Ev::Heal => 11u8.hash(h),
            Ev::End => 12u8.hash(h),
            Ev::Resume { node } => (13u8, node).hash(h),
            Ev::Later(a) => (14u8, debug_digest(a)).hash(h),
            Ev::Probe { node, lease, .. } => (15u8, node, lease).hash(h),
        }
        relative
    }
}
