//! No run may depend on a map whose iteration order is random per process.
//! std's `HashMap`/`HashSet` with their default `RandomState` are exactly
//! that, so the sources of everything that runs inside a simulation use
//! them only with a fixed hasher.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether `text` uses a std hash collection with its random default hasher.
fn random_order_uses(text: &str) -> Vec<String> {
    let code: Vec<&str> = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect();
    let mentions = code.iter().any(|l| l.contains("HashMap") || l.contains("HashSet"));
    let fixed = code
        .iter()
        .any(|l| l.contains("BuildHasherDefault") || l.contains("with_hasher"));
    let mut bad: Vec<String> = code
        .iter()
        .filter(|l| {
            [
                "HashMap::new(",
                "HashSet::new(",
                "HashMap::with_capacity(",
                "HashSet::with_capacity(",
            ]
            .iter()
            .any(|c| l.contains(c))
        })
        .map(|l| l.trim().to_string())
        .collect();
    if mentions && !fixed && bad.is_empty() {
        bad.push("a std hash collection without a fixed hasher".into());
    }
    bad
}

#[test]
fn no_std_hash_collection_with_a_random_hasher() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let dirs = [
        "linearizability/src",
        "sim/src",
        "runner/src",
        "cli/src",
        "models/src",
        "src",
    ];
    let examples = ["raft-rs", "openraft", "omnipaxos", "tokio-kv"].map(|e| format!("examples/{e}/src"));
    for d in dirs.iter().map(|d| d.to_string()).chain(examples) {
        sources(&root.join(d), &mut files);
    }
    assert!(files.len() > 50, "the scan found the sources: {}", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            random_order_uses(&text)
                .into_iter()
                .map(move |u| format!("{}: {u}", f.display()))
        })
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_scan_catches_a_random_hasher() {
    assert!(!random_order_uses("let m: HashMap<u64, u64> = HashMap::new();").is_empty());
    assert!(!random_order_uses("use std::collections::HashSet;\nfn f(s: &HashSet<u8>) {}").is_empty());
    assert!(random_order_uses("type M = HashMap<u64, u32, BuildHasherDefault<Fx>>;\nM::default()").is_empty());
    assert!(random_order_uses("let m = BTreeMap::new();").is_empty());
}
