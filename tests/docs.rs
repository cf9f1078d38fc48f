//! The documentation stays true: README and every page of the book in
//! `docs/book/src`. Every Rust and TOML block of the tutorial and README
//! is an excerpt of an example crate (so it compiles because the crate
//! does), every scenario is valid, every corpus line keeps its outcome,
//! every `dst` command line parses, every link leads to a page, heading or
//! file that exists, and the book's summary lists every page.

use std::path::{Path, PathBuf};

const TUTORIAL: &str = include_str!("../docs/book/src/tutorial.md");
const TOKIO: &str = include_str!("../docs/book/src/tokio.md");
const README: &str = include_str!("../README.md");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README and every page of the book: (path from the root, text).
fn pages() -> Vec<(String, String)> {
    let mut out = vec![("README.md".to_string(), README.to_string())];
    let book = root().join("docs/book/src");
    let mut names: Vec<String> = std::fs::read_dir(&book)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let text = std::fs::read_to_string(book.join(&n)).unwrap();
        out.push((format!("docs/book/src/{n}"), text));
    }
    out
}

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
    let root = root();
    let mut paths = Vec::new();
    for example in [
        "raft-rs",
        "tokio-kv",
        "openraft",
        "omnipaxos",
        "async-raft",
        "grpc-register",
    ] {
        files(&root.join("examples").join(example), &mut paths);
    }
    paths.push(root.join(".cargo/config.toml"));
    paths.push(root.join("Cargo.toml"));
    let sources: Vec<(PathBuf, Vec<String>)> = paths
        .into_iter()
        .map(|p| {
            let t = trimmed(&std::fs::read_to_string(&p).unwrap());
            (p, t)
        })
        .collect();
    let mut checked = 0;
    // The tokio page's TOML blocks point at a checkout of dst wherever a
    // user keeps it, so only its Rust blocks are excerpts.
    let docs = [
        ("docs/book/src/tutorial.md", TUTORIAL, true),
        ("README.md", README, true),
        ("docs/book/src/tokio.md", TOKIO, false),
    ];
    for (page, text, toml) in docs {
        for (lang, body, at) in blocks(text) {
            if lang != "rust" && !(toml && lang == "toml") {
                continue;
            }
            assert!(
                sources.iter().any(|(_, f)| is_excerpt(&body, f)),
                "{page}:{at}: this {lang} block is not an excerpt of examples/:\n{body}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} blocks");
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
            dst_runner::corpus(&reg, &corpus).unwrap_or_else(|e| panic!("docs/book/src/tutorial.md:{at}: {e}"));
        } else {
            let s = sim::Scenario::from_json(&body)
                .unwrap_or_else(|e| panic!("docs/book/src/tutorial.md:{at} ({lang}): {e}"));
            reg.validate(&s, &[])
                .unwrap_or_else(|e| panic!("docs/book/src/tutorial.md:{at}: {e}"));
        }
        checked += 1;
    }
    assert!(checked >= 2);
}

/// The `dst` command lines of a shell block, as a shell would split them:
/// continuation lines joined, comments cut, each command of a pipe or an
/// `&&` chain apart, `cargo run --release --` and `target/release/dst`
/// read as `dst`, leading variable assignments left out.
fn command_lines(body: &str) -> Vec<Vec<String>> {
    let joined = body.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let words = shell_words(line);
        for cmd in words.split(|w| ["|", "&&", ";", ">", "<", "2>"].contains(&w.as_str())) {
            let mut cmd: Vec<String> = cmd.iter().skip_while(|w| is_assignment(w)).cloned().collect();
            if cmd.starts_with(&["cargo".into(), "run".into(), "--release".into(), "--".into()]) {
                cmd.splice(0..4, ["dst".to_string()]);
            }
            if cmd
                .first()
                .is_some_and(|w| w == "target/release/dst" || w == "./target/release/dst")
            {
                cmd[0] = "dst".into();
            }
            if cmd.first().is_some_and(|w| w == "dst") {
                out.push(cmd);
            }
        }
    }
    out
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
}

/// A POSIX shell's words of one line: quotes group, `#` at a word's start
/// begins a comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#') if word.is_none() => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[test]
fn every_dst_command_line_parses() {
    use clap::Parser;
    let (mut checked, mut wrong) = (0, Vec::new());
    let mut parse = |page: &str, at: usize, args: &[String]| {
        if let Err(e) = dst_cli::Cli::try_parse_from(args) {
            let e = e.to_string();
            let first = e.lines().next().unwrap_or("");
            wrong.push(format!("{page}:{at}: `{}` does not parse: {first}", args.join(" ")));
        }
        checked += 1;
    };
    for (page, text) in pages() {
        for (_, body, at) in blocks(&text).into_iter().filter(|b| b.0 == "sh") {
            for args in command_lines(&body) {
                parse(&page, at, &args);
            }
        }
    }
    // Inline, a command is named (`dst check`) or given whole; a synopsis
    // (`dst view REPORT [-o FILE.html]`) has placeholders in capitals or
    // brackets. The hostile-inputs page lists lines dst must refuse.
    for (page, text) in pages().into_iter().filter(|(p, _)| !p.ends_with("hostile-inputs.md")) {
        for (span, line) in inline_code(&text) {
            let Some(args) = command_lines(&span.replace("\\|", "|")).into_iter().next() else {
                continue;
            };
            let placeholder =
                |w: &String| w.contains('[') || (!w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase()));
            if args.len() < 3 || args.iter().any(placeholder) {
                continue;
            }
            parse(&page, line, &args);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 60, "only {checked} command lines");
}

/// The lines of a markdown text outside fenced blocks, numbered from 1.
fn prose_lines(md: &str) -> Vec<(usize, &str)> {
    let mut fence = false;
    let mut out = Vec::new();
    for (n, line) in md.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence {
            out.push((n + 1, line));
        }
    }
    out
}

/// The inline code spans of a markdown text outside fenced blocks, a span
/// running on over line breaks as markdown lets it: (text, line it starts).
fn inline_code(md: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize)> = None;
    for (n, line) in prose_lines(md) {
        if line.trim().is_empty() {
            open = None;
            continue;
        }
        for (i, piece) in line.split('`').enumerate() {
            if i > 0 {
                match open.take() {
                    Some((span, at)) => out.push((span.split_whitespace().collect::<Vec<_>>().join(" "), at)),
                    None => open = Some((String::new(), n)),
                }
            }
            if let Some((span, _)) = &mut open {
                span.push_str(piece);
            }
        }
        if let Some((span, _)) = &mut open {
            span.push(' ');
        }
    }
    out
}

#[test]
fn command_lines_are_read_as_a_shell_reads_them() {
    let got = command_lines(
        "RUST_LOG=debug dst run a --seed 7   # one seed\ncargo run --release -- fuzz 'x y' | head\n\
         dst explore a \\\n  --deviations 2 && target/release/dst list\necho dst\n",
    );
    let want: Vec<Vec<&str>> = vec![
        vec!["dst", "run", "a", "--seed", "7"],
        vec!["dst", "fuzz", "x y"],
        vec!["dst", "explore", "a", "--deviations", "2"],
        vec!["dst", "list"],
    ];
    assert_eq!(got, want);
    let spans = inline_code("run `dst run a\n--seed 7` and `b`\n\n`c");
    assert_eq!(spans, [("dst run a --seed 7".to_string(), 1), ("b".to_string(), 2)]);
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
    let catalogue = include_str!("../docs/book/src/bugs.md");
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
            "docs/book/src/bugs.md has no row for {id}"
        );
    }
}

/// The links of a markdown text outside code: (target, line).
fn links(md: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(md) {
        // Inline code holds no links: drop the spans between backticks.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            out.push((rest[..end].to_string(), n));
            rest = &rest[end..];
        }
    }
    out
}

/// The anchors of a page's headings, as mdBook makes them: the heading's
/// text without its markup, lowercased, spaces as `-`, other punctuation
/// left out; a repeated one gets `-1`, `-2`, ...
fn anchors(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fence = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        let Some(text) = line.strip_prefix('#').filter(|_| !fence) else {
            continue;
        };
        let text = text.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let text = text.replace(['`', '*'], "");
        let id: String = text
            .trim()
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_lowercase().next().unwrap()),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let n = out
            .iter()
            .filter(|a| **a == id || a.starts_with(&format!("{id}-")))
            .count();
        let taken = out.contains(&id);
        out.push(if taken { format!("{id}-{n}") } else { id });
    }
    out
}

/// Why a link from `page` (a path from the root) to `target` leads
/// nowhere, if it does.
fn broken(page: &str, target: &str, texts: &[(String, String)]) -> Option<String> {
    if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        PathBuf::from(page)
    } else {
        let mut p = Path::new(page).parent().unwrap().to_path_buf();
        for part in path.split('/') {
            match part {
                "." => {}
                ".." if !p.pop() => return Some(format!("{target} leaves the repository")),
                ".." => {}
                part => p.push(part),
            }
        }
        p
    };
    let key = file.to_string_lossy();
    let text = texts.iter().find(|(p, _)| *p == key);
    if text.is_none() && !root().join(&file).exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    if page.starts_with("docs/book/") && !file.starts_with("docs/book/src") {
        return Some(format!(
            "{target} is outside the book, which its built pages do not hold"
        ));
    }
    if anchor.is_empty() {
        return None;
    }
    let text = text?;
    (!anchors(&text.1).iter().any(|a| a == anchor)).then(|| format!("{} has no heading #{anchor}", file.display()))
}

#[test]
fn every_link_leads_to_a_page_heading_or_file_that_exists() {
    let texts = pages();
    let mut checked = 0;
    for (page, text) in &texts {
        for (target, line) in links(text) {
            if let Some(why) = broken(page, &target, &texts) {
                panic!("{page}:{line}: a broken link: {why}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} links");
}

#[test]
fn the_link_check_can_fail() {
    let texts = vec![(
        "docs/book/src/a.md".to_string(),
        "# A page\n## Its `part`: two\n## Its part two\n".to_string(),
    )];
    assert_eq!(anchors(&texts[0].1), ["a-page", "its-part-two", "its-part-two-1"]);
    assert_eq!(broken("docs/book/src/a.md", "#its-part-two-1", &texts), None);
    assert!(broken("docs/book/src/a.md", "#its-part-three", &texts).is_some());
    assert!(broken("docs/book/src/x.md", "nowhere.md", &texts).is_some());
    assert!(
        broken("docs/book/src/x.md", "../../../Cargo.toml", &texts).is_some(),
        "outside the book"
    );
    assert_eq!(broken("README.md", "Cargo.toml", &texts), None);
    assert_eq!(broken("README.md", "https://example.com/x", &texts), None);
    assert_eq!(
        links("see [a](b.md) and `[c](d)`\n```\n[e](f)\n```\n"),
        [("b.md".to_string(), 1)]
    );
}

#[test]
fn the_book_summary_lists_every_page_once() {
    let summary = std::fs::read_to_string(root().join("docs/book/src/SUMMARY.md")).unwrap();
    let listed: Vec<String> = links(&summary).into_iter().map(|(t, _)| t).collect();
    for (page, _) in pages().iter().filter(|(p, _)| p.starts_with("docs/book/src/")) {
        let name = page.trim_start_matches("docs/book/src/");
        if name == "SUMMARY.md" {
            continue;
        }
        let n = listed.iter().filter(|l| *l == name).count();
        assert_eq!(n, 1, "SUMMARY.md lists {name} {n} times");
    }
}
