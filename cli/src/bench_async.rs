//! What the async paths cost beside the sans-IO one: the same protocol
//! (every node pings a random peer every 2 ms of its clock, and every ping
//! is answered) written as a `Machine`, as async code on dst's `Ctx`, as
//! tokio code (`tokio::spawn`, `tokio::time::sleep`) sending through the
//! `Ctx`, and as tokio code over `tokio::net::UdpSocket`, run over the same
//! seeds, so each message costs what its path costs.

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

/// The async pinger, on dst's `Ctx` or, `as_tokio`, as tokio code: its
/// responder `tokio::spawn`ed, its period a `tokio::time::sleep`, on dst's
/// tokio. Both send through the `Ctx`.
async fn pinger(ctx: Ctx<Ping, ()>, as_tokio: bool) {
    let responder = async move {
        loop {
            let e = ctx.recv().await;
            if let Ping::Ping(t) = e.msg {
                ctx.send(e.from, Ping::Pong(t));
            }
        }
    };
    match as_tokio {
        true => drop(tokio::spawn(responder)),
        false => drop(ctx.spawn(responder)),
    }
    let peers = ctx.nodes() as u64 - 1;
    let every = Duration::from_nanos(EVERY_NS);
    loop {
        match as_tokio {
            true => tokio::time::sleep(every).await,
            false => ctx.sleep(every).await,
        }
        let to = (ctx.id() as u64 + 1 + ctx.random_range(0, peers - 1)) % ctx.nodes() as u64;
        ctx.send(to as NodeId, Ping::Ping(ctx.now_mono_ns()));
    }
}

const PORT: u16 = 9000;

/// The pinger as tokio code that sends its own datagrams: eight bytes of
/// ping or pong over `tokio::net::UdpSocket`.
async fn pinger_udp(ctx: Ctx<Ping, ()>) {
    let Ok(socket) = tokio::net::UdpSocket::bind(("0.0.0.0", PORT)).await else {
        return ctx.halt("cannot bind the bench's port");
    };
    let socket = std::sync::Arc::new(socket);
    let answers = socket.clone();
    tokio::spawn(async move {
        let mut buf = [0u8; 9];
        while let Ok((n, from)) = answers.recv_from(&mut buf).await {
            if n == 9 && buf[0] == 0 {
                buf[0] = 1;
                let _ = answers.send_to(&buf, from).await;
            }
        }
    });
    let peers = ctx.nodes() as u64 - 1;
    let mut ping = [0u8; 9];
    loop {
        tokio::time::sleep(Duration::from_nanos(EVERY_NS)).await;
        let to = (ctx.id() as u64 + 1 + ctx.random_range(0, peers - 1)) % ctx.nodes() as u64;
        ping[1..].copy_from_slice(&ctx.now_mono_ns().to_le_bytes());
        let addr = std::net::SocketAddr::new(sim::async_node::ip(to as usize), PORT);
        let _ = socket.send_to(&ping, addr).await;
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
        |_: Setup<'_, serde_json::Value>| Ok(|ctx| pinger(ctx, false)),
    ));
    r.add(ModelDef::new_async(
        "bench-ping-tokio",
        "pings as tokio code through the context",
        |_: Setup<'_, serde_json::Value>| Ok(|ctx| pinger(ctx, true)),
    ));
    r.add(ModelDef::new_async(
        "bench-ping-udp",
        "pings as tokio code over UDP",
        |_: Setup<'_, serde_json::Value>| Ok(pinger_udp),
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
    messages_tokio: u64,
    messages_udp: u64,
    ns_per_message_sans_io: f64,
    ns_per_message_async: f64,
    ns_per_message_tokio: f64,
    ns_per_message_udp: f64,
    /// Async (on the context) cost per message over sans-IO cost per message.
    ratio: f64,
    /// The same for tokio code sending through the context.
    ratio_tokio: f64,
    /// The same for tokio code over UDP.
    ratio_udp: f64,
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

/// Every path over `seeds` seeds at 3 and 5 nodes, one after the other.
pub(super) fn rows(seeds: u64, json: bool) -> Result<Vec<Row>, String> {
    let reg = registry();
    let mut rows = Vec::new();
    if !json {
        sim::outln!("\nasync paths beside sans-IO, the same ping protocol ({seeds} seed(s) each, 2 s simulated), ns per message:");
    }
    for nodes in [3, 5] {
        let (m_sync, w_sync) = cost(&reg, &scenario("bench-ping-sans-io", nodes), seeds)?;
        let (m_async, w_async) = cost(&reg, &scenario("bench-ping-async", nodes), seeds)?;
        let (m_tokio, w_tokio) = cost(&reg, &scenario("bench-ping-tokio", nodes), seeds)?;
        let (m_udp, w_udp) = cost(&reg, &scenario("bench-ping-udp", nodes), seeds)?;
        let per = |w: f64, m: u64| w * 1e9 / m.max(1) as f64;
        let base = per(w_sync, m_sync);
        let row = Row {
            nodes,
            seeds,
            messages_sans_io: m_sync,
            messages_async: m_async,
            messages_tokio: m_tokio,
            messages_udp: m_udp,
            ns_per_message_sans_io: base,
            ns_per_message_async: per(w_async, m_async),
            ns_per_message_tokio: per(w_tokio, m_tokio),
            ns_per_message_udp: per(w_udp, m_udp),
            ratio: per(w_async, m_async) / base,
            ratio_tokio: per(w_tokio, m_tokio) / base,
            ratio_udp: per(w_udp, m_udp) / base,
        };
        if !json {
            sim::outln!(
                "{} nodes  sans-IO {:>6.0} ({} messages) | Ctx {:>6.0} ({}, {:.2}x) | tokio {:>6.0} ({}, {:.2}x) | tokio UDP {:>6.0} ({}, {:.2}x)",
                row.nodes,
                row.ns_per_message_sans_io,
                row.messages_sans_io,
                row.ns_per_message_async,
                row.messages_async,
                row.ratio,
                row.ns_per_message_tokio,
                row.messages_tokio,
                row.ratio_tokio,
                row.ns_per_message_udp,
                row.messages_udp,
                row.ratio_udp
            );
        }
        rows.push(row);
    }
    Ok(rows)
}
