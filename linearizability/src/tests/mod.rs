//! The search on hand-written histories, and cross-checked against the
//! brute-force checker on many small random ones.

use super::gen::{inject_stale_read, register_history, Shape};
use super::*;
use crate::kv_ops::{apply_kv, KvOp, KvResult};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

mod brute;
mod edn_stream;
mod jepsen_edn;
mod set_order;
mod string_kv_appends;
mod unique_values;

type KvHistory = History<KvOp, KvResult>;
type KvOp_ = Op<KvOp, KvResult>;

pub(super) fn op<I, O>(client: u64, input: I, output: Option<O>, invoke: u64, complete: Option<u64>) -> Op<I, O> {
    Op {
        client,
        input,
        output,
        invoke,
        complete,
    }
}

fn put(key: u32, value: u64) -> KvOp {
    KvOp::Put { key, value }
}
fn append(key: u32, value: u64) -> KvOp {
    KvOp::Append { key, value }
}
fn get(key: u32) -> KvOp {
    KvOp::Get { key }
}
fn done() -> Option<KvResult> {
    Some(KvResult::Done)
}
fn read(v: &[u64]) -> Option<KvResult> {
    Some(KvResult::Value { value: v.to_vec() })
}

fn run(h: &KvHistory) -> Checked {
    check(&DstKv, h, &Options::default())
}

fn failure(c: &Checked) -> &Failure {
    match &c.outcome {
        Outcome::NotLinearizable(f) => f,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn concurrent_writes_and_reads_are_linearizable() {
    let h = History {
        ops: vec![
            op(0, put(1, 1), done(), 0, Some(5)),
            op(1, put(1, 2), done(), 1, Some(4)),
            op(2, get(1), read(&[1]), 2, Some(6)),
            op(2, get(1), read(&[1]), 7, Some(8)),
            op(1, append(1, 3), done(), 9, Some(10)),
            op(0, get(1), read(&[1, 3]), 11, Some(12)),
        ],
    };
    let c = run(&h);
    assert_eq!(c.outcome, Outcome::Linearizable);
    assert_eq!((c.ops, c.keys), (6, 1));
}

#[test]
fn a_stale_read_is_not_linearizable() {
    let h = History {
        ops: vec![
            op(0, put(7, 1), done(), 0, Some(1)),
            op(1, put(7, 2), done(), 2, Some(3)),
            op(2, get(7), read(&[1]), 4, Some(5)),
        ],
    };
    let c = run(&h);
    let f = failure(&c);
    assert_eq!((f.key.as_str(), f.unplaced, f.state.as_str()), ("7", 2, "[2]"));
    assert_eq!(f.linearized, vec![0, 1]);
    assert_eq!(
        f.message(&DstKv, &h, "event"),
        "key 7: get -> [1] by client 2 (events 4..5) cannot be linearized after put 1 by client 0 (events 0..1), \
         put 2 by client 1 (events 2..3); the state there is [2]"
    );
}

#[test]
fn a_lost_write_is_not_linearizable() {
    let h = History {
        ops: vec![
            op(0, append(3, 1), done(), 0, Some(1)),
            op(1, append(3, 2), done(), 2, Some(4)),
            op(0, get(3), read(&[1]), 3, Some(6)),
            op(2, get(3), read(&[2]), 7, Some(8)),
        ],
    };
    let f = failure(&run(&h)).clone();
    assert_eq!(f.unplaced, 3);
    assert_eq!(f.linearized.len(), 3);
}

#[test]
fn an_unknown_write_may_land_late_or_never() {
    // Client 0's put of 1 timed out before client 1's put of 2 began: it can
    // explain a later read of [1] only by taking effect after put 2.
    let mut ops = vec![
        op(0, put(1, 1), None, 0, Some(1)),
        op(1, put(1, 2), done(), 2, Some(3)),
        op(2, get(1), read(&[1]), 4, Some(5)),
        op(2, get(1), read(&[1]), 6, Some(7)),
    ];
    assert_eq!(run(&History { ops: ops.clone() }).outcome, Outcome::Linearizable);
    // Never happening is allowed too.
    ops[2].output = read(&[2]);
    ops[3].output = read(&[2]);
    assert_eq!(run(&History { ops: ops.clone() }).outcome, Outcome::Linearizable);
    // But once seen, it cannot un-happen.
    ops[2].output = read(&[1]);
    failure(&run(&History { ops: ops.clone() }));
    // And if it had failed it never happened: [1] cannot be read.
    ops.remove(0);
    ops[1].output = read(&[1]);
    failure(&run(&History { ops }));
}

#[test]
fn an_unknown_read_constrains_nothing() {
    let h = History {
        ops: vec![
            op(0, put(1, 1), done(), 0, Some(1)),
            op(1, get(1), read(&[9]), 2, None),
            op(1, get(1), None, 3, Some(4)),
        ],
    };
    assert_eq!(run(&h).outcome, Outcome::Linearizable);
    assert_eq!(run(&h).ops, 1);
}

#[test]
fn the_smallest_key_is_checked_first_and_the_first_illegal_key_stops_the_search() {
    let mut ops: Vec<_> = (0..10)
        .map(|i| op(i % 3, append(1, i), done(), 2 * i, Some(2 * i + 1)))
        .collect();
    ops.push(op(5, put(9, 1), done(), 100, Some(101)));
    ops.push(op(5, get(9), read(&[]), 102, Some(103)));
    ops.push(op(6, get(1), read(&[]), 104, Some(105)));
    let c = run(&History { ops });
    assert_eq!((failure(&c).key.as_str(), c.keys), ("9", 1));
}

#[test]
fn an_exhausted_budget_is_unknown_with_its_reason() {
    let shape = Shape {
        ops: 100,
        clients: 5,
        unknown_min: 15,
        unknown_max: 15,
        distinct_values: Some(5),
    };
    // Repeated values: unique ones would be decided without a search.
    let mut h = register_history(3, shape);
    assert!(inject_stale_read(&mut h, 3));
    let c = check(
        &Register::new(),
        &h,
        &Options {
            budget_per_key: 40,
            ..Options::default()
        },
    );
    match &c.outcome {
        Outcome::Unknown { key, reason, limit } => {
            assert_eq!(*limit, Limit::Budget);
            assert_eq!(key, "register");
            assert!(
                reason.starts_with("gave up on key register after 40 search steps ("),
                "{reason}"
            );
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    assert_eq!(c.steps, 41);
}

#[test]
fn an_illegal_key_wins_over_a_smaller_key_that_ran_out_of_budget() {
    // Key 1: three concurrent appends read back in the order the search
    // tries last, which a budget of 5 steps does not reach, and a put of
    // unknown outcome that writes an appended value again, which keeps
    // the key from being decided without a search. Key 2: as big, but its
    // stale read shows at once.
    let mut ops: Vec<_> = (1..=3).map(|v| op(v, append(1, v), done(), v, Some(10))).collect();
    ops.push(op(0, get(1), read(&[3, 2, 1]), 11, Some(12)));
    ops.push(op(4, put(1, 1), None, 13, None));
    ops.push(op(0, put(2, 1), done(), 20, Some(21)));
    ops.push(op(0, put(2, 2), done(), 22, Some(23)));
    for t in [24, 26, 28] {
        ops.push(op(1, get(2), read(&[1]), t, Some(t + 1)));
    }
    let h = History { ops };
    let five_steps = Options {
        budget_per_key: 5,
        ..Options::default()
    };
    let c = check(&DstKv, &h, &five_steps);
    assert_eq!((failure(&c).key.as_str(), c.keys), ("2", 2));
    let key1 = History {
        ops: h.ops[..5].to_vec(),
    };
    let c = check(&DstKv, &key1, &five_steps);
    assert!(matches!(c.outcome, Outcome::Unknown { .. }), "{c:?}");
    assert_eq!(check(&DstKv, &key1, &Options::default()).outcome, Outcome::Linearizable);
}

#[test]
fn generated_register_histories_are_decided_within_the_default_budget() {
    let shape = Shape {
        ops: 100,
        clients: 5,
        unknown_min: 10,
        unknown_max: 20,
        distinct_values: None,
    };
    for seed in 0..60 {
        let mut h = register_history(seed, shape);
        assert_eq!(h.ops.len(), 100);
        let unknown = h.ops.iter().filter(|o| !o.is_completed()).count();
        assert!((10..=20).contains(&unknown), "seed {seed}: {unknown} unknown");
        let c = check(&Register::new(), &h, &Options::default());
        assert_eq!(c.outcome, Outcome::Linearizable, "seed {seed}");
        if inject_stale_read(&mut h, seed) {
            let c = check(&Register::new(), &h, &Options::default());
            let f = failure(&c);
            assert!(valid_prefix(&Register::new(), &h, f), "seed {seed}");
        }
    }
}

#[test]
fn the_same_history_gives_the_same_verdict_and_steps() {
    let shape = Shape {
        ops: 60,
        clients: 4,
        unknown_min: 8,
        unknown_max: 8,
        distinct_values: None,
    };
    let mut h = register_history(11, shape);
    inject_stale_read(&mut h, 1);
    assert_eq!(
        check(&Register::new(), &h, &Options::default()),
        check(&Register::new(), &h, &Options::default())
    );
}

/// The reported partial linearization is one: each op returns what the
/// model says, and none is placed before an op that returned before it began.
pub(super) fn valid_prefix<M: Model>(model: &M, h: &History<M::Input, M::Output>, f: &Failure) -> bool {
    let mut state = model.init();
    for (k, &i) in f.linearized.iter().enumerate() {
        let o = &h.ops[i];
        let out = if o.is_completed() { o.output.as_ref() } else { None };
        match model.step(&state, &o.input, out) {
            Some(s) => state = s,
            None => return false,
        }
        let later = &f.linearized[k + 1..];
        if later
            .iter()
            .any(|&j| h.ops[j].is_completed() && h.ops[j].complete < Some(o.invoke))
        {
            return false;
        }
    }
    h.ops[f.unplaced].is_completed() && !f.linearized.contains(&f.unplaced) && model.describe_state(&state) == f.state
}

// ---- randomized cross-checks against the brute-force checker ----

/// What a random history needs from a model beyond checking it.
trait Simulated: Model {
    fn input(&self, rng: &mut ChaCha8Rng) -> Self::Input;
    fn apply(&self, state: &mut Self::State, input: &Self::Input) -> Self::Output;
    /// Some other plausible output, to make the history wrong sometimes.
    fn wrong(&self, rng: &mut ChaCha8Rng, input: &Self::Input) -> Self::Output;
}

impl Simulated for DstKv {
    fn input(&self, rng: &mut ChaCha8Rng) -> KvOp {
        let (key, value) = (rng.gen_range(0..2), rng.gen_range(1..4));
        match rng.gen_range(0..4) {
            0 => put(key, value),
            1 => append(key, value),
            2 => get(key),
            _ => KvOp::Cas {
                key,
                expected: (0..rng.gen_range(0..2)).map(|_| rng.gen_range(1..4)).collect(),
                value,
            },
        }
    }
    fn apply(&self, state: &mut Vec<u64>, input: &KvOp) -> KvResult {
        apply_kv(state, input)
    }
    fn wrong(&self, rng: &mut ChaCha8Rng, input: &KvOp) -> KvResult {
        match input {
            KvOp::Cas { .. } => KvResult::Cas { applied: rng.gen() },
            _ => KvResult::Value {
                value: (0..rng.gen_range(0..3)).map(|_| rng.gen_range(1..4)).collect(),
            },
        }
    }
}

impl Simulated for Register {
    fn input(&self, rng: &mut ChaCha8Rng) -> RegisterOp {
        match rng.gen_range(0..3) {
            0 => RegisterOp::Read,
            1 => RegisterOp::Write(rng.gen_range(0..3)),
            _ => RegisterOp::Cas(rng.gen_range(0..3), rng.gen_range(0..3)),
        }
    }
    fn apply(&self, state: &mut Option<i64>, input: &RegisterOp) -> RegisterOutput {
        match *input {
            RegisterOp::Read => RegisterOutput::Read(*state),
            RegisterOp::Write(v) => {
                *state = Some(v);
                RegisterOutput::Done
            }
            RegisterOp::Cas(old, new) => {
                if *state == Some(old) {
                    *state = Some(new);
                }
                // A cas that did not apply becomes a read of nothing: an
                // impossible output, so such histories exercise failures.
                RegisterOutput::Done
            }
        }
    }
    fn wrong(&self, rng: &mut ChaCha8Rng, _input: &RegisterOp) -> RegisterOutput {
        RegisterOutput::Read([None, Some(0), Some(1), Some(2)][rng.gen_range(0..4)])
    }
}

impl Simulated for StringKv {
    fn input(&self, rng: &mut ChaCha8Rng) -> StrKvOp {
        let key = ["a", "b"][rng.gen_range(0..2)].to_string();
        let v = ["x", "y"][rng.gen_range(0..2)].to_string();
        match rng.gen_range(0..3) {
            0 => StrKvOp::Get(key),
            1 => StrKvOp::Put(key, v),
            _ => StrKvOp::Append(key, v),
        }
    }
    fn apply(&self, state: &mut String, input: &StrKvOp) -> StrKvOutput {
        match input {
            StrKvOp::Get(_) => StrKvOutput::Value(state.clone()),
            StrKvOp::Put(_, v) => {
                *state = v.clone();
                StrKvOutput::Done
            }
            StrKvOp::Append(_, v) => {
                state.push_str(v);
                StrKvOutput::Done
            }
        }
    }
    fn wrong(&self, rng: &mut ChaCha8Rng, _input: &StrKvOp) -> StrKvOutput {
        StrKvOutput::Value(["", "x", "yx", "xy"][rng.gen_range(0..4)].to_string())
    }
}

/// A few (one to eight) ops' intervals, invoke and completion (ties
/// included), and the order they take effect in when each does at a random
/// point inside its own.
pub(super) fn intervals(rng: &mut ChaCha8Rng) -> (Vec<(u64, u64)>, Vec<usize>) {
    let n = rng.gen_range(1..=8);
    let mut spans = Vec::new();
    let mut points = Vec::new();
    for k in 0..n {
        let invoke = rng.gen_range(0..16u64);
        let complete = invoke + rng.gen_range(1..8);
        points.push((invoke as f64 + rng.gen::<f64>() * (complete - invoke) as f64, k));
        spans.push((invoke, complete));
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    (spans, points.into_iter().map(|(_, k)| k).collect())
}

/// A few ops with random intervals (ties included) run against the model
/// at random points inside them; some outcomes become unknown, some
/// outputs wrong, some ops never complete.
fn random_history<M: Simulated>(model: &M, rng: &mut ChaCha8Rng) -> History<M::Input, M::Output> {
    let clients = rng.gen_range(3..=4);
    let (spans, order) = intervals(rng);
    let mut ops: Vec<Op<M::Input, M::Output>> = (0..spans.len())
        .map(|k| op(k as u64 % clients, model.input(rng), None, spans[k].0, Some(spans[k].1)))
        .collect();
    let mut states = std::collections::BTreeMap::new();
    for k in order {
        let o: &mut Op<M::Input, M::Output> = &mut ops[k];
        let state = states.entry(model.key(&o.input)).or_insert_with(|| model.init());
        let unknown = rng.gen_bool(0.25);
        if unknown && rng.gen_bool(0.5) {
            continue; // it never took effect
        }
        let out = model.apply(state, &o.input);
        o.output = Some(if rng.gen_bool(0.15) {
            model.wrong(rng, &o.input)
        } else {
            out
        });
        if unknown {
            o.output = None;
            if rng.gen_bool(0.5) {
                o.complete = None;
            }
        }
    }
    History { ops }
}

fn cross_check<M: Simulated>(model: &M, seed: u64, histories: usize) -> (usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut yes, mut no) = (0, 0);
    for i in 0..histories {
        let h = random_history(model, &mut rng);
        let want = brute::linearizable(model, &h);
        let got = check(model, &h, &Options::default());
        match &got.outcome {
            Outcome::Linearizable => assert!(want, "history {i}: search says linearizable: {h:#?}"),
            Outcome::NotLinearizable(f) => {
                assert!(!want, "history {i}: search says not linearizable: {h:#?}\n{f:?}");
                assert!(
                    valid_prefix_for_key(model, &h, f),
                    "history {i}: bad evidence {f:?} for {h:#?}"
                );
            }
            Outcome::Unknown { reason, .. } => panic!("history {i}: {reason}"),
        }
        if want {
            yes += 1;
        } else {
            no += 1;
        }
    }
    (yes, no)
}

/// [`valid_prefix`] on the failing key's ops alone.
pub(super) fn valid_prefix_for_key<M: Model>(model: &M, h: &History<M::Input, M::Output>, f: &Failure) -> bool {
    let key = model.key(&h.ops[f.unplaced].input);
    f.linearized.iter().all(|&i| model.key(&h.ops[i].input) == key) && valid_prefix(model, h, f)
}

#[test]
fn cross_check_dst_kv_against_brute_force() {
    let (yes, no) = cross_check(&DstKv, 1, 600);
    assert!(yes > 100 && no > 100, "{yes} linearizable, {no} not");
}

#[test]
fn cross_check_register_against_brute_force() {
    let (yes, no) = cross_check(&Register::new(), 2, 600);
    assert!(yes > 100 && no > 100, "{yes} linearizable, {no} not");
}

#[test]
fn cross_check_string_kv_against_brute_force() {
    let (yes, no) = cross_check(&StringKv, 3, 600);
    assert!(yes > 100 && no > 100, "{yes} linearizable, {no} not");
}

#[test]
fn parsers_never_panic_on_mangled_input() {
    let jepsen = "INFO  jepsen.util - 0\t:invoke\t:write\t4\nINFO  jepsen.util - 1\t:invoke\t:cas\t[4 5]\n\
                  INFO  jepsen.util - 0\t:ok\t:write\t4\nINFO  jepsen.util - 1\t:info\t:cas\t:timed-out\n\
                  2 :invoke :read nil\n2 :ok :read 5\n";
    let edn = "{:process 0, :type :invoke, :f :append, :key \"3\", :value \"x\"}\n\
               {:process 1, :type :invoke, :f :get, :key \"3\", :value nil, :e #{[1 \"}\"]}}\n\
               {:process 0, :type :ok, :f :append, :key \"3\", :value \"x\"}\n\
               {:process 1, :type :ok, :f :get, :key 3, :value \"x\\\"\"}\n";
    let alphabet: Vec<char> = "\t\n :[]{}()#\"\\,0123456789-nil:ok:invoke:info:fail:get:put:cas:read:write:processé"
        .chars()
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let small = Options {
        budget_per_key: 1_000,
        ..Options::default()
    };
    for _ in 0..3_000 {
        for (i, base) in [jepsen, edn].into_iter().enumerate() {
            let mut text: Vec<char> = base.chars().collect();
            for _ in 0..rng.gen_range(1..6) {
                let at = rng.gen_range(0..=text.len());
                match rng.gen_range(0..3) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 if at < text.len() => text[at] = alphabet[rng.gen_range(0..alphabet.len())],
                    _ => text.insert(at, alphabet[rng.gen_range(0..alphabet.len())]),
                }
            }
            let text: String = text.into_iter().collect();
            if i == 0 {
                if let Ok(h) = parse_jepsen::parse(&text) {
                    check(&Register::new(), &h, &small);
                }
            } else if let Ok(h) = parse_edn::parse(&text) {
                check(&StringKv, &h, &small);
            }
        }
    }
}

#[test]
fn a_completion_before_its_invoke_is_judged_without_a_panic() {
    let h = History {
        ops: vec![
            op(0, put(1, 1), done(), 5, Some(2)),
            op(1, get(1), read(&[1]), 3, Some(4)),
        ],
    };
    let c = run(&h);
    assert!(matches!(c.outcome, Outcome::NotLinearizable(_)), "{c:?}");
}

/// A small random history of dst's store with every written value unique,
/// as the simulator writes them, and cas ops that expect values written
/// earlier, so that unknown-outcome writes are often left unobserved.
fn unique_kv_history(rng: &mut ChaCha8Rng) -> KvHistory {
    let mut h = History::default();
    let n = rng.gen_range(1..=8);
    let mut points = Vec::new();
    for k in 0..n {
        let invoke = rng.gen_range(0..16u64);
        let complete = invoke + rng.gen_range(1..8);
        points.push((invoke as f64 + rng.gen::<f64>() * (complete - invoke) as f64, k));
        let (key, value) = (rng.gen_range(0..2), 100 + k as u64);
        let input = match rng.gen_range(0..5) {
            0 => put(key, value),
            1 | 2 => append(key, value),
            3 => get(key),
            _ => KvOp::Cas {
                key,
                expected: (0..rng.gen_range(0..2))
                    .map(|_| rng.gen_range(100..100 + n as u64))
                    .collect(),
                value,
            },
        };
        h.ops.push(op(k as u64 % 4, input, None, invoke, Some(complete)));
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut states: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for (_, k) in points {
        let o = &mut h.ops[k];
        let state = states.entry(o.input.key()).or_default();
        let unknown = rng.gen_bool(0.4);
        if unknown && rng.gen_bool(0.5) {
            continue;
        }
        let mut out = apply_kv(state, &o.input);
        if let (true, KvResult::Value { value }) = (rng.gen_bool(0.3), &mut out) {
            // A stale or made-up read.
            if value.pop().is_none() {
                value.push(100 + n as u64);
            }
        }
        o.output = (!unknown).then_some(out);
        if unknown && rng.gen_bool(0.5) {
            o.complete = None;
        }
    }
    h
}

#[test]
fn leaving_out_unobservable_writes_agrees_with_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut pruned, mut lurking, mut dated, mut yes, mut no) = (0, 0, 0, 0, 0);
    for i in 0..5000 {
        let h = unique_kv_history(&mut rng);
        for key in 0..2 {
            let ops: Vec<&KvOp_> = h.ops.iter().filter(|o| o.input.key() == key).collect();
            lurking += usize::from(DstKv.seen(&ops).contains(&Seen::OnlyByRefusals));
            dated += usize::from(DstKv.seen(&ops).iter().any(|s| matches!(s, Seen::Before(_))));
        }
        let want = brute::linearizable(&DstKv, &h);
        let got = run(&h);
        let searched = h.ops.iter().filter(|o| o.is_completed() || !o.input.is_read()).count();
        pruned += usize::from(got.ops < searched);
        match &got.outcome {
            Outcome::Linearizable => assert!(want, "history {i}: search says linearizable: {h:#?}"),
            Outcome::NotLinearizable(f) => {
                assert!(!want, "history {i}: search says not linearizable: {h:#?}\n{f:?}");
                assert!(valid_prefix_for_key(&DstKv, &h, f), "history {i}: bad evidence {f:?}");
            }
            Outcome::Unknown { reason, .. } => panic!("history {i}: {reason}"),
        }
        if want {
            yes += 1;
        } else {
            no += 1;
        }
    }
    assert!(pruned > 500, "writes were left out in {pruned} histories");
    assert!(lurking > 200, "writes lurked in {lurking} keys");
    assert!(dated > 200, "writes were seen, so dated, in {dated} keys");
    assert!(yes > 1000 && no > 500, "{yes} linearizable, {no} not");
}

#[test]
fn an_unobserved_unknown_write_is_left_out_and_an_observed_one_kept() {
    let h = History {
        ops: vec![
            op(0, put(1, 10), done(), 0, Some(1)),
            op(1, append(1, 11), None, 2, None),
            op(2, put(1, 12), None, 3, Some(4)),
            op(3, get(1), read(&[10, 11]), 5, Some(6)),
        ],
    };
    let c = run(&h);
    assert_eq!(c.outcome, Outcome::Linearizable);
    assert_eq!(c.ops, 3, "put 12 was never seen, append 11 was");
    let failed_cas = History {
        ops: vec![
            op(0, put(1, 10), done(), 0, Some(1)),
            op(1, put(1, 12), None, 2, None),
            op(
                2,
                KvOp::Cas {
                    key: 1,
                    expected: vec![10],
                    value: 13,
                },
                Some(KvResult::Cas { applied: false }),
                3,
                Some(4),
            ),
        ],
    };
    let c = run(&failed_cas);
    assert_eq!(c.outcome, Outcome::Linearizable, "only put 12 explains the failed cas");
    assert_eq!(c.ops, 3);
}
