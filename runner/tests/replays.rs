//! `dst_runner::replays` fails where a model keeps state outside its run:
//! one drawn per thread shows up on the fresh thread, one carried from run
//! to run shows up on the replay from the plan; a model with neither passes.

use serde::{Deserialize, Serialize};
use sim::{
    ClientReq, Event, Invariant, InvariantDef, Io, Machine, ModelDef, MsgInfo, Registry, Setup, SyncTicket, TimerId,
    Violation,
};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Debug, Serialize)]
enum NoMsg {}

impl MsgInfo for NoMsg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

static THREADS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// Fixed for a thread, different on the next: an unseeded generator.
    static THIS_THREAD: u64 = THREADS.fetch_add(1, Ordering::Relaxed);
    /// Counts the boots on this thread: a cache that outlives a run.
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Sets a timer at boot whose delay depends on the source, and says the
/// delay in the trace when it fires.
struct Ticker {
    delay_ns: u64,
    per_run: bool,
}

impl Machine for Ticker {
    type Msg = NoMsg;
    type Rec = ();

    fn boot(&mut self, io: &mut Io<Self>) {
        if self.per_run {
            self.delay_ns += RUNS.with(|r| {
                r.set(r.get() + 1);
                r.get()
            }) * 1_000;
        }
        io.set_timer(1, self.delay_ns);
    }
    fn on_message(&mut self, _: usize, m: NoMsg, _: &mut Io<Self>) {
        match m {}
    }
    fn on_timer(&mut self, _: TimerId, io: &mut Io<Self>) {
        io.emit(&self.delay_ns);
    }
    fn on_client(&mut self, _: ClientReq, _: &mut Io<Self>) {}
    fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
}

struct Holds;

impl Invariant for Holds {
    fn id(&self) -> &'static str {
        "holds"
    }
    fn observe(&mut self, _: &Event) -> Result<(), Violation> {
        Ok(())
    }
}

fn scenario(source: &str) -> String {
    format!(
        r#"{{"name": "{source}", "model": "ticker", "nodes": 1, "config": {{"source": "{source}"}},
            "workload": {{"clients": 0}}, "faults": {{"swarm": false, "partition": false, "link": false,
            "crash": false, "pause": false}}, "safety_ms": 100, "liveness_ms": 10, "invariants": ["holds"]}}"#
    )
}

#[derive(Deserialize)]
struct Source {
    source: String,
}

fn registry() -> Registry {
    let model = ModelDef::new("ticker", "one timer", |setup: Setup<'_, Source>| {
        let extra = match setup.config.source.as_str() {
            "steady" => 0,
            "per-thread" => THIS_THREAD.with(|t| *t),
            "per-run" => 0,
            other => return Err(format!("unknown source '{other}'")),
        };
        let per_run = setup.config.source == "per-run";
        Ok(move |_| Ticker {
            delay_ns: 1_000_000 + extra * 1_000,
            per_run,
        })
    })
    .invariant(InvariantDef::new("holds", "nothing", |_| Box::new(Holds)));
    let mut reg = Registry::new();
    reg.add(model);
    for source in ["steady", "per-thread", "per-run"] {
        reg.scenario(&scenario(source));
    }
    reg
}

fn replays(source: &str) -> Result<(), String> {
    let s = registry().load(source).unwrap();
    dst_runner::replays(registry, &s, 0..3, &[])
}

#[test]
fn a_model_with_no_state_outside_its_run_replays() {
    replays("steady").unwrap();
}

#[test]
fn state_drawn_per_thread_is_caught_on_the_fresh_thread() {
    let e = replays("per-thread").unwrap_err();
    assert!(
        e.starts_with("per-thread seed 0 ran to trace ") && e.ends_with("on a fresh thread"),
        "{e}"
    );
}

#[test]
fn state_carried_from_run_to_run_is_caught_on_the_replay_from_the_plan() {
    let e = replays("per-run").unwrap_err();
    assert!(
        e.starts_with("per-run seed 0 ran to trace ") && e.contains("from its own fault plan"),
        "{e}"
    );
}
