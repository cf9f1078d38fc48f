//! The regression corpus: every line of seeds/regression.jsonl names a
//! scenario, a seed, bug switches and the outcome that seed must keep.

use models::{catalogue, scenarios};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    scenario: String,
    seed: u64,
    #[serde(default)]
    bugs: Vec<String>,
    /// "pass", or the invariant that must be violated.
    expect: String,
    #[serde(default)]
    why: String,
}

#[test]
fn every_corpus_seed_keeps_its_outcome() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../seeds/regression.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut n = 0;
    for (i, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line: Line = serde_json::from_str(raw).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let s = scenarios::load(&line.scenario).unwrap();
        let out = catalogue::run(&s, line.seed, &line.bugs, None).unwrap();
        let got = out.verdict.invariant.clone().unwrap_or_else(|| "pass".into());
        assert_eq!(
            got,
            line.expect,
            "line {}: {} seed {} {:?} ({})",
            i + 1,
            line.scenario,
            line.seed,
            line.bugs,
            line.why
        );
        n += 1;
    }
    let bugged: std::collections::BTreeSet<&str> = catalogue::BUGS.iter().map(|b| b.id).collect();
    let covered: std::collections::BTreeSet<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .flat_map(|l| l.bugs)
        .collect();
    for b in bugged {
        assert!(covered.contains(b), "the corpus has no line for bug {b}");
    }
    assert!(n > 0);
}
