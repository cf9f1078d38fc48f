//! What dst does for tokio's replacement (the `tokio` crate of this
//! workspace, patched in for a whole dependency graph): a task it spawns
//! runs on the node that spawned it, its clock is the node's monotonic
//! clock, its sleeps are the node's sleeps, its random bytes the node's
//! stream. Installed for every run of async nodes.

use super::fs;
use super::host::{self, enter_call, Raw};
use super::net;
use super::task::NodeTask;
use super::time;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::dst::{FileMeta, Here, OpenFlags, Sim, SleepState};

/// What a socket call of an incarnation that is gone returns.
fn gone() -> io::Error {
    io::Error::new(
        io::ErrorKind::NotConnected,
        "the node that made this socket restarted or stopped",
    )
}

/// A call on `here`'s sockets, counted as any call into dst; an error if
/// the incarnation is gone.
fn sockets<T>(here: Here, f: impl FnOnce(&mut host::Core) -> io::Result<T>) -> io::Result<T> {
    enter_call(here.node, here.inc, |c, _| f(c)).unwrap_or_else(|| Err(gone()))
}

/// A call on `here`'s files, with whether its disk is full now.
fn files<T>(here: Here, f: impl FnOnce(&mut fs::NodeFs, bool) -> io::Result<T>) -> io::Result<T> {
    sockets(here, |c| {
        let full = host::now_ns() < c.nodes[here.node].no_space_until;
        f(fs::of(c, here.node), full)
    })
}

/// [`sockets`] for a poll; an incarnation gone never wakes it.
fn poll_sockets<T>(here: Here, f: impl FnOnce(&mut host::Core) -> Poll<io::Result<T>>) -> Poll<io::Result<T>> {
    enter_call(here.node, here.inc, |c, _| f(c)).unwrap_or_else(|| Poll::Ready(Err(gone())))
}

pub(crate) struct Shim;

/// The one instance [`host::install`] installs.
pub(crate) static SHIM: Shim = Shim;

impl Sim for Shim {
    fn spawn(&self, here: Here, task: Pin<Box<dyn Future<Output = ()>>>, site: &'static std::panic::Location<'static>) {
        // A task spawns on its own node; a handle of another node (or of
        // an incarnation gone) spawns nothing.
        let live = host::try_with_core(|c| {
            let n = &c.nodes[here.node];
            n.inc == here.inc && n.up
        });
        if live != Some(true) || tokio::dst::current() != Some(here) {
            return;
        }
        let task = NodeTask::new(here.node, here.inc, task, Some(site));
        super::exec::spawn((here.node, here.inc), Box::pin(task));
    }

    fn mono_ns(&self, here: Here) -> u64 {
        time::mono_ns(here.node, here.inc)
    }

    fn sleep_poll(&self, here: Here, state: &mut SleepState, deadline_mono_ns: u64, cx: &mut Context<'_>) -> Poll<()> {
        if state.until_ns.is_none() {
            let until = host::enter_call(here.node, here.inc, |c, now| {
                let clock = &c.nodes[here.node].clock;
                let mono = clock.mono_ns(now);
                (mono < deadline_mono_ns).then(|| clock.true_after(now, deadline_mono_ns - mono))
            });
            match until {
                Some(None) => return Poll::Ready(()),
                Some(Some(t)) => state.until_ns = Some(t),
                // The incarnation is gone: it never wakes.
                None => return Poll::Pending,
            }
        }
        time::poll_sleep(here.node, here.inc, state, cx)
    }

    fn sleep_drop(&self, here: Here, state: &mut SleepState) {
        time::release(here.node, here.inc, state);
    }

    fn fill_random(&self, here: Option<Here>, dest: &mut [u8]) {
        use rand::RngCore;
        for chunk in dest.chunks_mut(8) {
            let v = match here {
                Some(h) => time::draw(h.node, h.inc),
                // madsim's generator is the run's, seeded by its seed.
                None => madsim::rand::thread_rng().next_u64(),
            };
            chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
        }
    }

    fn tcp_listen(&self, here: Here, addr: SocketAddr) -> io::Result<(u64, SocketAddr)> {
        sockets(here, |c| net::listen(c, here.node, addr))
    }

    fn tcp_accept(
        &self,
        here: Here,
        listener: u64,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(u64, SocketAddr, SocketAddr)>> {
        poll_sockets(here, |c| net::accept(c, here.node, listener, cx))
    }

    fn tcp_connect(&self, here: Here, to: SocketAddr) -> io::Result<u64> {
        sockets(here, |c| net::connect(c, here.node, here.inc, to))
    }

    fn tcp_connected(&self, here: Here, conn: u64, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        poll_sockets(here, |c| net::connected(c, here.node, conn, cx))
    }

    fn tcp_addrs(&self, here: Here, conn: u64) -> io::Result<(SocketAddr, SocketAddr)> {
        sockets(here, |c| {
            net::addrs(c, here.node, conn).ok_or_else(|| io::ErrorKind::NotConnected.into())
        })
    }

    fn tcp_read(
        &self,
        here: Here,
        conn: u64,
        buf: &mut [u8],
        peek: bool,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<usize>> {
        poll_sockets(here, |c| net::read(c, here.node, conn, buf, peek, cx.as_deref()))
    }

    fn tcp_write(&self, here: Here, conn: u64, data: &[u8]) -> io::Result<usize> {
        sockets(here, |c| net::write(c, here.node, here.inc, conn, data))
    }

    fn tcp_shutdown(&self, here: Here, conn: u64) -> io::Result<()> {
        sockets(here, |c| net::shutdown(c, here.node, here.inc, conn))
    }

    fn udp_bind(&self, here: Here, addr: SocketAddr) -> io::Result<(u64, SocketAddr)> {
        sockets(here, |c| net::udp_bind(c, here.node, addr))
    }

    fn udp_send(&self, here: Here, socket: u64, data: &[u8], to: SocketAddr) -> io::Result<usize> {
        sockets(here, |c| net::udp_send(c, here.node, here.inc, socket, data, to))
    }

    fn udp_recv(
        &self,
        here: Here,
        socket: u64,
        buf: &mut [u8],
        peek: bool,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        poll_sockets(here, |c| net::udp_recv(c, here.node, socket, buf, peek, cx.as_deref()))
    }

    fn fs_open(&self, here: Here, path: &Path, flags: OpenFlags) -> io::Result<u64> {
        sockets(here, |c| {
            let id = c.nodes[here.node].fresh_id();
            fs::of(c, here.node).open(id, path, flags).map(|()| id)
        })
    }

    fn fs_read(&self, here: Here, file: u64, buf: &mut [u8]) -> io::Result<usize> {
        files(here, |f, _| f.read(file, buf))
    }

    fn fs_write(&self, here: Here, file: u64, data: &[u8]) -> io::Result<usize> {
        files(here, |f, full| f.write(file, data, full))
    }

    fn fs_seek(&self, here: Here, file: u64, to: io::SeekFrom) -> io::Result<u64> {
        files(here, |f, _| f.seek(file, to))
    }

    fn fs_set_len(&self, here: Here, file: u64, len: u64) -> io::Result<()> {
        files(here, |f, full| f.set_len(file, len, full))
    }

    fn fs_sync(&self, here: Here, file: u64, slot: &mut u64, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        poll_sockets(here, |c| {
            if *slot == 0 {
                let now = host::now_ns();
                if now < c.nodes[here.node].no_space_until {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::StorageFull,
                        "no space left on device",
                    )));
                }
                let ticket = c.nodes[here.node].fresh_id();
                match fs::of(c, here.node).flush(file, ticket) {
                    Err(e) => return Poll::Ready(Err(e)),
                    Ok(None) => return Poll::Ready(Ok(())),
                    Ok(Some(flush)) => {
                        for rec in flush.records {
                            host::push_raw(c, here.node, here.inc, Raw::Append(rec));
                        }
                        host::push_raw(c, here.node, here.inc, Raw::Fsync(flush.ticket));
                        *slot = flush.ticket;
                    }
                }
            }
            fs::of(c, here.node).synced(*slot, cx)
        })
    }

    fn fs_file_meta(&self, here: Here, file: u64) -> io::Result<FileMeta> {
        files(here, |f, _| f.handle_metadata(file))
    }

    fn fs_close(&self, here: Here, file: u64) {
        host::try_with_core(|c| {
            let n = &c.nodes[here.node];
            if n.inc == here.inc && n.up {
                fs::of(c, here.node).close(file);
            }
        });
    }

    fn fs_meta(&self, here: Here, path: &Path) -> io::Result<FileMeta> {
        files(here, |f, _| f.metadata(path))
    }

    fn fs_mkdir(&self, here: Here, path: &Path, all: bool) -> io::Result<()> {
        files(here, |f, _| f.mkdir(path, all))
    }

    fn fs_remove_file(&self, here: Here, path: &Path) -> io::Result<()> {
        files(here, |f, _| f.remove_file(path))
    }

    fn fs_remove_dir(&self, here: Here, path: &Path, all: bool) -> io::Result<()> {
        files(here, |f, _| f.remove_dir(path, all))
    }

    fn fs_rename(&self, here: Here, from: &Path, to: &Path) -> io::Result<()> {
        files(here, |f, _| f.rename(from, to))
    }

    fn fs_hard_link(&self, here: Here, from: &Path, to: &Path) -> io::Result<()> {
        files(here, |f, _| f.hard_link(from, to))
    }

    fn fs_read_dir(&self, here: Here, path: &Path) -> io::Result<Vec<(PathBuf, bool)>> {
        files(here, |f, _| f.read_dir(path))
    }

    fn close(&self, here: Here, socket: u64) {
        // Dropped anywhere, even while the run's state is borrowed or gone.
        host::try_with_core(|c| {
            let n = &c.nodes[here.node];
            if n.inc == here.inc && n.up {
                net::close(c, here.node, here.inc, socket);
            }
        });
    }
}
