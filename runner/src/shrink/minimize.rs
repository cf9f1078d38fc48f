//! Greedy delta debugging over a list: plan entries, or the ids of the
//! messages whose chaos is left on.

/// Removes chunks of `items`, halving the chunk size from the whole list
/// down to one item, as long as `fails` holds for what remains; stops after
/// `max_runs` calls of `fails`. Trying the whole list first costs one run
/// and settles the common case where none of it is needed.
pub fn minimize<T: Clone>(
    mut items: Vec<T>,
    max_runs: u64,
    fails: &mut dyn FnMut(&[T]) -> Result<bool, String>,
) -> Result<Vec<T>, String> {
    let mut tries = 0;
    let mut chunk = items.len().max(1);
    while !items.is_empty() {
        let mut start = 0;
        while start < items.len() {
            if tries >= max_runs {
                return Ok(items);
            }
            tries += 1;
            let end = (start + chunk).min(items.len());
            let candidate: Vec<T> = items[..start].iter().chain(&items[end..]).cloned().collect();
            if fails(&candidate)? {
                items = candidate;
            } else {
                start = end;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::fault::{Action, PlanEntry};

    fn entry(node: usize) -> PlanEntry {
        PlanEntry {
            at_ns: node as u64,
            action: Action::Crash { node },
        }
    }

    #[test]
    fn keeps_exactly_the_entries_the_failure_needs() {
        let plan: Vec<PlanEntry> = (0..20).map(entry).collect();
        let needs = |p: &[PlanEntry]| {
            let has = |n: usize| p.iter().any(|e| e.action == Action::Crash { node: n });
            Ok(has(3) && has(17))
        };
        let out = minimize(plan, 1_000, &mut { needs }).unwrap();
        assert_eq!(out, vec![entry(3), entry(17)]);
    }

    #[test]
    fn stops_at_the_run_bound() {
        let plan: Vec<PlanEntry> = (0..50).map(entry).collect();
        let mut calls = 0;
        let out = minimize(plan, 5, &mut |_| {
            calls += 1;
            Ok(false)
        })
        .unwrap();
        assert_eq!(calls, 5);
        assert_eq!(out.len(), 50);
    }

    #[test]
    fn a_failure_that_needs_nothing_costs_one_run() {
        let mut calls = 0;
        let out = minimize((0..64u64).collect(), 100, &mut |_| {
            calls += 1;
            Ok(true)
        })
        .unwrap();
        assert!(out.is_empty());
        assert_eq!(calls, 1);
    }

    /// Two needed ids among 400 take a few runs per halving, not one per id.
    #[test]
    fn keeps_the_chaos_ids_a_failure_needs() {
        let ids: Vec<u64> = (1..=400).map(|i| i * 7).collect();
        let mut calls = 0u64;
        let out = minimize(ids, 10_000, &mut |kept: &[u64]| {
            calls += 1;
            Ok(kept.contains(&700) && kept.contains(&2345))
        })
        .unwrap();
        assert_eq!(out, vec![700, 2345]);
        assert!(calls <= 40, "{calls} runs");
    }

    #[test]
    fn an_error_stops_minimizing() {
        let err = minimize(vec![1, 2, 3], 10, &mut |_| Err("no".to_string())).unwrap_err();
        assert_eq!(err, "no");
    }
}
