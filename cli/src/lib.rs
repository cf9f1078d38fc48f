#![deny(missing_docs)]
#![warn(unnameable_types)]
//! The `dst` command line over a registry. A user's binary gets every
//! command for its own models with a few lines:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     let mut registry = sim::Registry::new();
//!     // registry.add(my_model()); registry.scenario(include_str!("../scenarios/mine.json"));
//!     dst_cli::main(registry)
//! }
//! ```

mod args;
mod bench;
mod bench_async;
mod bench_checker;
mod check;
mod clash;
mod commands;
mod corpus;
mod explore;
mod export;
mod fuzz;
mod init;
mod merge;
mod mutants;
mod progress;
mod search;
mod shrink;
mod values;

pub mod perfetto;
pub mod view;

pub use args::Cli;
use args::Cmd;
pub use progress::parse_duration;

use clap::Parser;
use linearizability::one_line::one_line;
use sim::Registry;
use std::ffi::OsString;
use std::process::ExitCode;

/// Bytes of an error line before it is cut: a message quoting a token of
/// megabytes from the input stays readable.
const ERROR_LINE_MAX: usize = 2000;

/// How a command ended, mapped to the exit codes README and the book document: 0 the
/// outcome is what the run expected, 1 it is not, 2 bad input (or a file
/// that could not be written), 3 undecided, 130 interrupted by a signal,
/// 141 stdout closed.
pub(crate) enum Exit {
    /// What was expected: no violation nobody asked for (for replay:
    /// reproduced exactly; for shrink: a smaller report written).
    Clean,
    /// Not what was expected: an unexpected violation, a mismatch, a bug
    /// not found.
    Found,
    /// No verdict: a check ran out of its budget.
    Undecided,
    /// Bad input or usage; the message is the one line for stderr.
    Bad(String),
}

/// Runs the command line of this process with `registry`: the `main` of a
/// `dst` binary.
pub fn main(registry: Registry) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .with_writer(std::io::stderr)
        .try_init();
    sim::host::interrupt::install();
    run(&registry, std::env::args_os())
}

/// `RUST_LOG` if set, less one madsim warning that would mislead: madsim
/// seeds std's `RandomState` only for a thread's first runtime, and warns
/// for the later ones that std `HashMap`s "will not be deterministic"; an
/// async run gets a fresh thread (see `sim::async_node`) and no sans-IO
/// run iterates a map with random order, so the warning is noise. Unset,
/// only dst's own warnings show: what a system under test logs inside a
/// run (openraft logs an error for every RPC a partition drops) is the
/// run's business, and `RUST_LOG=openraft=debug` shows it.
fn log_filter() -> tracing_subscriber::EnvFilter {
    let f = match std::env::var_os("RUST_LOG") {
        Some(_) => tracing_subscriber::EnvFilter::from_default_env(),
        None => tracing_subscriber::EnvFilter::new("off,sim=warn,dst=warn"),
    };
    match "madsim::sim::rand=error".parse() {
        Ok(d) => f.add_directive(d),
        Err(_) => f,
    }
}

/// Runs one command line (`args[0]` is the program name) with `registry`.
pub fn run<I, T>(registry: &Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    sim::outcome::install_panic_hook();
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if let Some(argv0) = args.first() {
        dst_runner::hint::set_program(argv0);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            sim::errln!("dst: {}", usage_line(&e));
            return ExitCode::from(2);
        }
    };
    let r = registry;
    if let Err(e) = clash::check(r, &cli.cmd) {
        sim::errln!("dst: {}", one_line(&e));
        return ExitCode::from(2);
    }
    let exit = match cli.cmd {
        Cmd::List { json } => commands::list(r, json),
        Cmd::Run {
            scenario,
            seed,
            bugs,
            report,
            html,
            style,
            json,
        } => commands::run(r, &scenario, seed, &bugs, report, html, style.style(), json),
        Cmd::Replay {
            report,
            full,
            out,
            html,
            json,
        } => {
            let full = full.then(|| out.unwrap_or_else(|| commands::full_path(&report)));
            commands::replay(r, &report, full, html, json)
        }
        Cmd::View { report, out, events } => commands::view(r, &report, out.as_deref(), events.as_deref()),
        Cmd::Fuzz(args) => fuzz::main(r, args),
        Cmd::Merge(args) => merge::main(r, &args),
        Cmd::Search(args) => search::main(r, args),
        Cmd::Explore(args) => explore::main(r, &args),
        Cmd::Shrink {
            report,
            out,
            max_runs,
            style,
            json,
        } => shrink::main(r, &report, out, max_runs, style.style(), json),
        Cmd::Export {
            report,
            format,
            out,
            events,
        } => export::main(r, &report, &format, out.as_deref(), events.as_deref()),
        Cmd::Mutants {
            max_seeds,
            guided,
            shrink,
            explore,
            bugs,
            jobs,
            report_dir,
            style,
            json,
        } => {
            let how = dst_runner::mutants::HuntOptions {
                guided,
                shrink_runs: shrink.unwrap_or(0),
                style: style.style(),
                explore: explore.map(|states_max| sim::explore::search::Limits {
                    states_max,
                    ..sim::explore::search::Limits::new(sim::explore::Bounds {
                        ops: 3,
                        partitions: 1,
                        pauses: 1,
                        clocks: 1,
                        disks: 1,
                        ..sim::explore::Bounds::default()
                    })
                }),
            };
            match explore {
                Some(0) => Exit::Bad("--explore needs at least 1 state".into()),
                _ => mutants::main(r, max_seeds, how, &bugs, jobs, &report_dir, json),
            }
        }
        Cmd::Check(args) => check::main(r, &args),
        Cmd::Init { path, name, dst } => init::main(&path, name.as_deref(), dst.as_deref()),
        Cmd::Bench {
            seeds,
            scenario,
            scale,
            scale_nodes,
            scale_seconds,
            scale_seeds,
            no_checker,
            json,
        } => bench::main(
            r,
            &bench::Plan {
                seeds,
                only: &scenario,
                scale,
                scale_nodes,
                scale_seconds,
                scale_seeds,
                checker: !no_checker,
                json,
            },
        ),
    };
    let code = match exit {
        Exit::Clean => 0,
        Exit::Found => 1,
        Exit::Undecided => 3,
        Exit::Bad(msg) => {
            sim::errln!("dst: {}", sim::host::files::cut(&one_line(&msg), ERROR_LINE_MAX));
            return ExitCode::from(2);
        }
    };
    if let Some(e) = sim::host::interrupt::stdout_error() {
        sim::errln!("dst: cannot write to stdout: {e}");
        return ExitCode::from(2);
    }
    ExitCode::from(sim::host::interrupt::exit_code().unwrap_or(code))
}

/// The one line after a summary that an interruption cut short.
pub(crate) fn interrupted_note(what: &str) {
    if sim::host::interrupt::signalled() {
        sim::errln!("dst: interrupted: {what}");
    }
}

/// Bad usage is one line too: clap's first paragraph (its message, with
/// any list it gives folded in), pointing at --help for the usage it drops.
fn usage_line(e: &clap::Error) -> String {
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        return "a command is required (see dst --help)".into();
    }
    let text = e.render().to_string();
    let first = text.split("\n\n").next().unwrap_or_default();
    let words: Vec<&str> = first.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let msg = words.join(" ");
    format!(
        "{} (see dst --help)",
        one_line(msg.strip_prefix("error: ").unwrap_or(&msg))
    )
}
