//! Jepsen EDN histories against the direct path: small random register
//! histories are checked as built and after a round trip through the text
//! Jepsen would write for them (either form, records, nemesis ops, extra
//! keys in any order, values as integers or keywords), and the brute-force
//! checker decides both. All four verdicts must agree.

use super::brute;
use super::history::{History, Op};
use super::parse_jepsen_edn::{self, Value};
use super::register::{Register, RegisterOp, RegisterOutput};
use super::{check, Options, Outcome};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

#[derive(Clone, Copy, PartialEq)]
enum End {
    Ok(RegisterOutput),
    Fail,
    /// `:info`; with no completion at all when `complete` is `None`.
    Info,
}

struct GenOp {
    input: RegisterOp,
    invoke: u64,
    complete: Option<u64>,
    end: End,
    process: u64,
}

/// A few ops on one register with random intervals (ties included), run
/// at random points inside them; some fail, some end unknown (applied or
/// not), some return something wrong.
fn ops(rng: &mut ChaCha8Rng, initial: Option<i64>) -> Vec<GenOp> {
    let n = rng.gen_range(1..=8);
    let mut ops = Vec::new();
    let mut points = Vec::new();
    for k in 0..n {
        let invoke = rng.gen_range(0..16u64);
        let complete = invoke + rng.gen_range(1..8);
        points.push((invoke as f64 + rng.gen::<f64>() * (complete - invoke) as f64, k));
        let input = match rng.gen_range(0..3) {
            0 => RegisterOp::Read,
            1 => RegisterOp::Write(rng.gen_range(0..3)),
            _ => RegisterOp::Cas(rng.gen_range(0..3), rng.gen_range(0..3)),
        };
        ops.push(GenOp {
            input,
            invoke,
            complete: Some(complete),
            end: End::Fail,
            process: 0,
        });
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut state = initial;
    for (_, k) in points {
        let op = &mut ops[k];
        let fate = rng.gen_range(0..100);
        if fate < 10 {
            continue; // failed: never happened
        }
        let unknown = fate < 30;
        if unknown && rng.gen_bool(0.5) {
            op.end = End::Info;
            if rng.gen_bool(0.5) {
                op.complete = None;
            }
            continue; // never happened
        }
        let out = match op.input {
            RegisterOp::Read => RegisterOutput::Read(state),
            RegisterOp::Write(v) => {
                state = Some(v);
                RegisterOutput::Done
            }
            RegisterOp::Cas(old, new) if state == Some(old) => {
                state = Some(new);
                RegisterOutput::Done
            }
            // A cas that did not apply fails, or (wrongly) claims it applied.
            RegisterOp::Cas(..) if rng.gen_bool(0.8) => continue,
            RegisterOp::Cas(..) => RegisterOutput::Done,
        };
        op.end = match (unknown, op.input) {
            (true, _) => End::Info,
            (false, RegisterOp::Read) if rng.gen_bool(0.15) => End::Ok(RegisterOutput::Read(
                [None, Some(0), Some(1), Some(2)][rng.gen_range(0..4)],
            )),
            (false, _) => End::Ok(out),
        };
        if unknown && rng.gen_bool(0.5) {
            op.complete = None;
        }
    }
    ops
}

/// The events in history order: at a tie, invokes first, since an op that
/// completes where another is invoked is concurrent with it. Processes are
/// handed out so that none has two ops open; after `:info` Jepsen retires
/// a process, and sometimes here one is reused.
fn events(rng: &mut ChaCha8Rng, ops: &mut [GenOp]) -> Vec<(usize, bool)> {
    let mut events: Vec<(u64, bool, usize)> = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        events.push((op.invoke, false, k));
        if let Some(c) = op.complete {
            events.push((c, true, k));
        }
    }
    events.sort();
    let (mut free, mut next) = (BTreeSet::new(), 0u64);
    for &(_, completes, k) in &events {
        if completes {
            if ops[k].end != End::Info || rng.gen_bool(0.3) {
                free.insert(ops[k].process);
            }
        } else {
            let reuse = free.iter().copied().nth(rng.gen_range(0..=free.len()));
            ops[k].process = reuse.unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            free.remove(&ops[k].process);
        }
    }
    events.into_iter().map(|(_, c, k)| (k, c)).collect()
}

/// The history as the checker's direct input: failed ops left out.
fn direct(ops: &[GenOp]) -> History<RegisterOp, RegisterOutput> {
    let ops = ops
        .iter()
        .filter(|o| o.end != End::Fail)
        .map(|o| Op {
            client: o.process,
            input: o.input,
            output: match o.end {
                End::Ok(out) => Some(out),
                _ => None,
            },
            invoke: o.invoke,
            complete: o.complete,
        })
        .collect();
    History { ops }
}

/// How a history's values are written.
struct Style {
    keywords: bool,
    big: bool,
}

impl Style {
    fn value(&self, rng: &mut ChaCha8Rng, v: Option<i64>) -> String {
        match v {
            None => "nil".into(),
            Some(v) if self.keywords => format!(":v{v}"),
            Some(v) if self.big && rng.gen_bool(0.5) => format!("{v}N"),
            Some(v) => v.to_string(),
        }
    }
}

/// One op event as Jepsen prints it, keys shuffled, extras added.
fn op_map(rng: &mut ChaCha8Rng, style: &Style, op: &GenOp, completes: bool, index: usize) -> String {
    let kind = match (completes, op.end) {
        (false, _) => "invoke",
        (true, End::Ok(_)) => "ok",
        (true, End::Fail) => "fail",
        (true, End::Info) => "info",
    };
    let (f, value) = match (op.input, op.end) {
        (RegisterOp::Read, End::Ok(RegisterOutput::Read(v))) if completes => ("read", style.value(rng, v)),
        (RegisterOp::Read, _) => ("read", "nil".to_string()),
        (RegisterOp::Write(v), _) => ("write", style.value(rng, Some(v))),
        (RegisterOp::Cas(a, b), _) => (
            "cas",
            format!("[{} {}]", style.value(rng, Some(a)), style.value(rng, Some(b))),
        ),
    };
    let mut entries = vec![
        format!(":process {}", op.process),
        format!(":type :{kind}"),
        format!(":f :{f}"),
        format!(":value {value}"),
    ];
    if rng.gen_bool(0.5) {
        entries.push(format!(":time {}", index * 1_000));
        entries.push(format!(":index {index}"));
    }
    if kind == "info" || kind == "fail" {
        entries.push(":error [:timeout \"no answer, \\\"sorry\\\"\"]".into());
    }
    entries.shuffle(rng);
    let sep = if rng.gen_bool(0.5) { ", " } else { " " };
    let map = format!("{{{}}}", entries.join(sep));
    if rng.gen_bool(0.3) {
        format!("#jepsen.history.Op{map}")
    } else {
        map
    }
}

fn text(rng: &mut ChaCha8Rng, style: &Style, ops: &[GenOp], events: &[(usize, bool)]) -> String {
    let mut maps = Vec::new();
    for (i, &(k, completes)) in events.iter().enumerate() {
        if rng.gen_bool(0.1) {
            maps.push("{:process :nemesis, :type :info, :f :start, :value [:isolated {\"n1\" #{\"n2\"}}]}".into());
        }
        maps.push(op_map(rng, style, &ops[k], completes, i));
    }
    match rng.gen_range(0..3) {
        0 => maps.join("\n") + "\n",
        1 => format!("[{}]\n", maps.join("\n ")),
        // One line: positions become op indexes.
        _ => format!("[{}]", maps.join(" ")),
    }
}

fn verdict(outcome: &Outcome, what: &str, history: usize, text: &str) -> bool {
    match outcome {
        Outcome::Linearizable => true,
        Outcome::NotLinearizable(_) => false,
        Outcome::Unknown { reason, .. } => panic!("history {history}, {what}: {reason}\n{text}"),
    }
}

#[test]
fn the_edn_path_agrees_with_the_direct_path_and_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let (mut yes, mut no, mut forms) = (0, 0, BTreeSet::new());
    for i in 0..3_000 {
        let initial = if rng.gen_bool(0.7) { None } else { Some(0) };
        let mut gen = ops(&mut rng, initial);
        let events = events(&mut rng, &mut gen);
        let style = Style {
            keywords: rng.gen_bool(0.3),
            big: rng.gen_bool(0.3),
        };
        let text = text(&mut rng, &style, &gen, &events);
        let h = direct(&gen);
        let model = Register::starting_at(initial);
        let want = brute::linearizable(&model, &h);
        let got = verdict(&check(&model, &h, &Options::default()).outcome, "direct", i, &text);
        assert_eq!(got, want, "history {i}: direct search against brute force\n{text}");

        let parsed = parse_jepsen_edn::parse(&text).unwrap_or_else(|e| panic!("history {i}: {e}\n{text}"));
        forms.insert(parsed.unit);
        assert_eq!(parsed.history.ops.len(), h.ops.len(), "history {i}\n{text}");
        let start = initial.map_or(Value::Nil, |v| Value::parse(&style.value(&mut rng, Some(v))).unwrap());
        let register = parse_jepsen_edn::register(start);
        let edn_brute = brute::linearizable(&register, &parsed.history);
        let edn = verdict(
            &check(&register, &parsed.history, &Options::default()).outcome,
            "edn",
            i,
            &text,
        );
        assert_eq!(
            (edn, edn_brute),
            (want, want),
            "history {i}: EDN path disagrees\n{text}"
        );
        if want {
            yes += 1;
        } else {
            no += 1;
        }
    }
    assert!(yes > 1_000 && no > 400, "{yes} linearizable, {no} not");
    assert_eq!(forms.len(), 2, "{forms:?}");
}
