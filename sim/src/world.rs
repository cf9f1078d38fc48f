//! The world runs one seed: it owns true time, the network, every node's
//! clock and disk, the clients and the nemesis, and it is the only code that
//! touches madsim. Each input to a node is one step of its sans-IO machine;
//! every effect becomes a trace event that the checkers see at once.

use crate::check::{Invariant, Violation};
use crate::clock::Clock;
use crate::disk::Disk;
use crate::event::{DropCause, EventKind, ModelEvent, Role};
use crate::machine::{Io, Machine, MsgInfo, NodeId, Output, SyncTicket, TimerId};
use crate::nemesis::{Action, PlanEntry, SwarmDraw, Target};
use crate::net::{NetConfig, Network, Route};
use crate::rng::{chance, range, stream, Stream};
use crate::scenario::Scenario;
use crate::trace::Trace;
use crate::workload::{ClientReply, ClientReq, KvOp, KvResult, Value};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};

const MS: u64 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Violation,
    /// The run itself broke: a panic in a model, an exhausted event budget.
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invariant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
    #[serde(default)]
    pub evidence: Vec<u64>,
}

impl Verdict {
    pub fn pass() -> Self {
        Verdict {
            status: Status::Pass,
            invariant: None,
            message: None,
            evidence: vec![],
        }
    }
    fn violation(v: Violation) -> Self {
        Verdict {
            status: Status::Violation,
            invariant: Some(v.invariant),
            message: Some(v.message),
            evidence: v.evidence,
        }
    }
    fn error(message: String, evidence: Vec<u64>) -> Self {
        Verdict {
            status: Status::Error,
            invariant: None,
            message: Some(message),
            evidence,
        }
    }
}

/// One run to do.
pub struct RunSpec<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    /// Replay this plan instead of drawing one (an edited or shrunk plan).
    pub plan: Option<Vec<PlanEntry>>,
    pub checkers: Vec<Box<dyn Invariant>>,
}

/// What one run produced.
pub struct RunOutcome {
    pub verdict: Verdict,
    pub draw: SwarmDraw,
    pub plan: Vec<PlanEntry>,
    pub trace: Trace,
    pub coverage: BTreeSet<String>,
    pub counters: BTreeMap<String, u64>,
    pub messages: u64,
    pub sim_ns: u64,
}

enum Ev<Msg> {
    Plan(usize),
    Heal,
    End,
    Deliver {
        id: u64,
        from: NodeId,
        to: NodeId,
        msg: Msg,
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
}

impl<Msg> Ev<Msg> {
    /// The node whose machine handles this event, if any (pauses defer it).
    fn target(&self) -> Option<NodeId> {
        match self {
            Ev::Deliver { to, .. } => Some(*to),
            Ev::Timer { node, .. } | Ev::Fsync { node, .. } | Ev::ClientReq { node, .. } => Some(*node),
            _ => None,
        }
    }
}

enum Input<M: Machine> {
    Boot,
    Message(NodeId, M::Msg),
    Timer(TimerId),
    Client(ClientReq),
    Fsynced(SyncTicket),
}

struct Slot<M: Machine> {
    machine: Option<M>,
    inc: u64,
    disk: Disk<M::Rec>,
    clock: Clock,
    rng: ChaCha8Rng,
    next_ticket: SyncTicket,
    timers: BTreeMap<TimerId, u64>,
    timer_gen: u64,
    paused_until: u64,
    /// Events that reached the node while it was paused, in arrival order.
    stash: Vec<Ev<M::Msg>>,
    last_fsync_done: u64,
    role: Option<(Role, u64)>,
}

struct OpState {
    op_id: u64,
    op: KvOp,
    req_id: u64,
    attempts: u32,
    /// Where the current attempt went.
    node: NodeId,
}

/// A client behaves like a real driver: it keeps sending to the node that
/// last served it as leader, follows a refusal's hint, tries the next node
/// round robin when a refusal names none, and forgets the leader when an op
/// times out or ends unknown.
struct Client {
    op: Option<OpState>,
    /// Where the next attempt goes (a hint or the next node in turn).
    next: Option<NodeId>,
    /// The node that last served a leader-only op.
    leader: Option<NodeId>,
    last_read: BTreeMap<u32, Value>,
}

struct World<'a, M: Machine, F: Fn(NodeId) -> M> {
    scenario: &'a Scenario,
    factory: F,
    now: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Ev<M::Msg>>,
    nodes: Vec<Slot<M>>,
    net: Network,
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
    trace: Trace,
    checkers: Vec<Box<dyn Invariant>>,
    verdict: Option<Verdict>,
    coverage: BTreeSet<String>,
    healed: bool,
}

/// Run one seed of a scenario on a fresh madsim runtime. `factory` builds a
/// node's machine at boot and at every restart.
pub fn run<M, F>(spec: RunSpec<'_>, factory: F) -> RunOutcome
where
    M: Machine,
    F: Fn(NodeId) -> M,
{
    let rt = madsim::runtime::Runtime::with_seed_and_config(spec.seed, madsim::Config::default());
    struct InRun(bool);
    impl Drop for InRun {
        fn drop(&mut self) {
            IN_RUN.with(|f| f.set(self.0));
        }
    }
    let _restore = InRun(IN_RUN.with(|f| f.replace(true)));
    rt.block_on(async move {
        let mut w = World::new(spec, factory);
        w.run().await;
        w.outcome()
    })
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    fn new(spec: RunSpec<'a>, factory: F) -> Self {
        let sc = spec.scenario;
        let draw = sc.faults.draw(&mut stream(spec.seed, Stream::Swarm));
        let plan = spec.plan.unwrap_or_else(|| {
            sc.faults
                .plan(&draw, sc.nodes, sc.safety_ms * MS, &mut stream(spec.seed, Stream::Plan))
        });
        let read_only_spells = match sc.workload.read_spell_ms {
            0 => Vec::new(),
            ms => {
                let mut rng = stream(spec.seed, Stream::Spells);
                let spells = (sc.safety_ms + sc.liveness_ms) / ms + 1;
                (0..spells).map(|_| chance(&mut rng, 0.5)).collect()
            }
        };
        let nodes = (0..sc.nodes)
            .map(|i| Slot {
                machine: None,
                inc: 0,
                disk: Disk::default(),
                clock: Clock::default(),
                rng: stream(spec.seed, Stream::Node(i)),
                next_ticket: 0,
                timers: BTreeMap::new(),
                timer_gen: 0,
                paused_until: 0,
                stash: Vec::new(),
                last_fsync_done: 0,
                role: None,
            })
            .collect();
        let clients = (0..sc.workload.clients)
            .map(|_| Client {
                op: None,
                next: None,
                leader: None,
                last_read: BTreeMap::new(),
            })
            .collect();
        World {
            scenario: sc,
            factory,
            now: 0,
            seq: 0,
            queue: BTreeMap::new(),
            nodes,
            net: Network::new(NetConfig::from(&draw)),
            net_rng: stream(spec.seed, Stream::Net),
            disk_rng: stream(spec.seed, Stream::Disk),
            work_rng: stream(spec.seed, Stream::Workload),
            read_only_spells,
            draw,
            plan,
            clients,
            next_op: 0,
            next_req: 0,
            next_msg: 0,
            trace: Trace::default(),
            checkers: spec.checkers,
            verdict: None,
            coverage: BTreeSet::new(),
            healed: false,
        }
    }

    fn outcome(self) -> RunOutcome {
        let mut counters = BTreeMap::new();
        for c in &self.checkers {
            for (k, v) in c.counters() {
                counters.insert(k.to_string(), v);
            }
        }
        RunOutcome {
            verdict: self.verdict.unwrap_or_else(Verdict::pass),
            draw: self.draw,
            plan: self.plan,
            coverage: self.coverage,
            counters,
            messages: self.next_msg,
            sim_ns: self.now,
            trace: self.trace,
        }
    }

    fn at(&mut self, t: u64, ev: Ev<M::Msg>) {
        self.seq += 1;
        self.queue.insert((t.max(self.now), self.seq), ev);
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

    async fn run(&mut self) {
        let sc = self.scenario;
        for i in 0..self.plan.len() {
            let t = self.plan[i].at_ns;
            self.at(t, Ev::Plan(i));
        }
        self.at(sc.safety_ms * MS, Ev::Heal);
        self.at((sc.safety_ms + sc.liveness_ms) * MS, Ev::End);
        for n in 0..sc.nodes {
            self.boot(n, false);
        }
        for c in 0..sc.workload.clients {
            let t = range(&mut self.work_rng, 0, sc.workload.think_ms_max * MS);
            self.at(t, Ev::ClientTick { client: c });
        }
        let start = madsim::time::Instant::now();
        while let Some(((t, _), ev)) = self.queue.pop_first() {
            if t > self.now {
                madsim::time::sleep_until(start + std::time::Duration::from_nanos(t)).await;
                self.now = t;
            }
            if let Some(node) = ev.target() {
                let slot = &mut self.nodes[node];
                if slot.paused_until > self.now {
                    if slot.stash.is_empty() {
                        let until = slot.paused_until;
                        self.at(until, Ev::Resume { node });
                    }
                    self.nodes[node].stash.push(ev);
                    continue;
                }
            }
            if matches!(ev, Ev::End) {
                self.finish();
                return;
            }
            self.handle(ev);
            if self.verdict.is_some() {
                return;
            }
            if self.trace.len() as u64 > sc.event_budget {
                let msg = format!("event budget of {} exhausted at {} ms", sc.event_budget, self.now / MS);
                self.verdict = Some(Verdict::error(msg, vec![]));
                return;
            }
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
            Ev::Plan(i) => {
                let action = self.plan[i].action.clone();
                self.apply(action);
            }
            Ev::Heal => self.heal(),
            Ev::Resume { node } => {
                let until = self.nodes[node].paused_until;
                if until > self.now {
                    self.at(until, Ev::Resume { node });
                } else {
                    self.release(node);
                }
            }
            Ev::End => {}
            Ev::Deliver { id, from, to, msg } => {
                let kind = msg.kind().to_string();
                let lost = if self.net.is_cut(from, to) {
                    Some(DropCause::Partition)
                } else if self.nodes[to].machine.is_none() {
                    Some(DropCause::Down)
                } else {
                    None
                };
                match lost {
                    Some(cause) => self.record(
                        Some(to),
                        EventKind::Drop {
                            id,
                            from,
                            to,
                            msg: kind,
                            cause,
                        },
                    ),
                    None => {
                        self.record(Some(to), EventKind::Deliver { id, from, msg: kind });
                        self.step(to, Input::Message(from, msg));
                    }
                }
            }
            Ev::Timer { node, inc, id, gen } => {
                let slot = &mut self.nodes[node];
                if slot.inc == inc && slot.timers.get(&id) == Some(&gen) {
                    slot.timers.remove(&id);
                    self.step(node, Input::Timer(id));
                }
            }
            Ev::Fsync {
                node,
                inc,
                ticket,
                mark,
            } => {
                if self.nodes[node].inc == inc {
                    self.nodes[node].disk.sync_to(mark);
                    self.step(node, Input::Fsynced(ticket));
                }
            }
            Ev::ClientReq { node, req } => {
                if self.nodes[node].machine.is_none() {
                    let back = self.client_latency();
                    self.at(
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
            Ev::ClientResp { req_id, reply } => self.client_reply(req_id, reply),
            Ev::ClientTick { client } => self.invoke(client),
            Ev::ClientTimeout { client, op_id } => {
                let c = &mut self.clients[client as usize];
                if c.op.as_ref().is_some_and(|o| o.op_id == op_id) {
                    c.op = None;
                    c.next = None;
                    c.leader = None;
                    self.record(
                        None,
                        EventKind::Info {
                            client,
                            op_id,
                            why: "timeout".into(),
                        },
                    );
                    self.next_tick(client);
                }
            }
        }
    }

    // ---- nodes ----

    fn boot(&mut self, node: NodeId, restart: bool) {
        let slot = &mut self.nodes[node];
        slot.inc += 1;
        slot.timers.clear();
        slot.machine = Some((self.factory)(node));
        self.record(Some(node), EventKind::Boot { restart });
        self.step(node, Input::Boot);
    }

    fn crash(&mut self, node: NodeId) {
        let slot = &mut self.nodes[node];
        if slot.machine.is_none() {
            return;
        }
        slot.machine = None;
        slot.inc += 1;
        slot.timers.clear();
        slot.role = None;
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

    fn step(&mut self, node: NodeId, input: Input<M>) {
        let now = self.now;
        let n = self.nodes.len();
        let slot = &mut self.nodes[node];
        let Some(machine) = slot.machine.as_mut() else { return };
        let mut io = Io::<M> {
            id: node,
            nodes: n,
            wall_ns: slot.clock.wall_ns(now),
            mono_ns: slot.clock.mono_ns(now),
            rng: &mut slot.rng,
            durable: slot.disk.durable(),
            next_ticket: &mut slot.next_ticket,
            out: Vec::new(),
        };
        let result = catch_unwind(AssertUnwindSafe(|| match input {
            Input::Boot => machine.boot(&mut io),
            Input::Message(from, msg) => machine.on_message(from, msg, &mut io),
            Input::Timer(id) => machine.on_timer(id, &mut io),
            Input::Client(req) => machine.on_client(req, &mut io),
            Input::Fsynced(t) => machine.on_fsynced(t, &mut io),
        }));
        let out = std::mem::take(&mut io.out);
        if let Err(payload) = result {
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
        for o in out {
            self.output(node, o);
        }
    }

    fn output(&mut self, node: NodeId, o: Output<M>) {
        match o {
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
            Output::Fsync(ticket) => {
                let lat = range(
                    &mut self.disk_rng,
                    self.draw.fsync_ms_min * MS,
                    self.draw.fsync_ms_max * MS,
                );
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
                self.at(t, Ev::ClientResp { req_id, reply });
            }
            Output::Event(e) => {
                if let ModelEvent::Role { role, term, .. } = &e {
                    self.nodes[node].role = Some((*role, *term));
                }
                self.record(Some(node), EventKind::Model(e));
            }
            Output::Reached(goal) => {
                if self.coverage.insert(goal.to_string()) {
                    self.record(Some(node), EventKind::Reached { goal: goal.to_string() });
                }
            }
        }
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: M::Msg) {
        self.next_msg += 1;
        let id = self.next_msg;
        let kind = msg.kind();
        self.record(
            Some(from),
            EventKind::Send {
                id,
                to,
                msg: kind.into(),
            },
        );
        match self.net.route(from, to, &mut self.net_rng) {
            Route::Lost(cause) => self.record(
                Some(from),
                EventKind::Drop {
                    id,
                    from,
                    to,
                    msg: kind.into(),
                    cause,
                },
            ),
            Route::Deliver {
                delay_ns,
                duplicate_delay_ns,
            } => {
                if let Some(d) = duplicate_delay_ns {
                    self.record(Some(from), EventKind::Duplicate { id });
                    self.at(
                        self.now + d,
                        Ev::Deliver {
                            id,
                            from,
                            to,
                            msg: msg.clone(),
                        },
                    );
                }
                self.at(self.now + delay_ns, Ev::Deliver { id, from, to, msg });
            }
        }
    }

    // ---- nemesis ----

    fn resolve(&self, t: Target) -> NodeId {
        match t {
            Target::Node(n) => n,
            Target::Leader => self
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(i, s)| match s.role {
                    Some((Role::Leader, term)) if s.machine.is_some() => Some((term, i)),
                    _ => None,
                })
                .max()
                .map_or(0, |(_, i)| i),
        }
    }

    fn apply(&mut self, action: Action) {
        let n = self.nodes.len();
        let action = match action {
            Action::Isolate { target, inbound_only } => Action::Isolate {
                target: Target::Node(self.resolve(target)),
                inbound_only,
            },
            Action::PauseLeader { ms } => Action::Pause {
                node: self.resolve(Target::Leader),
                ms,
            },
            Action::ClockDriftLeader { ppm } => Action::ClockDrift {
                node: self.resolve(Target::Leader),
                ppm,
            },
            Action::CutLeaderLink { peer, outbound } => {
                let leader = self.resolve(Target::Leader);
                let peers: Vec<NodeId> = (0..n).filter(|&p| p != leader).collect();
                // A one-node cluster has no link to cut: an empty cut.
                let other: Vec<NodeId> = peers.get(peer % peers.len().max(1)).copied().into_iter().collect();
                if outbound {
                    Action::PartitionOneWay {
                        from: vec![leader],
                        to: other,
                    }
                } else {
                    Action::PartitionOneWay {
                        from: other,
                        to: vec![leader],
                    }
                }
            }
            a => a,
        };
        self.record(None, EventKind::Fault { action: action.clone() });
        match action {
            Action::Partition { groups } => self.net.partition(&groups),
            Action::PartitionOneWay { from, to } => {
                for &f in &from {
                    for &t in &to {
                        self.net.cut(f, t);
                    }
                }
            }
            Action::Isolate { target, inbound_only } => {
                let node = self.resolve(target);
                self.net.isolate(node, n, inbound_only);
            }
            Action::Link {
                from,
                to,
                drop_per_million,
                delay_ms_extra,
            } => self.net.degrade(from, to, drop_per_million, delay_ms_extra),
            Action::Heal => self.net.heal(),
            Action::Crash { node } => self.crash(node),
            Action::Restart { node } => {
                if self.nodes[node].machine.is_none() {
                    self.boot(node, true);
                }
            }
            Action::Pause { node, ms } => {
                let slot = &mut self.nodes[node];
                slot.paused_until = slot.paused_until.max(self.now + ms * MS);
            }
            Action::PauseLeader { .. } | Action::ClockDriftLeader { .. } | Action::CutLeaderLink { .. } => {
                unreachable!("resolved to a node above")
            }
            Action::ClockOffset { node, ns } => self.nodes[node].clock.set_offset(self.now, ns),
            Action::ClockDrift { node, ppm } => self.nodes[node].clock.set_drift(self.now, ppm),
            Action::ClockJump { node, ns } => self.nodes[node].clock.jump(self.now, ns),
        }
    }

    /// The liveness phase: message chaos stops, links heal, crashed nodes
    /// restart; a minority (the leader, if the swarm drew it) may stay cut off.
    fn heal(&mut self) {
        self.healed = true;
        self.net.heal();
        self.net.chaos = false;
        let mut impaired = Vec::new();
        if let Some(inbound_only) = self.draw.impair_leader {
            let node = self.resolve(Target::Leader);
            self.net.isolate(node, self.nodes.len(), inbound_only);
            impaired.push(node);
        }
        self.record(None, EventKind::Heal { impaired });
        for node in 0..self.nodes.len() {
            self.nodes[node].paused_until = 0;
            self.release(node);
            if self.nodes[node].machine.is_none() {
                self.record(
                    None,
                    EventKind::Fault {
                        action: Action::Restart { node },
                    },
                );
                self.boot(node, true);
            }
        }
    }

    /// Requeues what a paused node missed, now: each source (a peer, a
    /// client request, the node's own timers and disk) keeps its order,
    /// and the sources are interleaved at random.
    fn release(&mut self, node: NodeId) {
        let stash = std::mem::take(&mut self.nodes[node].stash);
        let mut sources: Vec<(u64, VecDeque<Ev<M::Msg>>)> = Vec::new();
        for ev in stash {
            let key = match &ev {
                Ev::Deliver { from, .. } => *from as u64,
                Ev::ClientReq { req, .. } => (1 << 32) + req.req_id,
                _ => u64::MAX,
            };
            match sources.iter_mut().find(|(k, _)| *k == key) {
                Some((_, q)) => q.push_back(ev),
                None => sources.push((key, VecDeque::from([ev]))),
            }
        }
        while !sources.is_empty() {
            let i = range(&mut self.net_rng, 0, sources.len() as u64 - 1) as usize;
            let ev = sources[i].1.pop_front().expect("sources are non-empty");
            if sources[i].1.is_empty() {
                sources.remove(i);
            }
            self.at(self.now, ev);
        }
    }

    // ---- clients ----

    fn client_latency(&mut self) -> u64 {
        self.now + range(&mut self.work_rng, MS / 2, 2 * MS)
    }

    fn next_tick(&mut self, client: u32) {
        let think = range(&mut self.work_rng, 0, self.scenario.workload.think_ms_max * MS);
        self.at(self.now + think, Ev::ClientTick { client });
    }

    fn pick_op(&mut self, client: u32) -> KvOp {
        let w = &self.scenario.workload;
        let key = range(&mut self.work_rng, 0, w.keys as u64 - 1) as u32;
        self.next_op += 1;
        // Unique per write, so a value read back names the write that made it.
        let value = self.next_op;
        let mix = [
            w.put_weight,
            w.append_weight,
            w.get_weight,
            w.cas_weight,
            w.follower_get_weight,
        ];
        let total: u64 = mix.iter().map(|x| *x as u64).sum();
        let mut r = range(&mut self.work_rng, 0, total - 1) as u32;
        let spell = match w.read_spell_ms {
            0 => None,
            ms => self.read_only_spells.get((self.now / (ms * MS)) as usize),
        };
        if spell == Some(&true) && (r as u64) < (w.put_weight + w.append_weight) as u64 {
            return KvOp::Get { key };
        }
        for (i, weight) in mix.into_iter().enumerate() {
            if r < weight {
                return match i {
                    3 if spell == Some(&true) => KvOp::Get { key },
                    0 => KvOp::Put { key, value },
                    1 => KvOp::Append { key, value },
                    2 => KvOp::Get { key },
                    3 => {
                        let expected = self.clients[client as usize]
                            .last_read
                            .get(&key)
                            .cloned()
                            .unwrap_or_default();
                        KvOp::Cas { key, expected, value }
                    }
                    _ => KvOp::FollowerGet { key },
                };
            }
            r -= weight;
        }
        KvOp::Get { key }
    }

    fn invoke(&mut self, client: u32) {
        let op = self.pick_op(client);
        let op_id = self.next_op;
        self.record(
            None,
            EventKind::Invoke {
                client,
                op_id,
                op: op.clone(),
            },
        );
        self.next_req += 1;
        let req_id = self.next_req;
        self.clients[client as usize].op = Some(OpState {
            op_id,
            op,
            req_id,
            attempts: 0,
            node: 0,
        });
        let timeout = self.now + self.scenario.workload.op_timeout_ms * MS;
        self.at(timeout, Ev::ClientTimeout { client, op_id });
        self.attempt(client, 0);
    }

    /// Send the current op of `client` where its retry policy says, or to a
    /// random node, after `delay_ns` (a retry backoff). A follower read
    /// starts at a random node: any node may serve it.
    fn attempt(&mut self, client: u32, delay_ns: u64) {
        let n = self.nodes.len() as u64;
        let guess = range(&mut self.work_rng, 0, n - 1) as NodeId;
        self.next_req += 1;
        let req_id = self.next_req;
        let c = &mut self.clients[client as usize];
        let Some(op) = c.op.as_mut() else { return };
        let first = op.attempts == 0;
        let anywhere = first && matches!(op.op, KvOp::FollowerGet { .. });
        let retry_to = c.next.take();
        let home = (client as u64 % n) as NodeId;
        let node = match (anywhere, retry_to, c.leader) {
            (true, _, _) => guess,
            (false, Some(n), _) => n,
            (false, None, _) if first && self.scenario.workload.bound_clients => home,
            (false, None, Some(l)) if first => l,
            _ => guess,
        };
        op.node = node;
        op.req_id = req_id;
        op.attempts += 1;
        let req = ClientReq {
            req_id,
            op: op.op.clone(),
        };
        let t = self.client_latency() + delay_ns;
        self.at(t, Ev::ClientReq { node, req });
    }

    fn client_reply(&mut self, req_id: u64, reply: ClientReply) {
        let Some(client) = self
            .clients
            .iter()
            .position(|c| c.op.as_ref().is_some_and(|o| o.req_id == req_id))
        else {
            return; // a late answer to an op that already ended
        };
        let cl = client as u32;
        let op = self.clients[client].op.take().expect("matched above");
        match reply {
            ClientReply::Ok(result) => {
                if let (KvResult::Value { value }, KvOp::Get { key } | KvOp::FollowerGet { key }) = (&result, &op.op) {
                    self.clients[client].last_read.insert(*key, value.clone());
                }
                if !matches!(op.op, KvOp::FollowerGet { .. }) {
                    self.clients[client].leader = Some(op.node);
                }
                self.record(
                    None,
                    EventKind::Ok {
                        client: cl,
                        op_id: op.op_id,
                        result,
                    },
                );
                self.next_tick(cl);
            }
            ClientReply::Unknown => {
                self.clients[client].next = None;
                self.clients[client].leader = None;
                self.record(
                    None,
                    EventKind::Info {
                        client: cl,
                        op_id: op.op_id,
                        why: "unknown".into(),
                    },
                );
                self.next_tick(cl);
            }
            ClientReply::NotLeader { hint } => {
                if op.attempts >= self.scenario.workload.retries_max {
                    self.record(
                        None,
                        EventKind::Fail {
                            client: cl,
                            op_id: op.op_id,
                            why: "no leader".into(),
                        },
                    );
                    self.next_tick(cl);
                    return;
                }
                let n = self.nodes.len();
                let c = &mut self.clients[client];
                c.next = Some(hint.filter(|h| *h != op.node).unwrap_or((op.node + 1) % n));
                c.leader = None;
                c.op = Some(op);
                let backoff = range(&mut self.work_rng, 1, self.scenario.workload.retry_backoff_ms) * MS;
                self.attempt(cl, backoff);
            }
        }
    }
}

thread_local! {
    static IN_RUN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Keep panics inside a run quiet (they become findings with their
/// location), and leave every other panic to the default hook.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if IN_RUN.with(|f| f.get()) {
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(at));
        } else {
            default(info);
        }
    }));
}

/// The message of a caught panic, with its location when the hook saw it.
pub fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    let at = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
    format!("{}{at}", panic_message(payload))
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
