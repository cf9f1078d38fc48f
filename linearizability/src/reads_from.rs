//! One key decided in polynomial time when every write's value is unique,
//! so that each read names the write it read from: the read-mapping case
//! of Gibbons and Korach, "Testing shared memories" (SIAM J. Computing,
//! 1997), with compare-and-set added.
//!
//! A value, once overwritten, never comes back, so in any linearization a
//! write is followed by every read of its value before the next write
//! lands, and an update (a cas that applied) is the last op of the value it
//! found and the first of the value it set. The ops therefore fall into
//! chains, each one block of the linearization: a write (or the initial
//! state), the reads of its value, the update that replaced it, the reads
//! of the new value, and so on.
//!
//! Inside a chain, no op may complete before an op of an earlier part of
//! the chain was invoked. Between chains, only where they can sit matters.
//! A chain begins no later than its earliest completion `f` and ends no
//! earlier than its latest invoke `s`. If `f < s` it must cover `[f, s]`
//! (a forward zone); otherwise it fits at any one point of `[s, f]` (a
//! backward zone), all its ops at once. The key is linearizable iff, beside
//! the chains being sound, no two forward zones overlap (touching is
//! fine: an op completed at `p` and one invoked at `p` are concurrent) and
//! no backward zone lies inside the open interior of a forward zone.
//!
//! Ops of unknown outcome have no completion (`f` counts them as +inf).
//! One whose value something that happened saw did happen; one nothing saw
//! is taken never to have happened, which changes no verdict: nothing
//! depended on the value it set, and removing it from a linearization
//! leaves the rest valid.

use super::memo::WordHasher;
use super::model::Access;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash};

/// One op of the key, as the decision sees it.
pub(crate) struct Item<'a, S> {
    pub access: &'a Access<S>,
    pub invoke: u64,
    /// Where it returned its known output; `None`: outcome unknown.
    pub returned: Option<u64>,
}

/// Which condition a key that is not linearizable broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Something saw a value that no op wrote (or that was written only
    /// after it completed, when the key is cut short).
    NeverWritten,
    /// Two updates found the same value: after the first, it was gone.
    TwoUpdates,
    /// Updates that only each other could have started.
    Cycle,
    /// An op of a chain completed before an op it must follow was invoked
    /// (a read returned before its write began).
    ChainOrder,
    /// Two chains must both cover the same stretch of time.
    ZonesOverlap,
    /// A chain has no point left outside another chain's stretch.
    InsideZone,
}

pub(crate) enum Decision {
    /// The ops in an order that linearizes them (indices into the items);
    /// unknown-outcome ops left out never happened.
    Linearizable(Vec<usize>),
    /// Which rule is for the tests, which show that each one is exercised;
    /// the items are the ops that bound the stretch of time the rule was
    /// broken in (none for a cycle), so that the shortest start of the key
    /// that breaks it can be guessed: it ends at the last of their returns.
    NotLinearizable(#[cfg_attr(not(test), allow(dead_code))] Rule, Vec<usize>),
    /// Some written value is not unique (or equals the initial state), or an
    /// access does not fit its op's outcome: the decision does not apply.
    NotApplicable,
}

/// Positions widened so that an unknown completion is +inf and the
/// initial state's "write" is -inf.
type Time = i128;
const NEG_INF: Time = Time::MIN;
const POS_INF: Time = Time::MAX;
const NONE: usize = usize::MAX;

type Fixed = BuildHasherDefault<WordHasher>;

impl<S> Access<S> {
    /// The state this op sets, if any.
    fn written(&self) -> Option<&S> {
        match self {
            Access::Write(s) | Access::Update { to: s, .. } => Some(s),
            _ => None,
        }
    }

    /// The state this op found, if it looked.
    fn seen(&self) -> Option<&S> {
        match self {
            Access::Read(s) | Access::Update { from: s, .. } => Some(s),
            _ => None,
        }
    }
}

/// A chain: its first op (`NONE` for the initial state), its zone, and
/// the ops that returned first and were invoked last (`NONE`: none).
struct Chain {
    head: usize,
    first_return: Time,
    last_invoke: Time,
    first_returned: usize,
    last_invoked: usize,
}

impl Chain {
    fn bounds(&self) -> Vec<usize> {
        [self.head, self.first_returned, self.last_invoked]
            .into_iter()
            .filter(|&i| i != NONE)
            .collect()
    }

    /// Take in ops that returned at `ret` (op `r`) and were invoked at
    /// `inv` (op `i`).
    fn widen(&mut self, ret: Time, r: usize, inv: Time, i: usize) {
        if ret < self.first_return {
            (self.first_return, self.first_returned) = (ret, r);
        }
        if inv > self.last_invoke {
            (self.last_invoke, self.last_invoked) = (inv, i);
        }
    }
}

pub(crate) fn decide<S: Eq + Hash>(init: &S, items: &[Item<S>]) -> Decision {
    let n = items.len();
    let misfit = items.iter().any(|it| {
        matches!(
            (it.access, it.returned),
            (Access::Read(_), None) | (Access::Nothing, Some(_)) | (Access::Refused(_), _)
        )
    });
    if misfit {
        return Decision::NotApplicable;
    }
    // Past the memory cap (checked between the steps below, each of which
    // takes memory in proportion to the ops) the key is left undecided.
    let over = crate::mem::over_cap;
    let mut writer: HashMap<&S, usize, Fixed> = HashMap::with_capacity_and_hasher(n, Fixed::default());
    for (i, it) in items.iter().enumerate() {
        if let Some(s) = it.access.written() {
            if s == init || writer.insert(s, i).is_some() {
                return Decision::NotApplicable;
            }
        }
    }
    if over() {
        return Decision::NotApplicable;
    }
    // The value an op saw, as its writer's index; the initial state is `n`.
    let source = |s: &S| if s == init { Some(n) } else { writer.get(s).copied() };
    let happened = match happened(items, &source) {
        Ok(h) => h,
        Err(i) => return Decision::NotLinearizable(Rule::NeverWritten, vec![i]),
    };
    let mut next = vec![NONE; n + 1];
    let mut reads: Vec<(usize, usize)> = Vec::new();
    for i in (0..n).filter(|&i| happened[i]) {
        let Some(v) = items[i].access.seen().and_then(&source) else {
            continue;
        };
        match items[i].access {
            Access::Update { .. } if next[v] != NONE => {
                return Decision::NotLinearizable(Rule::TwoUpdates, vec![next[v], i])
            }
            Access::Update { .. } => next[v] = i,
            _ => reads.push((v, i)),
        }
    }
    if over() {
        return Decision::NotApplicable;
    }
    reads.sort_unstable_by_key(|&(v, i)| (v, items[i].invoke, i));
    let readers = Readers::new(&reads, n + 1);
    drop(reads);
    if over() {
        return Decision::NotApplicable;
    }
    let mut heads: Vec<usize> = Vec::new();
    if next[n] != NONE || !readers.of(n).is_empty() {
        heads.push(NONE);
    }
    heads.extend((0..n).filter(|&i| happened[i] && matches!(items[i].access, Access::Write(_))));
    let mut placed = vec![false; n];
    let mut chains = Vec::with_capacity(heads.len());
    for head in heads {
        match chain(items, head, &next, &readers, &mut placed) {
            Ok(c) => chains.push(c),
            Err(ops) => return Decision::NotLinearizable(Rule::ChainOrder, ops),
        }
    }
    if (0..n).any(|i| happened[i] && !placed[i]) {
        return Decision::NotLinearizable(Rule::Cycle, Vec::new());
    }
    if over() {
        return Decision::NotApplicable;
    }
    match spans(&chains) {
        Ok(spans) => Decision::Linearizable(order(&chains, &spans, &next, &readers, n)),
        Err((rule, ops)) => Decision::NotLinearizable(rule, ops),
    }
}

/// Completed ops, and the unknown-outcome writes that something which
/// happened saw, transitively; or an op that saw what nothing wrote.
fn happened<S>(items: &[Item<S>], source: &impl Fn(&S) -> Option<usize>) -> Result<Vec<bool>, usize> {
    let n = items.len();
    let mut happened: Vec<bool> = items.iter().map(|it| it.returned.is_some()).collect();
    let mut todo: Vec<usize> = (0..n).filter(|&i| happened[i]).collect();
    while let Some(i) = todo.pop() {
        let Some(seen) = items[i].access.seen() else {
            continue;
        };
        match source(seen) {
            None => return Err(i),
            Some(w) if w < n && !happened[w] => {
                happened[w] = true;
                todo.push(w);
            }
            Some(_) => {}
        }
    }
    Ok(happened)
}

/// The reads of each value, as ranges of a list sorted by value.
struct Readers {
    ops: Vec<usize>,
    start: Vec<usize>,
}

impl Readers {
    fn new(sorted: &[(usize, usize)], values: usize) -> Readers {
        let mut start = vec![0; values + 1];
        for &(v, _) in sorted {
            start[v + 1] += 1;
        }
        for v in 0..values {
            start[v + 1] += start[v];
        }
        Readers {
            ops: sorted.iter().map(|&(_, i)| i).collect(),
            start,
        }
    }

    fn of(&self, value: usize) -> &[usize] {
        &self.ops[self.start[value]..self.start[value + 1]]
    }
}

fn invoke<S>(it: &Item<S>) -> Time {
    it.invoke as Time
}

fn returned<S>(it: &Item<S>) -> Time {
    it.returned.map_or(POS_INF, |r| r as Time)
}

/// Walk the chain from `head` (`NONE`: the initial state), checking that
/// each part can follow the one before, and find its zone; or the op that
/// returned too early and the one it had to follow.
fn chain<S>(
    items: &[Item<S>],
    head: usize,
    next: &[usize],
    readers: &Readers,
    placed: &mut [bool],
) -> Result<Chain, Vec<usize>> {
    let n = items.len();
    let mut c = match head {
        NONE => Chain {
            head,
            first_return: NEG_INF,
            last_invoke: NEG_INF,
            first_returned: NONE,
            last_invoked: NONE,
        },
        h => Chain {
            head,
            first_return: returned(&items[h]),
            last_invoke: invoke(&items[h]),
            first_returned: h,
            last_invoked: h,
        },
    };
    let mut value = if head == NONE { n } else { head };
    // The latest invoke among ops of earlier parts, and its op: every
    // later op must return no earlier.
    let (mut before, mut before_op) = (c.last_invoke, c.last_invoked);
    loop {
        if value < n {
            placed[value] = true;
        }
        let reads = readers.of(value);
        let (mut min_return, mut max_invoke, mut min_op, mut max_op) = (POS_INF, NEG_INF, NONE, NONE);
        for &r in reads {
            placed[r] = true;
            if returned(&items[r]) < min_return {
                (min_return, min_op) = (returned(&items[r]), r);
            }
            if invoke(&items[r]) > max_invoke {
                (max_invoke, max_op) = (invoke(&items[r]), r);
            }
        }
        if min_return < before {
            return Err(vec![min_op, before_op]);
        }
        if max_invoke > before {
            (before, before_op) = (max_invoke, max_op);
        }
        c.widen(min_return, min_op, max_invoke, max_op);
        let u = next[value];
        if u == NONE {
            break;
        }
        if returned(&items[u]) < before {
            return Err(vec![u, before_op]);
        }
        if invoke(&items[u]) > before {
            (before, before_op) = (invoke(&items[u]), u);
        }
        c.widen(returned(&items[u]), u, invoke(&items[u]), u);
        value = u;
    }
    Ok(c)
}

/// A rule broken, and the ops that bound where.
type Broken = (Rule, Vec<usize>);

/// Where each chain sits, `(begin, end)`, with no two overlapping but at
/// an end; or the condition no placement meets, with the bounds of the
/// chains that break it.
fn spans(chains: &[Chain]) -> Result<Vec<(Time, Time)>, Broken> {
    let forward = |c: &Chain| c.first_return < c.last_invoke;
    let mut by_zone: Vec<(Time, Time, usize)> = (0..chains.len())
        .filter(|&c| forward(&chains[c]))
        .map(|c| (chains[c].first_return, chains[c].last_invoke, c))
        .collect();
    by_zone.sort_unstable();
    if let Some(w) = by_zone.windows(2).find(|w| w[1].0 < w[0].1) {
        let ops = [chains[w[0].2].bounds(), chains[w[1].2].bounds()].concat();
        return Err((Rule::ZonesOverlap, ops));
    }
    let zones: Vec<(Time, Time)> = by_zone.iter().map(|&(a, b, _)| (a, b)).collect();
    chains
        .iter()
        .map(|c| {
            if forward(c) {
                return Ok((c.first_return, c.last_invoke));
            }
            let (from, to) = (c.last_invoke, c.first_return);
            // The forward zone that begins last before `from`, if any, is
            // the only one whose interior can hold `from`.
            let k = zones.partition_point(|z| z.0 < from);
            let point = match k.checked_sub(1).map(|k| (zones[k], by_zone[k].2)) {
                Some(((_, end), z)) if to < end => {
                    return Err((Rule::InsideZone, [c.bounds(), chains[z].bounds()].concat()))
                }
                Some(((_, end), _)) if from < end => end,
                _ => from,
            };
            Ok((point, point))
        })
        .collect()
}

/// The linearization: chains by where they sit, each in its own order.
fn order(chains: &[Chain], spans: &[(Time, Time)], next: &[usize], readers: &Readers, n: usize) -> Vec<usize> {
    let mut by_span: Vec<usize> = (0..chains.len()).collect();
    by_span.sort_unstable_by_key(|&c| (spans[c], c));
    let mut out = Vec::with_capacity(n);
    for c in by_span {
        let head = chains[c].head;
        let mut value = n;
        if head != NONE {
            out.push(head);
            value = head;
        }
        loop {
            out.extend_from_slice(readers.of(value));
            match next[value] {
                NONE => break,
                u => {
                    out.push(u);
                    value = u;
                }
            }
        }
    }
    out
}
