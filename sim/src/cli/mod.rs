//! The `dst` command line over a registry. A user's binary gets every
//! command for its own models with a few lines:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     let mut registry = sim::registry::Registry::new();
//!     // registry.add(my_model()); registry.scenario(include_str!("../scenarios/mine.json"));
//!     sim::cli::main(registry)
//! }
//! ```

mod args;
mod bench;
mod check;
mod commands;
mod fuzz;
mod mutants;
mod progress;
mod search;
mod shrink;

pub use args::{Cli, Cmd};
pub use progress::parse_duration;

use crate::one_line::one_line;
use crate::registry::Registry;
use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

/// How a command ended, mapped to the documented exit codes.
pub(crate) enum Exit {
    /// Nothing violated (for replay: reproduced exactly).
    Clean,
    /// A violation (for replay: a mismatch).
    Found,
    /// Bad input or usage; the message is the one line for stderr.
    Bad(String),
}

/// Runs the command line of this process with `registry`: the `main` of a
/// `dst` binary.
pub fn main(registry: Registry) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    run(&registry, std::env::args_os())
}

/// Runs one command line (`args[0]` is the program name) with `registry`.
pub fn run<I, T>(registry: &Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    crate::world::install_panic_hook();
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("dst: {}", usage_line(&e));
            return ExitCode::from(2);
        }
    };
    let r = registry;
    let exit = match cli.cmd {
        Cmd::List { json } => commands::list(r, json),
        Cmd::Run {
            scenario,
            seed,
            bugs,
            report,
            json,
        } => commands::run(r, &scenario, seed, &bugs, report, json),
        Cmd::Replay { report, json } => commands::replay(r, &report, json),
        Cmd::Fuzz(args) => fuzz::main(r, args),
        Cmd::Search(args) => search::main(r, args),
        Cmd::Shrink {
            report,
            out,
            max_runs,
            json,
        } => shrink::main(r, &report, out, max_runs, json),
        Cmd::Mutants {
            max_seeds,
            guided,
            shrink,
            bugs,
            jobs,
            report_dir,
            json,
        } => {
            let how = crate::runner::mutants::HuntOptions {
                guided,
                shrink_runs: shrink.unwrap_or(0),
            };
            mutants::main(r, max_seeds, how, &bugs, jobs, &report_dir, json)
        }
        Cmd::Check(args) => return check::main(&args),
        Cmd::Bench { seeds, scenario, json } => bench::main(r, seeds, &scenario, json),
    };
    match exit {
        Exit::Clean => ExitCode::SUCCESS,
        Exit::Found => ExitCode::from(1),
        Exit::Bad(msg) => {
            eprintln!("dst: {}", one_line(&msg));
            ExitCode::from(2)
        }
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
