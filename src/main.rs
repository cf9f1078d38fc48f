//! `dst`: run, fuzz, replay and measure deterministic simulations.

mod bench;
mod check_cmd;
mod cli;
mod commands;
mod fuzz;
mod mutants;
mod outcome;
mod pool;
mod progress;
mod shrink;

use clap::Parser;
use std::process::ExitCode;

/// How a command ended, mapped to the documented exit codes.
pub enum Exit {
    /// Nothing violated (for replay: reproduced exactly).
    Clean,
    /// A violation (for replay: a mismatch).
    Found,
    /// Bad input or usage; the message is the one line for stderr.
    Bad(String),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    sim::world::install_panic_hook();
    let cli = cli::Cli::parse();
    let exit = match cli.cmd {
        cli::Cmd::List { json } => commands::list(json),
        cli::Cmd::Run {
            scenario,
            seed,
            bugs,
            report,
            json,
        } => commands::run(&scenario, seed, &bugs, report, json),
        cli::Cmd::Replay { report, json } => commands::replay(&report, json),
        cli::Cmd::Fuzz(args) => fuzz::main(args),
        cli::Cmd::Shrink {
            report,
            out,
            max_runs,
            json,
        } => shrink::main(&report, out, max_runs, json),
        cli::Cmd::Mutants {
            max_seeds,
            bugs,
            jobs,
            report_dir,
            json,
        } => mutants::main(max_seeds, &bugs, jobs, &report_dir, json),
        cli::Cmd::Check(args) => return check_cmd::main(&args),
        cli::Cmd::Bench { seeds, scenario, json } => bench::main(seeds, scenario.as_deref(), json),
    };
    match exit {
        Exit::Clean => ExitCode::SUCCESS,
        Exit::Found => ExitCode::from(1),
        Exit::Bad(msg) => {
            eprintln!("dst: {msg}");
            ExitCode::from(2)
        }
    }
}
