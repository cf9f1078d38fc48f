//! A model nobody in `sim` knows, registered the way a user registers one:
//! its own config, events, invariant, bug switch and coverage goal. Every
//! command must work for it as for a built-in model.

mod common;

use common::{NoMsg, TicketEvent, UniqueTickets, Waiting};
use dst_runner::{fuzz, FuzzOptions};
use serde::Deserialize;
use sim::{
    Bug, ClientReply, ClientReq, InvariantDef, Io, KvResult, Machine, ModelDef, NodeId, Registry, Setup, SyncTicket,
    TimerId,
};
use std::process::ExitCode;

/// A ticket dispenser: each node hands out increasing numbers and keeps the
/// last one on disk, so that a restart never hands one out twice.
struct Dispenser {
    next: u64,
    waiting: Waiting,
    reply_before_fsync: bool,
}

impl Dispenser {
    fn issue(&mut self, req_id: u64, ticket: u64, io: &mut Io<Self>) {
        io.emit(&TicketEvent::Issued { ticket });
        io.reply(req_id, ClientReply::Ok(KvResult::Done));
    }
}

impl Machine for Dispenser {
    type Msg = NoMsg;
    type Rec = u64;

    fn boot(&mut self, io: &mut Io<Self>) {
        self.next = io.disk().iter().max().map_or(1, |t| t + 1);
        if self.next > 1 {
            io.reached("restart-with-tickets");
        }
    }
    fn on_message(&mut self, _: NodeId, msg: NoMsg, _: &mut Io<Self>) {
        match msg {}
    }
    fn on_timer(&mut self, _: TimerId, _: &mut Io<Self>) {}
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        if req.op.is_read() {
            return io.reply(req.req_id, ClientReply::Ok(KvResult::Value { value: vec![] }));
        }
        let ticket = self.next;
        self.next += 1;
        if io.disk_append(ticket).is_err() {
            return io.halt("the disk is full");
        }
        if self.reply_before_fsync {
            self.issue(req.req_id, ticket, io);
        } else {
            let sync = io.fsync();
            self.waiting.push(sync, req.req_id, ticket);
        }
    }
    fn on_fsynced(&mut self, sync: SyncTicket, io: &mut Io<Self>) {
        for (req_id, ticket) in self.waiting.durable_at(sync) {
            self.issue(req_id, ticket, io);
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct DispenserConfig {
    first_ticket: u64,
}

const SCENARIO: &str = r#"{
  "name": "tickets-crashing",
  "model": "dispenser",
  "nodes": 3,
  "config": {"first_ticket": 1},
  "workload": {"clients": 3, "keys": 1, "think_ms_max": 5, "put_weight": 1, "append_weight": 0,
               "get_weight": 1, "cas_weight": 0},
  "faults": {"swarm": false, "partition": false, "partition_one_way": false, "link": false,
             "crash": true, "pause": false, "interval_ms_mean": 100, "fault_ms_max": 200,
             "fsync_ms_min": 5, "fsync_ms_max": 20, "torn_write_probability": 0.0},
  "safety_ms": 2000,
  "liveness_ms": 500,
  "invariants": ["unique-tickets"],
  "coverage": ["restart-with-tickets"]
}"#;

fn registry() -> Registry {
    let model = ModelDef::new(
        "dispenser",
        "hands out unique tickets",
        |s: Setup<'_, DispenserConfig>| {
            let (first, bug) = (s.config.first_ticket, s.bug("reply-before-fsync"));
            if first == 0 {
                return Err("first_ticket must be at least 1".into());
            }
            Ok(move |_id| Dispenser {
                next: first,
                waiting: Waiting::default(),
                reply_before_fsync: bug,
            })
        },
    )
    .bugs(&[Bug {
        id: "reply-before-fsync",
        kind: "safety",
        invariants: &["unique-tickets"],
        scenario: "tickets-crashing",
        summary: "a ticket is handed out before the counter is durable",
    }])
    .goals(&[("restart-with-tickets", "a node restarted with tickets on disk")])
    .invariant(InvariantDef::new(
        "unique-tickets",
        "no node hands out the same ticket twice",
        |_| Box::new(UniqueTickets::default()),
    ));
    let mut r = Registry::new();
    r.add(model).scenario(SCENARIO);
    r
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dst-user-model-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn cli(r: &Registry, args: &[&str]) -> ExitCode {
    dst_cli::run(r, std::iter::once("dst").chain(args.iter().copied()))
}

#[test]
fn the_registry_accepts_the_model_and_its_scenario() {
    registry().check().unwrap();
}

#[test]
fn the_correct_model_passes_and_reaches_its_goal() {
    let s = fuzz(&registry(), &FuzzOptions::seeds("tickets-crashing", 0..40)).unwrap();
    assert!(s.ok(), "{:?}", s.failures());
    assert!(s.tallies[0].coverage["restart-with-tickets"] > 0);
}

#[test]
fn the_bug_switch_is_caught_by_the_models_own_invariant() {
    let mut opts = FuzzOptions::seeds("tickets-crashing", 0..40);
    opts.bugs = vec!["reply-before-fsync".into()];
    let s = fuzz(&registry(), &opts).unwrap();
    assert!(s.tallies[0].violations.get("unique-tickets").copied().unwrap_or(0) > 0);
    assert_eq!(s.tallies[0].unexpected, 0, "a violation a switch asked for is expected");
}

#[test]
fn the_command_line_runs_replays_and_refuses_bad_input_for_it() {
    let r = registry();
    let found = (0..40)
        .find(|seed| {
            let s = r.load("tickets-crashing").unwrap();
            r.run(&s, *seed, &["reply-before-fsync".into()], None)
                .unwrap()
                .verdict
                .invariant
                .is_some()
        })
        .expect("some seed finds the bug");
    let report = tmp("found.json");
    let seed = found.to_string();
    let args = [
        "run",
        "tickets-crashing",
        "--seed",
        &seed,
        "--bug",
        "reply-before-fsync",
        "--report",
    ];
    let mut args: Vec<&str> = args.to_vec();
    args.push(report.to_str().unwrap());
    // The violation the --bug switch asks for is the expected outcome.
    assert_eq!(cli(&r, &args), ExitCode::SUCCESS);
    assert!(report.exists(), "the run still writes its report");
    assert_eq!(cli(&r, &["replay", report.to_str().unwrap()]), ExitCode::SUCCESS);
    assert_eq!(cli(&r, &["list"]), ExitCode::SUCCESS);
    assert_eq!(
        cli(&r, &["run", "tickets-crashing", "--bug", "apply-requeue"]),
        ExitCode::from(2)
    );
    let bad = tmp("bad.json");
    std::fs::write(&bad, SCENARIO.replace(r#""first_ticket": 1"#, r#""first_ticket": 0"#)).unwrap();
    assert_eq!(cli(&r, &["run", bad.to_str().unwrap()]), ExitCode::from(2));
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let r = registry();
    let s = r.load("tickets-crashing").unwrap();
    for seed in 0..10 {
        let a = r.run(&s, seed, &[], None).unwrap().trace.hash_hex();
        let b = r.run(&s, seed, &[], None).unwrap().trace.hash_hex();
        assert_eq!(a, b, "seed {seed}");
    }
}
