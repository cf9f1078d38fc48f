//! Files that are not what they seem, generated: every input of every
//! command given something that blocks or never ends (a FIFO, a device, a
//! folder, through links and `..`); every output written past a file-size
//! limit; campaigns started together on one corpus or one cursor.

use crate::fixtures::{folder, scenario_file};
use crate::mutate::config;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

const DST: &str = env!("CARGO_BIN_EXE_dst");

/// Starts `c` in `dir` with its output piped and no CI job page to write to.
fn launch(c: &mut Command, dir: &Path) -> Child {
    c.current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts")
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    launch(Command::new(DST).env("DST_MIN_FREE", "0").args(args), dir)
}

/// Waits at most 30 s: a command that is still reading then has blocked.
/// Its output is drained meanwhile, so a command that prints a lot never
/// waits on a full pipe.
fn finish(mut child: Child, what: &str) -> Result<Output, TestCaseError> {
    use std::io::Read;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    for _ in 0..300 {
        if let Some(status) = child.try_wait().expect("wait") {
            let stdout = out.join().expect("stdout");
            let stderr = err.join().expect("stderr");
            return Ok(Output { status, stdout, stderr });
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(TestCaseError::fail(format!("{what}: still running after 30 s")))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every file and folder under `dir`, with its bytes (folders and special
/// files as empty), so that a case can show it left the folder as it was.
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("folder") {
            let p = e.expect("entry").path();
            let m = std::fs::symlink_metadata(&p).expect("metadata");
            let bytes = if m.is_file() {
                std::fs::read(&p).expect("file")
            } else {
                Vec::new()
            };
            if m.is_dir() {
                todo.push(p.clone());
            }
            out.push((p, bytes));
        }
    }
    out.sort();
    out
}

/// A folder holding one of each kind of input dst reads: a scenario, a
/// passing report, a failing one, a campaign summary.
fn fixtures(name: &str) -> PathBuf {
    let d = folder(&format!("files-{name}"));
    std::fs::create_dir_all(d.join("sub")).expect("temp dir");
    scenario_file("raft-crash-restart", &[], &d.join("s.json"));
    let run = |args: &[&str]| {
        let o = Command::new(DST)
            .env("DST_MIN_FREE", "0")
            .args(args)
            .current_dir(&d)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output();
        let o = o.expect("dst runs");
        assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}: {}", text(&o.stderr));
    };
    run(&["run", "raft-crash-restart", "--seed", "2", "--report", "good.json"]);
    run(&[
        "run",
        "raft-crash-restart",
        "--seed",
        "0",
        "--bug",
        "hardstate-not-persisted",
        "--report",
        "bad.json",
    ]);
    run(&[
        "fuzz",
        "raft-crash-restart",
        "--seeds",
        "0..3",
        "--summary",
        "sum.json",
        "--no-reports",
    ]);
    d
}

/// The fixtures and, beside them, every kind of file that blocks a reader
/// or never ends, by name relative to the folder or absolute.
fn blocking_dir() -> &'static (PathBuf, Vec<String>) {
    static DIR: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = fixtures("blocking");
        let made = Command::new("mkfifo").arg(d.join("fifo")).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
        std::fs::create_dir_all(d.join("folder")).expect("folder");
        let link = |to: &str, name: &str| std::os::unix::fs::symlink(to, d.join(name)).expect("link");
        link("fifo", "fifo-link");
        link("/dev/zero", "zero-link");
        link("folder", "folder-link");
        link("fifo-link", "link-to-link");
        let specials = [
            "fifo",
            "fifo-link",
            "link-to-link",
            "sub/../fifo",
            "zero-link",
            "/dev/zero",
            "/dev/urandom",
            "folder",
            "folder-link",
        ];
        (d, specials.iter().map(|s| s.to_string()).collect())
    })
}

/// Each command with one of its inputs left as `{}`.
const READERS: &[&str] = &[
    "run {}",
    "run {} --seed 3 --report r.json",
    "fuzz {} --seeds 0..1",
    "search {} --runs 1",
    "replay {}",
    "replay {} --full -o full.json",
    "shrink {}",
    "view {}",
    "view {} -o page.html",
    "export {}",
    "export {} -o out.json",
    "check {}",
    "check {} --format edn",
    "check {} --format jepsen",
    "check {} --format jepsen-edn",
    "check {} --format json",
    "merge {}",
    "merge sum.json {}",
    "merge sum.json {} --corpus corpus.jsonl",
    "fuzz raft-crash-restart --seeds 0..1 --cursor {}",
    "fuzz raft-crash-restart --seeds 0..1 --corpus {}",
    "fuzz s.json --seeds 0..1 --cursor {}",
];

/// Each command with one of its outputs left as `{}`, and the fixtures it reads.
const WRITERS: &[&str] = &[
    "run raft-crash-restart --seed 2 --full-trace --report {}",
    "run raft-crash-restart --seed 2 --report {}",
    "fuzz raft-crash-restart --seeds 0..3 --summary {} --no-reports",
    "fuzz raft-crash-restart --seeds 0..3 --junit {} --no-reports",
    "merge sum.json --summary {}",
    "merge sum.json --junit {}",
    "view good.json -o {}",
    "export good.json -o {}",
    "replay good.json --full -o {}",
    "check good.json --html {}",
    "shrink bad.json --max-runs 10 --out {}",
];

/// Commands whose output is stdout.
const PRINTERS: &[&str] = &[
    "list",
    "list --json",
    "export good.json",
    "check good.json --json",
    "fuzz raft-crash-restart --seeds 0..3 --json --no-reports",
    "replay good.json --json",
    "merge sum.json --json",
];

fn fill(template: &str, path: &str) -> Vec<String> {
    template
        .split(' ')
        .map(|w| if w == "{}" { path.to_string() } else { w.to_string() })
        .collect()
}

/// `sh -c 'ulimit -f BLOCKS; exec dst ARGS > STDOUT'` in `dir`: the limit a
/// shell or a container puts on the size of any file the process writes.
fn limited(dir: &Path, blocks: u32, args: &[String], stdout: Option<&str>) -> Result<Output, TestCaseError> {
    let redirect = stdout.map_or(String::new(), |f| format!(" > {f}"));
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("ulimit -f {blocks} && exec \"$0\" \"$@\"{redirect}"))
        .arg(DST)
        .args(args);
    let child = launch(&mut sh, dir);
    finish(child, &args.join(" "))
}

fn no_temporary_left(dir: &Path) -> Result<(), TestCaseError> {
    for (p, _) in listing(dir) {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        prop_assert!(!name.ends_with(".tmp"), "left behind: {}", p.display());
    }
    Ok(())
}

/// A failing scenario file of its own kind, named `name`, in its own folder.
fn kind_file(dir: &Path, name: &str) -> PathBuf {
    let changes = [("name", name.into()), ("expect", "pass".into())];
    scenario_file("raft-skew-beyond-bound", &changes, &dir.join(name).join("s.json"))
}

/// A scenario whose every seed fails at once (an event budget far too
/// small), so that each seed a campaign runs is a line of its progress.
fn starved(dir: &Path) -> PathBuf {
    let changes = [("name", "starved".into()), ("event_budget", 200.into())];
    scenario_file("raft-crash-restart", &changes, &dir.join("starved.json"))
}

fn scratch(name: &str, case: u64) -> PathBuf {
    folder(&format!("files-{name}-{case}"))
}

proptest! {
    #![proptest_config(config(60))]

    /// Whatever input slot gets whatever would block or never end, the
    /// command ends at once with one line, exit 2, and writes nothing.
    #[test]
    fn an_input_that_blocks_or_never_ends_is_refused_at_once(
        cmd in prop::sample::select(READERS),
        special in any::<prop::sample::Index>(),
    ) {
        let (dir, specials) = blocking_dir();
        let path = special.get(specials);
        let before = listing(dir);
        let args = fill(cmd, path);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = finish(spawn(dir, &argv), &args.join(" "))?;
        let err = text(&o.stderr);
        prop_assert_eq!(o.status.code(), Some(2), "{}: {}", args.join(" "), err);
        prop_assert!(err.ends_with('\n') && err.matches('\n').count() == 1, "{}: {:?}", args.join(" "), err);
        prop_assert!(err.starts_with("dst: ") && err.contains(path.as_str()), "{}: {}", args.join(" "), err);
        prop_assert!(o.stdout.is_empty(), "{}: {}", args.join(" "), text(&o.stdout));
        prop_assert!(listing(dir) == before, "{} changed its folder", args.join(" "));
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// Under a file-size limit, an output either fits and is whole, or the
    /// command says so in one line, exits 2, and leaves neither the file
    /// nor a temporary one; it is never killed by the limit mid-write.
    #[test]
    fn an_output_past_the_file_size_limit_is_a_write_error(
        cmd in prop::sample::select(WRITERS),
        blocks in prop_oneof![1u32..8, 8u32..200],
        gz in any::<bool>(),
    ) {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let dir = DIR.get_or_init(|| fixtures("limits"));
        let target = if gz && cmd.contains("--report") { "out.json.gz" } else { "out.x" };
        let mut args = fill(cmd, target);
        if target.ends_with(".gz") {
            args.push("--gzip".into());
        }
        let o = limited(dir, blocks, &args, None)?;
        let err = text(&o.stderr);
        let made = dir.join(target).exists();
        let _ = std::fs::remove_file(dir.join(target));
        no_temporary_left(dir)?;
        match o.status.code() {
            Some(0 | 1) => prop_assert!(made, "{}: exit {:?} without its output", args.join(" "), o.status),
            Some(2) => {
                let line = err.lines().find(|l| l.contains("File too large"));
                let named = format!("cannot write {target}: File too large");
                prop_assert!(line.is_some_and(|l| l.contains(&named)), "{}: {}", args.join(" "), err);
                prop_assert!(!made, "{}: a cut {} is left", args.join(" "), target);
            }
            _ => prop_assert!(false, "{}: ended by {:?}: {}", args.join(" "), o.status, err),
        }
    }

    /// The null device takes any output, any number of times in one
    /// command, and is still the null device afterwards; nothing else is
    /// written in its stead.
    #[test]
    fn an_output_to_the_null_device_is_thrown_away(cmd in prop::sample::select(WRITERS), link in any::<bool>()) {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let dir = DIR.get_or_init(|| {
            let d = fixtures("null");
            std::os::unix::fs::symlink("/dev/null", d.join("null-link")).expect("link");
            d
        });
        let target = if link { "null-link" } else { "/dev/null" };
        let before = listing(dir);
        let mut args = fill(cmd, target);
        if cmd.contains("--summary") {
            args.extend(["--junit".to_string(), "/dev/null".to_string()]);
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = finish(spawn(dir, &argv), &args.join(" "))?;
        prop_assert!(matches!(o.status.code(), Some(0 | 1)), "{}: {}", args.join(" "), text(&o.stderr));
        prop_assert!(listing(dir) == before, "{} wrote beside its fixtures", args.join(" "));
        use std::os::unix::fs::FileTypeExt;
        prop_assert!(std::fs::metadata("/dev/null").expect("/dev/null").file_type().is_char_device());
    }

    /// The same for stdout sent to a file under the limit: one line naming
    /// stdout and exit 2, never death by signal and never exit 141.
    #[test]
    fn stdout_past_the_file_size_limit_is_a_write_error(
        cmd in prop::sample::select(PRINTERS),
        blocks in 1u32..64,
    ) {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        let dir = DIR.get_or_init(|| fixtures("stdout-limits"));
        let args = fill(cmd, "");
        let o = limited(dir, blocks, &args, Some("stdout.txt"))?;
        let err = text(&o.stderr);
        no_temporary_left(dir)?;
        match o.status.code() {
            Some(0 | 1) => {}
            Some(2) => prop_assert!(
                err.lines().count() == 1 && err.starts_with("dst: cannot write to stdout: File too large"),
                "{}: {}", args.join(" "), err
            ),
            _ => prop_assert!(false, "{}: ended by {:?}: {}", args.join(" "), o.status, err),
        }
    }
}

proptest! {
    #![proptest_config(config(5))]

    /// Campaigns started together on one corpus, each failing in a kind
    /// drawn from a few (so some share a kind): the corpus ends with one
    /// line per kind, and as many lines as they said they added.
    #[test]
    fn campaigns_growing_one_corpus_together_keep_one_line_per_kind(
        kinds in prop::collection::vec(0u8..4, 2..7),
        case in any::<u64>(),
    ) {
        let dir = scratch("corpus", case);
        let corpus = dir.join("corpus.jsonl");
        let children: Vec<Child> = kinds.iter().enumerate().map(|(i, k)| {
            let file = kind_file(&dir.join(format!("c{i}")), &format!("kind-{k}"));
            let mut c = Command::new(DST);
            c.env("DST_MIN_FREE", "0");
            c.args(["fuzz", file.to_str().expect("utf-8"), "--seeds", "0..2", "--jobs", "1", "--no-reports"])
                .args(["--corpus", corpus.to_str().expect("utf-8"), "--corpus-shrink-runs", "3"]);
            launch(&mut c, file.parent().expect("folder"))
        }).collect();
        let mut said = 0;
        for c in children {
            let o = finish(c, "fuzz --corpus")?;
            prop_assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
            let out = text(&o.stdout);
            let line = out.lines().find(|l| l.starts_with("corpus ")).unwrap_or("");
            let n: usize = line.split(": ").nth(1).and_then(|s| s.split(' ').next()).and_then(|s| s.parse().ok())
                .ok_or_else(|| TestCaseError::fail(format!("no corpus line in {out}")))?;
            said += n;
        }
        let body = std::fs::read_to_string(&corpus).expect("corpus");
        let names: BTreeSet<String> = body.lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("line")["scenario"].as_str().expect("name").to_string())
            .collect();
        let want: BTreeSet<String> = kinds.iter().map(|k| format!("kind-{k}")).collect();
        prop_assert_eq!(&names, &want);
        prop_assert_eq!(body.lines().count(), want.len(), "{}", body);
        prop_assert_eq!(said, want.len(), "lines said added");
    }

    /// Campaigns started together on one cursor over a drawn range (or a
    /// budget) run disjoint seeds, and together with what they gave back
    /// they cover every seed below the cursor's frontier.
    #[test]
    fn campaigns_sharing_a_cursor_never_run_a_seed_twice(
        n in 2usize..5,
        end in prop_oneof![Just(None), (20u64..600).prop_map(Some)],
        case in any::<u64>(),
    ) {
        let dir = scratch("cursor", case);
        let sc = starved(&dir);
        let cursor = dir.join("cursor.json");
        let range = end.map_or(vec!["--budget".to_string(), "1s".into()], |e| vec!["--seeds".to_string(), format!("0..{e}")]);
        let children: Vec<Child> = (0..n).map(|_| {
            let mut c = Command::new(DST);
            c.env("DST_MIN_FREE", "0");
            c.args(["fuzz", sc.to_str().expect("utf-8"), "--jobs", "1", "--no-reports", "--cursor", cursor.to_str().expect("utf-8")])
                .args(&range);
            launch(&mut c, &dir)
        }).collect();
        let mut all = BTreeSet::new();
        for c in children {
            let o = finish(c, "fuzz --cursor")?;
            let err = text(&o.stderr);
            prop_assert!(matches!(o.status.code(), Some(0 | 1)), "{}", err);
            for s in err.lines().filter_map(|l| l.strip_prefix("UNEXPECTED starved seed ")) {
                let seed: u64 = s.split(':').next().and_then(|x| x.parse().ok()).expect("a seed");
                prop_assert!(all.insert(seed), "seed {} ran twice", seed);
            }
        }
        let cur: Value = serde_json::from_str(&std::fs::read_to_string(&cursor).expect("cursor")).expect("JSON");
        for g in cur["free"].as_array().map_or(&[][..], |v| v) {
            for s in g["from_seed"].as_u64().expect("from")..g["to_seed"].as_u64().expect("to") {
                prop_assert!(all.insert(s), "seed {} is free and was run: {}", s, cur);
            }
        }
        let next = cur["next_seed"].as_u64().expect("next_seed");
        prop_assert_eq!(&all, &(0..next).collect::<BTreeSet<u64>>(), "{}", cur);
        if let Some(e) = end {
            prop_assert_eq!(next, e);
        }
    }
}
