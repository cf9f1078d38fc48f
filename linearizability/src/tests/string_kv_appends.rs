//! String-kv keys with appends decided without a search: thousands of
//! small random histories with unique values, sound or broken as stores
//! break (an append lost, applied twice, a stale or made-up read), on
//! which the decision must agree with the brute-force checker and the
//! search; values that split a read more than one way are searched.

use super::unique_values::{cross_check, outcome};
use super::{intervals, op};
use crate::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// `ambiguous`: values from a pool in which some are concatenations of
/// others ("a", "b", "ab"), so a read may split more than one way.
fn history(rng: &mut ChaCha8Rng, ambiguous: bool) -> History<StrKvOp, StrKvOutput> {
    let (spans, order) = intervals(rng);
    let n = spans.len();
    let mut pool = vec!["a", "b", "ab", "ba", "aab", "bb"];
    let lost = rng.gen_bool(0.3).then(|| rng.gen_range(0..n));
    let twice = rng.gen_bool(0.2).then(|| rng.gen_range(0..n));
    let mut ops: Vec<Op<StrKvOp, StrKvOutput>> = (0..n)
        .map(|k| {
            let key = ["k", "j"][usize::from(rng.gen_bool(0.2))].to_string();
            let value = match ambiguous && !pool.is_empty() {
                true => pool.swap_remove(rng.gen_range(0..pool.len())).to_string(),
                false => format!("x {k} y"),
            };
            let input = match rng.gen_range(0..5) {
                0 => StrKvOp::Put(key, value),
                1 | 2 => StrKvOp::Append(key, value),
                _ => StrKvOp::Get(key),
            };
            op(k as u64 % 4, input, None, spans[k].0, Some(spans[k].1))
        })
        .collect();
    let values: Vec<String> = ops
        .iter()
        .filter_map(|o| match &o.input {
            StrKvOp::Put(_, v) | StrKvOp::Append(_, v) => Some(v.clone()),
            StrKvOp::Get(_) => None,
        })
        .chain(["x y".to_string()])
        .collect();
    let mut states: BTreeMap<String, String> = BTreeMap::new();
    let mut seen: Vec<String> = vec![String::new()];
    for k in order {
        let (unknown, applies) = outcome(rng);
        let o = &mut ops[k];
        let state = states.entry(o.input.key().to_string()).or_default();
        let output = match &o.input {
            StrKvOp::Get(_) if rng.gen_bool(0.15) => StrKvOutput::Value(seen[rng.gen_range(0..seen.len())].clone()),
            // A fork: an earlier state with some append's value after it.
            StrKvOp::Get(_) if rng.gen_bool(0.15) => {
                let v = values[rng.gen_range(0..values.len())].clone();
                StrKvOutput::Value(format!("{}{v}", seen[rng.gen_range(0..seen.len())]))
            }
            StrKvOp::Get(_) => StrKvOutput::Value(state.clone()),
            StrKvOp::Put(_, v) | StrKvOp::Append(_, v) => {
                let put = matches!(o.input, StrKvOp::Put(..));
                if applies && lost != Some(k) {
                    for _ in 0..1 + usize::from(twice == Some(k)) {
                        *state = if put { v.clone() } else { format!("{state}{v}") };
                    }
                    seen.push(state.clone());
                }
                StrKvOutput::Done
            }
        };
        o.output = (!unknown).then_some(output);
        if unknown && rng.gen_bool(0.5) {
            o.complete = None;
        }
    }
    History { ops }
}

#[test]
fn appends_with_unique_values_agree_with_brute_force_and_the_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let histories: Vec<_> = (0..6000).map(|_| history(&mut rng, false)).collect();
    let t = cross_check(&StringKv, histories.into_iter());
    assert_eq!(t.searched_keys, 0, "{t:?}");
    assert!(t.linearizable > 1500 && t.not > 900, "{t:?}");
    for rule in ["NeverWritten", "TwoUpdates", "ChainOrder", "InsideZone", "ZonesOverlap"] {
        assert!(t.rules.get(rule).is_some_and(|&n| n >= 10), "{rule}: {t:?}");
    }
}

#[test]
fn values_that_split_a_read_more_than_one_way_are_searched_with_the_same_verdicts() {
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    let t = cross_check(&StringKv, (0..3000).map(|_| history(&mut rng, true)));
    assert!(t.searched_keys > 50, "{t:?}");
    assert!(t.linearizable > 500 && t.not > 300, "{t:?}");
}

/// A key of thousands of appends and reads, each read the whole list so
/// far: decided without a search.
#[test]
fn a_long_append_key_is_decided_without_a_search() {
    let mut ops = Vec::new();
    let mut state = String::new();
    for k in 0..3000u64 {
        let t = 10 * k;
        if k % 3 == 2 {
            ops.push(op(
                k % 5,
                StrKvOp::Get("k".into()),
                Some(StrKvOutput::Value(state.clone())),
                t,
                Some(t + 15),
            ));
        } else {
            let v = format!("x {} {k} y", k % 5);
            state.push_str(&v);
            ops.push(op(
                k % 5,
                StrKvOp::Append("k".into(), v),
                Some(StrKvOutput::Done),
                t,
                Some(t + 5),
            ));
        }
    }
    let h = History { ops };
    let c = check(&StringKv, &h, &Options::default());
    assert_eq!(
        (&c.outcome, c.keys_without_search),
        (&Outcome::Linearizable, 1),
        "{c:?}"
    );
    // The last read returns the list without its last value: stale.
    let mut stale = h.clone();
    let last = stale.ops.len() - 1;
    let Some(StrKvOutput::Value(v)) = &mut stale.ops[last].output else {
        panic!("the last op is a read");
    };
    v.truncate(v.rfind('x').expect("a value"));
    let c = check(&StringKv, &stale, &Options::default());
    assert!(matches!(c.outcome, Outcome::NotLinearizable(_)), "{c:?}");
    assert_eq!(c.keys_without_search, 1, "{c:?}");
}
