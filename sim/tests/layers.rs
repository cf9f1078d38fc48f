//! No module of `sim` imports one that imports it back, directly or round
//! a circle: what the book's layout page draws as layers stays layers, so
//! that any layer can become a crate of its own. Read from the source as
//! written: every `crate::NAME` in code and doc comments, outside plain
//! comments and test modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every top-level module's code-level imports of the others.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let top = |p: &Path| -> String {
        let rel = p.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| top(p)).filter(|m| m != "lib").collect();
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top(file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        // Test modules may reach anywhere: they are not the layering.
        let code = text.split("#[cfg(test)]").next().unwrap();
        // Doc comments count: a doc link is a path a reader follows, and
        // one that points up a layer has the root's re-export to name.
        let plain_comment = |l: &str| l.starts_with("//") && !l.starts_with("///") && !l.starts_with("//!");
        for line in code.lines().map(str::trim).filter(|l| !plain_comment(l)) {
            let mut names: Vec<&str> = Vec::new();
            for part in line.split("crate::").skip(1) {
                if let Some(group) = part.strip_prefix('{') {
                    let group = group.split('}').next().unwrap();
                    names.extend(group.split(',').map(|n| n.trim().split("::").next().unwrap().trim()));
                } else {
                    names.push(part.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap());
                }
            }
            for name in names {
                if name != from && modules.contains(name) {
                    deps.entry(from.clone()).or_default().insert(name.to_string());
                }
            }
        }
    }
    deps
}

/// A circle of imports through `at`, if there is one.
fn circle(
    deps: &BTreeMap<String, BTreeSet<String>>,
    at: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(k) = path.iter().position(|m| m == at) {
        let mut c = path[k..].to_vec();
        c.push(at.to_string());
        return Some(c);
    }
    if done.contains(at) {
        return None;
    }
    path.push(at.to_string());
    for next in deps.get(at).into_iter().flatten() {
        if let Some(c) = circle(deps, next, path, done) {
            return Some(c);
        }
    }
    path.pop();
    done.insert(at.to_string());
    None
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let deps = imports();
    // The reading sees imports at all: the world runs machines.
    assert!(deps["world"].contains("machine"), "{deps:?}");
    let mut done = BTreeSet::new();
    for m in deps.keys() {
        if let Some(c) = circle(&deps, m, &mut Vec::new(), &mut done) {
            panic!("sim's modules import each other round a circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn a_circle_of_imports_is_named() {
    let deps: BTreeMap<String, BTreeSet<String>> =
        [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
            .into_iter()
            .fold(BTreeMap::new(), |mut m, (x, y)| {
                m.entry(x.to_string()).or_default().insert(y.to_string());
                m
            });
    let c = circle(&deps, "d", &mut Vec::new(), &mut BTreeSet::new()).unwrap();
    assert_eq!(c.join(" -> "), "a -> b -> c -> a");
}
