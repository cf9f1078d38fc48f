//! `dst bench` reports what it measures (never asserted as speed: these
//! machines are shared): per scenario the rate, the simulated-to-real
//! ratio, the peak heap of a run (dst counts its allocations) and the ratio
//! to a bare madsim loop; a scaling table; and bad input in one line.

use serde_json::Value;
use std::process::{Command, Output};

fn dst(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dst"))
        .env("DST_MIN_FREE", "0")
        .args(args)
        .output()
        .unwrap()
}

fn positive(v: &Value, field: &str) -> f64 {
    let x = v[field].as_f64().unwrap_or_else(|| panic!("{field} missing in {v}"));
    assert!(x > 0.0, "{field} = {x} in {v}");
    x
}

#[test]
fn bench_reports_rate_real_time_ratio_peak_memory_and_a_scaling_table() {
    let o = dst(&[
        "bench",
        "--scenario",
        "raft-crash-restart",
        "--seeds",
        "2",
        "--scale-nodes",
        "3,5",
        "--scale-seconds",
        "2,20",
        "--no-checker",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["scenario"], "raft-crash-restart");
    for f in [
        "seeds_per_s",
        "events_per_s",
        "sim_per_real",
        "bare_seeds_per_s",
        "ratio",
    ] {
        positive(row, f);
    }
    assert!(row["peak_bytes"].as_u64().unwrap() > 10_000, "{row}");
    let cells = v["scaling"]["cells"].as_array().unwrap();
    let shape: Vec<(u64, u64)> = cells
        .iter()
        .map(|c| (c["nodes"].as_u64().unwrap(), c["seconds"].as_u64().unwrap()))
        .collect();
    assert_eq!(shape, vec![(3, 2), (3, 20), (5, 2), (5, 20)]);
    for c in cells {
        positive(c, "sim_per_real");
        positive(c, "wall_s_per_seed");
        assert!(c["peak_bytes"].as_u64().unwrap() > 0, "{c}");
    }
    let events = |n, s| {
        cells.iter().find(|c| c["nodes"] == n && c["seconds"] == s).unwrap()["events_per_seed"]
            .as_u64()
            .unwrap()
    };
    assert!(
        events(3, 20) > events(3, 2) * 3,
        "ten times the simulated time, many more events"
    );
    assert!(v["checker"].as_array().unwrap().is_empty());
}

#[test]
fn bench_refuses_bad_input_in_one_line() {
    for args in [
        &["bench", "--seeds", "0", "--scale", "none", "--no-checker"][..],
        &[
            "bench",
            "--scenario",
            "raft-crash-restart",
            "--scale",
            "no-such-scenario",
        ][..],
        &["bench", "--scenario", "raft-crash-restart", "--scale-seeds", "0"][..],
        &[
            "bench",
            "--scenario",
            "raft-crash-restart",
            "--scale-nodes",
            "0",
            "--no-checker",
        ][..],
    ] {
        let o = dst(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}
