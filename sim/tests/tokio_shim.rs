//! dst's tokio on a simulated node: every item of tokio's API that touches
//! the world, called as unmodified code calls it, runs on the node that
//! called it, on that node's clock. Each case is one node's main task; a
//! check that fails panics, which ends the run as a finding, so a case
//! passes when its run passes and its goal `done` is reached. Refused
//! calls end the run with the message that names them.

mod cases;

use cases::{idle, Case, NodeCtx};
use serde::Serialize;
use sim::fault::{Action, PlanEntry};
use sim::{ModelDef, Registry, Setup, Status};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// A point of a case's run, in the trace at the true time it happened.
#[derive(Serialize)]
struct Mark {
    model: &'static str,
    name: String,
    value: u64,
}

fn mark(ctx: NodeCtx, name: &str, value: u64) {
    ctx.emit(&Mark {
        model: "mark",
        name: name.to_string(),
        value,
    });
}

const MS: Duration = Duration::from_millis(1);

async fn case(ctx: NodeCtx, name: String) {
    if ctx.id() != 0 {
        return idle(ctx).await;
    }
    match name.as_str() {
        "spawn-join" => spawn_join().await,
        "abort" => abort().await,
        "join-set" => join_set().await,
        "yield" => yield_now().await,
        "blocking" => blocking(ctx).await,
        "task-local" => task_local().await,
        "local-set" => local_set().await,
        "runtime" => runtime().await,
        "sleep" => sleep(ctx).await,
        "sleep-reset" => sleep_reset().await,
        "interval-burst" => interval(tokio::time::MissedTickBehavior::Burst, [0, 10, 20, 30, 40]).await,
        "interval-delay" => interval(tokio::time::MissedTickBehavior::Delay, [0, 10, 20, 30, 65]).await,
        "interval-skip" => interval(tokio::time::MissedTickBehavior::Skip, [0, 10, 20, 30, 60]).await,
        "timeout" => timeout().await,
        "random" => random(ctx).await,
        "block-on" => {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async {});
        }
        "handle-block-on" => {
            tokio::runtime::Handle::current().block_on(async {});
        }
        "spawn-outside" => {
            // A task madsim runs for no node, after the run.
            madsim::task::spawn(async {
                tokio::spawn(async {});
            });
            std::future::pending::<()>().await
        }
        "handle-id" => {
            let _ = tokio::runtime::Handle::current().id();
        }
        "handle-metrics" => {
            let _ = tokio::runtime::Handle::current().metrics();
        }
        "time-pause" => tokio::time::pause(),
        "time-resume" => tokio::time::resume(),
        "time-advance" => tokio::time::advance(Duration::from_millis(1)).await,
        "interval-at" => interval_at().await,
        "budget" => {
            tokio::task::consume_budget().await;
            assert_eq!(tokio::task::unconstrained(async { 7 }).await, 7);
        }
        "os-thread" => {
            std::thread::spawn(|| {}).join().unwrap();
        }
        other => panic!("no case {other}"),
    }
    ctx.reached("done");
    idle(ctx).await
}

async fn spawn_join() {
    let h = tokio::spawn(async { 7 });
    let id = h.id();
    assert_eq!(h.await.unwrap(), 7);
    let inner = tokio::spawn(async { tokio::task::id() });
    let inner_id = inner.id();
    assert_eq!(inner.await.unwrap(), inner_id, "task::id inside is the handle's id");
    assert_ne!(id, inner_id);
    // A task spawned by a task is the node's too, and outlives its parent.
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        tokio::spawn(async move {
            tokio::time::sleep(5 * MS).await;
            tx.send(1).unwrap();
        });
    })
    .await
    .unwrap();
    assert_eq!(rx.await.unwrap(), 1);
}

async fn abort() {
    let h = tokio::spawn(std::future::pending::<()>());
    let a = h.abort_handle();
    assert!(!h.is_finished());
    a.abort();
    let e = h.await.unwrap_err();
    assert!(e.is_cancelled() && !e.is_panic(), "{e}");
    assert!(a.is_finished());
    // Dropping a handle detaches its task: it still runs.
    let done = Arc::new(Mutex::new(false));
    let d = done.clone();
    drop(tokio::spawn(async move {
        tokio::time::sleep(MS).await;
        *d.lock().unwrap() = true;
    }));
    tokio::time::sleep(5 * MS).await;
    assert!(*done.lock().unwrap(), "a detached task ran to its end");
}

async fn join_set() {
    let mut set = tokio::task::JoinSet::new();
    for ms in [30u32, 10, 20] {
        set.spawn(async move {
            tokio::time::sleep(ms * MS).await;
            ms
        });
    }
    assert_eq!(set.len(), 3);
    let mut order = Vec::new();
    while let Some(r) = set.join_next().await {
        order.push(r.unwrap());
    }
    assert_eq!(order, [10, 20, 30], "joined as they finish");
    assert!(set.try_join_next().is_none());
    set.spawn(std::future::pending());
    set.spawn(std::future::pending());
    set.shutdown().await;
    assert!(set.is_empty());
    let all: tokio::task::JoinSet<u64> = (1..=3u64).map(|i| async move { i }).collect();
    assert_eq!(all.join_all().await.len(), 3);
}

async fn yield_now() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tasks: Vec<_> = (0..2)
        .map(|t| {
            let seen = seen.clone();
            tokio::spawn(async move {
                for i in 0..3 {
                    seen.lock().unwrap().push((t, i));
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(seen.lock().unwrap().len(), 6);
}

async fn blocking(ctx: NodeCtx) {
    let before = ctx.now_mono_ns();
    let v = tokio::task::spawn_blocking(|| 6 * 7).await.unwrap();
    assert_eq!(v, 42);
    assert_eq!(tokio::task::block_in_place(|| 5), 5);
    let h = tokio::runtime::Handle::current().spawn_blocking(|| "ok");
    assert_eq!(h.await.unwrap(), "ok");
    assert!(
        ctx.now_mono_ns() - before < 1_000_000,
        "blocking work takes no simulated time"
    );
}

tokio::task_local! {
    static REQUEST: u32;
}

async fn task_local() {
    let got = REQUEST
        .scope(9, async {
            tokio::task::yield_now().await;
            REQUEST.get()
        })
        .await;
    assert_eq!(got, 9);
    assert!(REQUEST.try_with(|v| *v).is_err(), "unset outside its scope");
}

async fn local_set() {
    let local = tokio::task::LocalSet::new();
    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
    let s = shared.clone();
    local.spawn_local(async move {
        tokio::time::sleep(MS).await;
        s.set(s.get() + 1);
    });
    let s = shared.clone();
    local
        .run_until(async move {
            tokio::task::spawn_local(async move { s.set(s.get() + 10) })
                .await
                .unwrap();
        })
        .await;
    local.await;
    assert_eq!(shared.get(), 11, "both !Send tasks ran on the node");
}

async fn runtime() {
    let handle = tokio::runtime::Handle::current();
    assert_eq!(handle.runtime_flavor(), tokio::runtime::RuntimeFlavor::CurrentThread);
    assert_eq!(handle.spawn(async { 1 }).await.unwrap(), 1);
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(rt.spawn(async { 2 }).await.unwrap(), 2);
    let built = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(built.handle().spawn(async { 3 }).await.unwrap(), 3);
    assert!(tokio::runtime::Handle::try_current().is_ok());
    let _entered = rt.enter();
}

/// Sleeps one second of the node's clock; the plan makes it run fast.
async fn sleep(ctx: NodeCtx) {
    let start = Instant::now();
    mark(ctx, "before", 0);
    tokio::time::sleep(Duration::from_secs(1)).await;
    mark(ctx, "after", 0);
    let took = start.elapsed();
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_millis(1001), "{took:?}");
    let deadline = Instant::now() + 20 * MS;
    tokio::time::sleep_until(deadline).await;
    assert!(Instant::now() >= deadline);
}

async fn sleep_reset() {
    let start = Instant::now();
    let s = tokio::time::sleep(Duration::from_secs(10));
    tokio::pin!(s);
    assert!(!s.is_elapsed());
    s.as_mut().reset(start + 30 * MS);
    assert_eq!(s.deadline(), start + 30 * MS);
    s.as_mut().await;
    assert!(s.is_elapsed());
    let took = start.elapsed();
    assert!(took >= 30 * MS && took < 31 * MS, "{took:?}");
}

/// An interval of 10 ms whose owner stalls 35 ms after its third tick:
/// each missed-tick behaviour gives tokio's ticks, in ms from the start.
async fn interval(behaviour: tokio::time::MissedTickBehavior, want: [u64; 5]) {
    let start = Instant::now();
    let mut every = tokio::time::interval(10 * MS);
    every.set_missed_tick_behavior(behaviour);
    assert_eq!(every.missed_tick_behavior(), behaviour);
    assert_eq!(every.period(), 10 * MS);
    let mut got = Vec::new();
    for i in 0..5 {
        let t = every.tick().await;
        got.push((t - start).as_millis() as u64);
        if i == 2 {
            tokio::time::sleep(35 * MS).await;
        }
    }
    assert_eq!(got, want, "{behaviour:?}");
}

async fn interval_at() {
    let start = Instant::now();
    let mut every = tokio::time::interval_at(start + 30 * MS, 10 * MS);
    let mut got = Vec::new();
    for _ in 0..3 {
        got.push((every.tick().await - start).as_millis() as u64);
    }
    assert_eq!(got, [30, 40, 50]);
}

async fn timeout() {
    let r = tokio::time::timeout(10 * MS, std::future::pending::<()>()).await;
    let e = r.unwrap_err();
    assert_eq!(e.to_string(), "deadline has elapsed");
    let io: std::io::Error = e.into();
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
    assert_eq!(tokio::time::timeout(10 * MS, async { 3 }).await.unwrap(), 3);
    let at = Instant::now() + 5 * MS;
    assert!(tokio::time::timeout_at(at, tokio::time::sleep(10 * MS)).await.is_err());
    assert!(Instant::now() >= at);
}

/// Draws from rand's thread generators and `OsRng`, seeded through
/// getrandom 0.1 (rand 0.7), 0.2 (rand 0.8) and 0.3 (rand 0.9).
async fn random(ctx: NodeCtx) {
    use rand::RngCore;
    mark(ctx, "rand-0.7", rand_07::RngCore::next_u64(&mut rand_07::thread_rng()));
    mark(ctx, "rand-0.8", rand::thread_rng().next_u64());
    mark(ctx, "rand-0.9", rand_09::RngCore::next_u64(&mut rand_09::rng()));
    let mut bytes = [0u8; 8];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    mark(ctx, "os-rng", u64::from_le_bytes(bytes));
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add(
        ModelDef::new_async(
            "tokio-shim",
            "one node calling tokio's API as unmodified code does",
            |s: Setup<'_, Case>| {
                let name = s.config.name.clone();
                Ok(move |ctx| case(ctx, name.clone()))
            },
        )
        .goals(&[("done", "the case ran to its end")]),
    );
    r
}

fn scenario(r: &Registry, name: &str) -> sim::Scenario {
    cases::scenario(r, "tokio-shim", 2, name, 0.0)
}

fn run(name: &str, plan: Option<Vec<PlanEntry>>) -> sim::RunOutcome {
    let r = registry();
    let s = scenario(&r, name);
    r.run(&s, 1, &[], plan).unwrap()
}

fn passes(name: &str) -> sim::RunOutcome {
    let out = run(name, None);
    assert_eq!(out.verdict.status, Status::Pass, "{name}: {:?}", out.verdict);
    assert!(out.coverage.contains("done"), "{name} never ended");
    out
}

fn refused(name: &str, needle: &str) {
    let out = run(name, None);
    assert_eq!(out.verdict.status, Status::Error, "{name}: {:?}", out.verdict);
    let message = out.verdict.message.unwrap_or_default();
    assert!(message.contains(needle), "{name}: {message}");
}

/// The true times (ns) and values of a run's marks, by name.
fn marks(out: &sim::RunOutcome) -> Vec<(String, u64, u64)> {
    out.trace
        .events()
        .iter()
        .filter_map(|e| {
            let v = serde_json::to_value(&e.kind).ok()?;
            (v.get("model")? == "mark").then(|| {
                let name = v["name"].as_str().unwrap_or_default().to_string();
                (name, e.t_ns, v["value"].as_u64().unwrap_or(0))
            })
        })
        .collect()
}

#[test]
fn spawn_runs_on_the_node_and_its_handle_joins() {
    passes("spawn-join");
}

#[test]
fn abort_cancels_and_a_dropped_handle_detaches() {
    passes("abort");
}

#[test]
fn a_join_set_joins_tasks_as_they_finish() {
    passes("join-set");
}

#[test]
fn yield_now_lets_the_node_s_other_tasks_run() {
    passes("yield");
}

#[test]
fn blocking_work_runs_on_the_node_in_no_simulated_time() {
    passes("blocking");
}

#[test]
fn task_locals_hold_within_their_scope() {
    passes("task-local");
}

#[test]
fn a_local_set_runs_not_send_tasks_on_the_node() {
    passes("local-set");
}

#[test]
fn a_runtime_or_handle_made_on_a_node_spawns_on_it() {
    passes("runtime");
}

#[test]
fn sleep_and_instant_follow_the_node_s_own_clock() {
    // Node 0's clocks run 10% fast from the start: its second passes in
    // 1/1.1 s of true time.
    let drift = vec![PlanEntry {
        at_ns: 0,
        action: Action::ClockDrift { node: 0, ppm: 100_000 },
    }];
    let out = run("sleep", Some(drift));
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    let m = marks(&out);
    let at = |n: &str| m.iter().find(|(name, ..)| name == n).map(|(_, t, _)| *t).unwrap();
    let took_ms = (at("after") - at("before")) / 1_000_000;
    assert!((908..=910).contains(&took_ms), "one node second took {took_ms} true ms");
    let plain = passes("sleep");
    let m = marks(&plain);
    let at = |n: &str| m.iter().find(|(name, ..)| name == n).map(|(_, t, _)| *t).unwrap();
    // The marks' trace times are when the world took them, a few polls
    // after the node made them: the node's second is a true second to the
    // nearest millisecond.
    assert_eq!((at("after") - at("before") + 500_000) / 1_000_000, 1000);
}

#[test]
fn a_sleep_moves_to_the_deadline_it_is_reset_to() {
    passes("sleep-reset");
}

#[test]
fn an_interval_keeps_each_missed_tick_behaviour() {
    passes("interval-burst");
    passes("interval-delay");
    passes("interval-skip");
}

#[test]
fn timeouts_end_on_the_node_s_clock() {
    passes("timeout");
}

#[test]
fn third_party_randomness_is_the_seed_s() {
    let a = marks(&passes("random"));
    let b = marks(&passes("random"));
    assert_eq!(a.len(), 4, "{a:?}");
    assert_eq!(a, b, "the generators draw the same bytes for the same seed");
    let r = registry();
    let s = scenario(&r, "random");
    let other = marks(&r.run(&s, 2, &[], None).unwrap());
    for (x, y) in a.iter().zip(&other) {
        assert_ne!(x.2, y.2, "{}: another seed draws other bytes", x.0);
    }
}

#[test]
fn blocking_a_node_on_a_future_is_refused_with_what_to_do() {
    refused(
        "block-on",
        "dst: Runtime::block_on is not available on a simulated node: await the future instead",
    );
    refused(
        "handle-block-on",
        "dst: Handle::block_on is not available on a simulated node: await the future instead",
    );
}

#[test]
fn a_node_s_runtime_has_no_tokio_id_or_metrics() {
    refused(
        "handle-id",
        "dst: Handle::id is not available on a simulated node: a node's runtime has no tokio id",
    );
    refused(
        "handle-metrics",
        "dst: Handle::metrics is not available on a simulated node: a node's runtime keeps no tokio metrics",
    );
}

#[test]
fn a_node_s_clock_cannot_be_paused_or_advanced() {
    for (case, call) in [
        ("time-pause", "pause"),
        ("time-resume", "resume"),
        ("time-advance", "advance"),
    ] {
        refused(
            case,
            &format!(
                "dst: tokio::time::{call} is not available on a simulated node: a node's clock is the simulation's"
            ),
        );
    }
}

#[test]
fn an_interval_at_starts_at_its_instant() {
    passes("interval-at");
}

#[test]
fn the_budget_calls_run_on_a_node() {
    passes("budget");
}

#[test]
fn an_os_thread_is_a_finding_that_names_the_fix() {
    refused("os-thread", "an OS thread was started on a simulated node");
    refused(
        "os-thread",
        "spawn a task (tokio::spawn, tokio::task::spawn_blocking) instead",
    );
}

/// A task spawned straight on madsim runs for no node, and only once the
/// run is over: its call to tokio, refused there, cannot reach the outcome.
#[test]
fn a_task_madsim_runs_for_no_node_leaves_the_outcome_alone() {
    refused("spawn-outside", "deadlocked");
}
