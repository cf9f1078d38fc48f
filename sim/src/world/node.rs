//! A node's life: boot, crash (losing what its disk had not synced), and
//! each input as one step of its machine, whose outputs the world carries out.

use super::explore::Dice;
use super::targeted::Cue;
use super::{limits, panic_text, Ev, Verdict, World, MS};
use crate::clock::Clock;
use crate::disk::Disk;
use crate::event::{Ballot, EventKind, ModelEvent, Role};
use crate::hash::debug_digest;
use crate::machine::{DiskFaults, Io, Machine, NodeId, Now, Output, SyncTicket, TimerId};
use crate::rng::{chance, keyed_stream, range};
use crate::workload::{ClientReply, ClientReq};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How long a halted node stays down before the world boots it again, in ms.
const HALT_REBOOT_MS: (u64, u64) = (50, 500);

pub(super) enum Input<M: Machine> {
    Boot,
    Message(NodeId, M::Msg),
    Timer(TimerId),
    Client(ClientReq),
    Fsynced(SyncTicket),
    FsyncFailed(SyncTicket),
    LinkBroken(NodeId),
}

impl<M: Machine> Input<M> {
    /// What a stall message names, copied before the input is handed over
    /// (no allocation on a step's path).
    fn brief(&self) -> Brief {
        match self {
            Input::Boot => Brief::Boot,
            Input::Message(from, _) => Brief::Message(*from),
            Input::LinkBroken(peer) => Brief::LinkBroken(*peer),
            Input::Timer(id) => Brief::Timer(*id),
            Input::Client(req) => Brief::Client(req.req_id),
            Input::Fsynced(t) | Input::FsyncFailed(t) => Brief::Fsynced(*t),
        }
    }
}

#[derive(Clone, Copy)]
enum Brief {
    Boot,
    Message(NodeId),
    LinkBroken(NodeId),
    Timer(TimerId),
    Client(u64),
    Fsynced(SyncTicket),
}

impl std::fmt::Display for Brief {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Brief::Boot => write!(f, "its boot"),
            Brief::Message(from) => write!(f, "a message from node {from}"),
            Brief::LinkBroken(peer) => write!(f, "the news that its link to node {peer} broke"),
            Brief::Timer(id) => write!(f, "timer {id}"),
            Brief::Client(req) => write!(f, "client request {req}"),
            Brief::Fsynced(t) => write!(f, "fsync ticket {t}"),
        }
    }
}

pub(super) struct Slot<M: Machine> {
    /// None while the node is down.
    pub(super) machine: Option<M>,
    /// The incarnation: timers and fsyncs of an earlier one are void.
    pub(super) inc: u64,
    pub(super) disk: Disk<M::Rec>,
    pub(super) clock: Clock,
    pub(super) rng: ChaCha8Rng,
    next_ticket: SyncTicket,
    timers: BTreeMap<TimerId, u64>,
    timer_gen: u64,
    pub(super) paused_until: u64,
    /// Events that reached the node while it was paused, in arrival order.
    pub(super) stash: Vec<Ev<M::Msg>>,
    last_fsync_done: u64,
    pub(super) role: Option<(Role, Ballot)>,
    /// Under exploration: the protocol's view of the node as its generic
    /// events tell it (see [`Shape`]).
    pub(super) shape: Shape,
    /// Until when (true time) each lasting storage fault holds.
    pub(super) disk_until: DiskUntil,
    /// Under exploration: a digest of everything this incarnation was
    /// handed, for a machine that gives no digest of its own.
    pub(super) history: u64,
    /// Under exploration, for a machine that gives a digest: its digest as
    /// its last step left it.
    pub(super) kept: Option<Kept>,
}

/// A node's digest as a step left it, and when.
#[derive(Clone, Copy, Debug)]
pub(super) struct Kept {
    pub(super) digest: u64,
    /// Taken relative to the node's clocks ([`Machine::digest_at`]).
    pub(super) relative: bool,
    /// True time of the step.
    pub(super) at: u64,
}

/// What a protocol-level model checker would see of a node: the log's
/// tail and the commit index, as the node last reported them (its role
/// and epoch are [`Slot::role`]). Exploration reads it to tell which
/// states are new to the protocol and not only to the clock.
#[derive(Clone, Copy, Debug, Default, Hash, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) tail: (u64, u64),
    pub(super) commit: u64,
}

/// When each of a node's lasting storage faults ends (0: none).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DiskUntil {
    pub(super) read_error: u64,
    pub(super) fsync_error: u64,
    pub(super) no_space: u64,
    pub(super) slow: u64,
}

impl<M: Machine> Slot<M> {
    pub(super) fn new(rng: ChaCha8Rng) -> Self {
        Slot {
            machine: None,
            inc: 0,
            disk: Disk::default(),
            clock: Clock::default(),
            rng,
            next_ticket: 0,
            timers: BTreeMap::new(),
            timer_gen: 0,
            paused_until: 0,
            stash: Vec::new(),
            last_fsync_done: 0,
            role: None,
            shape: Shape::default(),
            disk_until: DiskUntil::default(),
            history: 0,
            kept: None,
        }
    }

    /// Whether timer `id` as set in generation `gen` of incarnation `inc`
    /// is still to fire.
    pub(super) fn timer_live(&self, inc: u64, id: TimerId, gen: u64) -> bool {
        self.inc == inc && self.timers.get(&id) == Some(&gen)
    }

    pub(super) fn next_ticket(&self) -> SyncTicket {
        self.next_ticket
    }

    /// Folds one input, handed at `now`, into [`Slot::history`].
    fn witness(&mut self, now: u64, input: &Input<M>) {
        use std::hash::{Hash, Hasher};
        let mut h = crate::hash::WordHasher::default();
        (self.history, now).hash(&mut h);
        match input {
            Input::Boot => (0u8, debug_digest(self.disk.durable())).hash(&mut h),
            Input::Message(from, msg) => (1u8, from, debug_digest(msg)).hash(&mut h),
            Input::Timer(id) => (2u8, id).hash(&mut h),
            Input::Client(req) => (3u8, debug_digest(req)).hash(&mut h),
            Input::Fsynced(t) => (4u8, t).hash(&mut h),
            Input::FsyncFailed(t) => (5u8, t).hash(&mut h),
            Input::LinkBroken(peer) => (6u8, peer).hash(&mut h),
        }
        self.history = h.finish();
    }
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    pub(super) fn boot(&mut self, node: NodeId, restart: bool) {
        let slot = &mut self.nodes[node];
        slot.inc += 1;
        slot.timers.clear();
        slot.history = 0;
        slot.kept = None;
        slot.machine = Some((self.factory)(node));
        if let Some(h) = &self.hooks {
            let slot = &self.nodes[node];
            h.clock(node, &slot.clock);
            h.no_space_until(node, slot.disk_until.no_space);
        }
        self.record(Some(node), EventKind::Boot { restart });
        self.step(node, Input::Boot);
        if let Some(h) = &self.hooks {
            if self.nodes[node].paused_until > self.now {
                h.pause(node);
            }
        }
    }

    pub(super) fn crash(&mut self, node: NodeId) {
        let slot = &mut self.nodes[node];
        if slot.machine.is_none() {
            return;
        }
        slot.machine = None;
        slot.inc += 1;
        slot.timers.clear();
        slot.role = None;
        slot.shape = Shape::default();
        if !self.links.all_datagram() {
            self.break_all(node);
        }
        let slot = &mut self.nodes[node];
        let pending = slot.disk.pending_ops();
        let keep = if pending > 0 && chance(&mut self.disk_rng, self.draw.torn_write_probability) {
            range(&mut self.disk_rng, 0, pending as u64 - 1) as usize
        } else {
            0
        };
        let lost = self.nodes[node].disk.crash(keep);
        if pending > 0 {
            self.record(
                Some(node),
                EventKind::DiskLoss {
                    lost,
                    kept: keep as u64,
                },
            );
        }
    }

    /// A timer fires only if it is still set, in the same incarnation.
    pub(super) fn timer(&mut self, node: NodeId, inc: u64, id: TimerId, gen: u64) {
        let slot = &mut self.nodes[node];
        if slot.inc == inc && slot.timers.get(&id) == Some(&gen) {
            slot.timers.remove(&id);
            self.step(node, Input::Timer(id));
        }
    }

    /// An fsync completes only in the incarnation that issued it; under a
    /// storage fault it fails, each write it covered landing or not, and
    /// where the walk fails it ([`super::explore`]) none lands.
    pub(super) fn fsynced(&mut self, node: NodeId, inc: u64, ticket: SyncTicket, mark: u64) {
        let walk_fails = self.walk.as_mut().is_some_and(|w| std::mem::take(&mut w.fail_fsync));
        if self.nodes[node].inc != inc {
            return;
        }
        if walk_fails || self.now < self.nodes[node].disk_until.fsync_error {
            let covered = self.nodes[node].disk.covered(mark);
            // A failure the walk chose loses all that the fsync covered: a
            // drawn prefix could keep it all and make the move a no-op.
            let keep = if walk_fails {
                0
            } else {
                range(&mut self.disk_rng, 0, covered)
            };
            let dropped = self.nodes[node].disk.fail_to(mark, keep);
            self.record(
                Some(node),
                EventKind::FsyncFailed {
                    ticket,
                    dropped,
                    kept: covered - dropped,
                },
            );
            self.step(node, Input::FsyncFailed(ticket));
        } else {
            self.nodes[node].disk.sync_to(mark);
            self.step(node, Input::Fsynced(ticket));
        }
    }

    /// The node halted itself: down now, booted again shortly (unless
    /// something else restarted it meanwhile).
    pub(super) fn halt(&mut self, node: NodeId, reason: String) {
        self.record(Some(node), EventKind::Halt { reason });
        self.crash(node);
        let back = self.span_ms(HALT_REBOOT_MS.0, HALT_REBOOT_MS.1, Dice::Disk);
        let inc = self.nodes[node].inc;
        self.at_span(back, super::Ev::Reboot { node, inc });
    }

    /// A halted node's reboot, if it is still the one that halted.
    pub(super) fn reboot(&mut self, node: NodeId, inc: u64) {
        if self.nodes[node].machine.is_none() && self.nodes[node].inc == inc {
            self.boot(node, true);
        }
    }

    /// A down node refuses a client request without naming a leader.
    pub(super) fn client_request(&mut self, node: NodeId, req: ClientReq) {
        if self.nodes[node].machine.is_none() {
            let back = self.client_latency();
            self.at_span(
                back,
                Ev::ClientResp {
                    req_id: req.req_id,
                    reply: ClientReply::NotLeader { hint: None },
                },
            );
        } else {
            self.step(node, Input::Client(req));
        }
    }

    pub(super) fn step(&mut self, node: NodeId, input: Input<M>) {
        let now = self.now;
        let n = self.nodes.len();
        let choosing = self.choosing();
        let slot = &mut self.nodes[node];
        if choosing {
            slot.witness(now, &input);
        }
        let Some(machine) = slot.machine.as_mut() else { return };
        if choosing {
            // Under exploration a node that gives a digest draws from a
            // stream keyed by its state, not by how many draws came
            // before: equal states draw alike, so a state reached twice is
            // the same state, and its place in the stream leaves the digest.
            // A digest that holds no time is keyed with the instant too, so
            // that a node whose state stands still (a producer between
            // draws) still draws afresh each time, as a seed would; a
            // relative digest must not hold it, or no state would meet again.
            let key = match (slot.kept, &input) {
                (Some(k), _) if k.relative => Some(k.digest),
                (Some(k), _) => Some(k.digest ^ now.rotate_left(29)),
                (None, Input::Boot) if machine.digest().is_some() => Some(debug_digest(slot.disk.durable())),
                (None, _) => None,
            };
            if let Some(key) = key {
                slot.rng = keyed_stream(self.seed, node, key);
            }
        }
        let mut io = Io::<M> {
            id: node,
            nodes: n,
            wall_ns: slot.clock.wall_ns(now),
            mono_ns: slot.clock.mono_ns(now),
            rng: &mut slot.rng,
            durable: slot.disk.durable(),
            disk_faults: DiskFaults {
                read_error: now < slot.disk_until.read_error,
                no_space: now < slot.disk_until.no_space,
                corrupt: slot.disk.first_corrupt(),
            },
            next_ticket: &mut slot.next_ticket,
            out: std::mem::take(&mut self.spare),
            outputs_max: limits::STEP_OUTPUTS_MAX,
            choices: match (choosing, self.walk.as_deref_mut()) {
                (true, Some(w)) => Some(w as &mut dyn crate::machine::Choices),
                _ => None,
            },
        };
        let what = input.brief();
        let result = catch_unwind(AssertUnwindSafe(|| match input {
            Input::Boot => machine.boot(&mut io),
            Input::Message(from, msg) => machine.on_message(from, msg, &mut io),
            Input::Timer(id) => machine.on_timer(id, &mut io),
            Input::Client(req) => machine.on_client(req, &mut io),
            Input::Fsynced(t) => machine.on_fsynced(t, &mut io),
            Input::FsyncFailed(t) => machine.on_fsync_failed(t, &mut io),
            Input::LinkBroken(peer) => machine.on_link_broken(peer, &mut io),
        }));
        let out = std::mem::take(&mut io.out);
        drop(io);
        if let Err(payload) = result {
            if payload.is::<crate::machine::OutputFlood>() {
                self.stalled(format!(
                    "node {node} produced more than {} outputs handling {what}",
                    limits::STEP_OUTPUTS_MAX
                ));
                return;
            }
            let message = panic_text(&payload);
            self.record(
                Some(node),
                EventKind::Panic {
                    message: message.clone(),
                },
            );
            let i = self.trace.len() as u64 - 1;
            self.verdict = Some(Verdict::error(format!("node {node} panicked: {message}"), vec![i]));
            return;
        }
        if choosing {
            let clocks = Now {
                mono_ns: slot.clock.mono_ns(now),
                wall_ns: slot.clock.wall_ns(now),
            };
            let relative = machine.digest_at(&clocks);
            slot.kept = relative.or_else(|| machine.digest()).map(|digest| Kept {
                digest,
                relative: relative.is_some(),
                at: now,
            });
        }
        self.carry_out(node, out);
    }

    /// Carries out what one step of `node` produced, in order, as one step
    /// for targeted faults; an async node's outputs come here in the runs
    /// its tasks produced them.
    pub(super) fn carry_out(&mut self, node: NodeId, mut out: Vec<Output<M>>) {
        let inc = self.nodes[node].inc;
        if self.watch.on {
            self.step_begins(node, &out);
        }
        for o in out.drain(..) {
            let cue = self.watch.on.then(|| Cue::of(&o));
            self.output(node, o);
            if let Some(cue) = cue {
                self.cue(node, cue);
            }
            // A targeted fault crashed the node mid-step: what it had yet
            // to do never happens.
            if self.nodes[node].inc != inc {
                return;
            }
        }
        if self.watch.on {
            self.step_ends(node);
        }
        self.spare = out;
    }

    fn output(&mut self, node: NodeId, o: Output<M>) {
        match o {
            Output::Send { to, .. } if to >= self.nodes.len() => {
                let n = self.nodes.len();
                let msg = format!("node {node} sent a message to node {to}, which does not exist (nodes 0..{n})");
                if self.verdict.is_none() {
                    self.verdict = Some(Verdict::error(msg, vec![]));
                }
            }
            Output::Send { to, msg } => self.send(node, to, msg),
            Output::SetTimer { id, after_ns } => {
                let slot = &mut self.nodes[node];
                slot.timer_gen += 1;
                let gen = slot.timer_gen;
                slot.timers.insert(id, gen);
                let t = slot.clock.true_after(self.now, after_ns);
                let inc = slot.inc;
                self.at(t, Ev::Timer { node, inc, id, gen });
            }
            Output::CancelTimer { id } => {
                self.nodes[node].timers.remove(&id);
            }
            Output::Disk(op) => self.nodes[node].disk.write(op),
            Output::Fsync(ticket) if self.walk.is_some() => {
                // In its window: after the fsyncs issued before it (the
                // walk lets none of them complete first).
                let slot = &self.nodes[node];
                let (inc, mark) = (slot.inc, slot.disk.mark());
                let window = self.span(self.draw.fsync_ms_min * MS, self.draw.fsync_ms_max * MS, Dice::Disk);
                self.at_span(
                    window,
                    Ev::Fsync {
                        node,
                        inc,
                        ticket,
                        mark,
                    },
                );
            }
            Output::Fsync(ticket) => {
                let mut lat = range(
                    &mut self.disk_rng,
                    self.draw.fsync_ms_min * MS,
                    self.draw.fsync_ms_max * MS,
                );
                if self.now < self.nodes[node].disk_until.slow {
                    lat = lat.max(MS) * crate::nemesis::SLOW_DISK_FACTOR;
                }
                let slot = &mut self.nodes[node];
                // An fsync cannot finish before one issued earlier on the same disk.
                let t = (self.now + lat).max(slot.last_fsync_done);
                slot.last_fsync_done = t;
                let (inc, mark) = (slot.inc, slot.disk.mark());
                self.at(
                    t,
                    Ev::Fsync {
                        node,
                        inc,
                        ticket,
                        mark,
                    },
                );
            }
            Output::Reply { req_id, reply } => {
                let t = self.client_latency();
                self.at_span(t, Ev::ClientResp { req_id, reply });
            }
            Output::Event(e) => {
                let slot = &mut self.nodes[node];
                match &e {
                    ModelEvent::Role { role, term, ballot, .. } => slot.role = Some((*role, Ballot::of(*term, ballot))),
                    ModelEvent::LogTail { index, term } => slot.shape.tail = (*index, *term),
                    ModelEvent::Commit { index } => slot.shape.commit = *index,
                    _ => {}
                }
                self.record(Some(node), EventKind::Model(e));
            }
            Output::Reached(goal) => {
                if self.coverage.insert(goal.to_string()) {
                    self.record(Some(node), EventKind::Reached { goal: goal.to_string() });
                }
            }
            Output::Halt(reason) => self.halt(node, reason),
        }
    }
}
