//! `dst`: run, fuzz, replay and measure deterministic simulations.

fn main() -> std::process::ExitCode {
    sim::cli::main(dst::registry())
}
