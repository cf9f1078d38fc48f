//! The check a model owes before any of its failures can be trusted to
//! replay: a seed gives the same trace again, on another thread and from
//! its own fault plan. State a model keeps outside the run (a thread-local
//! generator, a global counter, a map iterated in a random order) shows up
//! here as two traces for one seed.

use sim::{Registry, Scenario};
use std::ops::Range;

/// Runs each seed of `seeds` three times: here, on a fresh thread with a
/// registry built anew by `registry`, and here again from the first run's
/// fault plan. Err names the first seed whose three traces did not hash
/// the same, or whose run did not start.
///
/// ```no_run
/// # fn my_registry() -> sim::Registry { sim::Registry::new() }
/// let r = my_registry();
/// for s in r.scenarios() {
///     dst_runner::replays(my_registry, s, 0..4, &[]).unwrap();
/// }
/// ```
pub fn replays(
    registry: fn() -> Registry,
    scenario: &Scenario,
    seeds: Range<u64>,
    bugs: &[String],
) -> Result<(), String> {
    let here = registry();
    let at = |seed: u64| format!("{} seed {seed}", scenario.name);
    for seed in seeds {
        let first = here
            .run(scenario, seed, bugs, None)
            .map_err(|e| format!("{}: {e}", at(seed)))?;
        let hash = first.trace.hash_hex();
        let there = std::thread::scope(|s| {
            s.spawn(|| registry().run(scenario, seed, bugs, None).map(|o| o.trace.hash_hex()))
                .join()
                .unwrap_or_else(|_| Err("the run on a fresh thread panicked".into()))
        })
        .map_err(|e| format!("{}: {e}", at(seed)))?;
        if there != hash {
            return Err(format!(
                "{} ran to trace {hash} here and to {there} on a fresh thread",
                at(seed)
            ));
        }
        let again = here
            .run(scenario, seed, bugs, Some(first.plan.clone()))
            .map_err(|e| format!("{}: {e}", at(seed)))?;
        if again.trace.hash_hex() != hash {
            return Err(format!(
                "{} ran to trace {hash} and, from its own fault plan, to {}",
                at(seed),
                again.trace.hash_hex()
            ));
        }
    }
    Ok(())
}
