//! `std::fs::Metadata` for what a node's file system says of a path. std
//! builds it only from the host, so the host is asked about a stand-in of
//! the same kind and length (a sparse file, or a directory): the kind and
//! the length are the node's, the times and permissions the stand-in's.

use crate::dst::FileMeta;
use std::io;
use std::path::PathBuf;

fn stand_ins() -> io::Result<PathBuf> {
    let dir = std::env::temp_dir().join("dst-fs-metadata");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

pub(crate) fn std_metadata(m: FileMeta) -> io::Result<std::fs::Metadata> {
    let dir = stand_ins()?;
    if m.is_dir {
        return std::fs::metadata(dir);
    }
    // One stand-in per process and thread: runs on other threads and in
    // other processes each use their own.
    let path = dir.join(format!("{}-{:?}", std::process::id(), std::thread::current().id()));
    let f = std::fs::File::create(&path)?;
    f.set_len(m.len)?;
    let meta = f.metadata();
    drop(f);
    let _ = std::fs::remove_file(&path);
    meta
}
