//! A model that stops making progress ends as an error verdict with its
//! seed, whatever it loops in: a timer re-armed at zero delay (simulated
//! time never moves on and the trace never grows), a handler that emits
//! outputs forever, timers piling up in the queue. Each such run is a
//! finding that a report replays, not a hang.

use serde::Serialize;
use sim::outcome::limits;
use sim::outcome::{classify, Class};
use sim::{
    ClientReply, ClientReq, Io, Machine, ModelDef, ModelEvent, MsgInfo, NodeId, Overrides, Registry, RunSpec, Scenario,
    Setup, Status, SyncTicket, TimerId,
};

#[derive(Clone, Debug, Serialize)]
struct Ping;

impl MsgInfo for Ping {
    fn kind(&self) -> &'static str {
        "ping"
    }
}

/// How a [`Stuck`] node fails to make progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Loop {
    /// Its timer re-arms at zero delay.
    #[default]
    ZeroTimer,
    /// Its boot sends messages and never returns.
    Emit,
    /// Every millisecond it sets a fresh batch of timers an hour away.
    Pile,
    /// It sends to a node the cluster does not have.
    Stray,
    /// Correct: every millisecond it reports an event.
    Tick,
    /// Refuses every client op with a leader hint naming no node.
    StrayHint,
}

struct Stuck {
    how: Loop,
    next_id: TimerId,
}

impl Machine for Stuck {
    type Msg = Ping;
    type Rec = ();
    fn boot(&mut self, io: &mut Io<Self>) {
        match self.how {
            Loop::Emit if io.id() == 1 => loop {
                io.send(0, Ping);
            },
            Loop::Stray if io.id() == 1 => io.send(io.nodes() + 4, Ping),
            _ => io.set_timer(0, 1_000_000),
        }
    }
    fn on_message(&mut self, _: NodeId, _: Ping, _: &mut Io<Self>) {}
    fn on_timer(&mut self, _: TimerId, io: &mut Io<Self>) {
        match self.how {
            Loop::ZeroTimer => io.set_timer(0, 0),
            Loop::Pile => {
                for _ in 0..limits::STEP_OUTPUTS_MAX / 2 {
                    self.next_id += 1;
                    io.set_timer(self.next_id, 3_600_000_000_000);
                }
                io.set_timer(0, 1_000_000);
            }
            _ => {
                self.next_id += 1;
                io.event(ModelEvent::Commit { index: self.next_id });
                io.set_timer(0, 1_000_000);
            }
        }
    }
    fn on_client(&mut self, req: ClientReq, io: &mut Io<Self>) {
        let hint = (self.how == Loop::StrayHint).then_some(io.nodes() + 96);
        io.reply(req.req_id, ClientReply::NotLeader { hint });
    }
    fn on_fsynced(&mut self, _: SyncTicket, _: &mut Io<Self>) {}
}

#[derive(Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct StuckConfig {
    how: Loop,
}

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.add(ModelDef::new(
        "stuck",
        "a node that stops making progress",
        |s: Setup<'_, StuckConfig>| {
            let how = s.config.how;
            Ok(move |_| Stuck { how, next_id: 0 })
        },
    ));
    reg
}

fn scenario(how: &str) -> Scenario {
    Scenario::from_json(&format!(
        r#"{{"name":"stuck","model":"stuck","nodes":3,"invariants":["no-dual-leaders"],"safety_ms":1000,"liveness_ms":500,
            "workload":{{"clients":0}},"config":{{"how":"{how}"}},
            "faults":{{"swarm":false,"partition":false,"partition_one_way":false,"link":false,"crash":false,"pause":false}}}}"#
    ))
    .unwrap()
}

/// Runs seed 5 through the registry: the verdict must be an error, a
/// finding, and the same verdict and trace on a second run with the first
/// one's plan, as a replay of its report runs it.
fn stalls(how: &str) -> String {
    let reg = registry();
    let s = scenario(how);
    reg.validate(&s, &[]).unwrap();
    let out = reg.run(&s, 5, &[], None).unwrap();
    assert_eq!(out.seed, 5);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    assert_eq!(classify(&out, &[], &[]), Class::Unexpected);
    let again = reg
        .run_with(
            &out.scenario,
            5,
            &[],
            Overrides {
                plan: Some(out.plan.clone()),
                ..Overrides::default()
            },
        )
        .unwrap();
    assert_eq!(again.verdict, out.verdict);
    assert_eq!(again.trace.hash_hex(), out.trace.hash_hex());
    out.verdict.message.unwrap()
}

#[test]
fn a_timer_rearmed_at_zero_delay_stalls_within_one_simulated_second() {
    let msg = stalls("zero-timer");
    assert!(
        msg.starts_with(&format!(
            "stalled at 1 ms: more than {} events within simulated second 0, the last timer 0 of node",
            limits::EVENTS_PER_SIM_SECOND_MAX
        )),
        "{msg}"
    );
}

#[test]
fn a_handler_that_emits_forever_is_cut_short() {
    let msg = stalls("emit");
    assert_eq!(
        msg,
        format!(
            "stalled at 0 ms: node 1 produced more than {} outputs handling its boot",
            limits::STEP_OUTPUTS_MAX
        )
    );
}

#[test]
fn timers_piling_up_in_the_queue_stall_the_run() {
    let msg = stalls("pile");
    assert!(
        msg.contains(&format!("more than {} events pending", limits::PENDING_MAX)),
        "{msg}"
    );
}

#[test]
fn a_message_to_a_node_the_cluster_lacks_is_an_error() {
    let msg = stalls("stray");
    assert_eq!(
        msg,
        "node 1 sent a message to node 7, which does not exist (nodes 0..3)"
    );
}

/// A scenario built in code skips validation: a liveness phase that would
/// end past the largest time must still run (saturating, never wrapping to
/// an end before the heal), until the event budget stops it.
#[test]
fn a_liveness_phase_past_the_end_of_time_runs_until_the_budget_stops_it() {
    let mut s = scenario("tick");
    s.liveness_ms = u64::MAX;
    s.event_budget = 6_000;
    let out = sim::run(
        RunSpec {
            plan: Some(vec![]),
            ..RunSpec::new(&s, 1)
        },
        |_| Stuck {
            how: Loop::Tick,
            next_id: 0,
        },
    );
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    assert!(out.verdict.message.unwrap().contains("event budget of 6000"));
    assert!(out.sim_ns > s.safety_ms * 1_000_000, "the liveness phase ran");
}

#[test]
fn the_bounds_leave_a_busy_correct_run_alone() {
    let out = registry().run(&scenario("tick"), 2, &[], None).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    assert!(out.trace.len() > 4_000, "every node ticked every millisecond");
}

#[test]
fn a_leader_hint_naming_no_node_sends_the_client_to_the_next_node() {
    let reg = registry();
    let json = serde_json::to_string(&scenario("stray-hint")).unwrap();
    let s = Scenario::from_json(&json.replace(r#""clients":0"#, r#""clients":2"#)).unwrap();
    assert_eq!(s.workload.clients, 2);
    reg.validate(&s, &[]).unwrap();
    let out = reg.run(&s, 5, &[], None).unwrap();
    assert_eq!(out.verdict.status, Status::Pass, "{:?}", out.verdict);
    let fails = out
        .trace
        .events()
        .iter()
        .filter(|e| matches!(e.kind, sim::EventKind::Fail { .. }))
        .count();
    assert!(fails > 0, "the clients ran out of retries against refusals");
}
