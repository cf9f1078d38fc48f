//! The search for one key's sub-history: Wing & Gong's backtracking as
//! Lowe refined it. Calls and returns sit in one doubly-linked list ordered
//! by position; linearizing an op lifts its call and return out of the list,
//! backtracking puts them back, and a cache of (linearized set, state)
//! prunes every configuration already explored. No recursion: the stack of
//! linearized ops is explicit, so no history can overflow the thread stack.

use super::history::Op;
use super::memo::{Admit, Bits, Memo, Restriction};
use super::model::{Model, Seen};

/// How one key's search ended.
pub(crate) enum KeyResult<S> {
    Linearizable,
    Illegal {
        /// The longest partial linearization found, as op indices.
        linearized: Vec<usize>,
        /// The op whose return came with no way left to place it.
        unplaced: usize,
        /// The model state after `linearized`.
        state: S,
    },
    /// The step budget ran out first.
    GaveUp,
    /// A signal asked the search to stop.
    Interrupted,
    /// The memo table reached its cap first: `entries` configurations in
    /// about `bytes` bytes.
    MemoFull {
        entries: usize,
        bytes: u64,
    },
    /// What the thread holds passed its cap ([`crate::mem::cap_from_here`]).
    OverCap,
}

const NONE: u32 = u32::MAX;
const HEAD: u32 = 0;

#[derive(Clone, Copy)]
struct Entry {
    /// Index into the key's ops.
    op: u32,
    is_call: bool,
}

struct Frame<S> {
    call: u32,
    /// The state before this op, restored when it is taken back.
    state: S,
    after_unknown: bool,
    after_lurker: bool,
}

/// The call/return list: node 0 is the head; `match_of[call]` is the node
/// of its return, or `NONE` for an op whose outcome is unknown (it never
/// returns, so nothing has to precede it and it never forces a backtrack).
struct Links {
    entries: Vec<Entry>,
    next: Vec<u32>,
    prev: Vec<u32>,
    match_of: Vec<u32>,
}

impl Links {
    /// `ret_at[j]`: where op `j` must have taken effect by, if anywhere.
    fn new<I, O>(ops: &[&Op<I, O>], ret_at: &[Option<u64>]) -> Links {
        // (position, returns after calls at equal positions, op, is_call)
        let mut order: Vec<(u64, u8, u32, bool)> = Vec::with_capacity(ops.len() * 2);
        for (j, op) in ops.iter().enumerate() {
            order.push((op.invoke, 0, j as u32, true));
            if let Some(at) = ret_at[j] {
                order.push((at, 1, j as u32, false));
            }
        }
        order.sort_unstable();
        let n = order.len() + 1;
        let mut entries = vec![Entry {
            op: NONE,
            is_call: false,
        }];
        let mut call_node = vec![NONE; ops.len()];
        let mut match_of = vec![NONE; n];
        for (k, &(_, _, op, is_call)) in order.iter().enumerate() {
            entries.push(Entry { op, is_call });
            if is_call {
                call_node[op as usize] = k as u32 + 1;
            }
        }
        for (k, &(_, _, op, is_call)) in order.iter().enumerate() {
            if !is_call {
                match_of[call_node[op as usize] as usize] = k as u32 + 1;
            }
        }
        let next = (0..n as u32)
            .map(|k| if k + 1 < n as u32 { k + 1 } else { NONE })
            .collect();
        let prev = (0..n as u32).map(|k| k.wrapping_sub(1)).collect();
        Links {
            entries,
            next,
            prev,
            match_of,
        }
    }

    fn unlink(&mut self, x: u32) {
        let (p, n) = (self.prev[x as usize], self.next[x as usize]);
        self.next[p as usize] = n;
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// Undo `unlink(x)`; valid because links are restored in reverse order.
    fn relink(&mut self, x: u32) {
        let (p, n) = (self.prev[x as usize], self.next[x as usize]);
        self.next[p as usize] = x;
        if n != NONE {
            self.prev[n as usize] = x;
        }
    }

    fn lift(&mut self, call: u32) {
        self.unlink(call);
        let ret = self.match_of[call as usize];
        if ret != NONE {
            self.unlink(ret);
        }
    }

    fn unlift(&mut self, call: u32) {
        let ret = self.match_of[call as usize];
        if ret != NONE {
            self.relink(ret);
        }
        self.relink(call);
    }
}

/// Search one key's ops (all of one partition), given what was seen of
/// each ([`Seen`]). `steps` counts model steps across keys; the search
/// gives up once it passes `limit`, or once its memo table would pass
/// `memo_bytes_max`.
pub(crate) fn search<M: Model>(
    model: &M,
    ops: &[&Op<M::Input, M::Output>],
    seen: &[Seen],
    steps: &mut u64,
    limit: u64,
    memo_bytes_max: u64,
    interruptible: bool,
) -> KeyResult<M::State> {
    let has_output: Vec<bool> = ops.iter().map(|o| o.is_completed()).collect();
    let ret_at: Vec<Option<u64>> = ops
        .iter()
        .zip(seen)
        .map(|(o, s)| match (o.is_completed(), s) {
            (true, _) => o.complete,
            (false, Seen::Before(at)) => Some(*at),
            _ => None,
        })
        .collect();
    // Ops that must be placed: a known output, or a seen effect.
    let completed: Vec<bool> = ret_at.iter().map(|r| r.is_some()).collect();
    let lurk: Vec<bool> = seen.iter().map(|s| *s == Seen::OnlyByRefusals).collect();
    let refusal: Vec<bool> = ops
        .iter()
        .zip(&has_output)
        .map(|(o, c)| *c && model.is_refusal(&o.input, o.output.as_ref()))
        .collect();
    // Lurkers by invoke, which is list order: placing only the earliest
    // unplaced one keeps the placed ones a prefix of this ranking.
    let mut rank = vec![usize::MAX; ops.len()];
    let mut by_invoke: Vec<usize> = (0..ops.len()).filter(|&j| lurk[j]).collect();
    by_invoke.sort_by_key(|&j| (ops[j].invoke, j));
    for (r, &j) in by_invoke.iter().enumerate() {
        rank[j] = r;
    }
    let mut lurkers_placed = 0;
    let mut after_lurker = false;
    let mut left = completed.iter().filter(|c| **c).count();
    let mut links = Links::new(ops, &ret_at);
    let mut memo: Memo<M::State> = Memo::new(memo_bytes_max);
    let mut bits = Bits::new(ops.len());
    let mut state = model.init();
    let mut stack: Vec<Frame<M::State>> = Vec::new();
    // Whether the last op placed had an unknown outcome: see is_blind_write.
    let mut after_unknown = false;
    let mut best: Option<(Vec<usize>, usize, M::State)> = None;
    let mut node = links.next[HEAD as usize];
    if crate::mem::over_cap() {
        return KeyResult::OverCap;
    }
    loop {
        if left == 0 {
            // Every op left has an unknown outcome: it may never happen.
            return KeyResult::Linearizable;
        }
        let entry = if node == NONE {
            None
        } else {
            Some(links.entries[node as usize])
        };
        match entry {
            Some(Entry { op, is_call: true }) => {
                let j = op as usize;
                let input = &ops[j].input;
                let output = if has_output[j] { ops[j].output.as_ref() } else { None };
                let eligible = !(after_unknown && model.is_blind_write(input))
                    && (!after_lurker || refusal[j])
                    && (!lurk[j] || rank[j] == lurkers_placed);
                if eligible {
                    *steps += 1;
                    if *steps > limit {
                        return KeyResult::GaveUp;
                    }
                    // A signal is looked for every 65,536 steps (a few ms).
                    if interruptible && steps.trailing_zeros() >= 16 && crate::stop::requested() {
                        return KeyResult::Interrupted;
                    }
                    if let Some(next_state) = model.step(&state, input, output) {
                        bits.set(j);
                        let restricted = !has_output[j];
                        let level = match (lurk[j], restricted) {
                            (true, _) => Restriction::RefusalOnly,
                            (false, true) => Restriction::NoBlindWrite,
                            (false, false) => Restriction::None,
                        };
                        let heap = model.state_heap_bytes(&next_state);
                        let admit = memo.admit(&bits, &next_state, heap, level);
                        if admit == Admit::Full {
                            return KeyResult::MemoFull {
                                entries: memo.entries(),
                                bytes: memo.bytes(),
                            };
                        }
                        if crate::mem::over_cap() {
                            return KeyResult::OverCap;
                        }
                        if admit == Admit::Explore {
                            let prior = std::mem::replace(&mut state, next_state);
                            memo.hold(model.state_heap_bytes(&prior));
                            stack.push(Frame {
                                call: node,
                                state: prior,
                                after_unknown,
                                after_lurker,
                            });
                            after_unknown = restricted;
                            after_lurker = lurk[j];
                            lurkers_placed += lurk[j] as usize;
                            links.lift(node);
                            left -= completed[j] as usize;
                            node = links.next[HEAD as usize];
                            continue;
                        }
                        bits.clear(j);
                    }
                }
                node = links.next[node as usize];
            }
            // A return whose op is not placed yet (or, defensively, the end
            // of the list): nothing later may be placed before it, so this
            // branch is dead.
            ret => {
                if best.as_ref().is_none_or(|b| stack.len() > b.0.len()) {
                    if let Some(Entry { op, .. }) = ret {
                        let placed = stack
                            .iter()
                            .map(|f| links.entries[f.call as usize].op as usize)
                            .collect();
                        best = Some((placed, op as usize, state.clone()));
                    }
                }
                let Some(top) = stack.pop() else {
                    let (linearized, unplaced, state) = best.unwrap_or_else(|| (Vec::new(), 0, model.init()));
                    return KeyResult::Illegal {
                        linearized,
                        unplaced,
                        state,
                    };
                };
                let j = links.entries[top.call as usize].op as usize;
                bits.clear(j);
                memo.let_go(model.state_heap_bytes(&top.state));
                state = top.state;
                after_unknown = top.after_unknown;
                after_lurker = top.after_lurker;
                lurkers_placed -= lurk[j] as usize;
                links.unlift(top.call);
                left += completed[j] as usize;
                node = links.next[top.call as usize];
            }
        }
    }
}
