use super::{meta, routed};
use crate::dst::{self, Here, Route};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::future::poll_fn;
use std::io;
use std::path::{Path, PathBuf};
use std::task::{Context, Poll};

/// The entries of a directory; see [`super::read_dir`].
#[derive(Debug)]
pub struct ReadDir(Repr);

#[derive(Debug)]
enum Repr {
    Real(real::fs::ReadDir),
    /// A node's, listed at once, in name order.
    Node(Here, VecDeque<(PathBuf, bool)>),
}

pub(super) async fn read_dir(path: &Path) -> io::Result<ReadDir> {
    routed!(
        "read_dir",
        |h, s| Ok(ReadDir(Repr::Node(h, s.fs_read_dir(h, path)?.into()))),
        { real::fs::read_dir(path).await.map(|r| ReadDir(Repr::Real(r))) }
    )
}

impl ReadDir {
    /// The next entry, or `None` at the end.
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry.
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        match &mut self.0 {
            Repr::Real(r) => r
                .poll_next_entry(cx)
                .map_ok(|e| e.map(|e| DirEntry(EntryRepr::Real(e)))),
            Repr::Node(here, left) => Poll::Ready(Ok(left.pop_front().map(|(path, is_dir)| {
                DirEntry(EntryRepr::Node {
                    here: *here,
                    path,
                    is_dir,
                })
            }))),
        }
    }
}

/// One entry of a directory.
#[derive(Debug)]
pub struct DirEntry(EntryRepr);

#[derive(Debug)]
enum EntryRepr {
    Real(real::fs::DirEntry),
    Node { here: Here, path: PathBuf, is_dir: bool },
}

impl DirEntry {
    /// The entry's full path.
    pub fn path(&self) -> PathBuf {
        match &self.0 {
            EntryRepr::Real(e) => e.path(),
            EntryRepr::Node { path, .. } => path.clone(),
        }
    }

    /// The entry's name.
    pub fn file_name(&self) -> OsString {
        match &self.0 {
            EntryRepr::Real(e) => e.file_name(),
            EntryRepr::Node { path, .. } => path.file_name().unwrap_or_default().to_os_string(),
        }
    }

    /// The entry's metadata (on a node: its kind and length; see [`super::metadata`]).
    pub async fn metadata(&self) -> io::Result<std::fs::Metadata> {
        match &self.0 {
            EntryRepr::Real(e) => e.metadata().await,
            EntryRepr::Node { here, path, .. } => {
                let sim = dst::sim().ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))?;
                meta::std_metadata(sim.fs_meta(*here, path)?)
            }
        }
    }

    /// The entry's kind.
    pub async fn file_type(&self) -> io::Result<std::fs::FileType> {
        match &self.0 {
            EntryRepr::Real(e) => e.file_type().await,
            EntryRepr::Node { is_dir, .. } => {
                let m = meta::std_metadata(dst::FileMeta {
                    is_dir: *is_dir,
                    len: 0,
                })?;
                Ok(m.file_type())
            }
        }
    }
}

/// Makes directories, as tokio's.
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder of one directory at a time.
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Makes every missing directory above too.
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// Sets the unix mode of what it makes (a node's directories have none).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Makes `path`.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        match dst::route("tokio::fs::DirBuilder::create") {
            Route::Node(h, s) => s.fs_mkdir(h, path, self.recursive),
            Route::Real => {
                let mut b = real::fs::DirBuilder::new();
                b.recursive(self.recursive);
                #[cfg(unix)]
                if let Some(m) = self.mode {
                    b.mode(m);
                }
                b.create(path).await
            }
        }
    }
}
