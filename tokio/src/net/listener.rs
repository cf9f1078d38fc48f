use super::addr::{each_addr, ToSocketAddrs};
use super::node::{refuse_os, NodeSocket};
use super::TcpStream;
use crate::dst::{self, Route};
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

/// A TCP listener: real tokio's, or one of a simulated node's.
pub struct TcpListener(Repr);

enum Repr {
    Real(real::net::TcpListener),
    Node { socket: NodeSocket, local: SocketAddr },
}

impl TcpListener {
    /// Listens at `addr` (port 0: an ephemeral port).
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        match dst::route("tokio::net::TcpListener::bind") {
            Route::Real => each_addr(addr, |a| async move {
                real::net::TcpListener::bind(a).await.map(Repr::Real)
            })
            .await
            .map(TcpListener),
            Route::Node(here, sim) => {
                let bound = each_addr(addr, |a| async move { sim.tcp_listen(here, a) }).await?;
                let (id, local) = bound;
                Ok(TcpListener(Repr::Node {
                    socket: NodeSocket { here, id },
                    local,
                }))
            }
        }
    }

    pub(crate) fn real(l: real::net::TcpListener) -> TcpListener {
        TcpListener(Repr::Real(l))
    }

    pub(crate) fn node(socket: NodeSocket, local: SocketAddr) -> TcpListener {
        TcpListener(Repr::Node { socket, local })
    }

    /// The next connection, and its peer's address.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        poll_fn(|cx| self.poll_accept(cx)).await
    }

    /// Polls for the next connection.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        match &self.0 {
            Repr::Real(l) => l.poll_accept(cx).map(|r| r.map(|(s, a)| (TcpStream::real(s), a))),
            Repr::Node { socket, .. } => {
                let sim = socket.sim()?;
                sim.tcp_accept(socket.here, socket.id, cx).map(|r| {
                    r.map(|(id, local, peer)| {
                        let s = NodeSocket { here: socket.here, id };
                        (TcpStream::node(s, local, peer), peer)
                    })
                })
            }
        }
    }

    /// A listener of a `std` listener; refused on a node (a host's socket).
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        match dst::route("tokio::net::TcpListener::from_std") {
            Route::Real => real::net::TcpListener::from_std(listener).map(|l| TcpListener(Repr::Real(l))),
            Route::Node(..) => refuse_os("TcpListener::from_std"),
        }
    }

    /// The `std` listener; refused for a node's.
    #[track_caller]
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        match self.0 {
            Repr::Real(l) => l.into_std(),
            Repr::Node { .. } => refuse_os("TcpListener::into_std"),
        }
    }

    /// The address it listens at.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(l) => l.local_addr(),
            Repr::Node { local, .. } => Ok(*local),
        }
    }

    /// The IP time-to-live (a node's is 64).
    pub fn ttl(&self) -> io::Result<u32> {
        match &self.0 {
            Repr::Real(l) => l.ttl(),
            Repr::Node { .. } => Ok(64),
        }
    }

    /// Sets the IP time-to-live (a node's has no effect).
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        match &self.0 {
            Repr::Real(l) => l.set_ttl(ttl),
            Repr::Node { .. } => Ok(()),
        }
    }
}

impl std::fmt::Debug for TcpListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Real(l) => l.fmt(f),
            Repr::Node { socket, local } => f
                .debug_struct("TcpListener")
                .field("socket", socket)
                .field("local", local)
                .finish(),
        }
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for TcpListener {
    #[track_caller]
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        match &self.0 {
            Repr::Real(l) => l.as_raw_fd(),
            Repr::Node { .. } => refuse_os("TcpListener::as_raw_fd"),
        }
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for TcpListener {
    #[track_caller]
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.0 {
            Repr::Real(l) => l.as_fd(),
            Repr::Node { .. } => refuse_os("TcpListener::as_fd"),
        }
    }
}
