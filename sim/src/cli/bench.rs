//! `dst bench`: seeds/s and events/s per scenario on one thread, and in the
//! same run a bare madsim message loop with the same node count and the same
//! number of messages per seed, so the ratio is the harness's overhead.
//! Numbers are measured and printed, never asserted.

use super::Exit;
use crate::registry::Registry;
use crate::runner::run_seed;
use crate::scenario::Scenario;
use madsim::net::Endpoint;
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
    messages_per_seed: u64,
    bare_seeds_per_s: f64,
    /// dst seeds/s divided by bare madsim seeds/s.
    ratio: f64,
}

pub fn main(reg: &Registry, seeds: u64, only: &[String], json: bool) -> Exit {
    let scenarios: Vec<Scenario> = if only.is_empty() {
        reg.scenarios().to_vec()
    } else {
        match only.iter().map(|n| reg.load(n)).collect() {
            Ok(s) => s,
            Err(e) => return Exit::Bad(e),
        }
    };
    if seeds == 0 {
        return Exit::Bad("--seeds must be at least 1".into());
    }
    let mut rows = Vec::new();
    let w = scenarios.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in &scenarios {
        let (mut events, mut messages) = (0u64, 0u64);
        let start = Instant::now();
        for seed in 0..seeds {
            match run_seed(reg, s, seed, &[], None) {
                Ok((out, _)) => {
                    events += out.trace.len() as u64;
                    messages += out.messages;
                }
                Err(e) => return Exit::Bad(e),
            }
        }
        let dst_s = start.elapsed().as_secs_f64();
        let per_seed = messages / seeds;
        let start = Instant::now();
        for seed in 0..seeds {
            bare_loop(seed, s.nodes, per_seed);
        }
        let bare_s = start.elapsed().as_secs_f64();
        let row = Row {
            scenario: s.name.clone(),
            nodes: s.nodes,
            seeds,
            seeds_per_s: seeds as f64 / dst_s,
            events_per_s: events as f64 / dst_s,
            messages_per_seed: per_seed,
            bare_seeds_per_s: seeds as f64 / bare_s,
            ratio: bare_s / dst_s,
        };
        if !json {
            crate::outln!(
                "{:<w$} {} nodes  {:>7.1} seeds/s  {:>10.0} events/s  {:>6} msgs/seed | bare madsim {:>7.1} seeds/s | ratio {:.2}",
                row.scenario, row.nodes, row.seeds_per_s, row.events_per_s, row.messages_per_seed, row.bare_seeds_per_s, row.ratio
            );
        }
        rows.push(row);
    }
    let traced = scenarios
        .iter()
        .find(|s| s.invariants.iter().any(|i| i == "linearizable"));
    let checker = match checker(reg, traced, seeds, json) {
        Ok(rows) => rows,
        Err(e) => return Exit::Bad(e),
    };
    if json {
        crate::outln!("{}", serde_json::json!({ "rows": rows, "checker": checker }));
    }
    Exit::Clean
}

#[derive(serde::Serialize)]
struct CheckerRow {
    histories: String,
    count: usize,
    ops_per_history: f64,
    ops_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    linearizable: usize,
    not_linearizable: usize,
    unknown: usize,
}

/// The linearizability checker's throughput on one thread: generated
/// 100-op single-register histories with 5 clients and 10-20 unknown
/// outcomes (as generated, then each with an injected stale read), and the
/// client histories of `seeds` runs of the first benched scenario that
/// checks `linearizable`, checked offline.
fn checker(reg: &Registry, traced: Option<&Scenario>, seeds: u64, json: bool) -> Result<Vec<CheckerRow>, String> {
    use crate::lin::gen::{inject_stale_read, register_history, Shape};
    use crate::lin::{check, DstHistory, DstKv, Options, Outcome, Register};
    const GENERATED: u64 = 500;
    let shape = Shape {
        ops: 100,
        clients: 5,
        unknown_min: 10,
        unknown_max: 20,
        distinct_values: None,
    };
    let opts = Options::default();
    let (mut clean, mut stale, mut traced_runs) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 0..GENERATED {
        let mut h = register_history(seed, shape);
        let start = Instant::now();
        let c = check(&Register::new(), &h, &opts);
        clean.push((start.elapsed().as_secs_f64(), h.ops.len(), c.outcome));
        if inject_stale_read(&mut h, seed) {
            let start = Instant::now();
            let c = check(&Register::new(), &h, &opts);
            stale.push((start.elapsed().as_secs_f64(), h.ops.len(), c.outcome));
        }
    }
    for seed in (0..seeds).filter(|_| traced.is_some()) {
        let scenario = traced.expect("filtered");
        let (out, _) = run_seed(reg, scenario, seed, &[], None)?;
        let start = Instant::now();
        let mut history = DstHistory::default();
        for e in out.trace.events() {
            history
                .push(e)
                .map_err(|m| format!("{} seed {seed}: {m}", scenario.name))?;
        }
        let h = history.finish();
        let c = check(&DstKv, &h, &opts);
        traced_runs.push((start.elapsed().as_secs_f64(), h.ops.len(), c.outcome));
    }
    let row = |name: &str, runs: Vec<(f64, usize, Outcome)>| {
        let mut times: Vec<f64> = runs.iter().map(|r| r.0).collect();
        times.sort_by(f64::total_cmp);
        let rank = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1] * 1e6;
        let ops: usize = runs.iter().map(|r| r.1).sum();
        let count = |f: fn(&Outcome) -> bool| runs.iter().filter(|r| f(&r.2)).count();
        CheckerRow {
            histories: name.to_string(),
            count: runs.len(),
            ops_per_history: ops as f64 / runs.len() as f64,
            ops_per_s: ops as f64 / times.iter().sum::<f64>(),
            p50_us: rank(0.5),
            p99_us: rank(0.99),
            linearizable: count(|o| *o == Outcome::Linearizable),
            not_linearizable: count(|o| matches!(o, Outcome::NotLinearizable(_))),
            unknown: count(|o| matches!(o, Outcome::Unknown { .. })),
        }
    };
    let traces = format!("{} traces", traced.map_or("no", |s| s.name.as_str()));
    let rows: Vec<CheckerRow> = [
        ("register, 10-20 unknown", clean),
        ("register + stale read", stale),
        (traces.as_str(), traced_runs),
    ]
    .into_iter()
    .filter(|(_, runs)| !runs.is_empty())
    .map(|(name, runs)| row(name, runs))
    .collect();
    if !json {
        for r in &rows {
            crate::outln!(
                "checker {:<24} {:>4} histories {:>6.0} ops each  {:>10.0} ops/s  p50 {:>8.1} us  p99 {:>8.1} us | {} linearizable, {} not, {} unknown",
                r.histories, r.count, r.ops_per_history, r.ops_per_s, r.p50_us, r.p99_us, r.linearizable, r.not_linearizable, r.unknown
            );
        }
    }
    Ok(rows)
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
