//! A set's history decided without a search, where every add's element is
//! unique (Jepsen's set tests add distinct integers). Adds commute, so a
//! read shows which adds came before it but not their order: what it pins
//! is a level. The sets the reads returned must form a chain under
//! inclusion (the set only grows); the i-th distinct set of the chain is
//! level i, and an add belongs to the first level whose set holds its
//! element (past the last if none does). Then an order exists exactly when
//! each op can be given a point in its interval such that every add comes
//! no later than each read of its level or after, and no earlier than
//! each read of a level before its own. Those are difference constraints
//! over a graph layered by level, so the earliest points, taken level by
//! level, are a solution if any is: O(n log n) plus the reads' length.

use super::history::Op;
use super::set::{SetOp, SetOutput};
use std::collections::BTreeMap;

/// `None` where an element is added twice (the search decides that key);
/// `Some(None)` where no order exists; else an order of the ops that
/// happened (indices into `ops`), which the caller replays before it
/// believes it.
pub(super) fn order<V: Ord>(ops: &[&Op<SetOp<V>, SetOutput<V>>]) -> Option<Option<Vec<usize>>> {
    // An op that returns before it is invoked is left to the search, as
    // the decision by accesses leaves it.
    if ops.iter().any(|o| o.complete.is_some_and(|c| c < o.invoke)) {
        return None;
    }
    let mut added: BTreeMap<&V, usize> = BTreeMap::new();
    for (i, o) in ops.iter().enumerate() {
        if let SetOp::Add(v) = &o.input {
            if added.insert(v, i).is_some() {
                return None;
            }
        }
    }
    let reads: Vec<(usize, &[V])> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_completed())
        .filter_map(|(i, o)| match (&o.input, &o.output) {
            (SetOp::Read, Some(SetOutput::Read(seen))) => Some((i, seen.as_slice())),
            _ => None,
        })
        .collect();
    // The distinct sets read, smallest first; a read output is sorted, so
    // a repeat is a neighbour, and no set holds an element twice.
    let mut sets: Vec<&[V]> = reads.iter().map(|r| r.1).collect();
    sets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    if sets.iter().any(|s| s.windows(2).any(|w| w[0] == w[1])) {
        return Some(None);
    }
    if sets.windows(2).any(|w| !is_subset(w[0], w[1])) {
        return Some(None);
    }
    let levels = sets.len();
    let level_of_set = |s: &[V]| sets.binary_search_by(|x| x.len().cmp(&s.len()).then_with(|| (*x).cmp(s)));
    // Each element's level: the first set that holds it, so walking the
    // chain once names them all; an element no add wrote cannot be read.
    let mut level_of_add: Vec<usize> = vec![levels; ops.len()];
    let mut before: &[V] = &[];
    for (l, s) in sets.iter().enumerate() {
        for v in news(before, s) {
            match added.get(v) {
                Some(&i) => level_of_add[i] = l,
                None => return Some(None),
            }
        }
        before = s;
    }
    // Which ops take part: completed adds, adds of unknown outcome that a
    // read saw (they happened), completed reads. An unseen add of unknown
    // outcome may as well never have happened.
    let mut by_level: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); levels + 1];
    for (i, o) in ops.iter().enumerate() {
        if let SetOp::Add(_) = o.input {
            if o.is_completed() || level_of_add[i] < levels {
                by_level[level_of_add[i]].0.push(i);
            }
        }
    }
    for &(i, s) in &reads {
        let l = level_of_set(s).expect("every set read is a level");
        by_level[l].1.push(i);
    }
    let returned = |i: usize| ops[i].complete.filter(|_| ops[i].is_completed());
    // Earliest points, level by level: an add no earlier than every read
    // of the levels before its own; a read no earlier than every add of
    // its level or before.
    let (mut reads_before, mut adds_upto) = (0u64, 0u64);
    let mut placed: Vec<(u64, usize, usize)> = Vec::new();
    for (l, (adds, lreads)) in by_level.iter().enumerate() {
        for &a in adds {
            let p = ops[a].invoke.max(reads_before);
            if returned(a).is_some_and(|r| p > r) {
                return Some(None);
            }
            adds_upto = adds_upto.max(p);
            placed.push((p, 2 * l, a));
        }
        let mut latest = reads_before;
        for &r in lreads {
            let p = ops[r].invoke.max(adds_upto);
            if returned(r).is_some_and(|ret| p > ret) {
                return Some(None);
            }
            latest = latest.max(p);
            placed.push((p, 2 * l + 1, r));
        }
        reads_before = latest;
    }
    // At one point, a level's adds before its reads, and its reads before
    // the next level's adds.
    placed.sort_unstable();
    Some(Some(placed.into_iter().map(|(_, _, i)| i).collect()))
}

/// Both sorted, without repeats: one walk along both, since reads of a
/// growing set repeat most of what the one before returned.
fn is_subset<V: Ord>(small: &[V], big: &[V]) -> bool {
    small.len() <= big.len() && news(small, big).count() == big.len() - small.len()
}

/// The elements of `big` not in `small`, both sorted without repeats and
/// `small` within `big`.
fn news<'a, V: Ord>(small: &'a [V], big: &'a [V]) -> impl Iterator<Item = &'a V> + 'a {
    let mut rest = small.iter().peekable();
    big.iter().filter(move |v| {
        while rest.next_if(|s| s < v).is_some() {}
        rest.next_if(|s| s == v).is_none()
    })
}
