//! The world runs one seed: it owns true time, the network, every node's
//! clock and disk, the clients and the nemesis, and it is the only code that
//! touches madsim. Each input to a node is one step of its sans-IO machine;
//! every effect becomes a trace event that the checkers see at once.
//!
//! This file holds the event loop; the nodes, their messages, the clients
//! and the faults each have their own module.

mod async_run;
mod class;
mod client;
mod drive;
mod explore;
mod faults;
pub mod limits;
mod messages;
mod node;
mod queue;
mod targeted;
mod verdict;

pub use crate::panics::{install_panic_hook, panic_text};
pub(crate) use crate::panics::{take_panic_node, InAsyncRun, InRun};
pub(crate) use async_run::run_async_nodes;
pub use class::{cause, cause_of, classify, Class, PANIC};
pub use verdict::{Overrides, RunOutcome, RunSpec, Status, Verdict};

/// `bounds` narrowed to each one kind of fault `scenario`'s profile has
/// (see `dst mutants --explore`), named by the kind.
pub fn one_fault_kind_each(
    scenario: &crate::scenario::Scenario,
    bounds: crate::explore::Bounds,
) -> Vec<(&'static str, crate::explore::Bounds)> {
    explore::Allowed::of(scenario).one_kind_each(bounds)
}

use crate::calm::Calm;
use crate::check::Invariant;
use crate::event::{DropCause, EventKind};
use crate::links::{Links, Tag};
use crate::machine::{Machine, NodeId, SyncTicket, TimerId};
use crate::nemesis::{Action, PlanEntry, SwarmDraw};
use crate::net::{Chaos, NetConfig, Network};
use crate::rng::{chance, fork, stream, Stream};
use crate::scenario::Scenario;
use crate::trace::Trace;
use crate::workload::{ClientReply, ClientReq};
use client::Client;
use node::Slot;
use queue::Queue;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

const MS: u64 = 1_000_000;
/// How many events a run takes between looks at the interruption flag: a
/// few milliseconds of work, and one relaxed load per few thousand events.
const INTERRUPT_EVERY: u64 = 4096;

enum Ev<Msg> {
    Plan(usize),
    Heal,
    End,
    /// `conn`: where a stream message stands on its connection (none
    /// for a datagram).
    Deliver {
        id: u64,
        from: NodeId,
        to: NodeId,
        msg: Msg,
        conn: Option<Tag>,
    },
    /// `node` (incarnation `inc`) learns that its connection to `peer` broke.
    LinkBroken {
        node: NodeId,
        inc: u64,
        peer: NodeId,
        cause: DropCause,
    },
    Timer {
        node: NodeId,
        inc: u64,
        id: TimerId,
        gen: u64,
    },
    Fsync {
        node: NodeId,
        inc: u64,
        ticket: SyncTicket,
        mark: u64,
    },
    ClientReq {
        node: NodeId,
        req: ClientReq,
    },
    ClientResp {
        req_id: u64,
        reply: ClientReply,
    },
    ClientTick {
        client: u32,
    },
    ClientTimeout {
        client: u32,
        op_id: u64,
    },
    /// A paused node's stall may be over: hand it what waited.
    Resume {
        node: NodeId,
    },
    /// A node that halted itself boots again, if incarnation `inc` is
    /// still the one that halted.
    Reboot {
        node: NodeId,
        inc: u64,
    },
    /// A fault a targeted entry scheduled when it fired: its undo, or the
    /// rest of an isolation.
    Later(Action),
    /// A node's lease may be about to expire (for a targeted entry).
    Probe {
        node: NodeId,
        lease: u32,
        expires_at_ns: u64,
    },
}

impl<Msg> Ev<Msg> {
    /// The node whose machine handles this event, if any (pauses defer it).
    pub(super) fn target(&self) -> Option<NodeId> {
        match self {
            Ev::Deliver { to, .. } => Some(*to),
            Ev::LinkBroken { node, .. } => Some(*node),
            Ev::Timer { node, .. } | Ev::Fsync { node, .. } | Ev::ClientReq { node, .. } => Some(*node),
            _ => None,
        }
    }
}

struct World<'a, M: Machine, F: Fn(NodeId) -> M> {
    scenario: &'a Scenario,
    seed: u64,
    factory: F,
    now: u64,
    queue: Queue<Ev<M::Msg>>,
    /// madsim's clock, moved after `now` to the millisecond.
    clock: madsim::time::TimeHandle,
    /// Where madsim's clock stands: `now` rounded down to a millisecond.
    clock_ns: u64,
    nodes: Vec<Slot<M>>,
    net: Network,
    links: Links,
    /// Stream messages that arrived before the one sent ahead of them on
    /// their connection, by (from, to, seq): handed over right after it.
    held: BTreeMap<(NodeId, NodeId, u64), (u64, M::Msg)>,
    net_rng: ChaCha8Rng,
    disk_rng: ChaCha8Rng,
    work_rng: ChaCha8Rng,
    /// Per spell of `read_spell_ms`: whether writes are held back.
    read_only_spells: Vec<bool>,
    draw: SwarmDraw,
    plan: Vec<PlanEntry>,
    clients: Vec<Client>,
    next_op: u64,
    next_req: u64,
    next_msg: u64,
    /// Messages whose chaos is off, and those chaos touched (not calm ones).
    calm: Calm,
    chaos: Vec<(u64, Chaos)>,
    trace: Trace,
    checkers: Vec<Box<dyn Invariant>>,
    verdict: Option<Verdict>,
    coverage: BTreeSet<String>,
    healed: bool,
    watch: targeted::Watch,
    pace: limits::Pace,
    /// The outputs buffer a step lends to its node's `Io`, kept to reuse.
    spare: Vec<crate::machine::Output<M>>,
    /// What the world tells async nodes' runtime (see [`Hooks`]); none
    /// for sans-IO nodes.
    hooks: Option<Box<dyn Hooks>>,
    /// Events taken from the queue, to look for an interruption now and then.
    taken: u64,
    cut_at: Option<u64>,
    /// Events taken when an interruption ended the run (see
    /// [`crate::host::interrupt::cut_runs`]).
    interrupted: Option<u64>,
    /// Set when the run is explored: its moves come from a tape, and its
    /// events wait in windows (see [`crate::explore`]).
    walk: Option<Box<explore::Walk<M::Msg>>>,
}

/// What the runtime of async nodes must hear from the world, which it
/// cannot see from inside a node: clock and disk faults, pauses, forks,
/// and the end of the run (when a deadlocked node is judged).
pub(crate) trait Hooks {
    fn clock(&self, node: NodeId, clock: &crate::clock::Clock);
    /// Until when (true time) the node's disk is full.
    fn no_space_until(&self, node: NodeId, until_ns: u64);
    fn pause(&self, node: NodeId);
    fn resume(&self, node: NodeId);
    fn reseed(&self, seed: u64);
    /// Why the run must end stalled instead of being judged, if it must.
    fn at_end(&self, now_ns: u64) -> Option<String>;
    /// The link from `node` to `peer` broke (`cause`), as the node learns now.
    fn link_broken(&self, node: NodeId, peer: NodeId, cause: crate::event::DropCause);
}

/// Run one seed of a scenario on a fresh madsim runtime. `factory` builds a
/// node's machine at boot and at every restart.
pub fn run<M, F>(spec: RunSpec<'_>, factory: F) -> RunOutcome
where
    M: Machine,
    F: Fn(NodeId) -> M,
{
    let rt = madsim::runtime::Runtime::with_seed_and_config(spec.seed, madsim::Config::default());
    install_panic_hook();
    let _in_run = InRun::enter();
    rt.block_on(async move {
        let mut w = World::new(spec, factory);
        w.run();
        w.outcome()
    })
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    fn new(spec: RunSpec<'a>, factory: F) -> Self {
        let sc = spec.scenario;
        let mut draw = sc.faults.draw(&mut stream(spec.seed, Stream::Swarm));
        if spec.explore.is_some() {
            // Exploration covers every delay the scenario allows, not one
            // seed's narrower draw of them.
            draw.delay_ms_max = sc.faults.delay_ms_max.max(draw.delay_ms_min);
            draw.fsync_ms_max = sc.faults.fsync_ms_max.max(draw.fsync_ms_min);
        }
        // An explored run's faults are its moves.
        let plan = spec.plan.unwrap_or_else(|| {
            if spec.explore.is_some() {
                return Vec::new();
            }
            sc.faults.plan(
                &draw,
                sc.nodes,
                sc.safety_ms.saturating_mul(MS),
                &mut stream(spec.seed, Stream::Plan),
            )
        });
        let read_only_spells = match sc.workload.read_spell_ms {
            0 => Vec::new(),
            ms => {
                let mut rng = stream(spec.seed, Stream::Spells);
                let spells = sc.safety_ms.saturating_add(sc.liveness_ms) / ms + 1;
                (0..spells).map(|_| chance(&mut rng, 0.5)).collect()
            }
        };
        let watch = targeted::Watch::new(&plan, sc.nodes);
        World {
            scenario: sc,
            seed: spec.seed,
            factory,
            now: 0,
            queue: Queue::new(),
            clock: madsim::time::TimeHandle::current(),
            clock_ns: 0,
            nodes: (0..sc.nodes)
                .map(|i| Slot::new(stream(spec.seed, Stream::Node(i))))
                .collect(),
            net: Network::new(NetConfig::from(&draw)),
            links: Links::new(sc.links),
            held: BTreeMap::new(),
            net_rng: stream(spec.seed, Stream::Net),
            disk_rng: stream(spec.seed, Stream::Disk),
            work_rng: stream(spec.seed, Stream::Workload),
            read_only_spells,
            draw,
            plan,
            clients: (0..sc.workload.clients).map(|_| Client::default()).collect(),
            next_op: 0,
            next_req: 0,
            next_msg: 0,
            calm: spec.calm,
            chaos: Vec::new(),
            trace: Trace::new(spec.keep, spec.hash),
            checkers: spec.checkers,
            verdict: None,
            coverage: BTreeSet::new(),
            healed: false,
            watch,
            pace: limits::Pace::default(),
            spare: Vec::new(),
            hooks: None,
            taken: 0,
            cut_at: spec.cut_at,
            interrupted: None,
            walk: spec.explore.map(|t| {
                let symmetric = spec.explore_known.as_ref().is_some_and(|k| !k.asymmetric);
                let classes = if symmetric {
                    explore::classes::<M>(sc)
                } else {
                    Vec::new()
                };
                Box::new(explore::Walk::new(
                    t,
                    explore::Allowed::of(sc),
                    spec.explore_known,
                    classes,
                ))
            }),
        }
    }

    /// A fork of the run ([`crate::nemesis::Action::Reseed`]): every stream
    /// of chance the run still draws from starts afresh from `seed` and
    /// where that stream had got to (see [`crate::rng::fork`]).
    fn reseed(&mut self, seed: u64) {
        self.net_rng = fork(&mut self.net_rng, seed, Stream::Net);
        self.disk_rng = fork(&mut self.disk_rng, seed, Stream::Disk);
        self.work_rng = fork(&mut self.work_rng, seed, Stream::Workload);
        for (i, slot) in self.nodes.iter_mut().enumerate() {
            slot.rng = fork(&mut slot.rng, seed, Stream::Node(i));
        }
        if let Some(h) = &self.hooks {
            h.reseed(seed);
        }
    }

    fn outcome(self) -> RunOutcome {
        let (points, tape) = match self.walk {
            Some(w) => {
                let (points, tape) = w.end();
                (points, Some(tape))
            }
            None => (Vec::new(), None),
        };
        let mut counters = BTreeMap::new();
        for c in &self.checkers {
            for (k, v) in c.counters() {
                counters.insert(k.to_string(), v);
            }
        }
        counters.extend(self.watch.counters());
        RunOutcome {
            scenario: self.scenario.clone(),
            seed: self.seed,
            verdict: self.verdict.unwrap_or_else(Verdict::pass),
            draw: self.draw,
            plan: self.plan,
            calm: self.calm,
            coverage: self.coverage,
            counters,
            messages: self.next_msg,
            chaos: self.chaos,
            sim_ns: self.now,
            trace: self.trace,
            interrupted: self.interrupted,
            points,
            tape,
        }
    }

    fn at(&mut self, t: u64, ev: Ev<M::Msg>) {
        if let Some(w) = &mut self.walk {
            let t = t.max(self.now);
            return w.push(t, t, ev);
        }
        self.queue.push(t.max(self.now), ev);
    }

    /// Append to the trace and feed every checker; the first violation ends the run.
    fn record(&mut self, node: Option<NodeId>, kind: EventKind) {
        let e = self.trace.push(self.now, node, kind);
        for c in self.checkers.iter_mut() {
            if let Err(v) = c.observe(e) {
                if self.verdict.is_none() {
                    self.verdict = Some(Verdict::violation(v));
                }
            }
        }
    }

    /// Queues the plan, the heal and the end, boots every node and starts
    /// the clients: everything a run does before its first event.
    fn start(&mut self) {
        let sc = self.scenario;
        for i in 0..self.plan.len() {
            let t = self.plan[i].at_ns;
            self.at(t, Ev::Plan(i));
        }
        // Saturating: a scenario built in code skips validation, and a
        // wrapped end would skip the liveness phase and pass. An explored
        // run has no heal: it stops where its tape ends.
        if self.walk.is_none() {
            let heal = sc.safety_ms.saturating_mul(MS);
            self.at(heal, Ev::Heal);
            self.at(heal.saturating_add(sc.liveness_ms.saturating_mul(MS)), Ev::End);
        }
        for n in 0..sc.nodes {
            self.boot(n, false);
        }
        for c in 0..sc.workload.clients {
            let t = self.span(0, sc.workload.think_ms_max.saturating_mul(MS), explore::Dice::Work);
            self.at_span(t, Ev::ClientTick { client: c });
        }
    }

    fn run(&mut self) {
        self.start();
        if self.walk.is_some() {
            return self.run_explored();
        }
        while let Some((t, ev)) = self.queue.pop() {
            if t > self.now {
                self.now = t;
                self.follow_clock();
            }
            if !self.process(ev) {
                return;
            }
        }
    }

    /// An explored run: its events as the tape picks them; where its
    /// choices end, it settles ([`World::settle`]) and the checkers judge
    /// it at the liveness deadline as at the end of a sampled run. A run
    /// stopped at a state its walk expanded before is cut, not ended: no
    /// end-of-run judgement, so that a find replays without the walk.
    fn run_explored(&mut self) {
        loop {
            while let Some((t, ev)) = self.explore_next() {
                if t > self.now {
                    self.now = t;
                    self.follow_clock();
                }
                if !self.process(ev) {
                    return;
                }
            }
            // Met, or safety alone: the run is cut where it stands.
            let cut = self.walk.as_ref().is_some_and(|w| w.met || !w.bounds.liveness);
            if self.verdict.is_some() || self.interrupted.is_some() || cut {
                return;
            }
            if !self.settle() {
                break;
            }
        }
        self.finish();
    }

    /// Handles one event at the time already reached; false once the run is over.
    #[inline]
    fn process(&mut self, ev: Ev<M::Msg>) -> bool {
        if !self.pace(&ev) {
            return false;
        }
        self.taken += 1;
        if Some(self.taken) == self.cut_at
            || (self.taken.is_multiple_of(INTERRUPT_EVERY) && crate::host::interrupt::cut_now())
        {
            self.interrupt();
            return false;
        }
        let Some(ev) = self.hold_if_paused(ev) else { return true };
        if matches!(ev, Ev::End) {
            if let Some(h) = &self.hooks {
                if let Some(why) = h.at_end(self.now) {
                    self.stalled(why);
                    return false;
                }
            }
            self.finish();
            return false;
        }
        self.handle(ev);
        self.check_pending();
        if self.verdict.is_some() {
            return false;
        }
        if self.trace.len() as u64 > self.scenario.event_budget {
            let msg = format!(
                "event budget of {} exhausted at {} ms",
                self.scenario.event_budget,
                self.now / MS
            );
            self.verdict = Some(Verdict::error(msg, vec![]));
            return false;
        }
        true
    }

    /// Ends the run where it stands: an error, so that no one takes it for
    /// a pass, marked so that no one takes it for a finding.
    fn interrupt(&mut self) {
        self.interrupted = Some(self.taken);
        let msg = format!("interrupted at {} ms, after {} events", self.now / MS, self.trace.len());
        self.verdict = Some(Verdict::error(msg, vec![]));
    }

    /// madsim owns time, but a sleep per event would cost an executor
    /// round trip; the world is madsim's only task, so moving its clock is
    /// enough. It moves a whole millisecond at a time, the resolution of
    /// madsim's own timers: a move takes two locks, and moving it to every
    /// event's nanosecond took some 3% of a run. Nodes never read it: they
    /// read their own clocks through `Io`.
    fn follow_clock(&mut self) {
        if self.now >= self.clock_ns.saturating_add(MS) {
            let to = self.now - self.now % MS;
            self.clock.advance(std::time::Duration::from_nanos(to - self.clock_ns));
            self.clock_ns = to;
        }
    }

    fn finish(&mut self) {
        for c in self.checkers.iter_mut() {
            if let Err(v) = c.finish(self.now) {
                self.verdict = Some(Verdict::violation(v));
                return;
            }
        }
    }

    fn handle(&mut self, ev: Ev<M::Msg>) {
        match ev {
            Ev::Plan(i) => match self.plan[i].action.clone() {
                Action::Targeted { .. } => self.arm(i),
                action => self.apply(action),
            },
            Ev::Later(action) => self.apply(action),
            Ev::Probe {
                node,
                lease,
                expires_at_ns,
            } => self.probe(node, lease, expires_at_ns),
            Ev::Heal => self.heal(),
            Ev::Resume { node } => self.resume(node),
            Ev::End => {}
            Ev::Deliver {
                id,
                from,
                to,
                msg,
                conn,
            } => self.deliver(id, from, to, msg, conn),
            Ev::LinkBroken { node, inc, peer, cause } => self.link_broken(node, inc, peer, cause),
            Ev::Timer { node, inc, id, gen } => self.timer(node, inc, id, gen),
            Ev::Fsync {
                node,
                inc,
                ticket,
                mark,
            } => self.fsynced(node, inc, ticket, mark),
            Ev::Reboot { node, inc } => self.reboot(node, inc),
            Ev::ClientReq { node, req } => self.client_request(node, req),
            Ev::ClientResp { req_id, reply } => self.client_reply(req_id, reply),
            Ev::ClientTick { client } => self.invoke(client),
            Ev::ClientTimeout { client, op_id } => self.client_timeout(client, op_id),
        }
    }
}
