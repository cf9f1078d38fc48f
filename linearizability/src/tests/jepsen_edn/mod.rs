//! Jepsen EDN histories of every model against brute force. Small random
//! histories run against a simulated atomic object (linearizable by
//! construction), half of them with anomalies injected, are checked as
//! built and after a round trip through the text Jepsen would write for
//! them (either form, records, nemesis ops, extra keys in any order,
//! values as integers, keywords or strings). The search and the
//! brute-force checker decide both; brute force over the simulated object
//! itself, trying every answer an unknown-outcome op could have given,
//! decides the built one. All must agree.

mod subjects;
mod text;

use super::brute;
use super::intervals;
use crate::history::{History, Op};
use crate::parse_jepsen_edn::{self, Value};
use crate::{check, FifoQueue, JepsenModel, Model, Options, Outcome, Register, Set, UnorderedQueue};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use subjects::{In, MutexSubject, Out, QueueSubject, RegisterSubject, SetSubject, Subject};

/// Random histories per model.
const HISTORIES: usize = 5_000;

#[derive(Clone, PartialEq)]
enum End<O> {
    Ok(O),
    Fail,
    /// `:info`; with no completion at all when `complete` is `None`.
    Info,
}

struct GenOp<I, O> {
    input: I,
    invoke: u64,
    complete: Option<u64>,
    end: End<O>,
    process: u64,
}

/// A few ops with random intervals (ties included), each done on the
/// object at a random point inside its interval; some fail, some end
/// unknown (done or not), and with `anomalies` some give a wrong answer.
fn ops<S: Subject>(rng: &mut ChaCha8Rng, subject: &S, palette: &[Value], anomalies: bool) -> Vec<GenOp<In<S>, Out<S>>> {
    let (spans, order) = intervals(rng);
    let mut ops: Vec<GenOp<In<S>, Out<S>>> = spans
        .into_iter()
        .map(|(invoke, complete)| GenOp {
            input: subject.draw(rng, palette),
            invoke,
            complete: Some(complete),
            end: End::Fail,
            process: 0,
        })
        .collect();
    let mut object = subject.object();
    for k in order {
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
        let wrong = if anomalies && !unknown && rng.gen_bool(0.4) {
            subject.wrong(rng, &object, &op.input, palette)
        } else {
            None
        };
        op.end = match (wrong, unknown) {
            (Some(out), _) => End::Ok(out),
            (None, true) => {
                subject.apply(&mut object, &op.input);
                if rng.gen_bool(0.5) {
                    op.complete = None;
                }
                End::Info
            }
            (None, false) => subject.apply(&mut object, &op.input).map_or(End::Fail, End::Ok),
        };
    }
    ops
}

/// The events in history order: at a tie, invokes first, since an op that
/// completes where another is invoked is concurrent with it. Processes are
/// handed out so that none has two ops open; after `:info` Jepsen retires
/// a process, and sometimes here one is reused.
fn events<I, O>(rng: &mut ChaCha8Rng, ops: &mut [GenOp<I, O>]) -> Vec<(usize, bool)> {
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
            if !matches!(ops[k].end, End::Info) || rng.gen_bool(0.3) {
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
fn direct<I: Clone, O: Clone>(ops: &[GenOp<I, O>]) -> History<I, O> {
    let ops = ops
        .iter()
        .filter(|o| !matches!(o.end, End::Fail))
        .map(|o| Op {
            client: o.process,
            input: o.input.clone(),
            output: match &o.end {
                End::Ok(out) => Some(out.clone()),
                _ => None,
            },
            invoke: o.invoke,
            complete: o.complete,
        })
        .collect();
    History { ops }
}

/// The simulated object as a model, so that brute force over it is a
/// reference that shares no code with the model under test. It is given
/// completed ops only.
struct ByObject<'a, S>(&'a S);

impl<S: Subject> Model for ByObject<'_, S> {
    type Key = ();
    type State = S::Object;
    type Input = In<S>;
    type Output = Out<S>;

    fn init(&self) -> S::Object {
        self.0.object()
    }

    fn key(&self, _input: &In<S>) {}

    fn step(&self, state: &S::Object, input: &In<S>, output: Option<&Out<S>>) -> Option<S::Object> {
        let mut next = state.clone();
        let answer = output.expect("the reference is given completed ops only");
        self.0.could(&mut next, input, answer).then_some(next)
    }

    fn describe_op(&self, input: &In<S>, output: Option<&Out<S>>) -> String {
        format!("{input:?} -> {output:?}")
    }

    fn describe_state(&self, state: &S::Object) -> String {
        format!("{state:?}")
    }
}

/// Whether some way for the unknown-outcome ops to have ended makes the
/// history linearizable on the simulated object: each either never
/// happened, or gave one of the answers it could have and returned at the
/// very end (so anywhere after its invoke). `None` when there are too many
/// ways to try.
fn by_every_answer<S: Subject>(subject: &S, h: &History<In<S>, Out<S>>, palette: &[Value]) -> Option<bool> {
    const WAYS_MAX: usize = 500;
    let choices: Vec<Vec<Option<Out<S>>>> = h
        .ops
        .iter()
        .map(|o| match o.is_completed() {
            true => vec![o.output.clone()],
            false => std::iter::once(None)
                .chain(subject.answers(&o.input, palette).into_iter().map(Some))
                .collect(),
        })
        .collect();
    let ways = choices.iter().try_fold(1usize, |n, c| n.checked_mul(c.len()))?;
    if ways > WAYS_MAX {
        return None;
    }
    Some((0..ways).any(|mut way| {
        let mut ops = Vec::new();
        for (op, c) in h.ops.iter().zip(&choices) {
            let pick = &c[way % c.len()];
            way /= c.len();
            if let Some(out) = pick {
                let complete = if op.is_completed() { op.complete } else { Some(u64::MAX) };
                ops.push(Op {
                    output: Some(out.clone()),
                    complete,
                    ..op.clone()
                });
            }
        }
        brute::linearizable(&ByObject(subject), &History { ops })
    }))
}

fn verdict(outcome: &Outcome, what: &str, history: usize, text: &str) -> bool {
    match outcome {
        Outcome::Linearizable => true,
        Outcome::NotLinearizable(_) => false,
        Outcome::Unknown { reason, .. } => panic!("history {history}, {what}: {reason}\n{text}"),
    }
}

/// What one model's run found.
#[derive(Debug, Default)]
struct Tally {
    linearizable: usize,
    not: usize,
    /// Histories the every-answer reference decided too.
    by_reference: usize,
    /// Text forms seen: "line" or "op" positions.
    units: BTreeSet<&'static str>,
}

fn run<S: Subject>(subject: &S, seed: u64, palettes: &[Vec<Value>]) -> Tally {
    let model = subject.model();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    for i in 0..HISTORIES {
        let palette = &palettes[rng.gen_range(0..palettes.len())];
        let anomalies = rng.gen_bool(0.5);
        let mut gen = ops(&mut rng, subject, palette, anomalies);
        let events = events(&mut rng, &mut gen);
        let style = text::Style::draw(&mut rng);
        let text = text::history(&mut rng, &style, subject, &gen, &events);
        let h = direct(&gen);

        let want = brute::linearizable(model, &h);
        let got = verdict(&check(model, &h, &Options::default()).outcome, "direct", i, &text);
        assert_eq!(got, want, "history {i}: search against brute force\n{text}");
        assert!(
            want || anomalies,
            "history {i}: no anomaly, yet not linearizable\n{text}"
        );
        if let Some(reference) = by_every_answer(subject, &h, palette) {
            assert_eq!(want, reference, "history {i}: brute force against every answer\n{text}");
            tally.by_reference += 1;
        }

        let (edn, unit) = through_text(subject, &mut rng, &text, &h, i);
        assert_eq!(edn, want, "history {i}: the EDN path disagrees\n{text}");
        tally.units.insert(unit);
        if want {
            tally.linearizable += 1;
        } else {
            tally.not += 1;
        }
    }
    tally
}

/// The verdict on `text`, parsed with the real parser (and the model its
/// ops imply, unless asked for), from the search and from brute force,
/// which must agree; and how its positions count.
fn through_text<S: Subject>(
    subject: &S,
    rng: &mut ChaCha8Rng,
    text: &str,
    built: &History<In<S>, Out<S>>,
    i: usize,
) -> (bool, &'static str) {
    let model = subject.model();
    let forms = parse_jepsen_edn::read(text).unwrap_or_else(|e| panic!("history {i}: {e}\n{text}"));
    let queue = matches!(subject.kind(), JepsenModel::FifoQueue | JepsenModel::UnorderedQueue);
    let asked = (queue || rng.gen_bool(0.5)).then(|| subject.kind());
    let chosen = JepsenModel::choose(asked, &forms.fs()).unwrap_or_else(|e| panic!("history {i}: {e}\n{text}"));
    // Ops a plain register has too (no :cas; only a set's reads) imply it.
    assert!(
        chosen == subject.kind() || chosen == JepsenModel::Register,
        "history {i}: {chosen:?}\n{text}"
    );
    let parsed = forms
        .history(model)
        .unwrap_or_else(|e| panic!("history {i}: {e}\n{text}"));
    let ops = |h: &History<In<S>, Out<S>>| {
        let mut ops: Vec<String> = h
            .ops
            .iter()
            .map(|o| format!("{} {:?} {:?} {}", o.client, o.input, o.output, o.complete.is_some()))
            .collect();
        ops.sort();
        ops
    };
    assert_eq!(ops(&parsed), ops(built), "history {i}: the text's ops\n{text}");
    let brute = brute::linearizable(model, &parsed);
    let searched = verdict(&check(model, &parsed, &Options::default()).outcome, "edn", i, text);
    assert_eq!(
        searched, brute,
        "history {i}: search against brute force on the text\n{text}"
    );
    (searched, forms.unit())
}

fn palettes() -> Vec<Vec<Value>> {
    let each = |f: &dyn Fn(i64) -> Value| (0..3).map(f).collect::<Vec<_>>();
    vec![
        each(&Value::Int),
        each(&|v| Value::Other(format!(":v{v}"))),
        each(&|v| Value::Other(format!("\"s{v}\""))),
    ]
}

/// Enough of each verdict, both text forms, and most histories decided by
/// the reference too.
fn assert_covered(name: &str, t: &Tally) {
    assert!(t.linearizable > HISTORIES / 2 && t.not > HISTORIES / 8, "{name}: {t:?}");
    assert!(t.by_reference > HISTORIES * 9 / 10, "{name}: {t:?}");
    assert_eq!(t.units.len(), 2, "{name}: {t:?}");
}

#[test]
fn registers_agree_with_brute_force() {
    for (cas, seed) in [(false, 30), (true, 31)] {
        // Nil is a value like any other; 0 is one the palettes of integers write.
        for (initial, palettes) in [(Value::Nil, palettes()), (Value::Int(0), palettes()[..1].to_vec())] {
            let subject = RegisterSubject {
                model: Register::starting_at(Some(initial)),
                cas,
            };
            let t = run(&subject, seed, &palettes);
            assert_covered(if cas { "cas-register" } else { "register" }, &t);
        }
    }
}

#[test]
fn mutexes_agree_with_brute_force() {
    let t = run(&MutexSubject, 32, &palettes()[..1]);
    assert_covered("mutex", &t);
}

#[test]
fn sets_agree_with_brute_force() {
    let t = run(&SetSubject(Set::new()), 33, &palettes());
    assert_covered("set", &t);
}

#[test]
fn fifo_queues_agree_with_brute_force() {
    let subject = QueueSubject {
        model: FifoQueue::new(),
        fifo: true,
    };
    assert_covered("fifo-queue", &run(&subject, 34, &palettes()));
}

#[test]
fn unordered_queues_agree_with_brute_force() {
    let subject = QueueSubject {
        model: UnorderedQueue::new(),
        fifo: false,
    };
    assert_covered("unordered-queue", &run(&subject, 35, &palettes()));
}

/// The reference is strict enough to fail: a fifo dequeue out of order
/// and an unordered dequeue of what was never enqueued.
#[test]
fn the_reference_can_fail() {
    let op = |input, output, invoke, complete| Op {
        client: invoke,
        input,
        output,
        invoke,
        complete,
    };
    use super::{QueueOp, QueueOutput};
    let (one, two) = (Value::Int(1), Value::Int(2));
    let h = History {
        ops: vec![
            op(QueueOp::Enqueue(one.clone()), Some(QueueOutput::Enqueued), 0, Some(1)),
            op(QueueOp::Enqueue(two.clone()), Some(QueueOutput::Enqueued), 2, Some(3)),
            op(QueueOp::Dequeue, Some(QueueOutput::Dequeued(two.clone())), 4, Some(5)),
        ],
    };
    let palette = [one.clone(), two.clone()];
    let fifo = QueueSubject {
        model: FifoQueue::new(),
        fifo: true,
    };
    assert_eq!(by_every_answer(&fifo, &h, &palette), Some(false));
    // Unless a dequeue of unknown outcome took the 1 first.
    let mut lost = h.clone();
    lost.ops.push(op(QueueOp::Dequeue, None, 1, None));
    assert_eq!(by_every_answer(&fifo, &lost, &palette), Some(true));
    assert!(brute::linearizable(&fifo.model, &lost));
    let unordered = QueueSubject {
        model: UnorderedQueue::new(),
        fifo: false,
    };
    assert_eq!(by_every_answer(&unordered, &h, &palette), Some(true));
    let mut twice = h;
    twice
        .ops
        .push(op(QueueOp::Dequeue, Some(QueueOutput::Dequeued(two)), 6, Some(7)));
    assert_eq!(by_every_answer(&unordered, &twice, &palette), Some(false));
}
