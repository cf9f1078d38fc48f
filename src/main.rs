//! `dst`: run, fuzz, replay and measure deterministic simulations of the
//! built-in models, through the same public registry a user's own binary
//! would build.

fn main() -> std::process::ExitCode {
    sim::cli::main(models::registry())
}
