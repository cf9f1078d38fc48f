use super::addr::{each_addr, ToSocketAddrs};
use super::node::{refuse_os, NodeSocket};
use super::tcp::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::dst::{self, Route};
use crate::io::{AsyncRead, AsyncWrite, Interest, ReadBuf, Ready};
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A TCP connection: real tokio's, or one of a simulated node's.
pub struct TcpStream(pub(crate) Repr);

pub(crate) enum Repr {
    Real(real::net::TcpStream),
    Node(Arc<NodeStream>),
}

/// A node's connection; the halves of `into_split` share it.
pub(crate) struct NodeStream {
    socket: NodeSocket,
    local: SocketAddr,
    peer: SocketAddr,
    nodelay: AtomicBool,
    ttl: AtomicU32,
}

impl TcpStream {
    pub(crate) fn real(s: real::net::TcpStream) -> TcpStream {
        TcpStream(Repr::Real(s))
    }

    pub(crate) fn node(socket: NodeSocket, local: SocketAddr, peer: SocketAddr) -> TcpStream {
        TcpStream(Repr::Node(Arc::new(NodeStream {
            socket,
            local,
            peer,
            nodelay: AtomicBool::new(false),
            ttl: AtomicU32::new(64),
        })))
    }

    /// Connects to `addr`, trying each address it names in turn.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        match dst::route("tokio::net::TcpStream::connect") {
            Route::Real => {
                each_addr(addr, |a| async move {
                    real::net::TcpStream::connect(a).await.map(TcpStream::real)
                })
                .await
            }
            Route::Node(here, sim) => {
                each_addr(addr, |a| async move {
                    let socket = NodeSocket {
                        here,
                        id: sim.tcp_connect(here, a)?,
                    };
                    poll_fn(|cx| sim.tcp_connected(here, socket.id, cx)).await?;
                    let (local, peer) = sim.tcp_addrs(here, socket.id)?;
                    Ok(TcpStream::node(socket, local, peer))
                })
                .await
            }
        }
    }

    /// A stream of a `std` stream; refused on a node (a host's socket).
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        match dst::route("tokio::net::TcpStream::from_std") {
            Route::Real => real::net::TcpStream::from_std(stream).map(TcpStream::real),
            Route::Node(..) => refuse_os("TcpStream::from_std"),
        }
    }

    /// The `std` stream; refused for a node's.
    #[track_caller]
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        match self.0 {
            Repr::Real(s) => s.into_std(),
            Repr::Node(_) => refuse_os("TcpStream::into_std"),
        }
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(s) => s.local_addr(),
            Repr::Node(n) => Ok(n.local),
        }
    }

    /// The other end's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(s) => s.peer_addr(),
            Repr::Node(n) => Ok(n.peer),
        }
    }

    /// The socket's pending error; a node's reports errors on reads and writes.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        match &self.0 {
            Repr::Real(s) => s.take_error(),
            Repr::Node(_) => Ok(None),
        }
    }

    /// Whether Nagle's algorithm is off.
    pub fn nodelay(&self) -> io::Result<bool> {
        match &self.0 {
            Repr::Real(s) => s.nodelay(),
            Repr::Node(n) => Ok(n.nodelay.load(Ordering::Relaxed)),
        }
    }

    /// Turns Nagle's algorithm off or on (a node's sends each write at once either way).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.set_nodelay(nodelay),
            Repr::Node(n) => {
                n.nodelay.store(nodelay, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// The linger on close (a node's: none).
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        match &self.0 {
            #[allow(deprecated)]
            Repr::Real(s) => s.linger(),
            Repr::Node(_) => Ok(None),
        }
    }

    /// The IP time-to-live.
    pub fn ttl(&self) -> io::Result<u32> {
        match &self.0 {
            Repr::Real(s) => s.ttl(),
            Repr::Node(n) => Ok(n.ttl.load(Ordering::Relaxed)),
        }
    }

    /// Sets the IP time-to-live (a node's has no effect).
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.set_ttl(ttl),
            Repr::Node(n) => {
                n.ttl.store(ttl, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Reads without taking what is read.
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.peek(buf).await,
            Repr::Node(n) => poll_fn(|cx| n.read(buf, true, Some(cx))).await,
        }
    }

    /// Polls a read that takes nothing.
    pub fn poll_peek(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<usize>> {
        match &self.0 {
            Repr::Real(s) => s.poll_peek(cx, buf),
            Repr::Node(n) => n.read(buf.initialize_unfilled(), true, Some(cx)).map_ok(|k| {
                buf.advance(k);
                k
            }),
        }
    }

    /// Waits until the stream is ready for what `interest` asks.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        match &self.0 {
            Repr::Real(s) => s.ready(interest).await,
            Repr::Node(n) => {
                if !interest.is_readable() {
                    return Ok(Ready::WRITABLE);
                }
                poll_fn(|cx| n.read(&mut [0u8; 1], true, Some(cx))).await?;
                Ok(if interest.is_writable() {
                    Ready::READABLE | Ready::WRITABLE
                } else {
                    Ready::READABLE
                })
            }
        }
    }

    /// Waits until a read would not wait.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await.map(|_| ())
    }

    /// Polls until a read would not wait.
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Repr::Real(s) => s.poll_read_ready(cx),
            Repr::Node(n) => n.read(&mut [0u8; 1], true, Some(cx)).map_ok(|_| ()),
        }
    }

    /// Waits until a write would not wait (a node's: at once).
    pub async fn writable(&self) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.writable().await,
            Repr::Node(_) => Ok(()),
        }
    }

    /// Polls until a write would not wait (a node's: at once).
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Repr::Real(s) => s.poll_write_ready(cx),
            Repr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    /// Reads what is there now, or fails with `WouldBlock`.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.try_read(buf),
            Repr::Node(n) => match n.read(buf, false, None) {
                Poll::Ready(r) => r,
                Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
            },
        }
    }

    /// Writes now, or fails with `WouldBlock` (a node's never does).
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.try_write(buf),
            Repr::Node(n) => n.write(buf),
        }
    }

    /// Splits into halves borrowed from the stream.
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        super::tcp::split(self)
    }

    /// Splits into halves that own the stream and may move to other tasks.
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        super::tcp::into_split(self)
    }
}

impl NodeStream {
    pub(crate) fn read(&self, buf: &mut [u8], peek: bool, cx: Option<&mut Context<'_>>) -> Poll<io::Result<usize>> {
        match self.socket.sim() {
            Ok(sim) => sim.tcp_read(self.socket.here, self.socket.id, buf, peek, cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    pub(crate) fn write(&self, data: &[u8]) -> io::Result<usize> {
        self.socket.sim()?.tcp_write(self.socket.here, self.socket.id, data)
    }

    pub(crate) fn shutdown(&self) -> io::Result<()> {
        self.socket.sim()?.tcp_shutdown(self.socket.here, self.socket.id)
    }

    pub(crate) fn poll_read(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        self.read(buf.initialize_unfilled(), false, Some(cx))
            .map_ok(|k| buf.advance(k))
    }
}

impl AsyncRead for TcpStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll_read(cx, buf),
            Repr::Node(n) => n.poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll_write(cx, buf),
            Repr::Node(n) => Poll::Ready(n.write(buf)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Repr::Node(n) => {
                let all: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
                Poll::Ready(n.write(&all))
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.0 {
            Repr::Real(s) => s.is_write_vectored(),
            Repr::Node(_) => true,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll_flush(cx),
            Repr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Repr::Real(s) => Pin::new(s).poll_shutdown(cx),
            Repr::Node(n) => Poll::Ready(n.shutdown()),
        }
    }
}

impl std::fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Real(s) => s.fmt(f),
            Repr::Node(n) => f
                .debug_struct("TcpStream")
                .field("socket", &n.socket)
                .field("local", &n.local)
                .field("peer", &n.peer)
                .finish(),
        }
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for TcpStream {
    #[track_caller]
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        match &self.0 {
            Repr::Real(s) => s.as_raw_fd(),
            Repr::Node(_) => refuse_os("TcpStream::as_raw_fd (socket options through socket2)"),
        }
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for TcpStream {
    #[track_caller]
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.0 {
            Repr::Real(s) => s.as_fd(),
            Repr::Node(_) => refuse_os("TcpStream::as_fd (socket options through socket2)"),
        }
    }
}
