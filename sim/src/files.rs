//! Writing the files dst leaves behind (reports, summaries): whole or not
//! at all, never over something that is not a plain file, and never a
//! temporary file left behind.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically: into a temporary file in the same
/// folder (so the rename cannot cross file systems), then renamed over the
/// target. Creates the folder. A target that exists and is not a regular
/// file (a symlink, a FIFO, a device, a folder) is refused, since replacing
/// it would silently destroy what a user put there. The error is one line.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    refuse_special(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        if let Ok(m) = std::fs::symlink_metadata(dir) {
            if !m.is_dir() && !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
                return Err(format!("cannot write into {}: it is not a folder", dir.display()));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create folder {}: {e}", dir.display()))?;
    }
    let tmp = temp_name(path);
    crate::interrupt::track(tmp.clone());
    let written = write_new(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display())));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    crate::interrupt::untrack(&tmp);
    written
}

/// A folder reports will go to: fine if missing (it is made on the first
/// write), refused up front if something else sits at its path, so that a
/// long run does not find out at its first failure.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(format!("report folder: {} is not a folder", dir.display())),
        _ => Ok(()),
    }
}

/// A target path that exists and is not a regular file is refused, before
/// any work is spent on what would be written there.
pub fn refuse_special(path: &Path) -> Result<(), String> {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let ft = m.file_type();
    if ft.is_file() {
        return Ok(());
    }
    let what = if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    Err(format!("refusing to write {}: it exists and is {what}", path.display()))
}

/// A hidden name next to `path`, unique within this process and across
/// processes, so two writers never share a temporary file.
fn temp_name(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

fn write_new(tmp: &Path, bytes: &[u8]) -> Result<(), String> {
    let err = |e: std::io::Error| format!("cannot write {}: {e}", tmp.display());
    // create_new: never follow a link someone placed at the temporary name.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dst-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_whole_files_and_leaves_no_temporary() {
        let d = scratch("whole");
        let p = d.join("sub/r.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(entries(&d.join("sub")), vec!["r.json".to_string()]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_links_folders_and_fifos() {
        let d = scratch("special");
        let target = d.join("precious");
        std::fs::write(&target, b"keep").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_atomic(&link, b"x").unwrap_err();
        assert!(e.contains("symbolic link") && !e.contains('\n'), "{e}");
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        let folder = d.join("folder.json");
        std::fs::create_dir(&folder).unwrap();
        assert!(write_atomic(&folder, b"x").unwrap_err().contains("a folder"));
        let fifo = d.join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(write_atomic(&fifo, b"x").unwrap_err().contains("not a regular file"));
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_plain_file_in_the_way_of_the_folder_is_an_error() {
        let d = scratch("notdir");
        let f = d.join("reports");
        std::fs::write(&f, b"").unwrap();
        let e = write_atomic(&f.join("r.json"), b"x").unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
