use super::addr::{each_addr, resolve, ToSocketAddrs};
use super::node::{refuse_os, NodeSocket};
use crate::dst::{self, Route};
use crate::io::{Interest, ReadBuf, Ready};
use std::future::poll_fn;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;
use std::task::{Context, Poll};

/// A UDP socket: real tokio's, or one of a simulated node's, whose
/// datagrams meet the run's message chaos.
pub struct UdpSocket(Repr);

enum Repr {
    Real(real::net::UdpSocket),
    Node(NodeUdp),
}

struct NodeUdp {
    socket: NodeSocket,
    local: SocketAddr,
    /// Set by `connect`: where `send` goes, and the only sender `recv` takes.
    peer: Mutex<Option<SocketAddr>>,
    /// Whether `peer` was ever set: most sockets never connect, and the
    /// lock on every datagram showed in profiles.
    connected: AtomicBool,
    broadcast: AtomicBool,
    ttl: AtomicU32,
}

impl NodeUdp {
    fn peer(&self) -> Option<SocketAddr> {
        if !self.connected.load(Ordering::Acquire) {
            return None;
        }
        *self.peer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next datagram from the connected peer (any sender if none).
    fn recv(
        &self,
        buf: &mut [u8],
        peek: bool,
        mut cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<(usize, SocketAddr)>> {
        let sim = match self.socket.sim() {
            Ok(s) => s,
            Err(e) => return Poll::Ready(Err(e)),
        };
        loop {
            let got = sim.udp_recv(self.socket.here, self.socket.id, buf, peek, cx.as_deref_mut());
            match (got, self.peer()) {
                (Poll::Ready(Ok((_, from))), Some(peer)) if from != peer => {
                    // Not from the connected peer: the kernel would drop it.
                    let mut skip = [0u8; 0];
                    let _ = sim.udp_recv(self.socket.here, self.socket.id, &mut skip, false, None);
                }
                (got, _) => return got,
            }
        }
    }

    fn send_to(&self, buf: &[u8], to: SocketAddr) -> io::Result<usize> {
        self.socket.sim()?.udp_send(self.socket.here, self.socket.id, buf, to)
    }

    fn send(&self, buf: &[u8]) -> io::Result<usize> {
        match self.peer() {
            Some(p) => self.send_to(buf, p),
            None => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the socket is not connected",
            )),
        }
    }
}

impl UdpSocket {
    /// Binds to `addr` (port 0: an ephemeral port).
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        match dst::route("tokio::net::UdpSocket::bind") {
            Route::Real => each_addr(
                addr,
                |a| async move { real::net::UdpSocket::bind(a).await.map(Repr::Real) },
            )
            .await
            .map(UdpSocket),
            Route::Node(here, sim) => {
                let (id, local) = each_addr(addr, |a| async move { sim.udp_bind(here, a) }).await?;
                Ok(UdpSocket(Repr::Node(NodeUdp {
                    socket: NodeSocket { here, id },
                    local,
                    peer: Mutex::new(None),
                    connected: AtomicBool::new(false),
                    broadcast: AtomicBool::new(false),
                    ttl: AtomicU32::new(64),
                })))
            }
        }
    }

    /// A socket of a `std` socket; refused on a node (a host's socket).
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        match dst::route("tokio::net::UdpSocket::from_std") {
            Route::Real => real::net::UdpSocket::from_std(socket).map(|s| UdpSocket(Repr::Real(s))),
            Route::Node(..) => refuse_os("UdpSocket::from_std"),
        }
    }

    /// The `std` socket; refused for a node's.
    #[track_caller]
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        match self.0 {
            Repr::Real(s) => s.into_std(),
            Repr::Node(_) => refuse_os("UdpSocket::into_std"),
        }
    }

    /// The address it is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(s) => s.local_addr(),
            Repr::Node(n) => Ok(n.local),
        }
    }

    /// The address it is connected to.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(s) => s.peer_addr(),
            Repr::Node(n) => n.peer().ok_or_else(|| io::ErrorKind::NotConnected.into()),
        }
    }

    /// Sends to and receives from `addr` only.
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => each_addr(addr, |a| async move { s.connect(a).await }).await,
            Repr::Node(n) => {
                let to = resolve(&addr).await?.next();
                let to = to.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to connect to"))?;
                *n.peer.lock().unwrap_or_else(|p| p.into_inner()) = Some(to);
                n.connected.store(true, Ordering::Release);
                Ok(())
            }
        }
    }

    /// Waits until the socket is ready for what `interest` asks.
    pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
        match &self.0 {
            Repr::Real(s) => s.ready(interest).await,
            Repr::Node(n) => {
                if !interest.is_readable() {
                    return Ok(Ready::WRITABLE);
                }
                poll_fn(|cx| n.recv(&mut [0u8; 0], true, Some(cx))).await?;
                Ok(Ready::READABLE)
            }
        }
    }

    /// Waits until a send would not wait (a node's: at once).
    pub async fn writable(&self) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.writable().await,
            Repr::Node(_) => Ok(()),
        }
    }

    /// Waits until a datagram is there.
    pub async fn readable(&self) -> io::Result<()> {
        self.ready(Interest::READABLE).await.map(|_| ())
    }

    /// Polls until a send would not wait.
    pub fn poll_send_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Repr::Real(s) => s.poll_send_ready(cx),
            Repr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    /// Polls until a datagram is there.
    pub fn poll_recv_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Repr::Real(s) => s.poll_recv_ready(cx),
            Repr::Node(n) => n.recv(&mut [0u8; 0], true, Some(cx)).map_ok(|_| ()),
        }
    }

    /// Sends to the connected address.
    pub async fn send(&self, buf: &[u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.send(buf).await,
            Repr::Node(n) => n.send(buf),
        }
    }

    /// Polls a send to the connected address.
    pub fn poll_send(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match &self.0 {
            Repr::Real(s) => s.poll_send(cx, buf),
            Repr::Node(n) => Poll::Ready(n.send(buf)),
        }
    }

    /// Sends to the connected address now, or fails with `WouldBlock`.
    pub fn try_send(&self, buf: &[u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.try_send(buf),
            Repr::Node(n) => n.send(buf),
        }
    }

    /// Receives a datagram from the connected address.
    pub async fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.recv(buf).await,
            Repr::Node(n) => poll_fn(|cx| n.recv(buf, false, Some(cx))).await.map(|(k, _)| k),
        }
    }

    /// Polls a receive from the connected address.
    pub fn poll_recv(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Repr::Real(s) => s.poll_recv(cx, buf),
            Repr::Node(n) => n
                .recv(buf.initialize_unfilled(), false, Some(cx))
                .map_ok(|(k, _)| buf.advance(k)),
        }
    }

    /// Receives now, or fails with `WouldBlock`.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_recv_from(buf).map(|(k, _)| k)
    }

    /// Sends to `target`.
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => each_addr(target, |a| async move { s.send_to(buf, a).await }).await,
            Repr::Node(n) => each_addr(target, |a| async move { n.send_to(buf, a) }).await,
        }
    }

    /// Polls a send to `target`.
    pub fn poll_send_to(&self, cx: &mut Context<'_>, buf: &[u8], target: SocketAddr) -> Poll<io::Result<usize>> {
        match &self.0 {
            Repr::Real(s) => s.poll_send_to(cx, buf, target),
            Repr::Node(n) => Poll::Ready(n.send_to(buf, target)),
        }
    }

    /// Sends to `target` now, or fails with `WouldBlock`.
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        match &self.0 {
            Repr::Real(s) => s.try_send_to(buf, target),
            Repr::Node(n) => n.send_to(buf, target),
        }
    }

    /// Receives a datagram and its sender.
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match &self.0 {
            Repr::Real(s) => s.recv_from(buf).await,
            Repr::Node(n) => poll_fn(|cx| n.recv(buf, false, Some(cx))).await,
        }
    }

    /// Polls a receive with its sender.
    pub fn poll_recv_from(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<SocketAddr>> {
        match &self.0 {
            Repr::Real(s) => s.poll_recv_from(cx, buf),
            Repr::Node(n) => n.recv(buf.initialize_unfilled(), false, Some(cx)).map_ok(|(k, from)| {
                buf.advance(k);
                from
            }),
        }
    }

    /// Receives now with its sender, or fails with `WouldBlock`.
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match &self.0 {
            Repr::Real(s) => s.try_recv_from(buf),
            Repr::Node(n) => match n.recv(buf, false, None) {
                Poll::Ready(r) => r,
                Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
            },
        }
    }

    /// Receives without taking the datagram.
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        match &self.0 {
            Repr::Real(s) => s.peek_from(buf).await,
            Repr::Node(n) => poll_fn(|cx| n.recv(buf, true, Some(cx))).await,
        }
    }

    /// Polls a receive that takes nothing.
    pub fn poll_peek_from(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<SocketAddr>> {
        match &self.0 {
            Repr::Real(s) => s.poll_peek_from(cx, buf),
            Repr::Node(n) => n.recv(buf.initialize_unfilled(), true, Some(cx)).map_ok(|(k, from)| {
                buf.advance(k);
                from
            }),
        }
    }

    /// Whether broadcast is on.
    pub fn broadcast(&self) -> io::Result<bool> {
        match &self.0 {
            Repr::Real(s) => s.broadcast(),
            Repr::Node(n) => Ok(n.broadcast.load(Ordering::Relaxed)),
        }
    }

    /// Turns broadcast on or off (a node's sends to one address either way).
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.set_broadcast(on),
            Repr::Node(n) => {
                n.broadcast.store(on, Ordering::Relaxed);
                Ok(())
            }
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
}

impl std::fmt::Debug for UdpSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Real(s) => s.fmt(f),
            Repr::Node(n) => f
                .debug_struct("UdpSocket")
                .field("socket", &n.socket)
                .field("local", &n.local)
                .finish(),
        }
    }
}
