//! Every `dst` command over this crate's models: `cargo run --release -- list`.

fn main() -> std::process::ExitCode {
    dst_cli::main({lib}::registry())
}
