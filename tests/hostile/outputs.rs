//! No output over an input, nor two outputs into one file, however the
//! paths are spelled: each case names one file (existing or not yet made)
//! in a generated spelling for the input and another for the output, and
//! `files::distinct` must refuse it; two different files in any spellings
//! must pass.

use crate::mutate::config;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A folder with `f` (a file), `link` (a symbolic link to it), `hard` (a
/// hard link to it), `d` (a folder) and `dl` (a link to `d`). Paths are
/// absolute, so the test does not depend on where it runs.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let r = std::env::temp_dir().join(format!("dst-hostile-outputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&r);
        std::fs::create_dir_all(r.join("d")).unwrap();
        std::fs::write(r.join("f"), "x").unwrap();
        std::os::unix::fs::symlink(r.join("f"), r.join("link")).unwrap();
        std::fs::hard_link(r.join("f"), r.join("hard")).unwrap();
        std::os::unix::fs::symlink(r.join("d"), r.join("dl")).unwrap();
        r
    })
}

/// Spellings of the existing file `f`.
fn existing(n: usize) -> PathBuf {
    let r = root();
    [
        r.join("f"),
        r.join("link"),
        r.join("hard"),
        r.join("d/../f"),
        r.join("./f"),
        r.join("dl/../f"),
    ][n % 6]
        .clone()
}

/// Spellings of `d/new`, a file not yet made.
fn new(n: usize) -> PathBuf {
    let r = root();
    [
        r.join("d/new"),
        r.join("dl/new"),
        r.join("d/./new"),
        r.join("d/../d/new"),
    ][n % 4]
        .clone()
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn one_file_in_two_spellings_is_refused(a in any::<usize>(), b in any::<usize>(), fresh in any::<bool>()) {
        let (x, y) = if fresh { (new(a), new(b)) } else { (existing(a), existing(b)) };
        if !fresh {
            let e = sim::host::files::distinct(&[("the report", &x)], &[("page", &y)]);
            prop_assert!(e.is_err(), "{} over {}", y.display(), x.display());
        }
        let e = sim::host::files::distinct(&[], &[("--summary", &x), ("--junit", &y)]);
        prop_assert!(e.is_err(), "{} and {}", x.display(), y.display());
    }

    #[test]
    fn two_files_in_any_spellings_pass(a in any::<usize>(), b in any::<usize>()) {
        let (x, y) = (existing(a), new(b));
        prop_assert!(sim::host::files::distinct(&[("the report", &x)], &[("page", &y)]).is_ok());
        prop_assert!(sim::host::files::distinct(&[], &[("--summary", &x), ("--junit", &y)]).is_ok());
    }
}
