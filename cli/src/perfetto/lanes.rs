//! Lanes: the threads a viewer draws. A slice must nest inside or stay
//! apart from every other slice of its thread, or the viewer drops it, so
//! slices of one lane that overlap are spread over numbered sub-lanes.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The kind of row an item is drawn on, in the order a process shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Lane {
    Role,
    Crashed,
    Paused,
    Messages,
    Events,
    Network,
    Faults,
    Client(u32),
}

impl Lane {
    fn name(self) -> String {
        match self {
            Lane::Role => "role".into(),
            Lane::Crashed => "crashed".into(),
            Lane::Paused => "paused".into(),
            Lane::Messages => "messages".into(),
            Lane::Events => "events".into(),
            Lane::Network => "network".into(),
            Lane::Faults => "faults".into(),
            Lane::Client(c) => format!("client {c}"),
        }
    }
}

/// How an item is drawn: the Trace Event phase and what only it carries.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
    /// `X`: a slice of `dur_ns`.
    Slice { dur_ns: u64 },
    /// `i`: `scope` is `t` (its thread) or `g` (across the whole trace).
    Instant { scope: &'static str },
    /// `s`: a flow leaves the slice enclosing this point.
    FlowStart { id: u64 },
    /// `f` with `bp: e`: the flow ends in the slice enclosing this point.
    FlowEnd { id: u64 },
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Item {
    pub pid: u64,
    pub lane: Lane,
    /// Which copy of the lane, set by [`spread`]; 0 for all but overlapping slices.
    pub sub: u32,
    pub t_ns: u64,
    pub shape: Shape,
    pub name: String,
    pub cat: String,
    /// The item's `args` as JSON text, none if it has none: a long run has
    /// an item per event, and text takes a fraction of what a JSON value
    /// does while the items wait to be sorted.
    pub args: Option<Box<str>>,
}

/// `args` as an item keeps them.
pub(super) fn args_text(args: Value) -> Option<Box<str>> {
    (!args.is_null()).then(|| args.to_string().into_boxed_str())
}

impl Item {
    fn end_ns(&self) -> u64 {
        match self.shape {
            Shape::Slice { dur_ns } => self.t_ns.saturating_add(dur_ns),
            _ => self.t_ns,
        }
    }
}

/// Moves each slice that would overlap an earlier one of its lane to the
/// first sub-lane where it does not (greedy interval partitioning, in order
/// of start, then end, so a slice that ends where the next begins shares its
/// row). Points stay on sub-lane 0: they are valid anywhere.
pub(super) fn spread(items: &mut [Item]) {
    let mut order: Vec<usize> = (0..items.len())
        .filter(|&i| matches!(items[i].shape, Shape::Slice { .. }))
        .collect();
    order.sort_by_key(|&i| (items[i].pid, items[i].lane, items[i].t_ns, items[i].end_ns()));
    // Per lane: when each of its sub-lanes is free again.
    let mut free: BTreeMap<(u64, Lane), Vec<u64>> = BTreeMap::new();
    for i in order {
        let rows = free.entry((items[i].pid, items[i].lane)).or_default();
        let sub = match rows.iter().position(|&f| f <= items[i].t_ns) {
            Some(s) => s,
            None => {
                rows.push(0);
                rows.len() - 1
            }
        };
        rows[sub] = items[i].end_ns();
        items[i].sub = sub as u32;
    }
}

/// A thread id for every (process, lane, sub-lane) in use, numbered in that
/// order from `first`, with its name. Ids are unique across processes and
/// start past every pid, so no lane is taken for a process's main thread.
pub(super) fn threads(items: &[Item], first: u64) -> BTreeMap<(u64, Lane, u32), (u64, String)> {
    let used: BTreeSet<(u64, Lane, u32)> = items.iter().map(|it| (it.pid, it.lane, it.sub)).collect();
    used.into_iter()
        .zip(first..)
        .map(|((pid, lane, sub), tid)| {
            let name = match sub {
                0 => lane.name(),
                s => format!("{} {}", lane.name(), s + 1),
            };
            ((pid, lane, sub), (tid, name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(t_ns: u64, dur_ns: u64) -> Item {
        Item {
            pid: 0,
            lane: Lane::Network,
            sub: 0,
            t_ns,
            shape: Shape::Slice { dur_ns },
            name: String::new(),
            cat: String::new(),
            args: None,
        }
    }

    #[test]
    fn overlapping_slices_take_separate_rows_and_touching_ones_share() {
        let mut items = vec![slice(0, 10), slice(5, 10), slice(10, 5), slice(15, 0), slice(15, 3)];
        spread(&mut items);
        let subs: Vec<u32> = items.iter().map(|i| i.sub).collect();
        assert_eq!(subs, vec![0, 1, 0, 0, 0]);
        let t = threads(&items, 7);
        assert_eq!(t[&(0, Lane::Network, 0)], (7, "network".to_string()));
        assert_eq!(t[&(0, Lane::Network, 1)], (8, "network 2".to_string()));
    }
}
