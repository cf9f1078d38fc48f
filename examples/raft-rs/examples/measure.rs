//! Runs seeds of the raft-rs scenarios and prints what happened.
//!
//! ```sh
//! cargo run --release -p raft-rs-example --example measure -- SCENARIO|all FROM..TO \
//!     [--determinism] [--verbose] [--reports DIR]
//! ```
//!
//! `--determinism` runs every seed twice and compares trace hashes;
//! `--reports DIR` writes a dst JSON report for each of the first three
//! seeds that did not pass.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args
        .first()
        .expect("usage: measure SCENARIO FROM..TO [--determinism] [--verbose]");
    let (from, to) = args
        .get(1)
        .and_then(|r| r.split_once(".."))
        .map(|(a, b)| (a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()))
        .unwrap_or((0, 100));
    let determinism = args.iter().any(|a| a == "--determinism");
    let verbose = args.iter().any(|a| a == "--verbose");
    let reports = args
        .iter()
        .position(|a| a == "--reports")
        .map(|i| std::path::PathBuf::from(&args[i + 1]));
    let names: Vec<&str> = if name == "all" {
        raft_rs_example::SCENARIOS.iter().map(|(n, _)| *n).collect()
    } else {
        vec![name.as_str()]
    };
    for name in names {
        let sc = raft_rs_example::scenario(name).unwrap();
        let start = Instant::now();
        let mut by: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        let mut coverage: BTreeMap<String, u64> = BTreeMap::new();
        let mut mismatches = Vec::new();
        let mut unknown = 0;
        for seed in from..to {
            let out = raft_rs_example::run(&sc, seed, None).unwrap();
            let key = match &out.verdict.invariant {
                Some(i) => i.clone(),
                None => format!("{:?}", out.verdict.status).to_lowercase(),
            };
            if verbose && key != "pass" {
                println!(
                    "  seed {seed}: {key}: {}",
                    out.verdict.message.clone().unwrap_or_default()
                );
            }
            let failed = by
                .iter()
                .filter(|(k, _)| *k != "pass")
                .map(|(_, v)| v.len())
                .sum::<usize>();
            if let (Some(dir), true) = (&reports, key != "pass" && failed < 3) {
                write_report(dir, &sc, seed, &out);
            }
            by.entry(key).or_default().push(seed);
            for g in &out.coverage {
                *coverage.entry(g.clone()).or_default() += 1;
            }
            unknown += out.counters.get("linearizable_unknown").copied().unwrap_or(0);
            if determinism {
                let again = raft_rs_example::run(&sc, seed, None).unwrap();
                if again.trace.hash_hex() != out.trace.hash_hex() {
                    mismatches.push(seed);
                }
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let runs = (to - from) * if determinism { 2 } else { 1 };
        println!(
            "{name}: seeds {from}..{to}, {runs} runs in {secs:.1}s ({:.1} runs/s)",
            runs as f64 / secs
        );
        for (k, seeds) in &by {
            let first: Vec<u64> = seeds.iter().take(8).copied().collect();
            println!("  {k}: {} (first {:?})", seeds.len(), first);
        }
        let goals: BTreeSet<&String> = sc.coverage.iter().collect();
        for g in goals {
            println!("  coverage {g}: {} seeds", coverage.get(g).copied().unwrap_or(0));
        }
        let extra: Vec<String> = coverage.keys().filter(|g| !sc.coverage.contains(g)).cloned().collect();
        println!("  also reached: {}", extra.join(", "));
        if unknown > 0 {
            println!("  linearizable undecided: {unknown}");
        }
        if determinism {
            println!("  determinism mismatches: {} {:?}", mismatches.len(), mismatches);
        }
    }
}

fn write_report(dir: &std::path::Path, sc: &sim::Scenario, seed: u64, out: &sim::RunOutcome) {
    let report = sim::report::Report {
        schema: sim::report::SCHEMA,
        dst_version: env!("CARGO_PKG_VERSION").to_string(),
        scenario: sc.name.clone(),
        seed,
        bugs: vec![],
        config: serde_json::to_value(sc).unwrap(),
        swarm: out.draw.clone(),
        plan: out.plan.clone(),
        verdict: out.verdict.clone(),
        expected: false,
        coverage: out.coverage.clone(),
        stats: sim::report::Stats {
            events: out.trace.len() as u64,
            messages: out.messages,
            sim_ns: out.sim_ns,
            wall_ms: 0,
            counters: out.counters.clone(),
        },
        trace_hash: out.trace.hash_hex(),
        replay: String::new(),
        trace: out.trace.events().to_vec(),
    };
    let path = dir.join(format!("{}-{seed}.json", sc.name));
    report.write(&path).unwrap();
    println!("  report: {}", path.display());
}
