//! A user's own `dst`: every command, for the omnipaxos models only.

fn main() -> std::process::ExitCode {
    let mut registry = sim::Registry::new();
    omnipaxos_example::register(&mut registry);
    dst_cli::main(registry)
}
