//! `dst init` writes a crate outside this repository that builds as it
//! stands and fuzzes its tokio service (tasks, timers, sockets and files,
//! unmodified) under dst; without its patch, the finding names the fix;
//! what `init` refuses, it refuses in one line.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{dst, scratch};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A build of the new crate in a target folder of its own: the test's own
/// cargo holds this workspace's.
fn cargo(dir: &Path, args: &[&str]) -> Output {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join("init");
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap()
}

#[test]
fn a_new_crate_fuzzes_its_tokio_service_and_finds_its_bug() {
    let root = scratch("init", "crate");
    let o = dst(&root, &["init", "my-service"]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = root.join("my-service");
    for f in [
        "Cargo.toml",
        "Cargo.lock",
        ".cargo/config.toml",
        "src/lib.rs",
        "src/main.rs",
        "tests/dst.rs",
        "scenarios/my-service-crash-restart.json",
    ] {
        assert!(dir.join(f).is_file(), "no {f}: {}", text(&o));
    }
    let fuzz = |extra: &[&str]| {
        let mut args = vec!["run", "--release", "--quiet", "--", "fuzz", "my-service-crash-restart"];
        args.extend_from_slice(extra);
        cargo(&dir, &args)
    };
    let o = fuzz(&["--seeds", "0..30"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("30 pass"), "{}", text(&o));
    let o = fuzz(&["--seeds", "0..300", "--bug", "my-service-ack-before-sync"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("expected: linearizable"), "{}", text(&o));
    let o = cargo(&dir, &["run", "--release", "--quiet", "--", "list"]);
    assert!(text(&o).contains("my-service-ack-before-sync"), "{}", text(&o));

    // Without the patch the service's tokio is crates.io's: the finding
    // says so, and what to write.
    let o = dst(&root, &["init", "unpatched", "--name", "my-service"]);
    assert!(o.status.success(), "{}", text(&o));
    let unpatched = root.join("unpatched");
    let manifest = unpatched.join("Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    let kept: Vec<&str> = toml.lines().filter(|l| !l.starts_with("tokio = { path")).collect();
    assert_eq!(kept.len() + 1, toml.lines().count(), "{toml}");
    std::fs::write(&manifest, kept.join("\n")).unwrap();
    let o = cargo(
        &unpatched,
        &[
            "run",
            "--release",
            "--quiet",
            "--",
            "run",
            "my-service-crash-restart",
            "--seed",
            "0",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("a tokio that is not dst's"), "{}", text(&o));
    assert!(text(&o).contains("[patch.crates-io] tokio"), "{}", text(&o));
}

#[test]
fn init_refuses_a_folder_with_files_and_a_name_cargo_refuses() {
    let root = scratch("init", "refuses");
    std::fs::write(root.join("notes"), "mine").unwrap();
    let o = dst(&root, &["init", "."]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not empty"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(root.join("notes")).unwrap(), "mine");
    let o = dst(&root, &["init", "Bad Name"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a usable crate name"));
    assert!(!root.join("Bad Name").exists());
    let o = dst(&root, &["init", "fine", "--dst", "/nonexistent-dst"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--dst"));
    assert!(!root.join("fine").exists());
}
