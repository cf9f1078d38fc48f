//! A small worker pool: each OS thread pulls the next item and runs it on
//! its own simulation runtimes; results come back to the calling thread in
//! completion order. Determinism lives inside each run, so the order in
//! which threads finish never changes a verdict.

use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Instant;

/// The worker threads a command runs: `requested`, or one per core.
pub fn jobs(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Run `work` over `items` on `jobs` threads until the items run out,
/// `deadline` passes or an interruption asks to stop (no new item starts
/// after either; items in flight finish); `on_result` sees each result on
/// the calling thread.
pub fn run<T, R, I, W, C>(items: I, jobs: usize, deadline: Option<Instant>, work: W, mut on_result: C)
where
    T: Send,
    R: Send,
    I: Iterator<Item = T> + Send,
    W: Fn(T) -> R + Sync,
    C: FnMut(R),
{
    let items = Mutex::new(items);
    let (tx, rx) = mpsc::channel::<R>();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (items, work) = (&items, &work);
            s.spawn(move || loop {
                if sim::host::interrupt::stopping() || deadline.is_some_and(|d| Instant::now() >= d) {
                    return;
                }
                let next = items.lock().map(|mut it| it.next()).unwrap_or(None);
                let Some(item) = next else { return };
                if tx.send(work(item)).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        for r in rx {
            on_result(r);
        }
    });
}
