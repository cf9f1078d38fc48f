//! Keys whose written values are unique, decided without a search: the
//! polynomial decision of [`super::reads_from`] (or the model's own, see
//! [`Model::order`]), an order it gives replayed
//! through the model before it is believed, and, for a key that is not
//! linearizable, the longest stretch of it from the start that is.

use super::history::Op;
use super::model::{Access, Model};
use super::reads_from::{self, Decision, Item};

/// The verdict on one key, with the failure in the search's own terms.
pub(crate) enum KeyVerdict<S> {
    Linearizable,
    Illegal {
        /// A linearization of every op the key had invoked before
        /// `unplaced` returned, as op indices.
        linearized: Vec<usize>,
        /// The op whose return ends the longest linearizable stretch of
        /// the key: its output is impossible after `linearized`.
        unplaced: usize,
        /// The state after `linearized`.
        state: S,
    },
}

/// `ops`: one key's, in history order, with unknown-outcome reads left out.
/// `None` when the key's values are not unique, or when the decision could
/// not be backed by a replay through the model: then the key is searched.
pub(crate) fn decide<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>]) -> Option<KeyVerdict<M::State>> {
    match linearization(model, ops)? {
        Ok(_) => Some(KeyVerdict::Linearizable),
        Err(bounds) => explain(model, ops, &bounds),
    }
}

/// `Some(Ok(order))`: linearizable, and `order` (indices into `ops`)
/// replays; `Some(Err(bounds))`: not linearizable, and the ops that bound
/// the stretch the decision found broken (maybe none).
type Linearization = Option<Result<Vec<usize>, Vec<usize>>>;

fn linearization<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>]) -> Linearization {
    // Past the memory cap (see `crate::mem::cap_from_here`) the key goes
    // to the search, which stops before it begins and says why.
    let over = crate::mem::over_cap;
    if over() {
        return None;
    }
    if let Some(decided) = model.order(ops) {
        if over() {
            return None;
        }
        return match decided {
            None => Some(Err(Vec::new())),
            Some(order) => believed(model, ops, order).map(Ok),
        };
    }
    let accesses = model.accesses(ops)?;
    if over() {
        return None;
    }
    // Refusals constrain only where they may sit: the rest is decided
    // without them (a history whose rest is not linearizable is not
    // either), and they are placed in the order it gives.
    let (refused, rest): (Vec<usize>, Vec<usize>) =
        (0..ops.len()).partition(|&i| matches!(accesses.get(i), Some(Access::Refused(_))));
    let decision = reads_from::decide(&model.init(), &items(ops, &accesses, &rest)?);
    if over() {
        return None;
    }
    match decision {
        Decision::NotApplicable => None,
        Decision::NotLinearizable(_, bounds) => Some(Err(bounds.into_iter().map(|j| rest[j]).collect())),
        Decision::Linearizable(order) => {
            let order: Vec<usize> = order.into_iter().map(|j| rest[j]).collect();
            let order = place_refusals(model, ops, &accesses, &refused, order)?;
            believed(model, ops, order).map(Ok)
        }
    }
}

/// `order` if it places every completed op and replays through the model.
fn believed<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>], order: Vec<usize>) -> Option<Vec<usize>> {
    let complete = ops.iter().filter(|o| o.is_completed()).count();
    let placed = order.iter().filter(|&&i| ops[i].is_completed()).count();
    (placed == complete && replay(model, ops, &order).is_some()).then_some(order)
}

/// `order` (of every op but the refusals) with each refusal put at the
/// first point its interval allows where the state is not the one it
/// expected; `None` where there is no such point in this order (another
/// order may have one: the key is then searched). Real-time order says
/// where a refusal may go: after every op that returned before it was
/// invoked, before every op invoked after it returned.
fn place_refusals<M: Model>(
    model: &M,
    ops: &[&Op<M::Input, M::Output>],
    accesses: &[Access<M::State>],
    refused: &[usize],
    order: Vec<usize>,
) -> Option<Vec<usize>> {
    if refused.is_empty() {
        return Some(order);
    }
    let m = order.len();
    // Whoever set the state each place in the order stands at (`None`:
    // the initial state), by the op's index; unique values make a setter
    // name its state.
    let mut setter: Vec<Option<usize>> = Vec::with_capacity(m + 1);
    setter.push(None);
    for &i in &order {
        let set = match &accesses[i] {
            Access::Write(_) | Access::Update { .. } => Some(i),
            _ => *setter.last().expect("the initial state"),
        };
        setter.push(set);
    }
    let state_of = |p: usize| -> Option<&M::State> {
        match setter[p] {
            None => None,
            Some(i) => match &accesses[i] {
                Access::Write(s) | Access::Update { to: s, .. } => Some(s),
                _ => None,
            },
        }
    };
    let init = model.init();
    // The earliest return among the ops at or after each place (an op of
    // unknown outcome never returned), and the latest invoke before it:
    // both grow with the place, so each refusal's window is bisected.
    let mut returns_after = vec![u64::MAX; m + 1];
    for p in (0..m).rev() {
        let o = ops[order[p]];
        let r = o.complete.filter(|_| o.is_completed()).unwrap_or(u64::MAX);
        returns_after[p] = returns_after[p + 1].min(r);
    }
    let mut invoked_before = vec![0u64; m + 1];
    for p in 0..m {
        invoked_before[p + 1] = invoked_before[p].max(ops[order[p]].invoke);
    }
    let mut at: Vec<(usize, u64, usize)> = Vec::with_capacity(refused.len());
    for &r in refused {
        let Access::Refused(expected) = &accesses[r] else {
            return None;
        };
        let (invoke, complete) = (ops[r].invoke, ops[r].complete?);
        // Every op that returned before the refusal was invoked comes
        // before it; every op invoked after it returned comes after.
        let lo = returns_after.partition_point(|&t| t < invoke);
        let hi = invoked_before.partition_point(|&t| t <= complete).checked_sub(1)?;
        let p = (lo..=hi).find(|&p| state_of(p).unwrap_or(&init) != expected)?;
        at.push((p, complete, r));
    }
    at.sort_unstable();
    let mut out = Vec::with_capacity(m + at.len());
    let mut next = at.iter().peekable();
    for p in 0..=m {
        while let Some(&(_, _, r)) = next.next_if(|x| x.0 == p) {
            out.push(r);
        }
        if let Some(&i) = order.get(p) {
            out.push(i);
        }
    }
    Some(out)
}

/// The ops `which` picks as the decision sees them (item `j` is op
/// `which[j]`); `None` for accesses that do not match the ops one to one,
/// or an op that returns before it is invoked.
fn items<'a, I, O, S>(ops: &[&Op<I, O>], accesses: &'a [Access<S>], which: &[usize]) -> Option<Vec<Item<'a, S>>> {
    if accesses.len() != ops.len() || ops.iter().any(|o| o.complete.is_some_and(|c| c < o.invoke)) {
        return None;
    }
    let items = which
        .iter()
        .map(|&i| Item {
            access: &accesses[i],
            invoke: ops[i].invoke,
            returned: ops[i].complete.filter(|_| ops[i].is_completed()),
        })
        .collect();
    Some(items)
}

/// [`decide`] with the failing cut found by bisection alone, for the
/// tests that show the guess changes nothing.
#[cfg(test)]
pub(crate) fn decide_by_bisection<M: Model>(
    model: &M,
    ops: &[&Op<M::Input, M::Output>],
) -> Option<KeyVerdict<M::State>> {
    match linearization(model, ops)? {
        Ok(_) => Some(KeyVerdict::Linearizable),
        Err(_) => explain(model, ops, &[]),
    }
}

/// Which rule a key that is not linearizable broke.
#[cfg(test)]
pub(crate) fn rule<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>]) -> Option<reads_from::Rule> {
    let accesses = model.accesses(ops)?;
    let all: Vec<usize> = (0..ops.len()).collect();
    match reads_from::decide(&model.init(), &items(ops, &accesses, &all)?) {
        Decision::NotLinearizable(rule, _) => Some(rule),
        _ => None,
    }
}

/// The state after `order`, if each op in it steps from the state before
/// (with its output, where it completed), none comes after an op it
/// returned before, and none comes twice.
fn replay<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>], order: &[usize]) -> Option<M::State> {
    let mut state = model.init();
    let mut invoked_last = None;
    let mut seen = vec![false; ops.len()];
    for &i in order {
        let o = ops[i];
        let returned = o.complete.filter(|_| o.is_completed());
        if std::mem::replace(&mut seen[i], true) || returned.is_some_and(|r| Some(r) < invoked_last) {
            return None;
        }
        invoked_last = invoked_last.max(Some(o.invoke));
        let output = if o.is_completed() { o.output.as_ref() } else { None };
        if !model.step_in_place(&mut state, &o.input, output) {
            return None;
        }
    }
    Some(state)
}

/// Cut the key after its first `k` events (invokes and returns, by
/// position; at one position invokes first, so that a cut holds every op
/// that may come before an op it holds the return of). Linearizability
/// only gets lost as `k` grows, and only at a return, so a binary search
/// finds the return that loses it, and the cut before it gives an order of
/// everything invoked until then, after which that return is impossible.
///
/// `bounds`, the ops that bound the stretch the decision of the whole key
/// found broken, guess the cut: just after the last of their returns (or
/// invokes, for ops that never returned). Two cuts check the guess, and
/// where it is wrong the bisection goes on from what they showed; a key
/// of two million ops is cut some 22 times without it.
fn explain<M: Model>(model: &M, ops: &[&Op<M::Input, M::Output>], bounds: &[usize]) -> Option<KeyVerdict<M::State>> {
    let n = ops.len();
    let mut events: Vec<(u64, bool, usize)> = (0..n).map(|i| (ops[i].invoke, false, i)).collect();
    events.extend(
        (0..n)
            .filter(|&i| ops[i].is_completed())
            .map(|i| (ops[i].complete.unwrap_or(0), true, i)),
    );
    events.sort_unstable();
    let (mut invoked_at, mut returned_at) = (vec![0; n], vec![usize::MAX; n]);
    for (k, &(_, ret, i)) in events.iter().enumerate() {
        if ret {
            returned_at[i] = k;
        } else {
            invoked_at[i] = k;
        }
    }
    let cut = |k: usize| {
        let kept: Vec<usize> = (0..n)
            .filter(|&i| invoked_at[i] < k && (returned_at[i] < k || !model.is_read(&ops[i].input)))
            .collect();
        // The ops the cut leaves open, as ops of unknown outcome: copied
        // for this cut alone, as there are only as many as were running
        // at once.
        let open: Vec<Op<M::Input, M::Output>> = kept
            .iter()
            .filter(|&&i| returned_at[i] >= k)
            .map(|&i| Op {
                client: ops[i].client,
                input: ops[i].input.clone(),
                output: None,
                invoke: ops[i].invoke,
                complete: None,
            })
            .collect();
        let mut open = open.iter();
        let sub: Vec<&Op<M::Input, M::Output>> = kept
            .iter()
            .map(|&i| match returned_at[i] < k {
                true => ops[i],
                false => open.next().expect("one copy per open op"),
            })
            .collect();
        let order = linearization(model, &sub)?;
        Some(order.map(|o| o.into_iter().map(|j| kept[j]).collect::<Vec<usize>>()))
    };
    // cut(lo) is linearizable, cut(hi) is not.
    let (mut lo, mut hi, mut witness) = (0, events.len(), Vec::new());
    let guess = bounds
        .iter()
        .map(|&i| match returned_at[i] {
            usize::MAX => invoked_at[i],
            r => r,
        })
        .max();
    for k in guess.map_or(0..0, |g| g..g + 2).rev() {
        if lo < k && k < hi {
            match cut(k)? {
                Ok(order) => (lo, witness) = (k, order),
                Err(_) => hi = k,
            }
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match cut(mid)? {
            Ok(order) => (lo, witness) = (mid, order),
            Err(_) => hi = mid,
        }
    }
    let (_, is_return, unplaced) = *events.get(hi.checked_sub(1)?)?;
    if !is_return || witness.contains(&unplaced) {
        return None;
    }
    let state = replay(model, ops, &witness)?;
    let x = ops[unplaced];
    model
        .step(&state, &x.input, x.output.as_ref())
        .is_none()
        .then_some(KeyVerdict::Illegal {
            linearized: witness,
            unplaced,
            state,
        })
}
