//! The memory cap of `dst check` (`linearizability::mem::cap_from_here`), with dst's
//! counting allocator as this test binary's, as it is the `dst` binary's.

#[global_allocator]
static ALLOC: linearizability::mem::Counting = linearizability::mem::Counting;

use linearizability::mem;

#[test]
fn a_cap_is_crossed_rearmed_and_lifted_on_this_thread_only() {
    assert!(mem::cap_from_here(1 << 20), "the counting allocator is this binary's");
    assert_eq!(mem::cap(), Some(1 << 20));
    assert!(!mem::over_cap());
    let room = mem::room().unwrap();
    assert!(room <= 1 << 20 && room > 900_000, "{room}");

    // An allocation that crosses the cap succeeds and is remembered.
    let big = vec![1u8; 2 << 20];
    assert!(mem::over_cap());
    assert_eq!(mem::room(), Some(0));
    // Another thread has its own count and no cap.
    let other = std::thread::spawn(|| {
        let v = vec![0u8; 4 << 20];
        (v.len(), mem::over_cap(), mem::cap())
    })
    .join()
    .unwrap();
    assert_eq!(other, (4 << 20, false, None));

    // Still over while held; forgotten once freed.
    assert!(mem::rearm());
    drop(big);
    assert!(mem::over_cap(), "sticky until rearmed");
    assert!(!mem::rearm());
    assert!(!mem::over_cap());

    // Work run uncapped is not cut short, and what it leaves counts after.
    let kept = mem::uncapped(|| {
        let v = vec![2u8; 3 << 20];
        assert!(!mem::over_cap());
        v
    });
    assert!(mem::over_cap(), "what the uncapped work left is over the cap");
    drop(kept);
    assert!(!mem::rearm());

    // Small allocations count as malloc lays them out: a header, rounded
    // to 16 bytes, at least 32.
    let before = mem::room().unwrap();
    let small: Vec<Box<u16>> = (0..1000u16).map(Box::new).collect();
    let taken = before - mem::room().unwrap();
    assert!(taken >= 1000 * 32 + 8000, "{taken}");
    drop(small);
}
