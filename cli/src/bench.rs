//! `dst bench`: seeds/s and events/s per scenario on one thread, and in the
//! same run a bare madsim message loop with the same node count and the same
//! number of messages per seed, so the ratio is the harness's overhead; then
//! the cost per message of async nodes beside sans-IO ones
//! ([`super::bench_async`]) and the linearizability checker
//! ([`super::bench_checker`]). Numbers are
//! measured and printed, never asserted.

use super::Exit;
use dst_runner::run_seed_lean;
use madsim::net::Endpoint;
use sim::{Registry, Scenario};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(serde::Serialize)]
struct Row {
    scenario: String,
    nodes: usize,
    seeds: u64,
    seeds_per_s: f64,
    events_per_s: f64,
    /// Simulated seconds per wall-clock second, on this one thread (core).
    sim_per_real: f64,
    /// The most heap one run held at once (none without the counting
    /// allocator, see `sim::mem`).
    peak_bytes: Option<u64>,
    messages_per_seed: u64,
    bare_seeds_per_s: f64,
    /// dst seeds/s divided by bare madsim seeds/s.
    ratio: f64,
}

/// One cell of the scaling table: a scenario resized to `nodes` nodes and
/// `seconds` of simulated time.
#[derive(serde::Serialize)]
struct Cell {
    nodes: usize,
    seconds: u64,
    seeds: u64,
    events_per_seed: u64,
    wall_s_per_seed: f64,
    events_per_s: f64,
    sim_per_real: f64,
    peak_bytes: Option<u64>,
}

/// What `dst bench` measures.
pub struct Plan<'a> {
    pub seeds: u64,
    pub only: &'a [String],
    /// The scenario the scaling table resizes (a name, or "none" to skip
    /// it); by default the first one measured.
    pub scale: Option<String>,
    pub scale_nodes: Vec<usize>,
    pub scale_seconds: Vec<u64>,
    pub scale_seeds: u64,
    /// Also measure the linearizability checker.
    pub checker: bool,
    pub json: bool,
}

/// What runs of a scenario cost, on this thread.
struct Cost {
    wall_s: f64,
    events: u64,
    messages: u64,
    sim_ns: u64,
    peak: Option<u64>,
}

fn measure(reg: &Registry, s: &Scenario, seeds: u64) -> Result<Cost, String> {
    let mut c = Cost {
        wall_s: 0.0,
        events: 0,
        messages: 0,
        sim_ns: 0,
        peak: None,
    };
    for seed in 0..seeds {
        let mark = linearizability::mem::mark();
        let start = Instant::now();
        let (out, _) = run_seed_lean(reg, s, seed, &[], false)?;
        c.wall_s += start.elapsed().as_secs_f64();
        let peak = linearizability::mem::peak_since(mark);
        c.peak = c.peak.max(peak);
        c.events += out.trace.len() as u64;
        c.messages += out.messages;
        c.sim_ns += out.sim_ns;
    }
    Ok(c)
}

pub fn main(reg: &Registry, plan: &Plan) -> Exit {
    let scenarios: Vec<Scenario> = if plan.only.is_empty() {
        reg.scenarios().to_vec()
    } else {
        match plan.only.iter().map(|n| reg.load(n)).collect() {
            Ok(s) => s,
            Err(e) => return Exit::Bad(e),
        }
    };
    let seeds = plan.seeds;
    if seeds == 0 || plan.scale_seeds == 0 {
        return Exit::Bad("--seeds and --scale-seeds must be at least 1".into());
    }
    let base = match plan.scale.as_deref() {
        Some("none") => None,
        Some(name) => match reg.load(name) {
            Ok(s) => Some(s),
            Err(e) => return Exit::Bad(e),
        },
        None => scenarios.first().cloned(),
    };
    if let Some(b) = &base {
        if let Err(e) = resize(reg, b, plan) {
            return Exit::Bad(e);
        }
    }
    let mut rows = Vec::new();
    let w = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in &scenarios {
        let c = match measure(reg, s, seeds) {
            Ok(c) => c,
            Err(e) => return Exit::Bad(e),
        };
        let per_seed = c.messages / seeds;
        let start = Instant::now();
        for seed in 0..seeds {
            bare_loop(seed, s.nodes, per_seed);
        }
        let bare_s = start.elapsed().as_secs_f64();
        let row = Row {
            scenario: s.name.clone(),
            nodes: s.nodes,
            seeds,
            seeds_per_s: seeds as f64 / c.wall_s,
            events_per_s: c.events as f64 / c.wall_s,
            sim_per_real: c.sim_ns as f64 / 1e9 / c.wall_s,
            peak_bytes: c.peak,
            messages_per_seed: per_seed,
            bare_seeds_per_s: seeds as f64 / bare_s,
            ratio: bare_s / c.wall_s,
        };
        if !plan.json {
            sim::outln!(
                "{:<w$} {} nodes  {:>7.1} seeds/s  {:>10.0} events/s  {:>6.0}x real time  peak {:>8}  {:>6} msgs/seed | bare madsim {:>7.1} seeds/s | ratio {:.2}",
                row.scenario, row.nodes, row.seeds_per_s, row.events_per_s, row.sim_per_real, mib(row.peak_bytes), row.messages_per_seed, row.bare_seeds_per_s, row.ratio
            );
        }
        rows.push(row);
    }
    let scale = match &base {
        Some(b) => match scaling(reg, b, plan) {
            Ok(cells) => cells,
            Err(e) => return Exit::Bad(e),
        },
        None => Vec::new(),
    };
    if let (Some(b), false) = (&base, plan.json) {
        print_scaling(b, &scale, plan);
    }
    let traced = scenarios
        .iter()
        .find(|s| s.invariants.iter().any(|i| i == "linearizable"));
    let checker = match plan.checker {
        true => match super::bench_checker::rows(reg, traced, seeds, plan.json) {
            Ok(rows) => rows,
            Err(e) => return Exit::Bad(e),
        },
        false => Vec::new(),
    };
    let async_path = match super::bench_async::rows(seeds, plan.json) {
        Ok(rows) => rows,
        Err(e) => return Exit::Bad(e),
    };
    if plan.json {
        sim::outln!(
            "{}",
            serde_json::json!({
                "rows": rows,
                "async_path": async_path,
                "scaling": base.as_ref().map(|b| serde_json::json!({ "scenario": b.name, "cells": scale })),
                "checker": checker,
            })
        );
    }
    Exit::Clean
}

fn mib(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
        None => "n/a".into(),
    }
}

/// The scaling table: `base` resized to each node count and simulated
/// length (the liveness phase kept, the safety phase taking the rest), so
/// cost shows against nodes x simulated time.
fn scaling(reg: &Registry, base: &Scenario, plan: &Plan) -> Result<Vec<Cell>, String> {
    let resized = resize(reg, base, plan)?;
    let mut cells = Vec::new();
    for (nodes, seconds, s) in resized {
        let c = measure(reg, &s, plan.scale_seeds)?;
        let n = plan.scale_seeds;
        cells.push(Cell {
            nodes,
            seconds,
            seeds: n,
            events_per_seed: c.events / n,
            wall_s_per_seed: c.wall_s / n as f64,
            events_per_s: c.events as f64 / c.wall_s,
            sim_per_real: c.sim_ns as f64 / 1e9 / c.wall_s,
            peak_bytes: c.peak,
        });
    }
    Ok(cells)
}

/// Every cell's scenario, each checked before anything is measured.
fn resize(reg: &Registry, base: &Scenario, plan: &Plan) -> Result<Vec<(usize, u64, Scenario)>, String> {
    let mut out = Vec::new();
    for &nodes in &plan.scale_nodes {
        for &seconds in &plan.scale_seconds {
            let mut s = base.clone();
            s.nodes = nodes;
            let total_ms = seconds.saturating_mul(1000);
            s.liveness_ms = s.liveness_ms.min(total_ms / 2);
            s.liveness.tail_ms = s.liveness.tail_ms.min(s.liveness_ms / 2);
            s.safety_ms = total_ms - s.liveness_ms;
            s.event_budget = sim::bounds::EVENT_BUDGET_MAX;
            reg.validate(&s, &[])
                .map_err(|e| format!("scaling {} to {nodes} nodes and {seconds} s: {e}", base.name))?;
            out.push((nodes, seconds, s));
        }
    }
    Ok(out)
}

fn print_scaling(base: &Scenario, cells: &[Cell], plan: &Plan) {
    sim::outln!(
        "\nscaling {} ({} seed(s) per cell): wall per seed, events per seed, simulated/real, peak heap",
        base.name,
        plan.scale_seeds
    );
    let mut head = format!("{:>7}", "nodes");
    for s in &plan.scale_seconds {
        head.push_str(&format!(" | {:>46}", format!("{s} s simulated")));
    }
    sim::outln!("{head}");
    for &n in &plan.scale_nodes {
        let mut line = format!("{n:>7}");
        for c in cells.iter().filter(|c| c.nodes == n) {
            line.push_str(&format!(
                " | {:>8.3} s {:>9} ev {:>7.0}x {:>12}",
                c.wall_s_per_seed,
                c.events_per_seed,
                c.sim_per_real,
                mib(c.peak_bytes)
            ));
        }
        sim::outln!("{line}");
    }
}

/// N madsim nodes passing `messages` datagrams between random peers over
/// madsim's own network: the floor any harness on madsim pays.
fn bare_loop(seed: u64, nodes: usize, messages: u64) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let addrs: Vec<SocketAddr> = (0..nodes)
        .map(|i| format!("10.0.0.{}:1", i + 1).parse().expect("addr"))
        .collect();
    let sent = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = addrs.iter().map(|a| rt.create_node().ip(a.ip()).build()).collect();
    for (i, h) in handles.iter().enumerate() {
        let (addrs, sent, me) = (addrs.clone(), sent.clone(), addrs[i]);
        h.spawn(async move {
            let ep = Endpoint::bind(me).await.expect("bind");
            let mut buf = [0u8; 64];
            let mut next = i;
            // Every node starts one message so the loop never starves.
            let _ = ep.send_to(addrs[(i + 1) % addrs.len()], 0, &buf[..16]).await;
            while sent.fetch_add(1, Ordering::Relaxed) < messages {
                if ep.recv_from(0, &mut buf).await.is_err() {
                    return;
                }
                next = (next * 7 + 3) % addrs.len();
                let _ = ep.send_to(addrs[next], 0, &buf[..16]).await;
            }
        });
    }
    let sent2 = sent.clone();
    rt.block_on(async move {
        while sent2.load(Ordering::Relaxed) < messages {
            madsim::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    });
}
