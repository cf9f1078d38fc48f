//! Sets decided level by level: thousands of small random histories, sound
//! or broken as stores break them, on which the decision must agree with
//! the brute-force checker and with the search; and a set of thousands of
//! ops, decided without a search.

use super::unique_values::{cross_check, outcome};
use super::{intervals, op};
use crate::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

type SetHistory = History<SetOp<u64>, SetOutput<u64>>;

/// Adds of distinct elements and reads, run at random points inside their
/// intervals; some outcomes unknown, and at random one anomaly: a read
/// that misses an element, holds one from its future or one never added,
/// returns one twice, or an element added twice.
fn unique_set(rng: &mut ChaCha8Rng) -> SetHistory {
    let (spans, order) = intervals(rng);
    let n = spans.len();
    let mut ops: Vec<Op<SetOp<u64>, SetOutput<u64>>> = (0..n)
        .map(|k| {
            let input = match rng.gen_bool(0.55) {
                true => SetOp::Add(k as u64),
                false => SetOp::Read,
            };
            op(k as u64 % 4, input, None, spans[k].0, Some(spans[k].1))
        })
        .collect();
    if rng.gen_bool(0.03) {
        let twice = rng.gen_range(0..n);
        ops[twice].input = SetOp::Add(0);
    }
    let mut state: BTreeSet<u64> = BTreeSet::new();
    for k in order {
        let (unknown, applies) = outcome(rng);
        let o = &mut ops[k];
        let output = match &o.input {
            SetOp::Add(v) => {
                if applies {
                    state.insert(*v);
                }
                SetOutput::Added
            }
            SetOp::Read => {
                let mut seen: Vec<u64> = state.iter().copied().collect();
                match rng.gen_range(0..12) {
                    0 if !seen.is_empty() => {
                        seen.remove(rng.gen_range(0..seen.len()));
                    }
                    1 => seen.push(rng.gen_range(0..n as u64 + 2)),
                    2 if !seen.is_empty() => seen.push(seen[0]),
                    _ => {}
                }
                SetOutput::read(seen)
            }
        };
        o.output = (!unknown).then_some(output);
    }
    History { ops }
}

#[test]
fn set_histories_with_unique_elements_agree_with_brute_force_and_the_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let t = cross_check(&Set::<u64>::new(), (0..6000).map(|_| unique_set(&mut rng)));
    // Only a key with an element added twice is searched.
    assert!(t.searched_keys < 250, "{t:?}");
    assert!(t.linearizable > 2500 && t.not > 1000, "{t:?}");
}

/// A set of 20 clients' 40,000 adds, read every 50 ops, with a read that
/// misses one element another read before it returned.
#[test]
fn forty_thousand_adds_are_decided_without_a_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut ops = Vec::new();
    let mut state: Vec<u64> = Vec::new();
    let mut t = 0;
    for k in 0..40_000u64 {
        t += rng.gen_range(1..4);
        let (client, invoke, complete) = (k % 20, t, t + rng.gen_range(1..60));
        if k % 50 == 49 {
            ops.push(op(
                client,
                SetOp::Read,
                Some(SetOutput::read(state.clone())),
                invoke,
                Some(complete),
            ));
        }
        state.push(k);
        // The add lands at its invoke: any read invoked after that sees it.
        ops.push(op(
            client,
            SetOp::Add(k),
            Some(SetOutput::Added),
            invoke,
            Some(complete),
        ));
    }
    ops.sort_by_key(|o| o.invoke);
    let h = History { ops };
    let c = check(&Set::<u64>::new(), &h, &Options::default());
    assert_eq!((c.keys, c.keys_without_search), (1, 1), "{:?}", c.outcome);
    assert_eq!(c.outcome, Outcome::Linearizable);
    let mut broken = h.clone();
    let last = broken.ops.iter().rposition(|o| o.input == SetOp::Read).unwrap();
    if let Some(SetOutput::Read(seen)) = &mut broken.ops[last].output {
        seen.remove(seen.len() / 2);
    }
    let c = check(&Set::<u64>::new(), &broken, &Options::default());
    assert_eq!(c.keys_without_search, 1);
    match &c.outcome {
        Outcome::NotLinearizable(f) => assert_eq!(f.unplaced, last, "{f:?}"),
        other => panic!("{other:?}"),
    }
}
