//! Files of dst's tokio on the simulated nodes, kept on each node's disk.
//!
//! What the node writes lands at once in what it reads back, and stays in
//! its memory: a crash loses it. `sync_all` (or `sync_data`) of a file
//! writes that file's changes, and every change of names and directories
//! made since the last sync of anything (as a journaling file system
//! commits them), to the node's disk as records, then fsyncs it: from then
//! on they survive a crash. So the disk's faults are the files' faults: a
//! crash during the fsync may tear what it covered, a failed fsync loses it
//! and fails the sync, a full disk refuses writes, and a disk that cannot
//! be read at boot fails every call until the node restarts. At boot the
//! files are what the durable records replay to.

mod tree;

pub(crate) use tree::normal;
pub use tree::FsRec;

use super::host::{Core, Pending};
use crate::machine::{DiskError, NodeId};
use std::collections::BTreeMap;
use std::io::{self, SeekFrom};
use std::path::{Path, PathBuf};
use std::task::{Context, Poll};
use tree::Tree;

/// How a file is opened (tokio's `OpenOptions`, as the simulator takes it).
pub use tokio::dst::OpenFlags;

struct Handle {
    /// None for a directory opened to be synced.
    ino: Option<u64>,
    pos: u64,
    flags: OpenFlags,
}

/// One node's files; rebuilt from its disk at every boot.
pub(crate) struct NodeFs {
    tree: Tree,
    /// Changes of names and directories not yet on disk.
    meta: Vec<FsRec>,
    /// Each file's changes not yet on disk.
    data: BTreeMap<u64, Vec<FsRec>>,
    handles: BTreeMap<u64, Handle>,
    pub(crate) syncs: BTreeMap<u64, Pending<Result<(), DiskError>>>,
    /// What reading the disk met at boot: every call fails so after a failure.
    broken: Option<DiskError>,
    /// Every record on the disk (or on its way there), in order: what a
    /// model's own replace of its records must keep.
    pub(crate) written: Vec<FsRec>,
}

impl Default for NodeFs {
    fn default() -> Self {
        NodeFs {
            tree: Tree::new(),
            meta: Vec::new(),
            data: BTreeMap::new(),
            handles: BTreeMap::new(),
            syncs: BTreeMap::new(),
            broken: None,
            written: Vec::new(),
        }
    }
}

/// What a sync hands the simulator: records to append, then an fsync.
pub(crate) struct Flush {
    pub(crate) records: Vec<FsRec>,
    pub(crate) ticket: u64,
}

fn err(kind: io::ErrorKind, what: String) -> io::Error {
    io::Error::new(kind, what)
}

/// A file's metadata, as the shim turns it into `std`'s.
pub use tokio::dst::FileMeta;

impl NodeFs {
    /// The files the durable `records` replay to; `read` is what reading them met.
    pub(crate) fn boot(records: Vec<FsRec>, read: Result<(), DiskError>) -> NodeFs {
        let mut fs = NodeFs::default();
        for r in &records {
            fs.tree.apply(r);
        }
        fs.written = records;
        fs.broken = read.err();
        fs
    }

    /// Futures of the node waiting on a sync.
    pub(crate) fn waits(&self) -> usize {
        self.syncs.values().filter(|p| p.waker.is_some()).count()
    }

    fn usable(&self) -> io::Result<()> {
        match self.broken {
            Some(e) => Err(io::Error::other(format!("the node's disk cannot be read: {e}"))),
            None => Ok(()),
        }
    }

    fn change(&mut self, rec: FsRec) {
        self.tree.apply(&rec);
        match &rec {
            FsRec::Write { ino, .. } | FsRec::SetLen { ino, .. } => self.data.entry(*ino).or_default().push(rec),
            _ => self.meta.push(rec),
        }
    }

    fn handle(&mut self, h: u64) -> io::Result<&mut Handle> {
        self.handles
            .get_mut(&h)
            .ok_or_else(|| err(io::ErrorKind::NotConnected, "the file is closed".into()))
    }

    /// Opens `path` as `flags` say: a handle.
    pub(crate) fn open(&mut self, id: u64, path: &Path, flags: OpenFlags) -> io::Result<()> {
        self.usable()?;
        let path = normal(path);
        let writes = flags.write || flags.append;
        if self.tree.is_dir(&path) {
            if writes {
                return Err(err(
                    io::ErrorKind::IsADirectory,
                    format!("{}: is a directory", path.display()),
                ));
            }
            self.handles.insert(
                id,
                Handle {
                    ino: None,
                    pos: 0,
                    flags,
                },
            );
            return Ok(());
        }
        let ino = match self.tree.file(&path) {
            Some(_) if flags.create_new => {
                return Err(err(
                    io::ErrorKind::AlreadyExists,
                    format!("{}: file exists", path.display()),
                ));
            }
            Some(ino) => ino,
            None if flags.create || flags.create_new => {
                if !writes {
                    return Err(err(
                        io::ErrorKind::InvalidInput,
                        "creating a file needs write or append".into(),
                    ));
                }
                self.tree.parent_exists(&path)?;
                let ino = self.tree.next_ino;
                self.change(FsRec::Link {
                    path: path.clone(),
                    ino,
                });
                ino
            }
            None => {
                return Err(err(
                    io::ErrorKind::NotFound,
                    format!("{}: no such file or directory", path.display()),
                ));
            }
        };
        if flags.truncate && writes && !self.tree.data(ino).is_empty() {
            self.change(FsRec::SetLen { ino, len: 0 });
        }
        self.handles.insert(
            id,
            Handle {
                ino: Some(ino),
                pos: 0,
                flags,
            },
        );
        Ok(())
    }

    pub(crate) fn close(&mut self, h: u64) {
        self.handles.remove(&h);
    }

    fn file_of(&mut self, h: u64) -> io::Result<(u64, u64, OpenFlags)> {
        let hd = self.handle(h)?;
        let ino = hd.ino.ok_or_else(|| {
            err(
                io::ErrorKind::IsADirectory,
                "a directory has no bytes to read or write".into(),
            )
        })?;
        Ok((ino, hd.pos, hd.flags))
    }

    /// Reads at the handle's position, moving it on.
    pub(crate) fn read(&mut self, h: u64, buf: &mut [u8]) -> io::Result<usize> {
        self.usable()?;
        let (ino, pos, flags) = self.file_of(h)?;
        if !flags.read {
            return Err(err(
                io::ErrorKind::PermissionDenied,
                "the file is not open for reading".into(),
            ));
        }
        let data = self.tree.data(ino);
        let from = (pos as usize).min(data.len());
        let n = buf.len().min(data.len() - from);
        buf[..n].copy_from_slice(&data[from..from + n]);
        self.handle(h)?.pos = pos + n as u64;
        Ok(n)
    }

    /// Writes at the handle's position (its end, when appending), moving it on.
    pub(crate) fn write(&mut self, h: u64, bytes: &[u8], disk_full: bool) -> io::Result<usize> {
        self.usable()?;
        let (ino, pos, flags) = self.file_of(h)?;
        if !(flags.write || flags.append) {
            return Err(err(
                io::ErrorKind::PermissionDenied,
                "the file is not open for writing".into(),
            ));
        }
        if disk_full {
            return Err(err(io::ErrorKind::StorageFull, "no space left on device".into()));
        }
        let offset = if flags.append {
            self.tree.data(ino).len() as u64
        } else {
            pos
        };
        if !bytes.is_empty() {
            self.change(FsRec::Write {
                ino,
                offset,
                bytes: bytes.to_vec(),
            });
        }
        self.handle(h)?.pos = offset + bytes.len() as u64;
        Ok(bytes.len())
    }

    /// Moves the handle's position.
    pub(crate) fn seek(&mut self, h: u64, to: SeekFrom) -> io::Result<u64> {
        self.usable()?;
        let (ino, pos, _) = self.file_of(h)?;
        let len = self.tree.data(ino).len() as i128;
        let at = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::End(d) => len + d as i128,
            SeekFrom::Current(d) => pos as i128 + d as i128,
        };
        if at < 0 {
            return Err(err(
                io::ErrorKind::InvalidInput,
                "a seek before the start of the file".into(),
            ));
        }
        let at = u64::try_from(at).unwrap_or(u64::MAX);
        self.handle(h)?.pos = at;
        Ok(at)
    }

    /// Cuts or grows the handle's file.
    pub(crate) fn set_len(&mut self, h: u64, len: u64, disk_full: bool) -> io::Result<()> {
        self.usable()?;
        let (ino, _, flags) = self.file_of(h)?;
        if !(flags.write || flags.append) {
            return Err(err(
                io::ErrorKind::PermissionDenied,
                "the file is not open for writing".into(),
            ));
        }
        if disk_full && len > self.tree.data(ino).len() as u64 {
            return Err(err(io::ErrorKind::StorageFull, "no space left on device".into()));
        }
        self.change(FsRec::SetLen { ino, len });
        Ok(())
    }

    /// What a sync of handle `h` writes: every pending change of names, and
    /// the file's own (nothing of it for a directory). `None` when nothing
    /// is pending: the sync ends at once.
    pub(crate) fn flush(&mut self, h: u64, ticket: u64) -> io::Result<Option<Flush>> {
        self.usable()?;
        let ino = self.handle(h)?.ino;
        let mut records = std::mem::take(&mut self.meta);
        if let Some(ino) = ino {
            records.extend(self.data.remove(&ino).unwrap_or_default());
        }
        if records.is_empty() {
            return Ok(None);
        }
        self.written.extend(records.iter().cloned());
        self.syncs.insert(ticket, Pending::default());
        Ok(Some(Flush { records, ticket }))
    }

    /// Whether sync `ticket` has ended.
    pub(crate) fn synced(&mut self, ticket: u64, cx: &Context<'_>) -> Poll<io::Result<()>> {
        let Some(p) = self.syncs.get_mut(&ticket) else {
            return Poll::Ready(Ok(()));
        };
        match p.done.take() {
            Some(r) => {
                self.syncs.remove(&ticket);
                Poll::Ready(r.map_err(|e| io::Error::other(format!("fsync failed: {e}"))))
            }
            None => {
                p.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// The metadata of what `path` names.
    pub(crate) fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        self.usable()?;
        let path = normal(path);
        if self.tree.is_dir(&path) {
            return Ok(FileMeta { is_dir: true, len: 0 });
        }
        match self.tree.file(&path) {
            Some(ino) => Ok(FileMeta {
                is_dir: false,
                len: self.tree.data(ino).len() as u64,
            }),
            None => Err(err(
                io::ErrorKind::NotFound,
                format!("{}: no such file or directory", path.display()),
            )),
        }
    }

    /// The metadata of handle `h`'s file.
    pub(crate) fn handle_metadata(&mut self, h: u64) -> io::Result<FileMeta> {
        self.usable()?;
        Ok(match self.handle(h)?.ino {
            None => FileMeta { is_dir: true, len: 0 },
            Some(ino) => FileMeta {
                is_dir: false,
                len: self.tree.data(ino).len() as u64,
            },
        })
    }

    /// Makes directory `path` (and, with `all`, each missing one above it).
    pub(crate) fn mkdir(&mut self, path: &Path, all: bool) -> io::Result<()> {
        self.usable()?;
        let path = normal(path);
        if self.tree.exists(&path) {
            return match all && self.tree.is_dir(&path) {
                true => Ok(()),
                false => Err(err(
                    io::ErrorKind::AlreadyExists,
                    format!("{}: file exists", path.display()),
                )),
            };
        }
        if all {
            if let Some(parent) = path.parent() {
                self.mkdir(parent, true)?;
            }
        }
        self.tree.parent_exists(&path)?;
        self.change(FsRec::Mkdir { path });
        Ok(())
    }

    /// Removes file `path`.
    pub(crate) fn remove_file(&mut self, path: &Path) -> io::Result<()> {
        self.usable()?;
        let path = normal(path);
        if self.tree.is_dir(&path) {
            return Err(err(
                io::ErrorKind::IsADirectory,
                format!("{}: is a directory", path.display()),
            ));
        }
        if self.tree.file(&path).is_none() {
            return Err(err(
                io::ErrorKind::NotFound,
                format!("{}: no such file or directory", path.display()),
            ));
        }
        self.change(FsRec::Unlink { path });
        Ok(())
    }

    /// Removes directory `path`: empty, or (with `all`) with all it holds.
    pub(crate) fn remove_dir(&mut self, path: &Path, all: bool) -> io::Result<()> {
        self.usable()?;
        let path = normal(path);
        if !self.tree.is_dir(&path) {
            return Err(err(
                io::ErrorKind::NotFound,
                format!("{}: no such directory", path.display()),
            ));
        }
        let inside = self.tree.list(&path)?;
        if !inside.is_empty() && !all {
            return Err(err(
                io::ErrorKind::DirectoryNotEmpty,
                format!("{}: directory not empty", path.display()),
            ));
        }
        for (p, dir) in inside {
            match dir {
                true => self.remove_dir(&p, true)?,
                false => self.remove_file(&p)?,
            }
        }
        self.change(FsRec::Rmdir { path });
        Ok(())
    }

    /// Moves `from` to `to`, over a file `to` names.
    pub(crate) fn rename(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        self.usable()?;
        let (from, to) = (normal(from), normal(to));
        if !self.tree.exists(&from) {
            return Err(err(
                io::ErrorKind::NotFound,
                format!("{}: no such file or directory", from.display()),
            ));
        }
        self.tree.parent_exists(&to)?;
        if self.tree.is_dir(&to) && !self.tree.list(&to)?.is_empty() {
            return Err(err(
                io::ErrorKind::DirectoryNotEmpty,
                format!("{}: directory not empty", to.display()),
            ));
        }
        if from != to {
            self.change(FsRec::Rename { from, to });
        }
        Ok(())
    }

    /// A second name `to` for file `from`.
    pub(crate) fn hard_link(&mut self, from: &Path, to: &Path) -> io::Result<()> {
        self.usable()?;
        let (from, to) = (normal(from), normal(to));
        let Some(ino) = self.tree.file(&from) else {
            return Err(err(
                io::ErrorKind::NotFound,
                format!("{}: no such file", from.display()),
            ));
        };
        if self.tree.exists(&to) {
            return Err(err(
                io::ErrorKind::AlreadyExists,
                format!("{}: file exists", to.display()),
            ));
        }
        self.tree.parent_exists(&to)?;
        self.change(FsRec::Link { path: to, ino });
        Ok(())
    }

    /// What directory `path` holds: each name, and whether it is a directory.
    pub(crate) fn read_dir(&self, path: &Path) -> io::Result<Vec<(PathBuf, bool)>> {
        self.usable()?;
        self.tree.list(&normal(path))
    }
}

/// The node's files, for the calls of node `node`.
pub(crate) fn of(c: &mut Core, node: NodeId) -> &mut NodeFs {
    &mut c.fss[node]
}
