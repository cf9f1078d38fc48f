//! The event loop for async nodes. The world is one task of dst's executor
//! among the nodes' tasks: it handles every event due by the executor's
//! clock, then waits until its next event is due or a task hands it
//! something to carry out. The executor runs the woken tasks in an order
//! drawn from the seed, charges each poll a little simulated time, and
//! fires the nodes' timers in time order with the world's own; so true
//! time is the executor's, and the world's `now` follows it.
//!
//! A node's outputs reach the world through the outbox (see
//! [`crate::async_node`]) in the order its tasks produced them; each run of
//! one node's outputs is carried out as one step, so targeted faults see
//! async nodes as they see sans-IO ones.

use super::{Hooks, RunOutcome, RunSpec, Verdict, World};
use crate::async_node::exec;
use crate::async_node::host::{self, typed, Entry, MainFn, Message, Note, Record, Sent};
use crate::async_node::timer::Timer;
use crate::async_node::HostMachine;
use crate::clock::Clock;
use crate::event::EventKind;
use crate::machine::{NodeId, Output};
use crate::rng::{fork, Stream};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

type Factory<M, R> = fn(NodeId) -> HostMachine<M, R>;
type AsyncWorld<'a, M, R> = World<'a, HostMachine<M, R>, Factory<M, R>>;

thread_local! {
    /// Set while the world task runs: a panic then is dst's, not a node's.
    static WORLD_RUNNING: Cell<bool> = const { Cell::new(false) };
}

/// Runs one seed of a scenario of async nodes inside `rt`'s context (its
/// seed is the run's) on dst's executor. Every node incarnation runs
/// `main` as its first task.
pub(crate) fn run_async<M: Message, R: Record>(
    rt: &madsim::runtime::Runtime,
    spec: RunSpec<'_>,
    main: MainFn<M, R>,
) -> RunOutcome {
    let seed = spec.seed;
    let _installed = host::install::<M, R>(spec.scenario.nodes, main);
    let _async = super::InAsyncRun::enter();
    let world: RefCell<Option<AsyncWorld<'_, M, R>>> = RefCell::new(None);
    let settled: RefCell<Option<RunOutcome>> = RefCell::new(None);
    let ran = catch_unwind(AssertUnwindSafe(|| {
        rt.block_on(async {
            let tasks = exec::install(seed);
            let ran = catch_unwind(AssertUnwindSafe(|| {
                let mut driven = std::pin::pin!(drive::<M, R>(&world, spec));
                exec::run(driven.as_mut());
            }));
            if let Err(payload) = ran {
                if WORLD_RUNNING.with(Cell::get) {
                    resume_unwind(payload);
                }
                let mut guard = world.borrow_mut();
                let w = guard.as_mut().expect("the world is built before any task runs");
                w.task_panicked(&payload);
            }
            let w = world
                .borrow_mut()
                .take()
                .expect("the world is built before any task runs");
            *settled.borrow_mut() = Some(w.outcome());
            // The outcome is settled first: nothing the tasks do as they
            // are dropped may change it, not even a panic.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(tasks)));
        })
    }));
    // A task spawned straight on madsim, past dst's executor, runs only
    // now, once the run is over; whatever it does, even a panic, leaves
    // the outcome as it was settled.
    match (settled.into_inner(), ran) {
        (Some(out), _) => out,
        (None, Err(payload)) => resume_unwind(payload),
        (None, Ok(())) => unreachable!("the outcome is settled before the run returns"),
    }
}

async fn drive<'a, M: Message, R: Record>(slot: &RefCell<Option<AsyncWorld<'a, M, R>>>, spec: RunSpec<'a>) {
    {
        let _running = Running::enter();
        let mut w = World::new(spec, HostMachine::<M, R>::new as Factory<M, R>);
        w.hooks = Some(Box::new(AsyncHooks::<M, R>(PhantomData)));
        w.start();
        *slot.borrow_mut() = Some(w);
    }
    let mut alarm = Alarm::default();
    loop {
        let next = {
            let _running = Running::enter();
            let mut guard = slot.borrow_mut();
            let w = guard.as_mut().expect("built above");
            match w.turn() {
                Some(t) => t,
                None => return,
            }
        };
        WaitFor {
            deadline_ns: next,
            alarm: &mut alarm,
            polled: false,
        }
        .await;
    }
}

struct Running;

impl Running {
    fn enter() -> Self {
        WORLD_RUNNING.with(|f| f.set(true));
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Left set while unwinding: the panic was the world's own.
        if !std::thread::panicking() {
            WORLD_RUNNING.with(|f| f.set(false));
        }
    }
}

impl<'a, M: Message, R: Record> AsyncWorld<'a, M, R> {
    /// Carries out what the nodes did and every event due; the time of the
    /// next event, or None once the run is over.
    fn turn(&mut self) -> Option<u64> {
        loop {
            self.now = self.now.max(host::now_ns());
            self.drain();
            if self.verdict.is_some() {
                return None;
            }
            let t = self.queue.peek_time()?;
            if t > self.now {
                return Some(t);
            }
            let (_, ev) = self.queue.pop().expect("an event was peeked");
            if !self.process(ev) {
                return None;
            }
        }
    }

    /// Carries out the outbox: each run of one incarnation's outputs as a
    /// step, each note as the finding it is.
    fn drain(&mut self) {
        loop {
            let mut batch = host::with_core(|c| {
                let h = typed::<M, R>(c);
                let spare = std::mem::take(&mut h.spare);
                std::mem::replace(&mut h.outbox, spare)
            });
            if batch.is_empty() {
                host::with_core(|c| typed::<M, R>(c).spare = batch);
                return;
            }
            let mut run: Vec<Output<HostMachine<M, R>>> = std::mem::take(&mut self.spare);
            let mut owner: Option<(NodeId, u64)> = None;
            for Sent { node, inc, entry } in batch.drain(..) {
                if owner != Some((node, inc)) {
                    self.flush(owner, &mut run);
                    owner = Some((node, inc));
                }
                match entry {
                    Entry::Out(o) => run.push(o),
                    Entry::Note(n) => {
                        self.flush(owner, &mut run);
                        self.note(node, inc, n);
                    }
                }
                if self.verdict.is_some() {
                    return;
                }
            }
            self.flush(owner, &mut run);
            self.spare = run;
            host::with_core(|c| typed::<M, R>(c).spare = batch);
            if self.verdict.is_some() {
                return;
            }
        }
    }

    fn live(&self, node: NodeId, inc: u64) -> bool {
        self.nodes[node].machine.is_some() && host::with_core(|c| c.nodes[node].inc == inc && c.nodes[node].up)
    }

    fn flush(&mut self, owner: Option<(NodeId, u64)>, run: &mut Vec<Output<HostMachine<M, R>>>) {
        let Some((node, inc)) = owner else { return };
        if run.is_empty() {
            return;
        }
        if !self.live(node, inc) || self.verdict.is_some() {
            run.clear();
            return;
        }
        let out = std::mem::take(run);
        self.carry_out(node, out);
        // `carry_out` keeps the emptied buffer as the spare.
        *run = std::mem::take(&mut self.spare);
    }

    fn note(&mut self, node: NodeId, inc: u64, n: Note) {
        match n {
            Note::Panic(message) => self.panicked(Some(node), message),
            Note::Stall(why) => self.stalled(why),
            Note::Exit => {
                if self.live(node, inc) {
                    self.halt(node, "its main task returned".to_string());
                }
            }
        }
    }

    fn panicked(&mut self, node: Option<NodeId>, message: String) {
        if self.verdict.is_some() {
            return;
        }
        self.record(
            node,
            EventKind::Panic {
                message: message.clone(),
            },
        );
        let i = self.trace.len() as u64 - 1;
        let who = node.map_or("a task".to_string(), |n| format!("node {n}"));
        self.verdict = Some(Verdict::error(format!("{who} panicked: {message}"), vec![i]));
    }

    /// A panic got out of a task's poll past the wrapper that turns it
    /// into a finding.
    fn task_panicked(&mut self, payload: &Box<dyn std::any::Any + Send>) {
        self.now = self.now.max(host::now_ns());
        let node = super::take_panic_node();
        if payload.is::<host::Spin>() {
            let who = node.map_or("a task".to_string(), |n| format!("a task of node {n}"));
            self.stalled(format!(
                "{who} made more than {} calls into dst without yielding: it spins",
                host::CALLS_PER_POLL_MAX
            ));
            return;
        }
        if payload.is::<crate::machine::OutputFlood>() {
            self.stalled(format!(
                "a task produced more than {} outputs without the world carrying them out",
                super::limits::STEP_OUTPUTS_MAX
            ));
            return;
        }
        let message = super::panic_text(payload);
        self.panicked(node, message);
    }
}

/// The timer that wakes the world at its next event. Most waits end
/// early, woken by a task, and wait again for the same event: they keep the
/// timer already armed for it rather than arming one more.
#[derive(Default)]
struct Alarm {
    armed: Option<(u64, Timer)>,
}

impl Alarm {
    /// Makes the timer ring the world at `deadline_ns`; false if that
    /// time has come already.
    fn arm(&mut self, deadline_ns: u64, cx: &Context<'_>) -> bool {
        if let Some((at, timer)) = &self.armed {
            if *at == deadline_ns {
                timer.rewake(cx);
                return true;
            }
        }
        let started = match self.armed.take() {
            Some((_, timer)) => timer.restart(deadline_ns, cx),
            None => Timer::start(deadline_ns, cx),
        };
        match started {
            Some(t) => {
                self.armed = Some((deadline_ns, t));
                true
            }
            None => false,
        }
    }
}

/// The world's wait for its next event: woken by its timer at that time,
/// or earlier by a task that queued an output.
struct WaitFor<'w> {
    deadline_ns: u64,
    alarm: &'w mut Alarm,
    polled: bool,
}

impl Future for WaitFor<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if this.polled {
            // Woken: by the timer, or by a task. Either way the world looks.
            return Poll::Ready(());
        }
        host::with_core(|c| {
            exec::hold(&mut c.world, cx.waker());
            c.world_waits = true;
        });
        if !this.alarm.arm(this.deadline_ns, cx) {
            return Poll::Ready(());
        }
        this.polled = true;
        Poll::Pending
    }
}

impl Drop for WaitFor<'_> {
    fn drop(&mut self) {
        host::try_with_core(|c| c.world_waits = false);
    }
}

struct AsyncHooks<M, R>(PhantomData<fn() -> (M, R)>);

impl<M: Message, R: Record> Hooks for AsyncHooks<M, R> {
    fn clock(&self, node: NodeId, clock: &Clock) {
        host::with_core(|c| c.nodes[node].clock = clock.clone());
    }

    fn no_space_until(&self, node: NodeId, until_ns: u64) {
        host::with_core(|c| c.nodes[node].no_space_until = until_ns);
    }

    fn pause(&self, node: NodeId) {
        exec::pause(node);
    }

    fn resume(&self, node: NodeId) {
        exec::resume(node);
    }

    fn reseed(&self, seed: u64) {
        host::with_core(|c| {
            for (i, n) in c.nodes.iter_mut().enumerate() {
                n.rng = fork(&mut n.rng, seed, Stream::Node(i));
            }
        });
    }

    fn link_broken(&self, node: NodeId, peer: NodeId, cause: crate::event::DropCause) {
        host::with_core(|c| crate::async_node::net::link_broken(c, node, peer, cause));
    }

    fn at_end(&self, now_ns: u64) -> Option<String> {
        host::with_core(|c| {
            let quiet = host::DEADLOCK_QUIET_MS * 1_000_000;
            let sockets: Vec<usize> = c.nets.iter().zip(&c.fss).map(|(n, f)| n.waits() + f.waits()).collect();
            let waits: Vec<usize> = typed::<M, R>(c)
                .nodes
                .iter()
                .zip(sockets)
                .map(|(h, s)| h.waits() + s)
                .collect();
            c.nodes.iter().enumerate().find_map(|(i, n)| {
                let stuck = n.up
                    && n.tasks > 0
                    && n.sleeping == 0
                    && waits[i] == 0
                    && now_ns.saturating_sub(n.active_ns) >= quiet;
                stuck.then(|| {
                    format!(
                        "node {i} deadlocked at {} ms: its {} task(s) wait, and nothing dst delivers can wake them",
                        n.active_ns / 1_000_000,
                        n.tasks
                    )
                })
            })
        })
    }
}
