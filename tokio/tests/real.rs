//! Outside a simulation this crate is real tokio: `#[tokio::test]`,
//! `#[tokio::main]`-style runtimes, spawning, time and the task types work
//! as they always did, so a dependency graph that patches tokio in keeps
//! its ordinary tests.

use std::time::Duration;

#[tokio::test]
async fn a_test_runs_on_real_tokio_and_spawns_there() {
    assert!(!tokio::dst::in_run());
    assert_eq!(tokio::spawn(async { 1 }).await.unwrap(), 1);
    let h = tokio::spawn(std::future::pending::<()>());
    h.abort();
    assert!(h.await.unwrap_err().is_cancelled());
    assert_eq!(tokio::task::spawn_blocking(|| 2).await.unwrap(), 2);
    let mut set = tokio::task::JoinSet::new();
    set.spawn(async { 3 });
    assert_eq!(set.join_next().await.unwrap().unwrap(), 3);
}

#[tokio::test]
async fn time_is_real_tokio_s() {
    let start = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(start.elapsed() >= Duration::from_millis(20));
    assert!(
        tokio::time::timeout(Duration::from_millis(1), std::future::pending::<()>())
            .await
            .is_err()
    );
    let mut every = tokio::time::interval(Duration::from_millis(10));
    every.tick().await;
    every.tick().await;
    assert!(start.elapsed() >= Duration::from_millis(30));
}

#[test]
fn a_runtime_built_outside_a_simulation_is_real() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(async { tokio::spawn(async { 4 }).await.unwrap() }), 4);
    assert_eq!(rt.handle().runtime_flavor(), tokio::runtime::RuntimeFlavor::MultiThread);
    let local = tokio::task::LocalSet::new();
    let rc = std::rc::Rc::new(5);
    let got = local.block_on(&rt, async move {
        tokio::task::spawn_local(async move { *rc }).await.unwrap()
    });
    assert_eq!(got, 5);
}

#[test]
fn randomness_outside_a_simulation_is_the_system_s() {
    let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
    tokio::dst::fill_random(&mut a).unwrap();
    tokio::dst::fill_random(&mut b).unwrap();
    assert_ne!(a, b);
}
