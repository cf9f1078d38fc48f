//! Guided search: a campaign is a function of its seed (whatever the number
//! of threads), and what it finds is an ordinary report that replays.

use dst_runner::search::{search, SearchOptions};
use dst_runner::{cause, load_report, run_seed};

/// Per batch (runs, guided features, plain features); the corpus size at the
/// end; the first guided violation.
type Campaign = (Vec<(u64, usize, usize)>, usize, Option<(u64, String)>);

fn campaign(jobs: usize) -> Campaign {
    let reg = models::registry();
    let mut opts = SearchOptions::new("raft-crash-restart", 96);
    opts.jobs = jobs;
    opts.seed = 7;
    opts.compare = true;
    let s = search(&reg, &opts, |_| {}).unwrap();
    let curve = s.curve.iter().map(|p| (p.runs, p.guided, p.plain.unwrap())).collect();
    (curve, s.corpus, s.guided.first_violation)
}

#[test]
fn a_campaign_seed_makes_the_same_campaign_on_one_thread_or_two() {
    let one = campaign(1);
    assert_eq!(one, campaign(2));
    let (curve, corpus, _) = one;
    assert_eq!(curve.last().unwrap().0, 96);
    // Coverage only grows, and the corpus holds the runs that grew it.
    assert!(curve.windows(2).all(|w| w[0].1 <= w[1].1 && w[0].2 <= w[1].2));
    assert!(corpus > 1 && corpus <= 96);
}

#[test]
fn a_guided_find_is_a_report_that_replays_to_the_same_violation() {
    let reg = models::registry();
    let dir = std::env::temp_dir().join(format!("dst-search-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut opts = SearchOptions::new("raft-crash-restart", 200);
    opts.bugs = vec!["hardstate-not-persisted".into()];
    opts.stop_at_first = true;
    opts.report_dir = Some(dir.clone());
    let s = search(&reg, &opts, |_| {}).unwrap();
    let (run, found) = s.guided.first_violation.clone().expect("the bug is found");
    assert_eq!(found, "no-dual-leaders");
    // The count per cause agrees with the first violation and the total.
    let by = &s.guided.by_cause["no-dual-leaders"];
    assert_eq!(by.first_run, run);
    assert!(by.runs >= 1);
    assert_eq!(
        s.guided.by_cause.values().map(|c| c.runs).sum::<u64>(),
        s.guided.violations
    );
    let path = &s.guided.reports[0];
    let (r, scenario) = load_report(&reg, path).unwrap();
    let (again, _) = run_seed(&reg, &scenario, r.seed, &r.bugs, Some(r.plan.clone())).unwrap();
    assert_eq!(cause(&again).as_deref(), Some("no-dual-leaders"));
    assert_eq!(again.trace.hash_hex(), r.trace_hash);
    std::fs::remove_dir_all(&dir).ok();
}
