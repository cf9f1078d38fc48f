use super::{meta, OpenOptions};
use crate::dst::{self, Here, OpenFlags, Route};
use crate::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};
use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A file: real tokio's, or one of a simulated node's files.
#[derive(Debug)]
pub struct File(Repr);

#[derive(Debug)]
enum Repr {
    Real(real::fs::File),
    Node(NodeFile),
}

/// A handle on a node's file: its id and path (for `try_clone`), and where
/// the last `start_seek` landed.
#[derive(Debug)]
struct NodeFile {
    here: Here,
    id: u64,
    path: PathBuf,
    flags: OpenFlags,
    seeked: Option<io::Result<u64>>,
}

impl NodeFile {
    fn sim(&self) -> io::Result<&'static dyn dst::Sim> {
        dst::sim().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulation this file belonged to is over",
            )
        })
    }

    async fn sync(&self) -> io::Result<()> {
        let sim = self.sim()?;
        let mut slot = 0;
        poll_fn(|cx| sim.fs_sync(self.here, self.id, &mut slot, cx)).await
    }
}

impl Drop for NodeFile {
    fn drop(&mut self) {
        if let Some(sim) = dst::sim() {
            sim.fs_close(self.here, self.id);
        }
    }
}

/// What a node's file refuses that only a host's file can do.
#[track_caller]
fn refuse_os(what: &str) -> ! {
    dst::refuse(
        what,
        "a simulated file has no operating-system file behind it; use tokio::fs on the node",
    )
}

impl File {
    pub(crate) fn real(f: real::fs::File) -> File {
        File(Repr::Real(f))
    }

    pub(crate) fn node(here: Here, id: u64, path: PathBuf, flags: OpenFlags) -> File {
        File(Repr::Node(NodeFile {
            here,
            id,
            path,
            flags,
            seeked: None,
        }))
    }

    /// Opens `path` for reading.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Opens `path` for writing, made if missing, cut to nothing if not.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Makes `path` and opens it for writing; fails if it exists.
    pub async fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// Options to open a file with.
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// A file of a `std` file; refused on a node (a host's file).
    #[track_caller]
    pub fn from_std(std: std::fs::File) -> File {
        match dst::route("tokio::fs::File::from_std") {
            Route::Real => File(Repr::Real(real::fs::File::from_std(std))),
            Route::Node(..) => refuse_os("File::from_std"),
        }
    }

    /// Makes the file's bytes, and every change of names before, durable.
    pub async fn sync_all(&self) -> io::Result<()> {
        match &self.0 {
            Repr::Real(f) => f.sync_all().await,
            Repr::Node(f) => f.sync().await,
        }
    }

    /// [`File::sync_all`] (a node keeps no metadata apart).
    pub async fn sync_data(&self) -> io::Result<()> {
        match &self.0 {
            Repr::Real(f) => f.sync_data().await,
            Repr::Node(f) => f.sync().await,
        }
    }

    /// Cuts or grows the file to `size` bytes.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        match &self.0 {
            Repr::Real(f) => f.set_len(size).await,
            Repr::Node(f) => f.sim()?.fs_set_len(f.here, f.id, size),
        }
    }

    /// The file's metadata (on a node: its kind and length; see [`super::metadata`]).
    pub async fn metadata(&self) -> io::Result<std::fs::Metadata> {
        match &self.0 {
            Repr::Real(f) => f.metadata().await,
            Repr::Node(f) => meta::std_metadata(f.sim()?.fs_file_meta(f.here, f.id)?),
        }
    }

    /// A second handle on the same file (on a node, with a position of its own).
    pub async fn try_clone(&self) -> io::Result<File> {
        match &self.0 {
            Repr::Real(f) => f.try_clone().await.map(File::real),
            Repr::Node(f) => {
                let flags = OpenFlags {
                    truncate: false,
                    create: false,
                    create_new: false,
                    ..f.flags
                };
                let id = f.sim()?.fs_open(f.here, &f.path, flags)?;
                Ok(File::node(f.here, id, f.path.clone(), f.flags))
            }
        }
    }

    /// The `std` file; refused for a node's.
    pub async fn into_std(self) -> std::fs::File {
        match self.0 {
            Repr::Real(f) => f.into_std().await,
            Repr::Node(_) => refuse_os("File::into_std"),
        }
    }

    /// The `std` file if no operation is in flight; a node's file stays as it is.
    // tokio's signature, large error and all.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(self) -> Result<std::fs::File, File> {
        match self.0 {
            Repr::Real(f) => f.try_into_std().map_err(File::real),
            node => Err(File(node)),
        }
    }

    /// Sets the file's permissions (a node's files have none to set).
    pub async fn set_permissions(&self, perm: std::fs::Permissions) -> io::Result<()> {
        match &self.0 {
            Repr::Real(f) => f.set_permissions(perm).await,
            Repr::Node(_) => Ok(()),
        }
    }

    /// Sets how much a write buffers (a node's writes land at once).
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        if let Repr::Real(f) = &mut self.0 {
            f.set_max_buf_size(max_buf_size);
        }
    }

    /// How much a write buffers.
    pub fn max_buf_size(&self) -> usize {
        match &self.0 {
            Repr::Real(f) => f.max_buf_size(),
            Repr::Node(_) => 2 * 1024 * 1024,
        }
    }
}

impl AsyncRead for File {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).poll_read(cx, buf),
            Repr::Node(f) => {
                let n = f.sim()?.fs_read(f.here, f.id, buf.initialize_unfilled())?;
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl AsyncWrite for File {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).poll_write(cx, buf),
            Repr::Node(f) => Poll::Ready(f.sim().and_then(|s| s.fs_write(f.here, f.id, buf))),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).poll_flush(cx),
            Repr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).poll_shutdown(cx),
            Repr::Node(_) => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncSeek for File {
    fn start_seek(self: Pin<&mut Self>, position: SeekFrom) -> io::Result<()> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).start_seek(position),
            Repr::Node(f) => {
                f.seeked = Some(f.sim().and_then(|s| s.fs_seek(f.here, f.id, position)));
                Ok(())
            }
        }
    }

    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        match &mut self.get_mut().0 {
            Repr::Real(f) => Pin::new(f).poll_complete(cx),
            Repr::Node(f) => Poll::Ready(match f.seeked.take() {
                Some(r) => r,
                None => f.sim().and_then(|s| s.fs_seek(f.here, f.id, SeekFrom::Current(0))),
            }),
        }
    }
}
