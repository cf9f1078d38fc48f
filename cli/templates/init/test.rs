//! The service under dst: the correct service passes, its bug switch is
//! caught, and a seed replays to the same trace.

use dst_runner::{fuzz, replays, FuzzOptions};
use {lib}::{registry, ACK_BEFORE_SYNC};

const SCENARIO: &str = "{name}-crash-restart";

#[test]
fn the_correct_service_passes() {
    let s = fuzz(&registry(), &FuzzOptions::seeds(SCENARIO, 0..50)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].pass, 50);
}

#[test]
fn acknowledging_before_the_sync_loses_writes() {
    let mut o = FuzzOptions::seeds(SCENARIO, 0..200);
    o.bugs = vec![ACK_BEFORE_SYNC.to_string()];
    let s = fuzz(&registry(), &o).unwrap();
    assert!(s.tallies[0].violations.get("linearizable").copied().unwrap_or(0) > 0, "{:?}", s.tallies[0]);
}

#[test]
fn a_seed_replays_to_the_same_trace() {
    let s = registry().load(SCENARIO).unwrap();
    replays(registry, &s, 0..3, &[ACK_BEFORE_SYNC.to_string()]).unwrap();
}
