//! Storage faults reach a user's model as values: a read error or a
//! rotten record at boot, a refused write, a failed fsync (whose default
//! is to halt and be rebooted). A ticket dispenser that keeps its counter
//! on disk must never hand out a ticket twice; the two ways of getting
//! storage errors wrong are its bug switches, and its own invariant
//! catches both.

mod common;

use common::{NoMsg, TicketEvent, UniqueTickets, Waiting};
use dst_runner::{fuzz, FuzzOptions};
use serde::Deserialize;
use sim::{
    Bug, ClientReply, ClientReq, DiskError, EventKind, InvariantDef, Io, KvResult, Machine, ModelDef, NodeId, Registry,
    Setup, SyncTicket, TimerId,
};

#[derive(Clone, Copy, Default)]
struct Bugs {
    read_error_as_empty: bool,
    fsync_error_ignored: bool,
}

struct Ledger {
    next: u64,
    waiting: Waiting,
    bugs: Bugs,
}

impl Ledger {
    fn issue_up_to(&mut self, sync: SyncTicket, io: &mut Io<Self>) {
        for (req_id, ticket) in self.waiting.durable_at(sync) {
            io.emit(&TicketEvent::Issued { ticket });
            io.reply(req_id, ClientReply::Ok(KvResult::Done));
        }
    }
}

impl Machine for Ledger {
    type Msg = NoMsg;
    type Rec = u64;

    fn boot(&mut self, io: &mut Io<Self>) {
        // Ticket n is the n-th record: the count on disk is the counter.
        let issued = match io.read_disk() {
            Ok(d) => d.len() as u64,
            Err(e) => {
                io.reached("boot-disk-error");
                if self.bugs.read_error_as_empty && e == DiskError::Read {
                    0
                } else {
                    return io.halt(&format!("cannot read the disk: {e}"));
                }
            }
        };
        self.next = issued + 1;
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
        if io.disk_append(ticket).is_err() {
            io.reached("disk-full");
            return io.reply(req.req_id, ClientReply::NotLeader { hint: None });
        }
        self.next += 1;
        let sync = io.fsync();
        self.waiting.push(sync, req.req_id, ticket);
    }
    fn on_fsynced(&mut self, sync: SyncTicket, io: &mut Io<Self>) {
        self.issue_up_to(sync, io);
    }
    fn on_fsync_failed(&mut self, sync: SyncTicket, io: &mut Io<Self>) {
        io.reached("fsync-failed");
        if self.bugs.fsync_error_ignored {
            self.issue_up_to(sync, io);
        } else {
            io.halt("an fsync failed");
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct LedgerConfig {}

const SCENARIO: &str = r#"{
  "name": "ledger-disk-faults",
  "model": "ledger",
  "nodes": 3,
  "workload": {"clients": 3, "keys": 1, "think_ms_max": 5, "put_weight": 1, "append_weight": 0,
               "get_weight": 1, "cas_weight": 0},
  "faults": {"swarm": false, "partition": false, "partition_one_way": false, "link": false,
             "crash": true, "pause": false, "disk": true, "interval_ms_mean": 80, "fault_ms_max": 300,
             "fsync_ms_min": 5, "fsync_ms_max": 20, "torn_write_probability": 0.0},
  "safety_ms": 3000,
  "liveness_ms": 500,
  "invariants": ["unique-tickets"],
  "coverage": ["boot-disk-error", "fsync-failed", "disk-full"]
}"#;

fn registry() -> Registry {
    let model = ModelDef::new(
        "ledger",
        "hands out unique tickets from a counter on disk",
        |s: Setup<'_, LedgerConfig>| {
            let bugs = Bugs {
                read_error_as_empty: s.bug("read-error-as-empty"),
                fsync_error_ignored: s.bug("fsync-error-ignored"),
            };
            Ok(move |_id| Ledger {
                next: 1,
                waiting: Waiting::default(),
                bugs,
            })
        },
    )
    .bugs(&[
        Bug {
            id: "read-error-as-empty",
            kind: "safety",
            invariants: &["unique-tickets"],
            scenario: "ledger-disk-faults",
            summary: "an unreadable disk is taken for an empty one: numbering starts again at 1",
        },
        Bug {
            id: "fsync-error-ignored",
            kind: "safety",
            invariants: &["unique-tickets"],
            scenario: "ledger-disk-faults",
            summary: "a failed fsync is taken for a durable one: a ticket whose write was lost is handed out again",
        },
    ])
    .goals(&[
        ("boot-disk-error", "a boot found the disk unreadable or a record rotten"),
        ("fsync-failed", "an fsync failed"),
        ("disk-full", "a write was refused for lack of space"),
    ])
    .invariant(InvariantDef::new(
        "unique-tickets",
        "no node hands out the same ticket twice",
        |_| Box::new(UniqueTickets::default()),
    ));
    let mut r = Registry::new();
    r.add(model).scenario(SCENARIO);
    r
}

const SEEDS: std::ops::Range<u64> = 0..60;

#[test]
fn the_correct_model_passes_and_meets_every_storage_fault() {
    let r = registry();
    r.check().unwrap();
    let s = fuzz(&r, &FuzzOptions::seeds("ledger-disk-faults", SEEDS)).unwrap();
    assert!(s.ok(), "{:?}", s.failures());
    for goal in ["boot-disk-error", "fsync-failed", "disk-full"] {
        assert!(s.tallies[0].coverage[goal] > 0, "{goal} never reached");
    }
}

#[test]
fn each_way_of_mishandling_a_storage_error_is_caught() {
    for bug in ["read-error-as-empty", "fsync-error-ignored"] {
        let mut opts = FuzzOptions::seeds("ledger-disk-faults", SEEDS);
        opts.bugs = vec![bug.into()];
        let s = fuzz(&registry(), &opts).unwrap();
        let caught = s.tallies[0].violations.get("unique-tickets").copied().unwrap_or(0);
        assert!(caught > 0, "{bug} not caught in {SEEDS:?}");
        assert_eq!(s.tallies[0].unexpected, 0, "{bug}: {:?}", s.failures());
    }
}

#[test]
fn a_failed_fsync_halts_by_default_and_the_node_comes_back() {
    let r = registry();
    let sc = r.load("ledger-disk-faults").unwrap();
    let mut seen = (0, 0, 0);
    for seed in SEEDS {
        let out = r.run(&sc, seed, &[], None).unwrap();
        let events = out.trace.events();
        for (k, e) in events.iter().enumerate() {
            if let EventKind::FsyncFailed { dropped, kept, .. } = e.kind {
                seen.0 += 1;
                assert!(dropped + kept > 0 || events.iter().any(|x| matches!(x.kind, EventKind::Halt { .. })));
            }
            if let EventKind::Halt { .. } = e.kind {
                seen.1 += 1;
                // Down now; booted again later unless the run ends first.
                let node = e.node;
                let back = events[k + 1..]
                    .iter()
                    .any(|x| x.node == node && matches!(x.kind, EventKind::Boot { restart: true }));
                let end = events.last().map_or(0, |l| l.t_ns);
                assert!(
                    back || end < e.t_ns + 500_000_000,
                    "seed {seed}: node {node:?} never came back"
                );
                seen.2 += back as u64;
            }
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0 && seen.2 > 0, "{seen:?}");
}

#[test]
fn storage_faults_replay_exactly() {
    let r = registry();
    let sc = r.load("ledger-disk-faults").unwrap();
    for seed in 0..10 {
        let a = r.run(&sc, seed, &[], None).unwrap();
        let b = r.run(&sc, seed, &[], Some(a.plan.clone())).unwrap();
        assert_eq!(a.trace.hash_hex(), b.trace.hash_hex(), "seed {seed}");
        assert!(a.plan.iter().any(|e| matches!(
            e.action,
            sim::fault::Action::Disk { .. } | sim::fault::Action::DiskRot { .. }
        )));
    }
}
