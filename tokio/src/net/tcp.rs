//! tokio's `net::tcp` module: the halves of a [`TcpStream`].

use super::stream::{NodeStream, Repr};
use super::TcpStream;
use crate::io::{AsyncRead, AsyncWrite, ReadBuf};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

pub use super::{TcpListener, TcpSocket};

/// The reading half of a borrowed [`TcpStream`].
#[derive(Debug)]
pub struct ReadHalf<'a>(HalfRepr<'a, real::net::tcp::ReadHalf<'a>>);

/// The writing half of a borrowed [`TcpStream`].
#[derive(Debug)]
pub struct WriteHalf<'a>(HalfRepr<'a, real::net::tcp::WriteHalf<'a>>);

#[derive(Debug)]
enum HalfRepr<'a, R> {
    Real(R),
    Node(&'a TcpStream),
}

pub(super) fn split(s: &mut TcpStream) -> (ReadHalf<'_>, WriteHalf<'_>) {
    if let Repr::Node(_) = &s.0 {
        let s: &TcpStream = s;
        return (ReadHalf(HalfRepr::Node(s)), WriteHalf(HalfRepr::Node(s)));
    }
    let Repr::Real(real) = &mut s.0 else { unreachable!() };
    let (r, w) = real.split();
    (ReadHalf(HalfRepr::Real(r)), WriteHalf(HalfRepr::Real(w)))
}

fn node(s: &TcpStream) -> &NodeStream {
    match &s.0 {
        Repr::Node(n) => n,
        Repr::Real(_) => unreachable!("a node's half holds a node's stream"),
    }
}

impl AsyncRead for ReadHalf<'_> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            HalfRepr::Real(r) => Pin::new(r).poll_read(cx, buf),
            HalfRepr::Node(s) => node(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for WriteHalf<'_> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            HalfRepr::Real(w) => Pin::new(w).poll_write(cx, buf),
            HalfRepr::Node(s) => Poll::Ready(node(s).write(buf)),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            HalfRepr::Real(w) => Pin::new(w).poll_flush(cx),
            HalfRepr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            HalfRepr::Real(w) => Pin::new(w).poll_shutdown(cx),
            HalfRepr::Node(s) => Poll::Ready(node(s).shutdown()),
        }
    }
}

/// The reading half of a [`TcpStream`], owned.
#[derive(Debug)]
pub struct OwnedReadHalf(OwnedRepr<real::net::tcp::OwnedReadHalf>);

/// The writing half of a [`TcpStream`], owned; dropping it shuts the
/// stream down for writing.
#[derive(Debug)]
pub struct OwnedWriteHalf {
    /// Taken only by `reunite` and `forget`, which consume the half.
    repr: Option<OwnedRepr<real::net::tcp::OwnedWriteHalf>>,
}

#[derive(Debug)]
enum OwnedRepr<R> {
    Real(R),
    Node(Arc<NodeStream>),
}

impl std::fmt::Debug for NodeStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeStream")
    }
}

pub(super) fn into_split(s: TcpStream) -> (OwnedReadHalf, OwnedWriteHalf) {
    let (r, w) = match s.0 {
        Repr::Real(real) => {
            let (r, w) = real.into_split();
            (OwnedRepr::Real(r), OwnedRepr::Real(w))
        }
        Repr::Node(n) => (OwnedRepr::Node(n.clone()), OwnedRepr::Node(n)),
    };
    (OwnedReadHalf(r), OwnedWriteHalf { repr: Some(w) })
}

/// The halves given to [`OwnedReadHalf::reunite`] were not of one stream.
#[derive(Debug)]
pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

impl std::fmt::Display for ReuniteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("tried to reunite halves that are not from the same socket")
    }
}

impl std::error::Error for ReuniteError {}

impl OwnedReadHalf {
    /// The stream again, from both of its halves.
    pub fn reunite(self, mut other: OwnedWriteHalf) -> Result<TcpStream, ReuniteError> {
        let w = other.repr.take().expect("a write half not yet consumed");
        match (self.0, w) {
            (OwnedRepr::Real(r), OwnedRepr::Real(w)) => r
                .reunite(w)
                .map(TcpStream::real)
                .map_err(|e| ReuniteError(OwnedReadHalf(OwnedRepr::Real(e.0)), write_half(OwnedRepr::Real(e.1)))),
            (OwnedRepr::Node(r), OwnedRepr::Node(w)) if Arc::ptr_eq(&r, &w) => {
                drop(w);
                Ok(TcpStream(Repr::Node(r)))
            }
            (r, w) => Err(ReuniteError(OwnedReadHalf(r), write_half(w))),
        }
    }

    /// The other end's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            OwnedRepr::Real(r) => r.peer_addr(),
            OwnedRepr::Node(n) => TcpStream(Repr::Node(n.clone())).peer_addr(),
        }
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            OwnedRepr::Real(r) => r.local_addr(),
            OwnedRepr::Node(n) => TcpStream(Repr::Node(n.clone())).local_addr(),
        }
    }
}

fn write_half(repr: OwnedRepr<real::net::tcp::OwnedWriteHalf>) -> OwnedWriteHalf {
    OwnedWriteHalf { repr: Some(repr) }
}

impl OwnedWriteHalf {
    fn repr(&mut self) -> &mut OwnedRepr<real::net::tcp::OwnedWriteHalf> {
        self.repr.as_mut().expect("a write half not yet consumed")
    }

    /// Drops the half without shutting the stream down.
    pub fn forget(mut self) {
        if let Some(OwnedRepr::Real(w)) = self.repr.take() {
            w.forget();
        }
    }

    /// The other end's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        match self.repr.as_ref().expect("a write half not yet consumed") {
            OwnedRepr::Real(w) => w.peer_addr(),
            OwnedRepr::Node(n) => TcpStream(Repr::Node(n.clone())).peer_addr(),
        }
    }

    /// This end's address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match self.repr.as_ref().expect("a write half not yet consumed") {
            OwnedRepr::Real(w) => w.local_addr(),
            OwnedRepr::Node(n) => TcpStream(Repr::Node(n.clone())).local_addr(),
        }
    }
}

impl Drop for OwnedWriteHalf {
    fn drop(&mut self) {
        if let Some(OwnedRepr::Node(n)) = &self.repr {
            let _ = n.shutdown();
        }
    }
}

impl AsyncRead for OwnedReadHalf {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            OwnedRepr::Real(r) => Pin::new(r).poll_read(cx, buf),
            OwnedRepr::Node(n) => n.poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for OwnedWriteHalf {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut().repr() {
            OwnedRepr::Real(w) => Pin::new(w).poll_write(cx, buf),
            OwnedRepr::Node(n) => Poll::Ready(n.write(buf)),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().repr() {
            OwnedRepr::Real(w) => Pin::new(w).poll_flush(cx),
            OwnedRepr::Node(_) => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().repr() {
            OwnedRepr::Real(w) => Pin::new(w).poll_shutdown(cx),
            OwnedRepr::Node(n) => Poll::Ready(n.shutdown()),
        }
    }
}
