//! Files. On a simulated node, files and directories are the node's own,
//! kept on its disk: what it writes it reads back at once, and only what a
//! `sync_all` or `sync_data` made durable (a file's bytes, and the names and
//! directories changed before it) survives a crash, as the disk's faults
//! allow: a crash during the sync may tear it, a failed fsync fails it, a
//! full disk refuses writes, a disk that cannot be read at boot fails every
//! call. Paths are from the node's root (a relative path too). Symbolic
//! links are not simulated. Elsewhere, real tokio's.

mod dir;
mod file;
mod meta;
mod open_options;

pub use dir::{DirBuilder, DirEntry, ReadDir};
pub use file::File;
pub use open_options::OpenOptions;

use crate::dst::{self, Route};
use std::io;
use std::path::{Path, PathBuf};

/// Runs `node` on the running node, or `real` outside a simulation.
macro_rules! routed {
    ($what:literal, |$here:ident, $sim:ident| $node:expr, $real:expr) => {
        match dst::route(concat!("tokio::fs::", $what)) {
            Route::Node($here, $sim) => $node,
            Route::Real => $real,
        }
    };
}
pub(crate) use routed;

/// The whole of a file.
pub async fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let path = path.as_ref();
    routed!(
        "read",
        |_h, _s| {
            use crate::io::AsyncReadExt;
            let mut buf = Vec::new();
            File::open(path).await?.read_to_end(&mut buf).await?;
            Ok(buf)
        },
        real::fs::read(path).await
    )
}

/// The whole of a file, as UTF-8.
pub async fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    let bytes = read(path).await?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Makes `path` a file holding `contents` (volatile until synced).
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let (path, contents) = (path.as_ref(), contents.as_ref());
    routed!(
        "write",
        |_h, _s| {
            use crate::io::AsyncWriteExt;
            File::create(path).await?.write_all(contents).await
        },
        real::fs::write(path, contents).await
    )
}

/// Copies a file's bytes to another; the count.
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    let (from, to) = (from.as_ref(), to.as_ref());
    routed!(
        "copy",
        |_h, _s| {
            let bytes = read(from).await?;
            write(to, &bytes).await?;
            Ok(bytes.len() as u64)
        },
        real::fs::copy(from, to).await
    )
}

/// Makes a directory; its parent must exist.
pub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "create_dir",
        |h, s| s.fs_mkdir(h, path, false),
        real::fs::create_dir(path).await
    )
}

/// Makes a directory and every missing one above it.
pub async fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "create_dir_all",
        |h, s| s.fs_mkdir(h, path, true),
        real::fs::create_dir_all(path).await
    )
}

/// Removes a file.
pub async fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "remove_file",
        |h, s| s.fs_remove_file(h, path),
        real::fs::remove_file(path).await
    )
}

/// Removes an empty directory.
pub async fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "remove_dir",
        |h, s| s.fs_remove_dir(h, path, false),
        real::fs::remove_dir(path).await
    )
}

/// Removes a directory and all it holds.
pub async fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "remove_dir_all",
        |h, s| s.fs_remove_dir(h, path, true),
        real::fs::remove_dir_all(path).await
    )
}

/// Moves a file or directory, over a file at `to`.
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref(), to.as_ref());
    routed!(
        "rename",
        |h, s| s.fs_rename(h, from, to),
        real::fs::rename(from, to).await
    )
}

/// Gives a file a second name.
pub async fn hard_link(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref(), to.as_ref());
    routed!(
        "hard_link",
        |h, s| s.fs_hard_link(h, from, to),
        real::fs::hard_link(from, to).await
    )
}

/// What `path` names. On a node, the kind and length are the node's; the
/// times are the host's, not the simulation's.
pub async fn metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    let path = path.as_ref();
    routed!(
        "metadata",
        |h, s| meta::std_metadata(s.fs_meta(h, path)?),
        real::fs::metadata(path).await
    )
}

/// [`metadata`], not following a symbolic link (a node has none).
pub async fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    let path = path.as_ref();
    routed!(
        "symlink_metadata",
        |h, s| meta::std_metadata(s.fs_meta(h, path)?),
        real::fs::symlink_metadata(path).await
    )
}

/// Whether `path` names something.
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    let path = path.as_ref();
    routed!(
        "try_exists",
        |h, s| match s.fs_meta(h, path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        },
        real::fs::try_exists(path).await
    )
}

/// The absolute form of a path that exists.
pub async fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref();
    routed!(
        "canonicalize",
        |h, s| {
            s.fs_meta(h, path)?;
            Ok(dst::normal_path(path))
        },
        real::fs::canonicalize(path).await
    )
}

/// Sets a file's permissions (a node's files have none to set).
pub async fn set_permissions(path: impl AsRef<Path>, perm: std::fs::Permissions) -> io::Result<()> {
    let path = path.as_ref();
    routed!(
        "set_permissions",
        |h, s| s.fs_meta(h, path).map(|_| ()),
        real::fs::set_permissions(path, perm).await
    )
}

/// The target of a symbolic link; a node has none.
pub async fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    let path = path.as_ref();
    routed!("read_link", |_h, _s| Err(no_links()), real::fs::read_link(path).await)
}

/// Makes a symbolic link; a node's files have none.
#[cfg(unix)]
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref(), link.as_ref());
    routed!(
        "symlink",
        |_h, _s| Err(no_links()),
        real::fs::symlink(original, link).await
    )
}

fn no_links() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "a simulated node's files have no symbolic links",
    )
}

/// What directory `path` holds.
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    dir::read_dir(path.as_ref()).await
}
