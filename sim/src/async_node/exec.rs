//! dst's executor for a run of async nodes: it runs the world's loop and
//! every node's tasks. It polls the woken ones one at a time in an
//! order drawn from the run's seed, charges each poll 50 to 100 ns of
//! simulated time (a task that wakes itself forever still lets time pass),
//! fires the timers that time reaches as it goes, and when no task is
//! ready moves time to the next timer. So it keeps the semantics of the
//! madsim executor the runs used to go through, without what a general
//! runtime pays for: a task is a boxed future and a waker built once, a
//! wakeup is a push onto this thread's ready list, a timer is an entry in
//! one heap.
//!
//! Its state lives in thread-locals of the run's thread and is never
//! borrowed while a task runs: a task may spawn, arm timers, wake others
//! and (the world's) kill a node's tasks from inside its poll.

use crate::machine::NodeId;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// Whose a task is: an incarnation of a node (the world is polled in
/// place, not held as a task).
pub(crate) type Owner = (NodeId, u64);

type Boxed = Pin<Box<dyn Future<Output = ()>>>;

/// Rounds of dropping a finished run's tasks: dropping a future may wake or
/// free others, whose drops the next round takes.
const REAP_ROUNDS: usize = 4;

thread_local! {
    static EXEC: RefCell<Option<Exec>> = const { RefCell::new(None) };
    /// Tasks woken since the executor last looked: (run, slot, generation).
    static WOKEN: RefCell<Vec<(u64, u32, u32)>> = const { RefCell::new(Vec::new()) };
    /// True time of the run, in ns.
    static NOW: Cell<u64> = const { Cell::new(0) };
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// SplitMix64: the executor draws twice a poll, where a cipher's block
/// refills showed in profiles; a schedule needs spread, not secrecy.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A draw from 0..n (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}

struct Task {
    /// Out of the slot while it is polled.
    fut: Option<Boxed>,
    owner: Owner,
    /// Out of the slot with the future while it is polled.
    waker: Option<Waker>,
    flag: Arc<Flag>,
}

/// A task's waker: which slot, and whether it is queued already.
struct Flag {
    run: u64,
    slot: u32,
    gen: u32,
    queued: AtomicBool,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        // A run is one thread: a load before the store spares the locked
        // swap most wakeups would pay (a task is mostly woken when queued).
        if !self.queued.load(Ordering::Relaxed) {
            self.queued.store(true, Ordering::Relaxed);
            let _ = WOKEN.try_with(|w| {
                if let Ok(mut w) = w.try_borrow_mut() {
                    w.push((self.run, self.slot, self.gen));
                }
            });
        }
    }
}

enum Picked {
    World,
    Task(u32, u32, Boxed, Waker),
}

struct Timer {
    gen: u32,
    waker: Option<Waker>,
}

/// An armed timer, to rewake or cancel: its slot and generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimerKey(u32, u32);

impl TimerKey {
    /// The key as plain data, for a timer's owner outside this crate.
    pub(crate) fn to_bits(self) -> u64 {
        u64::from(self.0) << 32 | u64::from(self.1)
    }

    pub(crate) fn from_bits(bits: u64) -> TimerKey {
        TimerKey((bits >> 32) as u32, bits as u32)
    }
}

struct Exec {
    run: u64,
    rng: Mix,
    tasks: Vec<Option<Task>>,
    free_tasks: Vec<u32>,
    /// Each task slot's generation: one more each time it is freed, so a
    /// stale wakeup names a slot's past task and finds nothing.
    gens: Vec<u32>,
    ready: Vec<(u32, u32)>,
    world_ready: bool,
    /// Ready tasks of paused nodes, by node, run again at resume.
    parked: Vec<(NodeId, u32, u32)>,
    paused: Vec<NodeId>,
    heap: BinaryHeap<Reverse<(u64, u64, u32, u32)>>,
    timers: Vec<Timer>,
    free_timers: Vec<u32>,
    seq: u64,
    /// madsim's clock (which std's clocks read inside a run) and where it
    /// stands: it follows true time to the millisecond.
    madsim: madsim::time::TimeHandle,
    madsim_ns: u64,
}

fn with<T>(f: impl FnOnce(&mut Exec) -> T) -> T {
    EXEC.with(|e| f(e.borrow_mut().as_mut().expect("inside a run of async nodes")))
}

/// True time of the run now, in ns.
pub(crate) fn now_ns() -> u64 {
    NOW.with(Cell::get)
}

/// Spawns `fut` for `owner`.
pub(crate) fn spawn(owner: Owner, fut: Boxed) {
    with(|e| {
        let slot = match e.free_tasks.pop() {
            Some(s) => s,
            None => {
                e.tasks.push(None);
                e.gens.push(0);
                (e.tasks.len() - 1) as u32
            }
        };
        let gen = e.gens[slot as usize];
        let flag = Arc::new(Flag {
            run: e.run,
            slot,
            gen,
            queued: AtomicBool::new(true),
        });
        let waker = Waker::from(flag.clone());
        e.tasks[slot as usize] = Some(Task {
            fut: Some(fut),
            owner,
            waker: Some(waker),
            flag,
        });
        e.ready.push((slot, gen));
    });
}

/// Drops every task of `owner` now: a crash.
pub(crate) fn kill(owner: Owner) {
    let dropped: Vec<Task> = with(|e| {
        let mut out = Vec::new();
        for i in 0..e.tasks.len() {
            if e.tasks[i].as_ref().is_some_and(|t| t.owner == owner) {
                out.extend(e.release(i as u32));
            }
        }
        out
    });
    // Outside the borrow: a future's drop may wake, spawn or cancel.
    drop(dropped);
}

/// The node's tasks are not polled until [`resume`]; their wakeups wait.
pub(crate) fn pause(node: NodeId) {
    with(|e| {
        if !e.paused.contains(&node) {
            e.paused.push(node);
        }
    });
}

pub(crate) fn resume(node: NodeId) {
    with(|e| {
        e.paused.retain(|&n| n != node);
        let mut i = 0;
        while i < e.parked.len() {
            if e.parked[i].0 == node {
                let (_, slot, gen) = e.parked.remove(i);
                e.ready.push((slot, gen));
            } else {
                i += 1;
            }
        }
    });
}

/// Arms a timer that wakes `waker` at true time `at_ns`.
pub(crate) fn timer_start(at_ns: u64, waker: Waker) -> TimerKey {
    with(|e| e.arm(at_ns, waker))
}

/// Moves timer `key` to `at_ns`, waking `waker` then: as cancelling it and
/// arming another, but the waker it holds is kept when it is the same.
pub(crate) fn timer_move(key: TimerKey, at_ns: u64, waker: &Waker) -> TimerKey {
    let (key, old) = with(|e| {
        let old = e.disarm(key);
        let (w, old) = match old {
            Some(w) if w.will_wake(waker) => (w, None),
            old => (waker.clone(), old),
        };
        (e.arm(at_ns, w), old)
    });
    // Outside the borrow, as every waker this executor drops.
    drop(old);
    key
}

impl Exec {
    fn arm(&mut self, at_ns: u64, waker: Waker) -> TimerKey {
        let e = self;
        let slot = match e.free_timers.pop() {
            Some(s) => s,
            None => {
                e.timers.push(Timer { gen: 0, waker: None });
                (e.timers.len() - 1) as u32
            }
        };
        let t = &mut e.timers[slot as usize];
        t.waker = Some(waker);
        let gen = t.gen;
        e.seq += 1;
        e.heap.push(Reverse((at_ns, e.seq, slot, gen)));
        TimerKey(slot, gen)
    }
}

/// Keeps `waker` in `slot`, cloning it only if what `slot` holds would
/// wake another task: a waker held across polls is mostly the same one.
pub(crate) fn hold(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(w) => w.clone_from(waker),
        None => *slot = Some(waker.clone()),
    }
}

/// The timer wakes `waker` instead, when it fires.
pub(crate) fn timer_rewake(key: TimerKey, waker: &Waker) {
    let _ = EXEC.try_with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            let timer = e.as_mut().and_then(|e| e.timers.get_mut(key.0 as usize));
            if let Some(Some(w)) = timer.filter(|t| t.gen == key.1).map(|t| &mut t.waker) {
                w.clone_from(waker);
            }
        }
    });
}

/// The timer is gone: it wakes nobody.
pub(crate) fn timer_cancel(key: TimerKey) {
    let gone = EXEC.try_with(|e| e.try_borrow_mut().ok()?.as_mut()?.disarm(key));
    drop(gone);
}

impl Exec {
    /// Takes task `slot` out, its slot free for another.
    fn release(&mut self, slot: u32) -> Option<Task> {
        let t = self.tasks[slot as usize].take()?;
        self.gens[slot as usize] = self.gens[slot as usize].wrapping_add(1);
        self.free_tasks.push(slot);
        Some(t)
    }

    /// The task in `slot` if it is still the one of generation `gen`.
    fn live(&mut self, slot: u32, gen: u32) -> Option<&mut Task> {
        if self.gens.get(slot as usize) != Some(&gen) {
            return None;
        }
        self.tasks[slot as usize].as_mut()
    }

    /// Takes the waker of the timer `key` names, freeing its slot, if it is
    /// still armed.
    fn disarm(&mut self, key: TimerKey) -> Option<Waker> {
        let t = self.timers.get_mut(key.0 as usize)?;
        if t.gen != key.1 {
            return None;
        }
        let w = t.waker.take()?;
        t.gen = t.gen.wrapping_add(1);
        self.free_timers.push(key.0);
        Some(w)
    }

    /// Moves what was woken onto the ready list.
    fn gather(&mut self) {
        let run = self.run;
        WOKEN.with(|w| {
            for (r, slot, gen) in w.borrow_mut().drain(..) {
                if r != run {
                    continue;
                }
                match slot {
                    WORLD => self.world_ready = true,
                    _ => self.ready.push((slot, gen)),
                }
            }
        });
    }

    /// The next task to poll, drawn at random among the ready ones (the
    /// world among them). Tasks of paused nodes are parked.
    fn pick(&mut self) -> Option<Picked> {
        loop {
            self.gather();
            let n = self.ready.len() + usize::from(self.world_ready);
            if n == 0 {
                return None;
            }
            let i = self.rng.below(n as u64) as usize;
            if i == self.ready.len() {
                self.world_ready = false;
                return Some(Picked::World);
            }
            let (slot, gen) = self.ready.swap_remove(i);
            let Some(node) = self.live(slot, gen).map(|t| t.owner.0) else {
                continue;
            };
            if self.paused.contains(&node) {
                self.parked.push((node, slot, gen));
                continue;
            }
            let t = self.live(slot, gen).expect("looked up above");
            let (Some(fut), Some(waker)) = (t.fut.take(), t.waker.take()) else {
                continue;
            };
            t.flag.queued.store(false, Ordering::Relaxed);
            return Some(Picked::Task(slot, gen, fut, waker));
        }
    }

    /// Charges a poll its simulated time. The timers that time reaches
    /// fire at once, so that a timer due in the middle of a burst of work
    /// (the world's next event, a node's timeout) joins the tasks ready
    /// then instead of waiting for them all.
    fn charge(&mut self) {
        let cost = 50 + self.rng.below(50);
        self.advance(now_ns() + cost);
        self.fire_due(now_ns());
    }

    /// Fires every timer armed for `upto_ns` or earlier, in deadline order.
    fn fire_due(&mut self, upto_ns: u64) {
        while let Some(&Reverse((at, _, slot, gen))) = self.heap.peek() {
            if at > upto_ns {
                return;
            }
            self.heap.pop();
            if let Some(w) = self.disarm(TimerKey(slot, gen)) {
                w.wake();
            }
        }
    }

    /// Moves true time to `to_ns`, and madsim's clock after it.
    fn advance(&mut self, to_ns: u64) {
        let now = NOW.with(Cell::get).max(to_ns);
        NOW.with(|n| n.set(now));
        const MS: u64 = 1_000_000;
        if now >= self.madsim_ns + MS {
            let to = now - now % MS;
            self.madsim
                .advance(std::time::Duration::from_nanos(to - self.madsim_ns));
            self.madsim_ns = to;
        }
    }

    /// Moves time to the earliest deadline armed and fires every timer due
    /// then; false if none is armed.
    fn fire_next(&mut self) -> bool {
        while let Some(&Reverse((at, _, slot, gen))) = self.heap.peek() {
            let t = &self.timers[slot as usize];
            if t.gen != gen || t.waker.is_none() {
                self.heap.pop();
                continue;
            }
            self.advance(at);
            self.fire_due(at);
            return true;
        }
        false
    }
}

/// The slot of the world's waker: the world is polled in place, not
/// held in a slot.
const WORLD: u32 = u32::MAX;

/// Installs the executor of one run on this thread, drawing the order of
/// polls from `seed`; madsim's runtime context must be entered (std's
/// clocks and random bytes go through it). Dropping the guard drops every
/// task left, then the executor.
pub(crate) fn install(seed: u64) -> Installed {
    let run = RUNS.with(|r| {
        r.set(r.get() + 1);
        r.get()
    });
    let madsim = madsim::time::TimeHandle::current();
    let madsim_ns = madsim.elapsed().as_nanos() as u64;
    NOW.with(|n| n.set(madsim_ns));
    WOKEN.with(|w| w.borrow_mut().clear());
    EXEC.with(|e| {
        *e.borrow_mut() = Some(Exec {
            run,
            rng: Mix(seed),
            tasks: Vec::new(),
            free_tasks: Vec::new(),
            gens: Vec::new(),
            ready: Vec::new(),
            world_ready: true,
            parked: Vec::new(),
            paused: Vec::new(),
            heap: BinaryHeap::new(),
            timers: Vec::new(),
            free_timers: Vec::new(),
            seq: 0,
            madsim,
            madsim_ns,
        })
    });
    Installed
}

/// Runs `world`, and the tasks that it and they spawn, until `world`
/// returns.
pub(crate) fn run(mut world: Pin<&mut dyn Future<Output = ()>>) {
    let run = with(|e| e.run);
    let world_flag = Arc::new(Flag {
        run,
        slot: WORLD,
        gen: 0,
        queued: AtomicBool::new(true),
    });
    let world_waker = Waker::from(world_flag.clone());
    loop {
        while let Some(next) = with(Exec::pick) {
            match next {
                Picked::World => {
                    world_flag.queued.store(false, Ordering::Relaxed);
                    let polled = world.as_mut().poll(&mut Context::from_waker(&world_waker));
                    with(Exec::charge);
                    if polled.is_ready() {
                        return;
                    }
                }
                Picked::Task(slot, gen, mut fut, waker) => {
                    let polled = fut.as_mut().poll(&mut Context::from_waker(&waker));
                    let done = with(|e| {
                        e.charge();
                        match polled {
                            Poll::Ready(()) => (e.release(slot), Some((fut, waker))),
                            Poll::Pending => match e.live(slot, gen) {
                                Some(t) => {
                                    t.fut = Some(fut);
                                    t.waker = Some(waker);
                                    (None, None)
                                }
                                // Killed while it ran.
                                None => (None, Some((fut, waker))),
                            },
                        }
                    });
                    // Outside the borrow: a future's drop may wake or spawn.
                    drop(done);
                }
            }
        }
        if !with(Exec::fire_next) {
            panic!("dst: the run's world waits, and no task or timer is left to wake it");
        }
    }
}

/// Drops every task left, once the run is over.
fn reap() {
    for _ in 0..REAP_ROUNDS {
        let left: Vec<Task> = EXEC
            .try_with(|e| {
                let mut e = e.borrow_mut();
                let Some(e) = e.as_mut() else { return Vec::new() };
                (0..e.tasks.len() as u32).filter_map(|i| e.release(i)).collect()
            })
            .unwrap_or_default();
        if left.is_empty() {
            break;
        }
        drop(left);
    }
}

pub(crate) struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        reap();
        let old = EXEC.try_with(|e| e.borrow_mut().take()).ok().flatten();
        drop(old);
        let _ = WOKEN.try_with(|w| w.borrow_mut().clear());
    }
}
