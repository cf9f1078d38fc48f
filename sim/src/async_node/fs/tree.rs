//! A node's files and directories as one state: what the node sees, and
//! (replayed from the disk at boot) what survived. Every change is a
//! record, so the state the node sees is the durable one with the records
//! not yet synced applied on top.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// One change to a node's files, as its disk keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fs", rename_all = "kebab-case")]
pub enum FsRec {
    /// A directory was made.
    Mkdir {
        /// Its path.
        path: PathBuf,
    },
    /// An empty directory was removed.
    Rmdir {
        /// Its path.
        path: PathBuf,
    },
    /// A name now leads to file `ino` (a file made, or a hard link).
    Link {
        /// The name.
        path: PathBuf,
        /// The file.
        ino: u64,
    },
    /// A name was removed.
    Unlink {
        /// The name.
        path: PathBuf,
    },
    /// A file or directory moved, over whatever file `to` named.
    Rename {
        /// Where it was.
        from: PathBuf,
        /// Where it is.
        to: PathBuf,
    },
    /// Bytes written into file `ino` at `offset`.
    Write {
        /// The file.
        ino: u64,
        /// Where, from its start.
        offset: u64,
        /// What.
        #[serde(with = "bytes")]
        bytes: Vec<u8>,
    },
    /// File `ino` cut or grown to `len` bytes.
    SetLen {
        /// The file.
        ino: u64,
        /// Its length now.
        len: u64,
    },
}

/// Bytes in a record as a string of hex digits, short where they are few.
mod bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        s.serialize_str(&hex)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let hex = String::deserialize(d)?;
        (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(serde::de::Error::custom))
            .collect()
    }
}

/// Files and directories: names to files, files to bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    dirs: BTreeSet<PathBuf>,
    names: BTreeMap<PathBuf, u64>,
    files: BTreeMap<u64, Vec<u8>>,
    pub(crate) next_ino: u64,
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{}: no such file or directory", path.display()),
    )
}

/// `path` from the node's root (see `tokio::dst::normal_path`).
pub(crate) fn normal(path: &Path) -> PathBuf {
    tokio::dst::normal_path(path)
}

impl Tree {
    pub(crate) fn new() -> Tree {
        let mut t = Tree::default();
        t.dirs.insert(PathBuf::from("/"));
        t.next_ino = 1;
        t
    }

    pub(crate) fn is_dir(&self, path: &Path) -> bool {
        self.dirs.contains(path)
    }

    pub(crate) fn file(&self, path: &Path) -> Option<u64> {
        self.names.get(path).copied()
    }

    pub(crate) fn data(&self, ino: u64) -> &[u8] {
        self.files.get(&ino).map_or(&[], Vec::as_slice)
    }

    /// That `path`'s directory exists.
    pub(crate) fn parent_exists(&self, path: &Path) -> io::Result<()> {
        match path.parent() {
            Some(p) if !self.dirs.contains(p) => Err(not_found(p)),
            _ => Ok(()),
        }
    }

    pub(crate) fn exists(&self, path: &Path) -> bool {
        self.dirs.contains(path) || self.names.contains_key(path)
    }

    /// The names directly in directory `dir`, each with whether it is a directory.
    pub(crate) fn list(&self, dir: &Path) -> io::Result<Vec<(PathBuf, bool)>> {
        if !self.dirs.contains(dir) {
            return Err(not_found(dir));
        }
        let dirs = self.dirs.iter().map(|p| (p, true));
        let files = self.names.keys().map(|p| (p, false));
        Ok(dirs
            .chain(files)
            .filter(|(p, _)| p.parent() == Some(dir))
            .map(|(p, d)| (p.clone(), d))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect())
    }

    /// Applies one record: how the disk replays at boot, and how a change
    /// lands in what the node sees before it is synced. Records replayed
    /// are applied as written, whatever they say.
    pub(crate) fn apply(&mut self, rec: &FsRec) {
        match rec {
            FsRec::Mkdir { path } => {
                self.dirs.insert(path.clone());
            }
            FsRec::Rmdir { path } => {
                self.dirs.remove(path);
            }
            FsRec::Link { path, ino } => {
                self.names.insert(path.clone(), *ino);
                self.files.entry(*ino).or_default();
                self.next_ino = self.next_ino.max(ino + 1);
            }
            FsRec::Unlink { path } => {
                self.names.remove(path);
            }
            FsRec::Rename { from, to } => self.rename_now(from, to),
            FsRec::Write { ino, offset, bytes } => {
                let f = self.files.entry(*ino).or_default();
                let end = *offset as usize + bytes.len();
                if f.len() < end {
                    f.resize(end, 0);
                }
                f[*offset as usize..end].copy_from_slice(bytes);
            }
            FsRec::SetLen { ino, len } => {
                self.files.entry(*ino).or_default().resize(*len as usize, 0);
            }
        }
    }

    fn rename_now(&mut self, from: &Path, to: &Path) {
        if let Some(ino) = self.names.remove(from) {
            self.names.insert(to.to_path_buf(), ino);
            return;
        }
        if !self.dirs.contains(from) {
            return;
        }
        let moved = |p: &PathBuf| p.strip_prefix(from).ok().map(|rest| to.join(rest));
        let dirs: Vec<PathBuf> = self.dirs.iter().filter(|p| p.starts_with(from)).cloned().collect();
        for d in dirs {
            self.dirs.remove(&d);
            if let Some(n) = moved(&d) {
                self.dirs.insert(n);
            }
        }
        let names: Vec<(PathBuf, u64)> = self
            .names
            .iter()
            .filter(|(p, _)| p.starts_with(from))
            .map(|(p, i)| (p.clone(), *i))
            .collect();
        for (p, ino) in names {
            self.names.remove(&p);
            if let Some(n) = moved(&p) {
                self.names.insert(n, ino);
            }
        }
    }
}
