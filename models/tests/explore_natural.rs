//! The natural order of an explored run, as the walk builds on it: a
//! client refused by a cluster with no leader yet backs off as its policy
//! says and its refused op gives its place under the op bound back, so the
//! ops the bound allows reach a leader instead of being spent before one
//! exists.

mod support;

use sim::explore::Bounds;
use sim::{Event, EventKind, RunOutcome};

fn natural(scenario: &str, ops: u32) -> RunOutcome {
    let sc = models::registry().load(scenario).unwrap();
    let bounds = Bounds {
        ops,
        liveness: false,
        ..Bounds::default()
    };
    support::natural(&sc, bounds)
}

fn count(events: &[Event], f: impl Fn(&EventKind) -> bool) -> usize {
    events.iter().filter(|e| f(&e.kind)).count()
}

#[test]
fn refused_ops_give_their_place_back_and_the_allowed_ones_reach_a_leader() {
    // Elections take 150 ms or more here; clients start at once.
    let out = natural("raft-figure8", 2);
    let ev = out.trace.events();
    let refused = count(ev, |k| matches!(k, EventKind::Fail { why, .. } if why == "no leader"));
    let answered = count(ev, |k| matches!(k, EventKind::Ok { .. }));
    let invoked = count(ev, |k| matches!(k, EventKind::Invoke { .. }));
    assert!(refused > 0, "the clients meet a cluster with no leader yet");
    assert_eq!(answered, 2, "both ops the bound allows are answered by a leader");
    assert_eq!(
        invoked,
        refused + answered,
        "only refused ops were invoked beyond the bound"
    );
}

#[test]
fn a_refused_client_waits_out_its_backoff_in_the_natural_order() {
    let out = natural("raft-figure8", 1);
    let w = models::registry().load("raft-figure8").unwrap().workload;
    // Every try but the first waits out a whole backoff after a refusal.
    let least_ns = (w.retries_max as u64 - 1) * w.retry_backoff_ms * 1_000_000;
    let mut invoked = std::collections::BTreeMap::new();
    let mut refused = 0;
    for e in out.trace.events() {
        match &e.kind {
            EventKind::Invoke { op_id, .. } => {
                invoked.insert(*op_id, e.t_ns);
            }
            EventKind::Fail { op_id, why, .. } if why == "no leader" => {
                refused += 1;
                let took = e.t_ns - invoked[op_id];
                assert!(took >= least_ns, "op {op_id} was refused for good after {took} ns");
            }
            _ => {}
        }
    }
    assert!(refused > 0, "an op was refused for good before the first leader");
}
