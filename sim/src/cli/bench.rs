//! `dst bench`: seeds/s and events/s per scenario on one thread, and in the
//! same run a bare madsim message loop with the same node count and the same
//! number of messages per seed, so the ratio is the harness's overhead; then
//! the linearizability checker ([`super::bench_checker`]). Numbers are
//! measured and printed, never asserted.

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
    let checker = match super::bench_checker::rows(reg, traced, seeds, json) {
        Ok(rows) => rows,
        Err(e) => return Exit::Bad(e),
    };
    if json {
        crate::outln!("{}", serde_json::json!({ "rows": rows, "checker": checker }));
    }
    Exit::Clean
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
