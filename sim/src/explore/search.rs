//! The walk over tapes: fewest deviations first (the first violation
//! found departs from the natural order as little as any can), or depth
//! first (memory grows with the depth, not the frontier).
//!
//! Every tape is run from the start: a run is cheap at small scope, and a
//! model need not be cloneable. A run goes on past its tape with natural
//! moves and reports every state it passes, so one run visits a whole
//! path. A state is known by its digest; a path stops counting where it
//! reaches a state already expanded with as much budget left, since it
//! goes on from there as it did before.

use super::{Bounds, Known, Meeting, Tape};
use crate::hash::StableHasher;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::hash::BuildHasherDefault;

/// The order in which the walk runs the tapes within the bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Fewest deviations first.
    Breadth,
    /// Depth first: memory grows with the depth, not the frontier.
    Depth,
    /// Fewest deviations first among the departures from states whose
    /// protocol shape ([`super::Point::shape`]) was new when met, before
    /// any other: a bug that needs several exact turns takes each where
    /// the protocol just did something it had not done before, so the
    /// walk reaches it long before it has tried every turn at every
    /// heartbeat. Every tape within the bounds is still run, later.
    Guided,
}

impl Order {
    /// Its name in `--json` output.
    pub fn name(self) -> &'static str {
        match self {
            Order::Breadth => "breadth",
            Order::Depth => "depth",
            Order::Guided => "guided",
        }
    }

    /// What it does, for a summary line.
    pub fn describe(self) -> &'static str {
        match self {
            Order::Breadth => "fewest deviations first",
            Order::Depth => "depth first",
            Order::Guided => "new protocol shapes first",
        }
    }
}

/// What a walk covers, in which order, and where it stops short.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// What each run may do.
    pub bounds: Bounds,
    /// Which tape runs next.
    pub order: Order,
    /// Symmetry reduction where the model declares interchangeable nodes.
    pub symmetry: bool,
    /// Stop once this many distinct states are known.
    pub states_max: u64,
    /// Stop once the walk's own tables (the states known, the tapes run
    /// and waiting) take this many MiB.
    pub mib_max: u64,
}

impl Limits {
    /// `bounds` walked fewest deviations first, with symmetry reduction,
    /// up to a million states and 4 GiB of tables (`dst explore`'s
    /// defaults).
    pub fn new(bounds: Bounds) -> Limits {
        Limits {
            bounds,
            order: Order::Breadth,
            symmetry: true,
            states_max: 1_000_000,
            mib_max: 4096,
        }
    }
}

/// Where the walk stands, for a progress line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Runs made so far ([`Summary::runs`]).
    pub runs: u64,
    /// Distinct states met at a choice so far ([`Summary::states`]).
    pub states: u64,
    /// The most deviations a tape run so far had.
    pub deviations: u32,
    /// Tapes waiting to be run ([`Summary::frontier`]).
    pub frontier: u64,
    /// What the walk's own tables take ([`Summary::table_bytes`]).
    pub table_bytes: u64,
}

/// What a walk did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Runs made: one per tape.
    pub runs: u64,
    /// Distinct states met at a choice.
    pub states: u64,
    /// States met again (each ends the path that met it).
    pub revisits: u64,
    /// Runs that ended before the depth bound: nothing more could happen.
    pub ended: u64,
    /// Runs that reached the depth bound.
    pub at_bound: u64,
    /// The most choices a run made.
    pub depth: u32,
    /// The most deviations a tape run had.
    pub deviations: u32,
    /// Tapes still waiting when the walk stopped.
    pub frontier: u64,
    /// Every coverage goal some run reached.
    pub coverage: BTreeSet<String>,
    /// Distinct protocol shapes met at a choice.
    pub shapes: u64,
    /// The most bytes the walk's own tables took, counted by their
    /// capacity (so the same on every machine); a run's world comes on
    /// top, one at a time.
    pub table_bytes: u64,
    /// Why the walk stopped short of covering everything within its
    /// bounds, if it did.
    pub cut_short: Option<String>,
}

impl Summary {
    /// Every state within the bounds was expanded.
    pub fn complete(&self) -> bool {
        self.cut_short.is_none()
    }
}

/// What the walk reads of a run it made (a world's run outcome): the
/// walk itself knows nothing of worlds, only of tapes and states.
pub trait Walked {
    /// The run was interrupted (by a signal): the walk stops.
    fn interrupted(&self) -> bool;
    /// The coverage goals it reached.
    fn coverage(&self) -> &BTreeSet<String>;
    /// The states it passed after its tape ran out, where it had a choice.
    fn points(&self) -> &[super::Point];
    /// An invariant failed or the model broke.
    fn failed(&self) -> bool;
}

/// The first run of the walk that broke an invariant (or a model).
pub struct Found<O> {
    /// The tape that replays the run.
    pub tape: Tape,
    /// Deviations in the tape.
    pub deviations: u32,
    /// What the run gave (a world's run outcome).
    pub outcome: O,
}

/// A tape run: its parent's tape cut at `at` choices, then move `m`.
/// Tapes are kept this way, a few words each, since the frontier may hold
/// millions of them.
struct Node {
    parent: u32,
    at: u32,
    m: u32,
}

const ROOT: u32 = u32::MAX;

/// Tapes still to run: moves `next..end` at choice `at` of `parent`'s run.
struct Todo {
    parent: u32,
    at: u32,
    next: u32,
    end: u32,
    deviations: u32,
}

fn capacity_bytes<T>(capacity: usize) -> u64 {
    (capacity * std::mem::size_of::<T>()) as u64
}

/// What a hash table of `capacity` entries of `T` takes: a control byte
/// per bucket besides the entry, and buckets kept at most 7/8 full.
pub(super) fn hashed_bytes<T>(capacity: usize) -> u64 {
    (capacity as u64 * 8 / 7) * (std::mem::size_of::<T>() as u64 + 1)
}

/// The tape of `node`, rebuilt from its ancestors.
fn tape_of(nodes: &[Node], node: u32) -> Vec<u32> {
    let mut chain = Vec::new();
    let mut n = node;
    while n != ROOT {
        let x = &nodes[n as usize];
        chain.push((x.at, x.m));
        n = x.parent;
    }
    let mut tape = Vec::new();
    for (at, m) in chain.into_iter().rev() {
        tape.resize(at as usize, 0);
        tape.push(m);
    }
    tape
}

/// Walks every tape within `limits`, running each with `run`, until one
/// fails (returned with its tape), the space within the bounds is
/// exhausted, or the state budget is spent. `run` is handed what the walk
/// knows, so that a run stops at the first state already expanded.
/// `progress` hears of every run.
pub fn walk<O: Walked>(
    limits: Limits,
    mut run: impl FnMut(&Tape, &Known) -> Result<O, String>,
    mut progress: impl FnMut(&Progress),
) -> Result<(Summary, Option<Found<O>>), String> {
    let b = limits.bounds;
    let mut sum = Summary::default();
    let seen = Known::new(limits.symmetry);
    let mut shapes: HashSet<u64, BuildHasherDefault<StableHasher>> = HashSet::default();
    // Departures from states of a new shape, taken first in guided order.
    let mut hot: VecDeque<Todo> = VecDeque::new();
    let mut nodes: Vec<Node> = Vec::new();
    // The root: the natural run, before any node.
    let mut todo = VecDeque::from([Todo {
        parent: ROOT,
        at: 0,
        next: 0,
        end: 1,
        deviations: 0,
    }]);
    let mut first = true;
    loop {
        let (next, from_hot) = match limits.order {
            Order::Breadth => (todo.pop_front(), false),
            Order::Depth => (todo.pop_back(), false),
            Order::Guided => match hot.pop_front() {
                Some(t) => (Some(t), true),
                None => (todo.pop_front(), false),
            },
        };
        let Some(mut t) = next else { break };
        let bytes = seen.table_bytes()
            + capacity_bytes::<Node>(nodes.capacity())
            + capacity_bytes::<Todo>(todo.capacity() + hot.capacity())
            + hashed_bytes::<u64>(shapes.capacity());
        sum.table_bytes = sum.table_bytes.max(bytes);
        let stop = if crate::host::interrupt::stopping() {
            Some("interrupted".to_string())
        } else if sum.states >= limits.states_max {
            Some(format!("state bound of {} reached", limits.states_max))
        } else if bytes >= limits.mib_max.saturating_mul(1 << 20) {
            Some(format!("memory bound of {} MiB reached", limits.mib_max))
        } else {
            None
        };
        if let Some(why) = stop {
            // Still waiting: counted in the frontier.
            todo.push_back(t);
            sum.cut_short = Some(why);
            break;
        }
        let (node, deviations) = if first {
            first = false;
            (ROOT, 0)
        } else {
            nodes.push(Node {
                parent: t.parent,
                at: t.at,
                m: t.next,
            });
            ((nodes.len() - 1) as u32, t.deviations)
        };
        t.next += 1;
        if t.next < t.end {
            // Its next sibling waits where it was.
            match limits.order {
                Order::Breadth => todo.push_front(t),
                Order::Depth => todo.push_back(t),
                Order::Guided if from_hot => hot.push_front(t),
                Order::Guided => todo.push_front(t),
            }
        }
        let tape = Tape {
            bounds: b,
            choices: tape_of(&nodes, node),
        };
        let out = run(&tape, &seen)?;
        if out.interrupted() {
            return Err("interrupted".into());
        }
        sum.runs += 1;
        sum.deviations = sum.deviations.max(deviations);
        sum.coverage.extend(out.coverage().iter().cloned());
        let base = tape.choices.len() as u32;
        let made = base + out.points().len() as u32;
        sum.depth = sum.depth.max(made);
        let mut children = Vec::new();
        let mut hot_children = Vec::new();
        for (j, p) in out.points().iter().enumerate() {
            let novel = shapes.insert(p.shape);
            let left = (
                b.deviations.saturating_sub(deviations),
                b.depth.saturating_sub(base + j as u32),
            );
            match seen.meet(p.digest, left) {
                Meeting::Covered => {
                    sum.revisits += 1;
                    break;
                }
                Meeting::Widened => {}
                Meeting::New => sum.states += 1,
            }
            if left.0 > 0 && p.moves > 1 {
                let child = Todo {
                    parent: node,
                    at: base + j as u32,
                    next: 1,
                    end: p.moves,
                    deviations: deviations + 1,
                };
                match novel && limits.order == Order::Guided {
                    true => hot_children.push(child),
                    false => children.push(child),
                }
            }
        }
        sum.shapes = shapes.len() as u64;
        hot.extend(hot_children);
        if out.failed() {
            sum.frontier = (todo.len() + hot.len()) as u64;
            sum.cut_short = Some("an invariant failed".into());
            return Ok((
                sum,
                Some(Found {
                    tape,
                    deviations,
                    outcome: out,
                }),
            ));
        }
        if made >= b.depth {
            sum.at_bound += 1;
        } else {
            sum.ended += 1;
        }
        match limits.order {
            Order::Breadth | Order::Guided => todo.extend(children),
            // The earliest departure is taken first.
            Order::Depth => todo.extend(children.into_iter().rev()),
        }
        progress(&Progress {
            runs: sum.runs,
            states: sum.states,
            deviations: sum.deviations,
            frontier: (todo.len() + hot.len()) as u64,
            table_bytes: sum.table_bytes,
        });
    }
    sum.frontier = (todo.len() + hot.len()) as u64;
    Ok((sum, None))
}
