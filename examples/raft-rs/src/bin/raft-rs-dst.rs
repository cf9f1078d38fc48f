//! A user's own `dst`: every command, for the raft-rs models only.

fn main() -> std::process::ExitCode {
    let mut registry = sim::Registry::new();
    raft_rs_example::register(&mut registry);
    dst_cli::main(registry)
}
