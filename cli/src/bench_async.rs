//! What the async path costs beside the sans-IO one: the same protocol
//! (every node pings a random peer every 2 ms of its clock, and every ping
//! is answered) written once as a `Machine` and once as async code, run
//! over the same seeds, so each message costs what its path costs.

use dst_runner::run_seed_lean;
use sim::async_node::Ctx;
use sim::{ClientReq, Io, Machine, ModelDef, MsgInfo, NodeId, Registry, Setup, SyncTicket, TimerId};
use std::time::{Duration, Instant};

const EVERY_NS: u64 = 2_000_000;

#[derive(Clone, Debug, serde::Serialize)]
enum Ping {
    Ping(u64),
    Pong(u64),
}

impl MsgInfo for Ping {
    fn kind(&self) -> &'static str {
        match self {
            Ping::Ping(_) => "ping",
            Ping::Pong(_) => "pong",
        }
    }
}

struct Pinger;

impl Pinger {
    fn ping(io: &mut Io<Self>) {
        let peers = io.nodes() as u64 - 1;
        let to = (io.id() as u64 + 1 + io.random_range(0, peers - 1)) % io.nodes() as u64;
        let now = io.now_mono_ns();
        io.send(to as NodeId, Ping::Ping(now));
        io.set_timer(0, EVERY_NS);
    }
}

impl Machine for Pinger {
    type Msg = Ping;
    type Rec = ();
    fn boot(&mut self, io: &mut Io<Self>) {
        io.set_timer(0, EVERY_NS);
    }
    fn on_message(&mut self, from: NodeId, msg: Ping, io: &mut Io<Self>) {
        if let Ping::Ping(t) = msg {
            io.send(from, Ping::Pong(t));
        }
    }
    fn on_timer(&mut self, _: TimerId, io: &mut Io<Self>) {
        Pinger::ping(io);
    }
    fn on_client(&mut self, _: ClientReq, _: &mut Io<Self>) {}
    fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
}

async fn pinger(ctx: Ctx<Ping, ()>) {
    ctx.spawn(async move {
        loop {
            let e = ctx.recv().await;
            if let Ping::Ping(t) = e.msg {
                ctx.send(e.from, Ping::Pong(t));
            }
        }
    });
    let peers = ctx.nodes() as u64 - 1;
    loop {
        ctx.sleep(Duration::from_nanos(EVERY_NS)).await;
        let to = (ctx.id() as u64 + 1 + ctx.random_range(0, peers - 1)) % ctx.nodes() as u64;
        ctx.send(to as NodeId, Ping::Ping(ctx.now_mono_ns()));
    }
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add(ModelDef::new(
        "bench-ping-sans-io",
        "pings as a Machine",
        |_: Setup<'_, serde_json::Value>| Ok(|_| Pinger),
    ));
    r.add(ModelDef::new_async(
        "bench-ping-async",
        "pings as async code",
        |_: Setup<'_, serde_json::Value>| Ok(pinger),
    ));
    r
}

fn scenario(model: &str, nodes: usize) -> sim::Scenario {
    let text = format!(
        r#"{{"name": "{model}", "model": "{model}", "nodes": {nodes},
            "workload": {{"clients": 0}}, "safety_ms": 2000, "liveness_ms": 100,
            "invariants": ["no-dual-leaders"], "coverage": [], "expect": "pass"}}"#
    );
    sim::Scenario::from_json(&text).expect("the bench scenario is valid")
}

#[derive(serde::Serialize)]
pub(super) struct Row {
    nodes: usize,
    seeds: u64,
    messages_sans_io: u64,
    messages_async: u64,
    ns_per_message_sans_io: f64,
    ns_per_message_async: f64,
    /// Async cost per message over sans-IO cost per message.
    ratio: f64,
}

fn cost(reg: &Registry, s: &sim::Scenario, seeds: u64) -> Result<(u64, f64), String> {
    let (mut messages, mut wall) = (0, 0.0);
    for seed in 0..seeds {
        let start = Instant::now();
        let (out, _) = run_seed_lean(reg, s, seed, &[], false)?;
        wall += start.elapsed().as_secs_f64();
        messages += out.messages;
    }
    Ok((messages, wall))
}

/// Both paths over `seeds` seeds at 3 and 5 nodes.
pub(super) fn rows(seeds: u64, json: bool) -> Result<Vec<Row>, String> {
    let reg = registry();
    let mut rows = Vec::new();
    if !json {
        sim::outln!("\nasync path beside sans-IO, the same ping protocol ({seeds} seed(s) each, 2 s simulated):");
    }
    for nodes in [3, 5] {
        let (m_sync, w_sync) = cost(&reg, &scenario("bench-ping-sans-io", nodes), seeds)?;
        let (m_async, w_async) = cost(&reg, &scenario("bench-ping-async", nodes), seeds)?;
        let per = |w: f64, m: u64| w * 1e9 / m.max(1) as f64;
        let row = Row {
            nodes,
            seeds,
            messages_sans_io: m_sync,
            messages_async: m_async,
            ns_per_message_sans_io: per(w_sync, m_sync),
            ns_per_message_async: per(w_async, m_async),
            ratio: per(w_async, m_async) / per(w_sync, m_sync),
        };
        if !json {
            sim::outln!(
                "{} nodes  sans-IO {:>7.0} ns/message ({} messages) | async {:>7.0} ns/message ({} messages) | ratio {:.2}",
                row.nodes,
                row.ns_per_message_sans_io,
                row.messages_sans_io,
                row.ns_per_message_async,
                row.messages_async,
                row.ratio
            );
        }
        rows.push(row);
    }
    Ok(rows)
}
