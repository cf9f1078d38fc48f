//! `dst bench`'s rows for the linearizability checker, on one thread and
//! with `dst check`'s default limits: throughput and the spread of check
//! time per history, on generated histories and on a scenario's traces.

use dst_runner::run_seed_with;
use linearizability::gen::{inject_stale_read, register_history, Shape};
use linearizability::gen_kv::{kv_history, KvShape};
use linearizability::{check, Checked, DstKv, History, Model, Options, Outcome, Register};
use sim::lin::DstHistory;
use sim::{Registry, Scenario};
use std::time::Instant;

#[derive(serde::Serialize)]
pub(super) struct CheckerRow {
    histories: String,
    count: usize,
    ops_per_history: f64,
    ops_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    linearizable: usize,
    not_linearizable: usize,
    unknown: usize,
    /// Model steps the searches took, over all histories.
    steps: u64,
    /// Keys decided without a search, and keys searched.
    keys_without_search: usize,
    keys_searched: usize,
    /// The most heap one check held at once (null where dst's counting
    /// allocator is not the program's).
    peak_heap_bytes: Option<u64>,
}

/// One history checked.
struct Run {
    seconds: f64,
    ops: usize,
    checked: Checked,
    peak_heap_bytes: Option<u64>,
}

/// Histories of 100 ops per row of the small register workloads.
const SMALL: u64 = 500;
/// Histories per row of the etcd-like workloads.
const ETCD_LIKE: u64 = 10;

/// The rows, in order:
/// - 100-op single-register histories with 5 clients, unique values and
///   10-20 unknown outcomes, as generated and each with a stale read;
/// - etcd-like single-register histories as Jepsen's etcd test records
///   them: 1,000 reads, writes and cas ops of values 1..=5 by 5, 10 and 20
///   clients, 1-3% of them timed out (unknown outcome);
/// - many-key histories of dst's store of 10k, 100k and 1M ops (100 ops a
///   key, 20 clients, 1% unknown outcomes, 5% of cas ops expecting a stale
///   list);
/// - the client histories of `seeds` runs of `traced` (the first benched
///   scenario that checks `linearizable`), checked offline.
pub(super) fn rows(
    reg: &Registry,
    traced: Option<&Scenario>,
    seeds: u64,
    json: bool,
) -> Result<Vec<CheckerRow>, String> {
    let opts = Options {
        budget_per_key: linearizability::CHECK_BUDGET_PER_KEY,
        ..Options::default()
    };
    let register = Register::new();
    let mut rows = Vec::new();
    let small = Shape {
        ops: 100,
        clients: 5,
        unknown_min: 10,
        unknown_max: 20,
        distinct_values: None,
    };
    let (mut clean, mut stale) = (Vec::new(), Vec::new());
    for seed in 0..SMALL {
        let mut h = register_history(seed, small);
        clean.push(timed(&register, &h, &opts));
        if inject_stale_read(&mut h, seed) {
            stale.push(timed(&register, &h, &opts));
        }
    }
    rows.push(row("register, 10-20 unknown", clean));
    rows.push(row("register + stale read", stale));
    for clients in [5, 10, 20] {
        let shape = Shape {
            ops: 1_000,
            clients,
            unknown_min: 10,
            unknown_max: 30,
            distinct_values: Some(5),
        };
        let runs = (0..ETCD_LIKE).map(|seed| timed(&register, &register_history(seed, shape), &opts));
        rows.push(row(&format!("etcd-like, {clients} clients"), runs.collect()));
    }
    for (ops, count) in [(10_000, 10), (100_000, 4), (1_000_000, 2)] {
        let shape = KvShape {
            ops,
            clients: 20,
            keys: (ops / 100) as u32,
            unknown_per_mille: 10,
            stale_cas_per_mille: 50,
        };
        let runs = (0..count).map(|seed| timed(&DstKv, &kv_history(seed, shape), &opts));
        rows.push(row(&format!("kv, {}k ops", ops / 1_000), runs.collect()));
    }
    let mut traced_runs = Vec::new();
    for seed in (0..seeds).filter(|_| traced.is_some()) {
        let scenario = traced.expect("filtered");
        let whole = sim::Overrides::default().keeping_all();
        let (out, _) = run_seed_with(reg, scenario, seed, &[], whole)?;
        let start = Instant::now();
        let mut history = DstHistory::default();
        for e in out.trace.events() {
            history
                .push(e)
                .map_err(|m| format!("{} seed {seed}: {m}", scenario.name))?;
        }
        let h = history.finish();
        let mut run = timed(&DstKv, &h, &opts);
        run.seconds = start.elapsed().as_secs_f64();
        traced_runs.push(run);
    }
    if !traced_runs.is_empty() {
        let traces = format!("{} traces", traced.map_or("no", |s| s.name.as_str()));
        rows.push(row(&traces, traced_runs));
    }
    rows.retain(|r| r.count > 0);
    if !json {
        for r in &rows {
            sim::outln!(
                "checker {:<24} {:>4} histories {:>8.0} ops each  {:>10.0} ops/s  p50 {:>10.1} us  p99 {:>10.1} us | {} linearizable, {} not, {} unknown | keys {} without search, {} searched, {} steps | peak heap {}",
                r.histories, r.count, r.ops_per_history, r.ops_per_s, r.p50_us, r.p99_us, r.linearizable, r.not_linearizable, r.unknown,
                r.keys_without_search, r.keys_searched, r.steps, r.peak_heap_bytes.map_or("-".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6))
            );
        }
    }
    Ok(rows)
}

fn timed<M: Model>(model: &M, h: &History<M::Input, M::Output>, opts: &Options) -> Run {
    let heap = linearizability::mem::mark();
    let start = Instant::now();
    let checked = check(model, h, opts);
    Run {
        seconds: start.elapsed().as_secs_f64(),
        ops: h.ops.len(),
        checked,
        peak_heap_bytes: linearizability::mem::peak_since(heap),
    }
}

fn row(name: &str, runs: Vec<Run>) -> CheckerRow {
    let mut times: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
    times.sort_by(f64::total_cmp);
    let rank = |p: f64| match times.len() {
        0 => 0.0,
        n => times[((p * n as f64).ceil() as usize).clamp(1, n) - 1] * 1e6,
    };
    let ops: usize = runs.iter().map(|r| r.ops).sum();
    let count = |f: fn(&Outcome) -> bool| runs.iter().filter(|r| f(&r.checked.outcome)).count();
    let keys_without_search: usize = runs.iter().map(|r| r.checked.keys_without_search).sum();
    CheckerRow {
        histories: name.to_string(),
        count: runs.len(),
        ops_per_history: ops as f64 / runs.len().max(1) as f64,
        ops_per_s: ops as f64 / times.iter().sum::<f64>(),
        p50_us: rank(0.5),
        p99_us: rank(0.99),
        linearizable: count(|o| *o == Outcome::Linearizable),
        not_linearizable: count(|o| matches!(o, Outcome::NotLinearizable(_))),
        unknown: count(|o| matches!(o, Outcome::Unknown { .. })),
        steps: runs.iter().map(|r| r.checked.steps).sum(),
        keys_without_search,
        keys_searched: runs.iter().map(|r| r.checked.keys).sum::<usize>() - keys_without_search,
        peak_heap_bytes: runs.iter().map(|r| r.peak_heap_bytes).max().flatten(),
    }
}
