//! The regression corpus: every line of seeds/regression.jsonl names a
//! scenario, a seed, bug switches and the outcome that seed must keep.

#[test]
fn every_corpus_seed_keeps_its_outcome() {
    let reg = dst::registry();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/seeds/regression.jsonl");
    let lines = dst_runner::corpus(&reg, path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!lines.is_empty());
    let covered: std::collections::BTreeSet<&str> =
        lines.iter().flat_map(|l| l.bugs.iter().map(|b| b.as_str())).collect();
    for (_, b) in reg.bugs() {
        assert!(covered.contains(b.id), "the corpus has no line for bug {}", b.id);
    }
    // A real bug has no switch: its line runs the buggy release's scenario.
    for (_, b) in reg.real_bugs() {
        assert!(
            lines
                .iter()
                .any(|l| l.scenario == b.scenario && b.invariants.contains(&l.expect.as_str())),
            "the corpus has no line for real bug {}",
            b.id
        );
    }
}
