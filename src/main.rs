//! `dst`: run, fuzz, replay and measure deterministic simulations.

// Counts heap bytes per thread, for `dst bench`'s peak memory per run.
#[global_allocator]
static ALLOC: linearizability::mem::Counting = linearizability::mem::Counting;

fn main() -> std::process::ExitCode {
    dst_cli::main(dst::registry())
}
