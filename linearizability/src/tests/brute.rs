//! A checker with nothing clever in it, to cross-check the search: try
//! every order of the ops that real time allows, over all keys at once, and
//! let unknown-outcome ops either take effect anywhere after their invoke
//! or never. Exponential; for histories of a handful of ops.

use super::history::History;
use super::model::Model;
use std::collections::BTreeMap;

pub(crate) fn linearizable<M: Model>(model: &M, h: &History<M::Input, M::Output>) -> bool {
    let mut placed = vec![false; h.ops.len()];
    place(model, h, &mut placed, &mut BTreeMap::new())
}

fn place<M: Model>(
    model: &M,
    h: &History<M::Input, M::Output>,
    placed: &mut [bool],
    states: &mut BTreeMap<M::Key, M::State>,
) -> bool {
    let open = |placed: &[bool], y: usize| !placed[y] && h.ops[y].is_completed();
    if !(0..h.ops.len()).any(|y| open(placed, y)) {
        return true;
    }
    for x in 0..h.ops.len() {
        if placed[x] {
            continue;
        }
        let op = &h.ops[x];
        // Every completed op that returned before x was invoked goes first.
        let blocked = (0..h.ops.len()).any(|y| open(placed, y) && h.ops[y].complete.is_some_and(|c| c < op.invoke));
        if blocked {
            continue;
        }
        let key = model.key(&op.input);
        let before = states.get(&key).cloned().unwrap_or_else(|| model.init());
        let output = if op.is_completed() { op.output.as_ref() } else { None };
        if let Some(after) = model.step(&before, &op.input, output) {
            states.insert(key.clone(), after);
            placed[x] = true;
            if place(model, h, placed, states) {
                return true;
            }
            placed[x] = false;
            states.insert(key, before);
        }
    }
    false
}
