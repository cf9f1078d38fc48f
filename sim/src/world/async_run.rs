//! One run of async nodes, from the thread it is given.
//!
//! Determinism with third-party async code needs two things no model
//! should have to know. std's `HashMap` draws its keys once per thread,
//! and madsim seeds them from the run's seed only if the thread has drawn
//! none yet, so the registry runs every async seed on a fresh thread.
//! tokio's `select!` picks among ready branches with a thread-local
//! generator whose seed mixes in a process-wide counter; entering a tokio
//! runtime built with the run's seed replaces it, so the run goes inside
//! one (a current-thread runtime that is otherwise never used).

use super::{RunOutcome, RunSpec};
use crate::async_node::host::{MainFn, Message, Record};

#[cfg(not(tokio_unstable))]
compile_error!(
    "dst needs `--cfg tokio_unstable` (beside `--cfg madsim`) in its rustflags: it seeds tokio's select! from the run"
);

pub(crate) fn run_async_nodes<M: Message, R: Record>(spec: RunSpec<'_>, main: MainFn<M, R>) -> RunOutcome {
    let seed = spec.seed;
    // madsim first: it seeds std's hash keys, which nothing on this thread
    // may have drawn before.
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let tokio = tokio::runtime::Builder::new_current_thread()
        .rng_seed(tokio::runtime::RngSeed::from_bytes(&seed.to_le_bytes()))
        .build()
        .expect("a current-thread tokio runtime without drivers always builds");
    super::install_panic_hook();
    let _in_run = super::InRun::enter();
    // Through the handle: the runtime context (and its seeded generator)
    // without its scheduler, so that tokio's yield_now wakes at once
    // instead of waiting for a scheduler that never runs. Unconstrained:
    // tokio's per-task budget would otherwise count every channel
    // operation of the whole run against one tokio task.
    tokio.handle().block_on(tokio::task::unconstrained(async {
        super::drive::run_async(&rt, spec, main)
    }))
}
