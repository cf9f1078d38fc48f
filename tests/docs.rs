//! The tutorial stays true: every Rust and TOML block is an excerpt of the
//! example crate (so it compiles because the crate does), every scenario is
//! valid, every corpus line keeps its outcome, and every `dst` command line
//! parses.

use std::path::{Path, PathBuf};

const TUTORIAL: &str = include_str!("../docs/TUTORIAL.md");

/// The fenced blocks of a markdown text: (language, body, line of the fence).
fn blocks(md: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, Vec<&str>, usize)> = None;
    for (n, line) in md.lines().enumerate() {
        match (&mut open, line.trim_start().strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_string(), Vec::new(), n + 1)),
            (Some(_), Some(_)) => {
                let (lang, body, at) = open.take().expect("open");
                out.push((lang, body.join("\n"), at));
            }
            (Some((_, body, _)), None) => body.push(line),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("rs" | "toml")) {
            out.push(p);
        }
    }
}

fn trimmed(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim().to_string()).collect()
}

/// Whether every chunk of `snippet` (chunks are split by `// ...` lines)
/// stands in `file`, line for line up to indentation, in order.
fn is_excerpt(snippet: &str, file: &[String]) -> bool {
    let lines = trimmed(snippet);
    let mut from = 0;
    for chunk in lines.split(|l| l == "// ...").filter(|c| !c.is_empty()) {
        let Some(at) = (from..file.len().saturating_sub(chunk.len() - 1)).find(|&i| file[i..i + chunk.len()] == *chunk)
        else {
            return false;
        };
        from = at + chunk.len();
    }
    true
}

#[test]
fn every_rust_and_toml_block_is_an_excerpt_of_the_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for example in ["raft-rs", "tokio-kv", "openraft", "omnipaxos"] {
        files(&root.join("examples").join(example), &mut paths);
    }
    paths.push(root.join(".cargo/config.toml"));
    let sources: Vec<(PathBuf, Vec<String>)> = paths
        .into_iter()
        .map(|p| {
            let t = trimmed(&std::fs::read_to_string(&p).unwrap());
            (p, t)
        })
        .collect();
    let mut checked = 0;
    for (lang, body, at) in blocks(TUTORIAL) {
        if lang != "rust" && lang != "toml" {
            continue;
        }
        assert!(
            sources.iter().any(|(_, f)| is_excerpt(&body, f)),
            "docs/TUTORIAL.md:{at}: this {lang} block is not an excerpt of examples/:\n{body}"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} blocks");
}

#[test]
fn every_scenario_is_valid_and_every_corpus_line_keeps_its_outcome() {
    let reg = dst::registry();
    let mut checked = 0;
    for (lang, body, at) in blocks(TUTORIAL).into_iter().filter(|b| b.0 == "json") {
        if body.trim_start().starts_with("{\"scenario\"") {
            let dir = std::env::temp_dir().join(format!("dst-docs-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let corpus = dir.join("corpus.jsonl");
            std::fs::write(&corpus, &body).unwrap();
            sim::runner::corpus(&reg, &corpus).unwrap_or_else(|e| panic!("docs/TUTORIAL.md:{at}: {e}"));
        } else {
            let s = sim::Scenario::from_json(&body).unwrap_or_else(|e| panic!("docs/TUTORIAL.md:{at} ({lang}): {e}"));
            reg.validate(&s, &[])
                .unwrap_or_else(|e| panic!("docs/TUTORIAL.md:{at}: {e}"));
        }
        checked += 1;
    }
    assert!(checked >= 2);
}

#[test]
fn every_dst_command_line_parses() {
    use clap::Parser;
    let mut checked = 0;
    for (_, body, at) in blocks(TUTORIAL).into_iter().filter(|b| b.0 == "sh") {
        for line in body.lines().map(str::trim).filter(|l| l.starts_with("dst ")) {
            let args = line.split_whitespace();
            if let Err(e) = sim::cli::Cli::try_parse_from(args) {
                panic!("docs/TUTORIAL.md:{at}: `{line}` does not parse: {e}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 5);
}

#[test]
fn the_excerpt_check_can_fail() {
    let file = trimmed("fn a() {\n    one();\n    two();\n}\n");
    assert!(is_excerpt("one();\ntwo();", &file));
    assert!(is_excerpt("fn a() {\n// ...\n}", &file));
    assert!(!is_excerpt("two();\none();", &file));
    assert!(!is_excerpt("}\n// ...\nfn a() {", &file));
}

#[test]
fn the_catalogue_describes_every_bug_switch_and_real_bug() {
    let catalogue = include_str!("../docs/BUGS.md");
    let reg = dst::registry();
    let ids: Vec<&str> = reg
        .bugs()
        .map(|(_, b)| b.id)
        .chain(reg.real_bugs().map(|(_, b)| b.id))
        .collect();
    assert!(ids.len() >= 28);
    for id in ids {
        assert!(
            catalogue.contains(&format!("| `{id}` |")),
            "docs/BUGS.md has no row for {id}"
        );
    }
}
