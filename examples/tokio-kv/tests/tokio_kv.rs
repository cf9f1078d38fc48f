//! The tokio service under dst: the correct service passes with its goals
//! reached, the bug switch is caught by `linearizable`, and runs replay.

use dst_runner::{fuzz, FuzzOptions};
use tokio_kv_example::{registry, APPLY_BEFORE_FSYNC};

#[test]
fn the_correct_service_passes_and_reaches_its_goals() {
    let s = fuzz(&registry(), &FuzzOptions::seeds("tokio-kv-crash-restart", 0..100)).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    assert_eq!(s.tallies[0].pass, 100);
}

#[test]
fn applying_before_the_fsync_is_a_stale_read() {
    let r = registry();
    let mut o = FuzzOptions::seeds("tokio-kv-crash-restart", 0..200);
    o.bugs = vec![APPLY_BEFORE_FSYNC.to_string()];
    let s = fuzz(&r, &o).unwrap();
    assert!(s.ok(), "{}", s.failures().join("\n"));
    let v = &s.tallies[0].violations;
    assert!(v.get("linearizable").copied().unwrap_or(0) > 0, "{v:?}");
    assert_eq!(v.len(), 1, "{v:?}");
}

#[test]
fn a_seed_replays_to_the_same_trace() {
    let r = registry();
    let s = r.load("tokio-kv-crash-restart").unwrap();
    let bugs = vec![APPLY_BEFORE_FSYNC.to_string()];
    dst_runner::replays(registry, &s, 0..4, &bugs).unwrap();
}
