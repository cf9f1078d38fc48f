//! The world under exploration (see [`crate::explore`]): every event waits
//! in a window of time instead of at a drawn instant, and a tape picks
//! which move comes next among those time allows.

mod digest;
mod moves;
mod symmetry;

pub(super) use moves::Allowed;
pub(super) use symmetry::classes;

use super::{Ev, Verdict, World, MS};
use crate::explore::{Bounds, Known, Point, Tape};
use crate::machine::{Machine, NodeId};
use crate::rng::range;
use moves::Used;
use rand_chacha::ChaCha8Rng;

pub(super) struct Walk<Msg> {
    pub(super) bounds: Bounds,
    tape: Vec<u32>,
    /// Choices made so far: the next tape entry to read.
    cursor: usize,
    /// Events not yet happened, in the order they were queued.
    pending: Vec<Pending<Msg>>,
    seq: u64,
    used: Used,
    /// Nodes the walk took down (a crash, a read error), until a move
    /// restarts them.
    downed: std::collections::BTreeSet<NodeId>,
    /// The node cut off from the others (and whether inbound only), until
    /// a move heals the cut or cuts off another.
    cut_off: Option<(NodeId, bool)>,
    /// The links cut one way (from, to), where the profile cuts links:
    /// they add up, as a rolling cut of a leader's links does, until a
    /// move heals them or cuts off a node.
    cut_links: std::collections::BTreeSet<(NodeId, NodeId)>,
    /// The choices met after the tape ran out.
    points: Vec<Point>,
    allowed: Allowed,
    /// The walk's expanded states: the run stops at the first it reaches.
    known: Option<Known>,
    /// Classes of interchangeable nodes (see [`symmetry`]).
    classes: Vec<Vec<NodeId>>,
    /// Deviations the tape makes (its choices that are not move 0).
    spent: u32,
    /// The run stopped at a state explored before: its history is cut
    /// there, not ended, so the checkers judge no end of it.
    pub(super) met: bool,
    /// Past the run's last choice: every fault healed, events happen in
    /// their natural order until the liveness deadline.
    settling: bool,
    /// A model's decision met a tape entry beyond its outcomes: the tape
    /// was not made by this scenario, seed and bug switches.
    bad_tape: Option<String>,
    /// The fsync the walk is completing fails ([`moves::Move::FailFsync`]).
    pub(super) fail_fsync: bool,
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

/// Which stream a sampled delay is drawn from.
#[derive(Clone, Copy)]
pub(super) enum Dice {
    Work,
    Disk,
}

impl<Msg> Walk<Msg> {
    pub(super) fn new(tape: Tape, allowed: Allowed, known: Option<Known>, classes: Vec<Vec<NodeId>>) -> Self {
        Walk {
            classes,
            spent: tape.choices.iter().filter(|c| **c != 0).count() as u32,
            known,
            met: false,
            settling: false,
            bad_tape: None,
            fail_fsync: false,
            bounds: tape.bounds,
            tape: tape.choices,
            cursor: 0,
            pending: Vec::new(),
            seq: 0,
            used: Used::default(),
            downed: Default::default(),
            cut_off: None,
            cut_links: Default::default(),
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

/// A model's own decision (see [`crate::Io::choice`]) is a
/// choice like any other: the tape names which outcome, 0 the drawn one
/// and `k` the `k`-th of the others. A state in the middle of a step has
/// no digest the world can take (the node is busy), so it is told by the
/// choices that led to it, which no other path shares: nothing meets it
/// again, and the next state between steps is met as any other.
impl<Msg> crate::machine::Choices for Walk<Msg> {
    fn choose(&mut self, drawn: u32, of: u32) -> u32 {
        if self.settling || self.cursor >= self.bounds.depth as usize {
            return drawn;
        }
        let pick = if self.cursor < self.tape.len() {
            let c = self.tape[self.cursor];
            self.cursor += 1;
            if c >= of {
                self.bad_tape.get_or_insert(format!(
                    "choice {} of the tape is outcome {c} of {of}: the tape was not made by this scenario, seed and \
                     bug switches",
                    self.cursor
                ));
                0
            } else {
                c
            }
        } else {
            use std::hash::{Hash, Hasher};
            let mut h = crate::hash::WordHasher::default();
            (0xc401_u16, &self.tape, self.cursor).hash(&mut h);
            let shape = self.points.last().map_or(0, |p| p.shape);
            self.points.push(Point {
                digest: h.finish(),
                moves: of,
                shape,
            });
            self.cursor += 1;
            0
        };
        match pick {
            0 => drawn,
            k if k <= drawn => k - 1,
            k => k,
        }
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
            if let Some(msg) = self.walk.as_mut().and_then(|w| w.bad_tape.take()) {
                self.verdict.get_or_insert(Verdict::error(msg, vec![]));
            }
            if self.verdict.is_some() {
                return None;
            }
            self.drop_void();
            if self.walk.as_ref().is_some_and(|w| w.settling) {
                // Past the choices only the natural event matters: found
                // without listing every move, since a settling run
                // simulates seconds and this is paid at every event.
                let i = self.natural()?;
                let w = self.walk.as_mut().expect("exploring");
                let p = w.pending.remove(i);
                return Some((p.at.max(self.now), p.ev));
            }
            let moves = self.moves();
            let w = self.walk.as_mut().expect("exploring");
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
                    // the walk counts the meeting.
                    let left = (
                        w.bounds.deviations.saturating_sub(w.spent),
                        w.bounds.depth.saturating_sub(w.cursor as u32),
                    );
                    // A run back at a state it passed goes round that
                    // cycle for good: its choices end here, and it settles
                    // (where liveness is judged), since a cycle in which
                    // nothing progresses is how a livelock shows.
                    if w.points[..w.points.len() - 1].iter().any(|p| p.digest == digest) {
                        return None;
                    }
                    if w.known.as_ref().is_some_and(|k| k.covers(digest, left)) {
                        w.met = true;
                        return None;
                    }
                    w.cursor += 1;
                    0
                }
            };
            if let Some(event) = self.make(moves[pick]) {
                return Some(event);
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
    /// fault, each fault the walk made ending when it would, then the heal
    /// (whatever is left heals, crashed nodes come back) and the liveness
    /// deadline a liveness phase later; so the checkers judge liveness
    /// after every fault schedule the walk tries. False if the run has
    /// settled already.
    pub(super) fn settle(&mut self) -> bool {
        let w = self.walk.as_mut().expect("exploring");
        if w.settling {
            return false;
        }
        w.settling = true;
        w.cut_off = None;
        w.cut_links.clear();
        w.downed.clear();
        // Every fault the walk made heals now, where its choices end.
        let heal = self.now;
        let end = heal.saturating_add(self.scenario.liveness_ms.saturating_mul(MS));
        // A read error waits for the node's next boot: a node it took down
        // boots into it here, before the heal ends it (and boots again).
        for (n, slot) in self.nodes.iter().enumerate() {
            if slot.machine.is_none() && slot.disk_until.read_error > heal {
                w.push(heal, heal, Ev::Reboot { node: n, inc: slot.inc });
            }
        }
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

    /// The event that happens next in the natural order: the earliest
    /// instant (then the earliest queued) among those in turn. Its window
    /// opens before every other closes, since its instant is in its window
    /// and no later than any other's.
    fn natural(&self) -> Option<usize> {
        let w = self.walk.as_ref().expect("exploring");
        let mut best: Option<(u64, u64, usize)> = None;
        for (i, p) in w.pending.iter().enumerate() {
            // Whether an fsync is in turn is asked only of one that would
            // come first: the question walks the queue before it.
            let earlier = best.is_none_or(|(at, seq, _)| (p.at, p.seq) < (at, seq));
            if earlier && self.in_turn(i) {
                best = Some((p.at, p.seq, i));
            }
        }
        best.map(|b| b.2)
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
}
