//! `dst init`: a new crate that puts a tokio service under dst, set up as
//! the book says (the simulation build flags, the patch of tokio and
//! getrandom, the dependencies on dst's crates), with a small service to
//! start from, its scenario, its tests and a binary with every command.

use crate::Exit;
use std::fs;
use std::path::{Path, PathBuf};

const CARGO: &str = include_str!("../templates/init/Cargo.toml");
const CONFIG: &str = include_str!("../templates/init/config.toml");
const LIB: &str = include_str!("../templates/init/lib.rs");
const MAIN: &str = include_str!("../templates/init/main.rs");
const TEST: &str = include_str!("../templates/init/test.rs");
const SCENARIO: &str = include_str!("../templates/init/scenario.json");

/// Where this `dst` was built from: the checkout a new crate depends on.
fn built_from() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A package name cargo takes, and a model name dst's scenarios take.
fn check_name(name: &str) -> Result<(), String> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.len() <= 64;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "init: {name:?} is not a usable crate name: lowercase letters, digits, '-' and '_', starting with a letter (give one with --name)"
        ))
    }
}

/// The dst checkout to depend on: absolute, and holding the crates named.
fn check_dst(dst: Option<&Path>) -> Result<PathBuf, String> {
    let dir = dst.map(Path::to_path_buf).unwrap_or_else(built_from);
    let dir = dir.canonicalize().map_err(|e| {
        format!(
            "init: cannot find dst's checkout at {}: {e} (give it with --dst)",
            sim::host::files::shown(&dir)
        )
    })?;
    for part in [
        "sim",
        "cli",
        "runner",
        "tokio",
        "getrandom/0.1",
        "getrandom/0.2",
        "getrandom/0.3",
    ] {
        if !dir.join(part).join("Cargo.toml").is_file() {
            return Err(format!(
                "init: {} is not a dst checkout: it has no {part}/Cargo.toml (give the checkout with --dst)",
                sim::host::files::shown(&dir)
            ));
        }
    }
    let text = sim::host::files::shown(&dir).to_string();
    if text.contains(['"', '\\', '\n']) {
        return Err(format!(
            "init: dst's checkout path {text:?} cannot be written into Cargo.toml"
        ));
    }
    Ok(dir)
}

/// Writes the crate into `path`, which must not exist or be empty.
pub fn main(path: &Path, name: Option<&str>, dst: Option<&Path>) -> Exit {
    match init(path, name, dst) {
        Ok(msg) => {
            sim::outln!("{msg}");
            Exit::Clean
        }
        Err(e) => Exit::Bad(e),
    }
}

fn init(path: &Path, name: Option<&str>, dst: Option<&Path>) -> Result<String, String> {
    let name = match name {
        Some(n) => n.to_string(),
        None => path
            .canonicalize()
            .unwrap_or_else(|_| path.to_path_buf())
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.to_ascii_lowercase())
            .ok_or_else(|| {
                format!(
                    "init: {} names no folder (give a name with --name)",
                    sim::host::files::shown(path)
                )
            })?,
    };
    check_name(&name)?;
    let dst = check_dst(dst)?;
    if path.exists() {
        let mut entries =
            fs::read_dir(path).map_err(|e| format!("init: cannot read {}: {e}", sim::host::files::shown(path)))?;
        if entries.next().is_some() {
            return Err(format!(
                "init: {} is not empty; dst init writes a new crate into a new or empty folder",
                sim::host::files::shown(path)
            ));
        }
    }
    let lib = name.replace('-', "_");
    let fill = |t: &str| {
        t.replace("{dst}", &sim::host::files::shown(&dst).to_string())
            .replace("{name}", &name)
            .replace("{lib}", &lib)
    };
    let scenario = format!("scenarios/{name}-crash-restart.json");
    let files: Vec<(String, String)> = vec![
        ("Cargo.toml".into(), fill(CARGO)),
        (".cargo/config.toml".into(), CONFIG.into()),
        ("src/lib.rs".into(), LIB.into()),
        ("src/main.rs".into(), fill(MAIN)),
        ("tests/dst.rs".into(), fill(TEST)),
        (scenario.clone(), fill(SCENARIO)),
    ];
    for (file, text) in &files {
        let to = path.join(file);
        if let Some(dir) = to.parent() {
            fs::create_dir_all(dir)
                .map_err(|e| format!("init: cannot create {}: {e}", sim::host::files::shown(dir)))?;
        }
        fs::write(&to, text).map_err(|e| format!("init: cannot write {}: {e}", sim::host::files::shown(&to)))?;
    }
    // The versions dst is tested with: the new crate starts from them.
    let lock = dst.join("Cargo.lock");
    let locked = lock.is_file() && fs::copy(&lock, path.join("Cargo.lock")).is_ok();
    let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
    Ok(format!(
        "wrote {} ({}{}), depending on dst at {}\nnext: cd {} && cargo run --release -- fuzz {name}-crash-restart --seeds 0..100",
        sim::host::files::shown(path),
        names.join(", "),
        if locked { ", Cargo.lock from dst's" } else { "" },
        sim::host::files::shown(&dst),
        sim::host::files::shown(path),
    ))
}
