//! Async nodes under dst: a small primary-backup store written as async
//! code, run through the registry like any model. Its bug switch must be
//! caught and its correct version must pass; seeds replay to the same
//! trace hash whatever ran before them on the thread; the limits (a
//! panicking task, a deadlocked node, a spinning node, a node whose main
//! task returns) end as findings with their seeds.

use serde::{Deserialize, Serialize};
use sim::async_node::{Ctx, Envelope};
use sim::{apply_to_map, Bug, ClientReply, KvMap, KvOp, ModelDef, ModelEvent, MsgInfo, Registry, Role, Setup, Status};
use std::time::Duration;

#[derive(Clone, Debug, Serialize)]
enum Msg {
    Replicate { seq: u64, op: KvOp },
    Ack { seq: u64 },
}

impl MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match self {
            Msg::Replicate { .. } => "replicate",
            Msg::Ack { .. } => "ack",
        }
    }
}

/// Node 0 is the primary: it logs each op durably, applies it, copies it
/// to the backups (waiting for one answer) and only then replies. The
/// `ack-before-fsync` switch replies before the log is durable, so a crash
/// can forget an acknowledged write.
async fn store(ctx: Ctx<Msg, KvOp>, ack_early: bool) {
    let mut state = KvMap::new();
    for op in ctx.disk() {
        apply_to_map(&mut state, &op);
    }
    let role = if ctx.id() == 0 { Role::Leader } else { Role::Follower };
    ctx.event(ModelEvent::Role {
        term: 1,
        role,
        cause: "boot".into(),
        from: None,
        ballot: None,
    });
    if ctx.id() != 0 {
        return backup(ctx).await;
    }
    ctx.reached("primary-booted");
    if !state.is_empty() {
        ctx.reached("recovered-state");
    }
    let mut seq = 0;
    loop {
        let req = ctx.client_request().await;
        if !req.op.is_read() {
            if ctx.append(req.op.clone()).is_err() {
                ctx.client_reply(req.req_id, ClientReply::Unknown);
                continue;
            }
            if ack_early {
                let result = apply_to_map(&mut state, &req.op);
                ctx.client_reply(req.req_id, ClientReply::Ok(result));
                if ctx.fsync().await.is_err() {
                    return ctx.halt("an fsync failed");
                }
                continue;
            }
            if ctx.fsync().await.is_err() {
                return ctx.halt("an fsync failed");
            }
        }
        let result = apply_to_map(&mut state, &req.op);
        if !req.op.is_read() {
            seq += 1;
            let peer = 1 + (seq as usize % (ctx.nodes() - 1));
            let copy = Msg::Replicate {
                seq,
                op: req.op.clone(),
            };
            if ctx.call(peer, copy, Duration::from_millis(20)).await.is_ok() {
                ctx.reached("backup-acked");
            }
        }
        ctx.client_reply(req.req_id, ClientReply::Ok(result));
    }
}

async fn backup(ctx: Ctx<Msg, KvOp>) {
    ctx.spawn(async move {
        loop {
            let req = ctx.client_request().await;
            ctx.client_reply(req.req_id, ClientReply::NotLeader { hint: Some(0) });
        }
    });
    loop {
        let Envelope { msg, reply_to, .. } = ctx.recv().await;
        if let (Msg::Replicate { seq, op }, Some(to)) = (msg, reply_to) {
            if ctx.append(op).is_ok() && ctx.fsync().await.is_ok() {
                ctx.answer(to, Msg::Ack { seq });
            }
        }
    }
}

#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Misbehave {
    /// "panic", "panic-detached", "deadlock", "cycle", "spin", "spin-spawned", "busy", "exit", "hashmap" or "" (behave).
    how: String,
    at_ms: u64,
}

/// Guards alive: what tasks still hold once a run is over.
static GUARDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

struct Guard;

impl Guard {
    fn new() -> Guard {
        GUARDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Guard
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        GUARDS.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Each client op is answered by node 0 as the store does; `how` says what
/// else node 1 does at `at_ms`.
async fn misbehaving(ctx: Ctx<Msg, KvOp>, m: Misbehave) {
    if ctx.id() != 1 {
        return store(ctx, false).await;
    }
    let node = ctx;
    if m.how != "deadlock" {
        ctx.spawn(async move {
            loop {
                let req = node.client_request().await;
                node.client_reply(req.req_id, ClientReply::NotLeader { hint: Some(0) });
            }
        });
    }
    if m.how == "exit" && ctx.incarnation() > 1 {
        ctx.reached("restarted-after-exit");
    }
    ctx.sleep(Duration::from_millis(m.at_ms)).await;
    match m.how.as_str() {
        "panic" => {
            let t = ctx.spawn(async move {
                panic!("task of node {} gave up", node.id());
            });
            let _ = t.await;
        }
        "panic-detached" => {
            // Spawned past dst, straight on madsim, and never awaited.
            madsim::task::spawn(async move {
                panic!("detached task of node {} gave up", node.id());
            });
            std::future::pending::<()>().await
        }
        "deadlock" => {
            // Two tasks, each waiting for what only the other would send.
            let (tx_a, rx_a) = tokio::sync::oneshot::channel::<()>();
            let (tx_b, rx_b) = tokio::sync::oneshot::channel::<()>();
            let a = ctx.spawn(async move {
                let _ = rx_b.await;
                let _ = tx_a.send(());
            });
            let b = ctx.spawn(async move {
                let _ = rx_a.await;
                let _ = tx_b.send(());
            });
            let _ = a.await;
            let _ = b.await;
        }
        "spin" => loop {
            tokio::task::yield_now().await;
        },
        "spin-spawned" => {
            tokio::spawn(async {
                loop {
                    tokio::task::yield_now().await;
                }
            });
            std::future::pending::<()>().await
        }
        "busy" => {
            let start = ctx.now_mono_ns();
            while ctx.now_mono_ns() < start + 1_000_000 {}
        }
        "exit" => {}
        "cycle" => {
            // Two tasks that hold each other's wakers through their
            // channels, and a guard each: alive when the run ends.
            let (tx_a, rx_a) = tokio::sync::oneshot::channel::<()>();
            let (tx_b, rx_b) = tokio::sync::oneshot::channel::<()>();
            ctx.spawn(async move {
                let _held = Guard::new();
                let _ = rx_b.await;
                let _ = tx_a.send(());
            });
            ctx.spawn(async move {
                let _held = Guard::new();
                let _ = rx_a.await;
                let _ = tx_b.send(());
            });
            std::future::pending::<()>().await
        }
        _ => std::future::pending::<()>().await,
    }
}

/// Reports the order in which a std `HashMap` yields its keys: the same
/// seed must report the same order on any thread, after any other run.
async fn hash_order(ctx: Ctx<Msg, KvOp>) {
    #[derive(Serialize)]
    struct Order {
        model: &'static str,
        keys: Vec<u32>,
    }
    let mut seen = std::collections::HashMap::new();
    loop {
        let req = ctx.client_request().await;
        seen.insert(req.op.key(), req.req_id);
        let keys: Vec<u32> = seen.keys().copied().collect();
        ctx.emit(&Order {
            model: "hash-order",
            keys,
        });
        ctx.client_reply(req.req_id, ClientReply::Unknown);
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add(
        ModelDef::new_async(
            "async-store",
            "a primary-backup store as async code",
            |s: Setup<'_, serde_json::Value>| {
                let early = s.bug("ack-before-fsync");
                Ok(move |ctx| store(ctx, early))
            },
        )
        .bugs(&[Bug {
            id: "ack-before-fsync",
            kind: "safety",
            invariants: &["linearizable"],
            scenario: "async-store",
            summary: "the primary acknowledges a write before its log is durable",
        }])
        .goals(&[
            ("primary-booted", "the primary booted"),
            ("recovered-state", "the primary rebuilt its state from disk"),
            ("backup-acked", "a backup acknowledged a copy"),
            ("restarted-after-exit", "a node whose main task returned booted again"),
        ]),
    );
    r.add(
        ModelDef::new_async(
            "async-misbehaving",
            "a store with one bad node",
            |s: Setup<'_, Misbehave>| {
                let m = s.config.clone();
                Ok(move |ctx| misbehaving(ctx, m.clone()))
            },
        )
        .goals(&[
            ("primary-booted", "the primary booted"),
            ("recovered-state", "the primary rebuilt its state from disk"),
            ("backup-acked", "a backup acknowledged a copy"),
            ("restarted-after-exit", "a node whose main task returned booted again"),
        ]),
    );
    r.add(
        ModelDef::new_async(
            "async-hash-order",
            "reports a HashMap's key order",
            |_: Setup<'_, serde_json::Value>| Ok(hash_order),
        )
        .goals(&[("primary-booted", "never")]),
    );
    r.scenario(&scenario("async-store", "async-store", "{}", true));
    r
}

fn scenario(name: &str, model: &str, config: &str, crash: bool) -> String {
    format!(
        r#"{{
  "name": "{name}",
  "description": "3 async nodes under crashes, power loss and message chaos",
  "model": "{model}",
  "nodes": 3,
  "config": {config},
  "workload": {{ "clients": 3, "keys": 3, "think_ms_max": 20, "op_timeout_ms": 500 }},
  "faults": {{
    "crash": {crash}, "power_loss": {crash}, "pause": true, "partition": true,
    "interval_ms_mean": 300, "fault_ms_max": 800,
    "drop_probability_max": 0.05, "duplicate_probability_max": 0.05, "reorder_probability_max": 0.05,
    "delay_ms_min": 1, "delay_ms_max": 5, "fsync_ms_min": 1, "fsync_ms_max": 5
  }},
  "safety_ms": 3000,
  "liveness_ms": 3000,
  "invariants": ["linearizable"],
  "coverage": ["primary-booted"],
  "expect": "pass"
}}"#
    )
}

fn load(r: &Registry, text: &str) -> sim::Scenario {
    let s = sim::Scenario::from_json(text).expect("a valid scenario");
    r.validate(&s, &[]).expect("a scenario its model accepts");
    s
}

#[test]
fn the_correct_store_passes_and_reaches_its_goals() {
    let r = registry();
    let s = r.load("async-store").unwrap();
    let mut goals = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let out = r.run(&s, seed, &[], None).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "seed {seed}: {:?}", out.verdict);
        assert!(out.messages > 0, "seed {seed} sent no message");
        goals.extend(out.coverage);
    }
    for g in ["primary-booted", "recovered-state", "backup-acked"] {
        assert!(goals.contains(g), "no seed reached {g}: {goals:?}");
    }
}

#[test]
fn acknowledging_before_fsync_is_caught_as_a_linearizability_violation() {
    let r = registry();
    let s = r.load("async-store").unwrap();
    let bug = vec!["ack-before-fsync".to_string()];
    let found = (0..200).find_map(|seed| {
        let out = r.run(&s, seed, &bug, None).unwrap();
        (out.verdict.status == Status::Violation).then_some((seed, out))
    });
    let (seed, out) = found.expect("200 seeds of a store that forgets acknowledged writes");
    assert_eq!(out.verdict.invariant.as_deref(), Some("linearizable"), "seed {seed}");
    let again = r.run(&s, seed, &bug, None).unwrap();
    assert_eq!(again.verdict, out.verdict, "seed {seed} replays");
    assert_eq!(
        again.trace.hash_hex(),
        out.trace.hash_hex(),
        "seed {seed} replays event for event"
    );
}

#[test]
fn a_seed_gives_one_trace_whatever_ran_before_it() {
    let r = registry();
    let store = r.load("async-store").unwrap();
    let order = load(&r, &scenario("hash-order", "async-hash-order", "{}", false));
    let seeds: Vec<u64> = (0..12).collect();
    let hashes = |list: &[u64]| -> Vec<(u64, String, String)> {
        let mut v: Vec<(u64, String, String)> = list
            .iter()
            .map(|&seed| {
                let a = r.run(&store, seed, &[], None).unwrap().trace.hash_hex();
                let b = r.run(&order, seed, &[], None).unwrap().trace.hash_hex();
                (seed, a, b)
            })
            .collect();
        v.sort();
        v
    };
    let forward = hashes(&seeds);
    let mut backward_seeds = seeds.clone();
    backward_seeds.reverse();
    let backward = hashes(&backward_seeds);
    assert_eq!(forward, backward);
    // The order really varies with the seed: the test would prove nothing
    // if every seed iterated alike.
    let distinct: std::collections::BTreeSet<&String> = forward.iter().map(|(_, _, b)| b).collect();
    assert!(distinct.len() > 1, "every seed gave the same trace");
}

fn misbehave(how: &str) -> (Registry, sim::Scenario) {
    let r = registry();
    let config = format!(r#"{{"how": "{how}", "at_ms": 500}}"#);
    let s = load(
        &r,
        &scenario(&format!("misbehave-{how}"), "async-misbehaving", &config, false),
    );
    (r, s)
}

fn ends_with(how: &str, status: Status, needle: &str) {
    let (r, s) = misbehave(how);
    let out = r.run(&s, 7, &[], None).unwrap();
    assert_eq!(out.verdict.status, status, "{how}: {:?}", out.verdict);
    let message = out.verdict.message.clone().unwrap_or_default();
    assert!(message.contains(needle), "{how}: {message}");
    let again = r.run(&s, 7, &[], None).unwrap();
    assert_eq!(again.verdict, out.verdict, "{how} replays");
    assert_eq!(
        again.trace.hash_hex(),
        out.trace.hash_hex(),
        "{how} replays event for event"
    );
}

#[test]
fn a_panicking_task_is_a_finding_with_its_node() {
    ends_with("panic", Status::Error, "node 1 panicked: task of node 1 gave up");
}

/// dst's executor does not run such a task: madsim runs it once the run
/// is over, and its panic then leaves the settled outcome (here a pass)
/// alone, run after run.
#[test]
fn a_task_spawned_straight_on_madsim_never_runs_in_the_run_and_its_panic_spares_the_outcome() {
    ends_with("panic-detached", Status::Pass, "");
}

#[test]
fn a_deadlocked_node_ends_the_run_stalled() {
    ends_with("deadlock", Status::Error, "node 1 deadlocked at 500 ms");
}

#[test]
fn a_node_that_yields_forever_ends_the_run_stalled() {
    ends_with("spin", Status::Error, "it spins without waiting (most polled");
    ends_with("spin", Status::Error, "its main task)");
}

#[test]
fn a_spin_names_where_the_spinning_task_was_spawned() {
    let spawned_at = format!("the task spawned at sim/tests/async_nodes.rs:{})", spin_line());
    ends_with("spin-spawned", Status::Error, &spawned_at);
}

/// The line of the `tokio::spawn` of the "spin-spawned" case.
fn spin_line() -> usize {
    let source = include_str!("async_nodes.rs");
    let case = source.find("\"spin-spawned\" =>").expect("the case is in this file");
    source[..case].lines().count() + 1
}

#[test]
fn a_task_that_reads_the_clock_until_it_moves_ends_the_run_stalled() {
    ends_with("busy", Status::Error, "without yielding: it spins");
}

#[test]
fn a_main_task_that_returns_is_a_process_exit_and_the_node_boots_again() {
    let (r, s) = misbehave("exit");
    let out = r.run(&s, 3, &[], None).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    assert!(out.coverage.contains("restarted-after-exit"), "{:?}", out.coverage);
}

/// Tasks still waiting when the run ends are dropped with all they hold,
/// even when they hold each other: memory stays flat over many seeds.
#[test]
fn tasks_alive_at_the_end_of_a_run_are_dropped() {
    let (r, s) = misbehave("cycle");
    for seed in 0..3 {
        let out = r.run(&s, seed, &[], None).unwrap();
        assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
        assert_eq!(GUARDS.load(std::sync::atomic::Ordering::SeqCst), 0, "seed {seed}");
    }
}

#[test]
fn a_well_behaved_node_passes() {
    let (r, s) = misbehave("");
    let out = r.run(&s, 7, &[], None).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
}
