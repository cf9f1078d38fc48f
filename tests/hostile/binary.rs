//! The same hostile inputs through the real binary, a smaller sample of
//! each: a refusal exits 2 with one line on stderr and nothing on stdout,
//! and the folder it ran in holds only what the case put there (no report,
//! no temporary file, no shrunk copy).

use crate::mutate::{apply_json, config, hostile, json_edit};
use crate::samples::{self, bytes, EDN, JEPSEN, JEPSEN_EDN};
use crate::values::value;
use linearizability::{parse_edn, parse_jepsen, parse_jepsen_edn, JepsenModel, JepsenOps, ModelUser, ParseError};
use proptest::prelude::*;
use sim::lin::parse_dst;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

thread_local! {
    static REGISTRY: sim::Registry = dst::registry();
}

/// An empty folder of this test's own, for the binary to run in.
fn fresh(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dst-hostile-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn dst(dir: &Path, args: &[OsString]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dst"))
        .env("DST_MIN_FREE", "0")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("dst runs")
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Exit 2, exactly one line on stderr (returned), nothing on stdout, and
/// `dir` holds just `kept`.
fn refused(o: &Output, dir: &Path, kept: &[&str]) -> Result<String, TestCaseError> {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    prop_assert_eq!(o.status.code(), Some(2), "stderr: {}", err);
    prop_assert!(
        err.ends_with('\n') && err.matches('\n').count() == 1,
        "want one line: {:?}",
        err
    );
    let line = err.trim_end_matches('\n').to_string();
    prop_assert!(
        line.starts_with("dst: ") && linearizability::one_line::is_one_line(&line),
        "{:?}",
        line
    );
    prop_assert!(o.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&o.stdout));
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .expect("temp dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    prop_assert_eq!(left, kept.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    Ok(line)
}

fn history() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    prop_oneof![
        hostile(bytes(JEPSEN)).prop_map(|b| ("jepsen", b)),
        hostile(bytes(EDN)).prop_map(|b| ("edn", b)),
        hostile(bytes(JEPSEN_EDN)).prop_map(|b| ("jepsen-edn", b)),
        hostile(vec![samples::event_lines().into_bytes()]).prop_map(|b| ("json", b)),
    ]
}

fn parse(format: &str, text: &str) -> Result<(), ParseError> {
    match format {
        "jepsen" => parse_jepsen::parse(text).map(|_| ()),
        "edn" => parse_edn::parse(text).map(|_| ()),
        "jepsen-edn" => {
            let forms = parse_jepsen_edn::read(text)?;
            let model = JepsenModel::choose(None, &forms.fs())?;
            model.apply(parse_jepsen_edn::Value::Nil, Parse(&forms))
        }
        _ => parse_dst::parse(text).map(|_| ()),
    }
}

/// Parse a Jepsen history as the ops of whichever model its ops imply.
struct Parse<'a>(&'a parse_jepsen_edn::Forms);

impl ModelUser for Parse<'_> {
    type Output = Result<(), ParseError>;

    fn with<M: JepsenOps>(self, model: &M) -> Self::Output {
        self.0.history(model).map(|_| ())
    }
}

fn report() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        hostile(vec![samples::report().as_bytes().to_vec()]),
        prop::collection::vec(json_edit(), 1..4).prop_map(|e| {
            let mut v = samples::report_json();
            apply_json(&mut v, &e);
            v.to_string().into_bytes()
        }),
    ]
}

fn scenario() -> impl Strategy<Value = Vec<u8>> {
    let files: Vec<Vec<u8>> = samples::scenarios().iter().map(|s| s.as_bytes().to_vec()).collect();
    prop_oneof![
        hostile(files),
        (any::<prop::sample::Index>(), prop::collection::vec(json_edit(), 1..4)).prop_map(|(i, e)| {
            let mut v: serde_json::Value = serde_json::from_str(i.get::<String>(samples::scenarios())).expect("JSON");
            apply_json(&mut v, &e);
            v.to_string().into_bytes()
        }),
    ]
}

/// A command line value: text, or bytes that are not UTF-8 (never NUL,
/// which no argument can hold).
fn arg() -> impl Strategy<Value = OsString> {
    prop_oneof![
        3 => value().prop_map(|s| s.into_bytes()),
        1 => prop::collection::vec(1u8.., 0..12),
    ]
    .prop_map(|b| OsString::from_vec(b.into_iter().filter(|&c| c != 0).collect()))
}

proptest! {
    #![proptest_config(config(90))]

    #[test]
    fn check_refuses_what_its_parser_refuses((format, b) in history()) {
        let dir = fresh("check");
        std::fs::write(dir.join("history"), &b).expect("temp file");
        let o = dst(&dir, &os(&["check", "history", "--format", format]));
        match std::str::from_utf8(&b).map(|t| parse(format, t)) {
            Err(_) => {
                let line = refused(&o, &dir, &["history"])?;
                prop_assert!(line.starts_with("dst: cannot read history: "), "{}", line);
            }
            Ok(Err(e)) => {
                let line = refused(&o, &dir, &["history"])?;
                let want = match e.line {
                    Some(l) => format!("dst: history:{l}: {}", e.message),
                    None => format!("dst: history: {}", e.message),
                };
                prop_assert_eq!(line, want);
            }
            Ok(Ok(())) => {
                let err = String::from_utf8_lossy(&o.stderr);
                prop_assert!(matches!(o.status.code(), Some(0 | 1 | 3)) && err.is_empty(), "{:?}: {}", o.status, err);
            }
        }
        // Without --format the format is guessed from the first line.
        let o = dst(&dir, &os(&["check", "history"]));
        if o.status.code() == Some(2) {
            refused(&o, &dir, &["history"])?;
        } else {
            let err = String::from_utf8_lossy(&o.stderr);
            prop_assert!(matches!(o.status.code(), Some(0 | 1 | 3)) && err.is_empty(), "{:?}: {}", o.status, err);
        }
    }

    #[test]
    fn replay_and_shrink_refuse_broken_reports(b in report()) {
        let rejected = match std::str::from_utf8(&b) {
            Err(_) => true,
            Ok(t) => sim::report::Report::parse(t)
                .and_then(|r| REGISTRY.with(|reg| dst_runner::report_scenario(reg, &r)))
                .is_err(),
        };
        prop_assume!(rejected);
        for cmd in ["replay", "shrink"] {
            let dir = fresh(cmd);
            std::fs::write(dir.join("r.json"), &b).expect("temp file");
            refused(&dst(&dir, &os(&[cmd, "r.json"])), &dir, &["r.json"])?;
        }
    }

    #[test]
    fn view_and_export_refuse_unreadable_reports_and_draw_the_rest(b in report()) {
        // Neither needs the report's scenario registered: only a readable report.
        let readable = std::str::from_utf8(&b).is_ok_and(|t| sim::report::Report::parse(t).is_ok());
        for (cmd, out) in [("view", "out.html"), ("export", "out.json")] {
            let dir = fresh(cmd);
            std::fs::write(dir.join("r.json"), &b).expect("temp file");
            let o = dst(&dir, &os(&[cmd, "r.json", "-o", out]));
            if readable {
                prop_assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
            } else {
                refused(&o, &dir, &["r.json"])?;
            }
        }
    }

    #[test]
    fn run_and_fuzz_refuse_broken_scenarios(b in scenario()) {
        let dir = fresh("scenario");
        std::fs::write(dir.join("s.json"), &b).expect("temp file");
        let path = dir.join("s.json");
        let rejected = REGISTRY.with(|reg| reg.load(path.to_str().expect("utf-8 path")).is_err());
        prop_assume!(rejected);
        refused(&dst(&dir, &os(&["run", "s.json"])), &dir, &["s.json"])?;
        refused(&dst(&dir, &os(&["fuzz", "s.json", "--seeds", "0..2"])), &dir, &["s.json"])?;
    }

    #[test]
    fn values_dst_parses(flag in prop::sample::select(vec!["--seeds", "--shard", "--budget"]), v in arg()) {
        let dir = fresh("values");
        // FLAG=VALUE: a value that starts with '-' is still the flag's.
        let mut eq = OsString::from(format!("{flag}="));
        eq.push(&v);
        let args = vec!["fuzz".into(), "no-such-scenario".into(), eq];
        let line = refused(&dst(&dir, &args), &dir, &[])?;
        if let Some(Err(e)) = v.to_str().map(|s| match flag {
            "--seeds" => dst_runner::parse_seeds(s).map(|_| ()),
            "--shard" => dst_runner::parse_shard(s).map(|_| ()),
            _ => dst_cli::parse_duration(s).map(|_| ()),
        }) {
            prop_assert_eq!(line, format!("dst: {e}"));
        }
    }

    #[test]
    fn initial_values_are_edn(v in arg()) {
        let dir = fresh("initial");
        let mut eq = OsString::from("--initial=");
        eq.push(&v);
        let line = refused(&dst(&dir, &[OsString::from("check"), "missing.edn".into(), eq]), &dir, &[])?;
        match v.to_str().map(linearizability::parse_jepsen_edn::Value::parse) {
            Some(Err(e)) => prop_assert_eq!(line, linearizability::one_line::one_line(&format!("dst: --initial: {e}"))),
            Some(Ok(_)) => prop_assert!(line.starts_with("dst: cannot read missing.edn"), "{}", line),
            // clap refuses what is not UTF-8.
            None => {}
        }
    }

    #[test]
    fn values_clap_parses(cmd in prop::sample::select(vec![
        "run raft-partitions --seed", "search raft-partitions --runs", "fuzz raft-partitions --jobs",
        "check history --budget", "shrink r.json --max-runs", "mutants --max-seeds",
    ]), v in arg()) {
        prop_assume!(v.to_str().is_none_or(|s| s.parse::<u64>().is_err()));
        let dir = fresh("clap");
        let mut args: Vec<OsString> = cmd.split(' ').map(OsString::from).collect();
        let flag = args.pop().expect("a flag");
        let mut eq = flag;
        eq.push("=");
        eq.push(&v);
        args.push(eq);
        refused(&dst(&dir, &args), &dir, &[])?;
    }
}

#[test]
fn usage_errors_are_one_line() {
    let dir = fresh("usage");
    for args in [
        &[][..],
        &["frobnicate"],
        &["run"],
        &["run", "raft-partitions", "--no-such-flag"],
        &["check"],
        &["check", "h", "--format", "yaml"],
        &["fuzz", "--seeds"],
    ] {
        let line = refused(&dst(&dir, &os(args)), &dir, &[]).map_err(|e| format!("{args:?}: {e}"));
        assert!(line.expect("refused").ends_with("(see dst --help)"));
    }
}
