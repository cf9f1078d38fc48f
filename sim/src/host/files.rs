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
/// it would silently destroy what a user put there, except the null device,
/// which takes the bytes and keeps nothing (`--summary /dev/null`). The
/// error is one line.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, streamed to the temporary
/// file: an output of gigabytes is never held whole. `write` gets a
/// buffered writer; an error from it leaves nothing behind.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
    if is_null_device(path) {
        return write(&mut std::io::sink()).map_err(|e| format!("cannot write {}: {e}", shown(path)));
    }
    refuse_special(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        if let Ok(m) = std::fs::symlink_metadata(dir) {
            if !m.is_dir() && !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
                return Err(format!("cannot write into {}: it is not a folder", shown(dir)));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create folder {}: {e}", shown(dir)))?;
    }
    let tmp = temp_name(path);
    crate::host::interrupt::track(tmp.clone());
    let written = write_new(&tmp, path, write)
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", shown(path))));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    crate::host::interrupt::untrack(&tmp);
    written
}

/// Runs `f` holding an exclusive lock on `path` against every other dst
/// process that locks it too (a read-modify-write of a file that several
/// campaigns share: a corpus). The lock is on a hidden file beside it,
/// `.NAME.lock`, since writing the file itself replaces it by a rename; the
/// lock file stays, empty. Waits for the lock.
pub fn locked<T>(path: &Path, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lock_path = path.with_file_name(format!(".{name}.lock"));
    if let Some(dir) = lock_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create folder {}: {e}", shown(dir)))?;
    }
    refuse_special(&lock_path)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open lock {}: {e}", shown(&lock_path)))?;
    file.lock()
        .map_err(|e| format!("cannot lock {}: {e}", shown(&lock_path)))?;
    let out = f();
    let _ = file.unlock();
    out
}

/// Longest name from data that becomes part of a file name, in bytes.
pub const DATA_NAME_MAX: usize = 80;

/// A name that comes from data (a scenario's or a bug's name, never a flag)
/// made safe to be part of a file name: letters, digits, `-`, `_` and `.`
/// kept, anything else (a path separator, a control character) becomes
/// `_`, no leading dot (so never `..` nor a hidden file), at most
/// [`DATA_NAME_MAX`] bytes. Names a user would choose come out unchanged.
pub fn name_from_data(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '_',
        })
        .collect();
    let dots = out.len() - out.trim_start_matches('.').len();
    out.replace_range(..dots, &"_".repeat(dots));
    out.truncate(DATA_NAME_MAX);
    if out.is_empty() {
        out.push_str("unnamed");
    }
    out
}

/// What a path names, as far as writing to it could touch: an existing
/// file by its device and inode (links and hard links included), a file
/// yet to be made by its folder's real path and its name.
#[derive(Debug, PartialEq, Eq)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

fn file_id(p: &Path) -> FileId {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::metadata(p) {
        return FileId::Inode(m.dev(), m.ino());
    }
    let parent = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    FileId::Path(dir.join(p.file_name().unwrap_or_default()))
}

/// One rule for every command, checked before any work: no output is one
/// of the inputs, and no two outputs are the same file, however the paths
/// are spelled. Each path comes with the flag or role that named it.
pub fn distinct(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), String> {
    let ins: Vec<FileId> = inputs.iter().map(|(_, p)| file_id(p)).collect();
    let outs: Vec<FileId> = outputs.iter().map(|(_, p)| file_id(p)).collect();
    for (i, (what, p)) in outputs.iter().enumerate() {
        // Any number of outputs may be thrown away.
        if is_null_device(p) {
            continue;
        }
        if let Some(j) = ins.iter().position(|id| *id == outs[i]) {
            return Err(format!(
                "{what} {} is the {} it reads: refusing to write over it",
                shown(p),
                inputs[j].0
            ));
        }
        if let Some(j) = outs[..i].iter().position(|id| *id == outs[i]) {
            return Err(format!(
                "{what} {} and {} {} are the same file: give them different paths",
                shown(p),
                outputs[j].0,
                shown(outputs[j].1)
            ));
        }
    }
    Ok(())
}

/// A folder reports will go to: fine if missing (it is made on the first
/// write), refused up front if something else sits at its path, so that a
/// long run does not find out at its first failure.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(format!("report folder: {} is not a folder", shown(dir))),
        _ => Ok(()),
    }
}

/// Whether a file could be written at `path` now, asked before any work
/// so that a campaign's verdict and finds are not lost to an output that
/// was never writable: what is there must be a plain file (see
/// [`refuse_special`]), and the folder it goes in (or, while that is still
/// to be made, the nearest folder on its way) must be a folder this
/// process may write into, since the file is written beside and renamed.
pub fn check_writable(path: &Path) -> Result<(), String> {
    if is_null_device(path) {
        return Ok(());
    }
    refuse_special(path)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    check_folder_writable(dir).map_err(|e| format!("cannot write {}: {e}", shown(path)))
}

/// Whether files could be written into `dir` now (made first if missing):
/// see [`check_writable`].
pub fn check_dir_writable(dir: &Path) -> Result<(), String> {
    check_folder_writable(dir).map_err(|e| format!("cannot write into folder {}: {e}", shown(dir)))
}

fn check_folder_writable(dir: &Path) -> Result<(), String> {
    // The nearest part of the path that exists decides: a missing folder
    // is made inside it.
    let at = nearest_existing(dir);
    if !at.is_dir() {
        return Err(format!("{} is not a folder", shown(at)));
    }
    // Permissions alone do not say (a superuser passes them on a read-only
    // or virtual file system): a file made and removed there does.
    let probe = at.join(format!(".dst-probe-{}.tmp", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("{}: {e}", shown(at))),
    }
}

/// A path as a line may print it: control characters (a newline that
/// would forge a line of its own, an escape that would recolour the
/// terminal) escaped, and a path of thousands of bytes cut, its length
/// said. Paths come from users and from data alike.
pub fn shown(path: impl AsRef<Path>) -> String {
    cut(&crate::one_line::one_line(&path.as_ref().to_string_lossy()), SHOWN_MAX)
}

/// Bytes of a path or a quoted token a line prints before it is cut.
const SHOWN_MAX: usize = 300;

/// `s`, or its first `max` bytes (at a character boundary) and how many
/// more there were: a line quoting a token of megabytes stays a line.
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes more)", &s[..end], s.len() - end)
}

/// A target path that exists and is not a regular file is refused, before
/// any work is spent on what would be written there.
pub fn refuse_special(path: &Path) -> Result<(), String> {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let ft = m.file_type();
    if ft.is_file() || is_null_device(path) {
        return Ok(());
    }
    let what = if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    Err(format!("refusing to write {}: it exists and is {what}", shown(path)))
}

/// Whether `path` (through any links) is the null device: the one special
/// file an output may name, since writing there blocks nothing, replaces
/// nothing and keeps nothing.
pub(crate) fn is_null_device(path: &Path) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let (Ok(m), Ok(null)) = (std::fs::metadata(path), std::fs::metadata("/dev/null")) else {
        return false;
    };
    m.file_type().is_char_device() && null.file_type().is_char_device() && m.rdev() == null.rdev()
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

/// Writes `tmp` for `target`: errors name the target, the file the user asked for.
fn write_new(
    tmp: &Path,
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let err = |e: std::io::Error| format!("cannot write {}: {e}", shown(target));
    // create_new: never follow a link someone placed at the temporary name.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(err)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    write(&mut w).map_err(err)?;
    let f = w.into_inner().map_err(|e| err(e.into_error()))?;
    f.sync_all().map_err(err)
}

/// `bytes` gzipped.
pub fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes)
        .and_then(|()| enc.finish())
        .map_err(|e| format!("cannot compress: {e}"))
}

/// The gzip magic number: a file that starts with it is read through gunzip.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Most bytes read of any input file (a report, summary, history,
/// corpus); a gzipped one may gunzip to its own bound.
pub const INPUT_BYTES_MAX: u64 = 1 << 30;
/// Most bytes of a scenario file or a cursor.
pub const SMALL_INPUT_BYTES_MAX: u64 = 16 << 20;

/// The bytes of an input file: a regular file (or a link to one), at most
/// `max` bytes. A FIFO, a device or a folder is refused before anything is
/// read, since reading one may block forever or never end; so is a file
/// that grows past `max`. Errors keep their kind (NotFound stays NotFound).
pub fn read_input(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    regular_input(path)?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!("it is larger than {} MB", max >> 20)));
    }
    Ok(bytes)
}

/// The metadata of an input file, or why it is refused before anything is
/// read: a FIFO, a device or a folder (see [`read_input`]).
pub(crate) fn regular_input(path: &Path) -> std::io::Result<std::fs::Metadata> {
    let m = std::fs::metadata(path)?;
    if !m.is_file() {
        let what = if m.is_dir() { "a folder" } else { "not a regular file" };
        return Err(std::io::Error::other(format!("it is {what}")));
    }
    Ok(m)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_text(path: &Path, max: u64) -> std::io::Result<String> {
    String::from_utf8(read_input(path, max)?)
        .map(without_bom)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

/// `text` without the UTF-8 byte-order mark some editors put first: it is
/// no part of the JSON or the log, and parsers would stop at it.
fn without_bom(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// A text file, gunzipped if it is gzip (whatever its name), at most
/// `gunzip_max` bytes once gunzipped; the error is one line.
pub fn read_text(path: &Path, gunzip_max: u64) -> Result<String, String> {
    use std::io::Read;
    let bytes = read_input(path, INPUT_BYTES_MAX).map_err(|e| format!("cannot read {}: {e}", shown(path)))?;
    if !bytes.starts_with(&GZIP_MAGIC) {
        return String::from_utf8(bytes)
            .map(without_bom)
            .map_err(|e| format!("cannot read {}: not UTF-8 ({e})", shown(path)));
    }
    let mut text = Vec::new();
    let read = flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(gunzip_max + 1)
        .read_to_end(&mut text);
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err(format!("{}: truncated gzip ({e})", shown(path)))
        }
        Err(e) => Err(format!("{}: not valid gzip ({e})", shown(path))),
        Ok(n) if n as u64 > gunzip_max => Err(format!(
            "{}: gunzips to more than {} MB, more than any report",
            shown(path),
            gunzip_max >> 20
        )),
        Ok(_) => String::from_utf8(text)
            .map(without_bom)
            .map_err(|e| format!("{}: not UTF-8 text once gunzipped ({e})", shown(path))),
    }
}

/// Bytes free for an unprivileged writer on the file system holding `dir`
/// (or the nearest folder above it that exists); `None` where it cannot be
/// told.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    statvfs_free(nearest_existing(dir))
}

/// `path`, or the nearest folder above it that exists (the working folder
/// when none of a relative path does).
fn nearest_existing(path: &Path) -> &Path {
    let mut at = path;
    loop {
        if at.as_os_str().is_empty() {
            return Path::new(".");
        }
        if std::fs::metadata(at).is_ok() {
            return at;
        }
        match at.parent() {
            Some(up) => at = up,
            None => return Path::new("."),
        }
    }
}

#[cfg(unix)]
fn statvfs_free(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a NUL-terminated path and `st` a buffer of the type
    // statvfs fills; it is read only when the call succeeds.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled `st`.
    let st = unsafe { st.assume_init() };
    // The field types differ between platforms.
    #[allow(clippy::unnecessary_cast)]
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(not(unix))]
fn statvfs_free(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_over_an_input_or_another_output_is_refused() {
        let d = scratch("distinct");
        let input = d.join("r.json");
        std::fs::write(&input, "{}").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = d.join("hard.json");
        std::fs::hard_link(&input, &hard).unwrap();
        let dotted = d.join("sub/../r.json");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for same in [&input, &link, &hard, &dotted] {
            let e = distinct(&[("report", &input)], &[("--out", same)]).unwrap_err();
            assert!(e.contains("is the report it reads"), "{e}");
        }
        let a = d.join("new.json");
        let b = d.join("sub/../new.json");
        let e = distinct(&[], &[("--summary", &a), ("--junit", &b)]).unwrap_err();
        assert!(e.contains("are the same file"), "{e}");
        assert!(distinct(
            &[("report", &input)],
            &[("--summary", &a), ("--junit", &d.join("j.xml"))]
        )
        .is_ok());
    }

    #[test]
    fn names_from_data_stay_inside_their_folder() {
        assert_eq!(name_from_data("raft-crash-restart"), "raft-crash-restart");
        assert_eq!(name_from_data("openraft-0.9.25-three"), "openraft-0.9.25-three");
        for hostile in [
            "../../x",
            "/etc/passwd",
            "..",
            ".",
            "",
            "a/../../b",
            "\u{1b}[31mred\n",
            "..\\x",
            "C:x",
        ] {
            let n = name_from_data(hostile);
            assert!(!n.is_empty() && !n.starts_with('.'), "{hostile:?} -> {n:?}");
            assert!(
                n.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
                "{hostile:?} -> {n:?}"
            );
            let p = Path::new("reports").join(format!("{n}-1.json"));
            assert_eq!(p.parent(), Some(Path::new("reports")), "{hostile:?} -> {}", shown(&p));
        }
        assert_eq!(name_from_data(&"x".repeat(500)).len(), DATA_NAME_MAX);
        assert_eq!(name_from_data("ключ"), "____");
    }

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
