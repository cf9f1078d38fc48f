//! The regression corpus: every line of seeds/regression.jsonl names a
//! scenario, a seed, bug switches and the outcome that seed must keep.

#[test]
fn every_corpus_seed_keeps_its_outcome() {
    let reg = models::registry();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../seeds/regression.jsonl");
    let lines = sim::runner::corpus(&reg, path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!lines.is_empty());
    let covered: std::collections::BTreeSet<&str> = lines.iter().flat_map(|l| l.bugs.iter().map(|b| b.as_str())).collect();
    for (_, b) in reg.bugs() {
        assert!(covered.contains(b.id), "the corpus has no line for bug {}", b.id);
    }
}
