//! Candidates and their mutations. A candidate is everything a run is made
//! of that the search may change: the seed (workload, message chaos, node
//! randomness), the fault plan (data) and the drawn configuration. Plans
//! are edited the way a person would edit one: insert a fault, delete one,
//! move one in time, aim one at other nodes, repeat one, splice in part of
//! another candidate's plan.

use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use sim::fault::{Action, PlanEntry};
use sim::rng::{chance, range};
use sim::{Scenario, Vary};
use std::collections::BTreeMap;

const MS: u64 = 1_000_000;

/// One run the search can make.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The run's seed: its workload, message chaos and node randomness.
    pub seed: u64,
    /// The fault plan the run follows instead of drawing one, in time order.
    pub plan: Vec<PlanEntry>,
    /// The values of the scenario's `vary` knobs (empty if it varies none).
    pub knobs: BTreeMap<String, Value>,
}

/// What mutating needs to know of the scenario.
pub struct Space<'a> {
    /// The scenario the campaign runs, as loaded (its knobs not yet drawn).
    pub scenario: &'a Scenario,
    /// Fault entries to draw insertions from: plans of the scenario's own
    /// profile with every kind it allows.
    pub pool: Vec<PlanEntry>,
}

impl<'a> Space<'a> {
    /// The space of `scenario`, with a pool drawn from eight plans of its fault profile.
    pub fn new(scenario: &'a Scenario, rng: &mut ChaCha8Rng) -> Space<'a> {
        let profile = &scenario.faults;
        let mut all = profile.clone();
        all.swarm = false;
        let draw = all.draw(rng);
        let safety_ns = scenario.safety_ms * MS;
        let nodes = nodes_max(scenario);
        let mut pool = Vec::new();
        for _ in 0..8 {
            pool.extend(profile.plan(&draw, nodes, safety_ns, rng));
        }
        Space { scenario, pool }
    }

    fn safety_ns(&self) -> u64 {
        self.scenario.safety_ms * MS
    }
}

/// The most nodes any draw of the scenario has, so inserted faults can aim anywhere.
fn nodes_max(s: &Scenario) -> usize {
    match s.vary.get("nodes") {
        Some(Vary::Range([_, hi])) => *hi as usize,
        Some(Vary::OneOf(v)) => v.iter().filter_map(|x| x.as_u64()).max().unwrap_or(s.nodes as u64) as usize,
        None => s.nodes,
    }
}

/// A new candidate from `parent`: one to three edits; `other` is a second
/// candidate to splice from. With a `focus` (when the parent reached what
/// made it interesting), edits land mostly after it: the run is the same
/// up to there, so the search goes on from that situation instead of
/// starting over.
pub fn mutate(
    parent: &Candidate,
    other: &Candidate,
    focus: Option<u64>,
    space: &Space,
    rng: &mut ChaCha8Rng,
) -> Candidate {
    let mut c = parent.clone();
    let edits = range(rng, 1, 3);
    let focus = focus.filter(|_| chance(rng, 0.75));
    for _ in 0..edits {
        // As many deletions as insertions, or plans grow with every
        // generation and mutants get dearer to run than fresh seeds.
        match range(rng, 0, 12) {
            0 | 1 => add_copy(&mut c, true, focus, space, rng),
            2 | 10 | 11 => delete(&mut c, focus, rng),
            3 | 4 => shift(&mut c, focus, space, rng),
            5 => retarget(&mut c, focus, space, rng),
            6 => add_copy(&mut c, false, focus, space, rng),
            7 => splice(&mut c, other, space, rng),
            8 => fork(&mut c, focus, space, rng),
            9 => c.seed = rng_u64(rng),
            _ => redraw_knob(&mut c, space, rng),
        }
    }
    tidy(&mut c, space);
    c
}

fn rng_u64(rng: &mut ChaCha8Rng) -> u64 {
    use rand::RngCore;
    rng.next_u64() >> 1
}

/// How far after the focus new faults land: a few election rounds.
const FOCUS_SPAN_NS: u64 = 1_000 * MS;

/// A time for a new fault: soon after the focus, or anywhere.
fn when(focus: Option<u64>, space: &Space, rng: &mut ChaCha8Rng) -> u64 {
    let last = space.safety_ns().saturating_sub(MS);
    match focus {
        Some(f) if f < last => range(rng, f, f.saturating_add(FOCUS_SPAN_NS).min(last)),
        _ => range(rng, 0, last),
    }
}

/// An entry to edit: one at or after the focus if there is one, else any.
fn pick(c: &Candidate, focus: Option<u64>, rng: &mut ChaCha8Rng) -> Option<usize> {
    let from = focus.map_or(0, |f| c.plan.iter().position(|e| e.at_ns >= f).unwrap_or(0));
    (!c.plan.is_empty()).then(|| range(rng, from as u64, c.plan.len() as u64 - 1) as usize)
}

/// Adds a copy of one of the scenario's own faults (`from_pool`) or of one
/// already in the plan, at a new time.
fn add_copy(c: &mut Candidate, from_pool: bool, focus: Option<u64>, space: &Space, rng: &mut ChaCha8Rng) {
    let source = if from_pool { &space.pool } else { &c.plan };
    if source.is_empty() {
        return;
    }
    let mut e = source[range(rng, 0, source.len() as u64 - 1) as usize].clone();
    e.at_ns = when(focus, space, rng);
    c.plan.push(e);
}

/// Forks the run soon after the focus: the same situation, then other
/// message chaos, timeouts and workload. Without this a mutant keeps its
/// parent's seed, and a bug that needs one more lucky draw after the
/// situation stays out of reach however often the situation recurs.
fn fork(c: &mut Candidate, focus: Option<u64>, space: &Space, rng: &mut ChaCha8Rng) {
    let at_ns = when(focus, space, rng);
    let seed = rng_u64(rng);
    c.plan.push(PlanEntry {
        at_ns,
        action: Action::Reseed { seed },
    });
}

fn delete(c: &mut Candidate, focus: Option<u64>, rng: &mut ChaCha8Rng) {
    if let Some(i) = pick(c, focus, rng) {
        c.plan.remove(i);
    }
}

fn shift(c: &mut Candidate, focus: Option<u64>, space: &Space, rng: &mut ChaCha8Rng) {
    let Some(i) = pick(c, focus, rng) else {
        return;
    };
    // Mostly small moves (a message round trip), sometimes large ones.
    let span = if chance(rng, 0.7) { 50 * MS } else { 2_000 * MS };
    let d = range(rng, 0, span);
    let at = &mut c.plan[i].at_ns;
    *at = if chance(rng, 0.5) {
        at.saturating_add(d)
    } else {
        at.saturating_sub(d)
    };
    *at = (*at).min(space.safety_ns().saturating_sub(MS));
}

fn retarget(c: &mut Candidate, focus: Option<u64>, space: &Space, rng: &mut ChaCha8Rng) {
    let Some(i) = pick(c, focus, rng) else {
        return;
    };
    let n = nodes_max(space.scenario) as u64;
    let (a, b) = (range(rng, 0, n - 1) as usize, range(rng, 0, n - 1) as usize);
    let swap = |x: &mut usize| {
        if *x == a {
            *x = b
        } else if *x == b {
            *x = a
        }
    };
    match &mut c.plan[i].action {
        Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } => swap(node),
        Action::ClockOffset { node, .. } | Action::ClockDrift { node, .. } | Action::ClockJump { node, .. } => {
            swap(node)
        }
        Action::Link { from, to, .. } => {
            swap(from);
            swap(to);
        }
        Action::Partition { groups } => groups.iter_mut().flatten().for_each(swap),
        Action::PartitionOneWay { from, to } => from.iter_mut().chain(to.iter_mut()).for_each(swap),
        Action::Isolate {
            target: sim::fault::Target::Node(node),
            ..
        } => swap(node),
        _ => {}
    }
}

/// Takes the other candidate's faults in a random window of time.
fn splice(c: &mut Candidate, other: &Candidate, space: &Space, rng: &mut ChaCha8Rng) {
    let a = range(rng, 0, space.safety_ns());
    let b = range(rng, a, space.safety_ns());
    c.plan.retain(|e| e.at_ns < a || e.at_ns >= b);
    c.plan
        .extend(other.plan.iter().filter(|e| e.at_ns >= a && e.at_ns < b).cloned());
}

fn redraw_knob(c: &mut Candidate, space: &Space, rng: &mut ChaCha8Rng) {
    let vary = &space.scenario.vary;
    if vary.is_empty() {
        c.seed = rng_u64(rng);
        return;
    }
    let (path, v) = vary
        .iter()
        .nth(range(rng, 0, vary.len() as u64 - 1) as usize)
        .expect("in range");
    c.knobs.insert(path.clone(), v.draw(rng));
}

/// Keeps a plan within what the scenario allows: in time order, inside the
/// safety phase, aimed at nodes that exist, and never crashing or pausing a
/// node the profile spares.
fn tidy(c: &mut Candidate, space: &Space) {
    let nodes = c
        .knobs
        .get("nodes")
        .and_then(|v| v.as_u64())
        .map_or(space.scenario.nodes, |n| n as usize);
    let spared = &space.scenario.faults.spared;
    c.plan.retain(|e| fits(&e.action, nodes, spared));
    c.plan.sort_by_key(|e| e.at_ns);
}

fn fits(a: &Action, nodes: usize, spared: &[usize]) -> bool {
    let ok = |n: &usize| *n < nodes;
    match a {
        Action::Crash { node } | Action::Restart { node } | Action::Pause { node, .. } => {
            ok(node) && !spared.contains(node)
        }
        Action::ClockOffset { node, .. } | Action::ClockDrift { node, .. } | Action::ClockJump { node, .. } => ok(node),
        Action::Link { from, to, .. } => ok(from) && ok(to),
        Action::Partition { groups } => groups.iter().flatten().all(ok),
        Action::PartitionOneWay { from, to } => from.iter().chain(to).all(ok),
        Action::Isolate {
            target: sim::fault::Target::Node(node),
            ..
        }
        | Action::Targeted {
            trigger: sim::fault::Trigger::Unsynced { node: Some(node) },
            ..
        } => ok(node),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::rng::{stream, Stream};

    fn scenario() -> Scenario {
        let mut s =
            Scenario::from_json(r#"{"name":"x","model":"m","nodes":3,"invariants":[],"safety_ms":2000}"#).unwrap();
        s.faults.spared = vec![0];
        s
    }

    #[test]
    fn mutations_stay_inside_the_scenario() {
        let s = scenario();
        let mut rng = stream(1, Stream::Plan);
        let space = Space::new(&s, &mut rng);
        let mut c = Candidate {
            seed: 1,
            plan: space.pool[..4].to_vec(),
            knobs: BTreeMap::new(),
        };
        let other = c.clone();
        for _ in 0..500 {
            c = mutate(&c, &other, Some(500 * MS), &space, &mut rng);
            assert!(c.plan.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
            for e in &c.plan {
                assert!(e.at_ns < 2_000 * MS);
                assert!(fits(&e.action, 3, &[0]), "{:?}", e.action);
            }
        }
    }

    #[test]
    fn the_same_rng_makes_the_same_mutant() {
        let s = scenario();
        let space = Space::new(&s, &mut stream(2, Stream::Plan));
        let c = Candidate {
            seed: 5,
            plan: space.pool[..3].to_vec(),
            knobs: BTreeMap::new(),
        };
        let a = mutate(&c, &c, None, &space, &mut stream(3, Stream::Plan));
        let b = mutate(&c, &c, None, &space, &mut stream(3, Stream::Plan));
        assert_eq!(a, b);
    }
}
