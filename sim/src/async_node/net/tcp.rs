//! TCP: listeners, connects, connections, and the segments that reach them.

use super::{addr_of, local_addr, peer_of, send, wake, Peer, Segment, SEGMENT_BYTES_MAX, UNREAD_BYTES_MAX};
use crate::async_node::host::{self, Core, Note};
use crate::machine::NodeId;
use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, Waker};

#[derive(Debug)]
pub(super) enum State {
    Connecting,
    Open,
    /// Reset, refused or timed out: every later read and write fails so.
    Failed(io::ErrorKind),
}

pub(super) struct Conn {
    pub(super) peer: Peer,
    /// The other end's connection id, once known.
    pub(super) peer_conn: u64,
    pub(super) local: SocketAddr,
    pub(super) remote: SocketAddr,
    pub(super) state: State,
    pub(super) unread: VecDeque<u8>,
    /// The other end will write no more.
    pub(super) eof: bool,
    /// This end wrote its last (a shutdown).
    pub(super) write_closed: bool,
    pub(super) waker: Option<Waker>,
}

pub(super) struct Listener {
    pub(super) port: u16,
    /// Connections accepted by the network, not yet by the listener's owner.
    pub(super) backlog: VecDeque<u64>,
    pub(super) waker: Option<Waker>,
}

/// Binds a listener of `node` to `addr`: its id and address.
pub(crate) fn listen(c: &mut Core, node: NodeId, addr: SocketAddr) -> io::Result<(u64, SocketAddr)> {
    let port = c.nets[node].port(addr.port(), false)?;
    let local = local_addr(node, addr, port)?;
    let id = c.nodes[node].fresh_id();
    c.nets[node].listeners.insert(
        id,
        Listener {
            port,
            backlog: VecDeque::new(),
            waker: None,
        },
    );
    Ok((id, local))
}

/// The next connection a listener accepted: its id and both addresses.
pub(crate) fn accept(
    c: &mut Core,
    node: NodeId,
    id: u64,
    cx: &Context<'_>,
) -> Poll<io::Result<(u64, SocketAddr, SocketAddr)>> {
    let net = &mut c.nets[node];
    let Some(l) = net.listeners.get_mut(&id) else {
        return Poll::Ready(Err(io::Error::new(io::ErrorKind::NotConnected, "listener closed")));
    };
    match l.backlog.pop_front() {
        Some(conn) => {
            let k = &net.conns[&conn];
            Poll::Ready(Ok((conn, k.local, k.remote)))
        }
        None => {
            l.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Starts a connect of `node` to `to`; the connection's id, to poll with
/// [`connected`].
pub(crate) fn connect(c: &mut Core, node: NodeId, inc: u64, to: SocketAddr) -> io::Result<u64> {
    let Some(peer) = peer_of(c, node, to.ip()) else {
        return Err(io::Error::new(
            io::ErrorKind::HostUnreachable,
            format!("no node has address {}", to.ip()),
        ));
    };
    let port = c.nets[node].port(0, false)?;
    let ip = match peer {
        Peer::Here if to.ip().is_loopback() => to.ip(),
        _ => addr_of(node),
    };
    let local = SocketAddr::new(ip, port);
    let id = c.nodes[node].fresh_id();
    c.nets[node].conns.insert(
        id,
        Conn {
            peer,
            peer_conn: 0,
            local,
            remote: to,
            state: State::Connecting,
            unread: VecDeque::new(),
            eof: false,
            write_closed: false,
            waker: None,
        },
    );
    match peer {
        Peer::Node(p) => send(
            c,
            node,
            inc,
            p,
            Segment::Syn {
                src: id,
                src_port: port,
                dst_port: to.port(),
            },
        ),
        Peer::Here => arrive_syn(c, node, inc, Peer::Here, id, local, to.port()),
    }
    Ok(id)
}

/// Whether connection `id`'s connect has ended, and how.
pub(crate) fn connected(c: &mut Core, node: NodeId, id: u64, cx: &Context<'_>) -> Poll<io::Result<()>> {
    let Some(k) = c.nets[node].conns.get_mut(&id) else {
        return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
    };
    match k.state {
        State::Connecting => {
            k.waker = Some(cx.waker().clone());
            Poll::Pending
        }
        State::Open => Poll::Ready(Ok(())),
        State::Failed(kind) => Poll::Ready(Err(failure(kind))),
    }
}

fn failure(kind: io::ErrorKind) -> io::Error {
    let what = match kind {
        io::ErrorKind::ConnectionRefused => "connection refused",
        io::ErrorKind::TimedOut => "connection timed out",
        _ => "connection reset by peer",
    };
    io::Error::new(kind, what)
}

/// Both addresses of connection `id`.
pub(crate) fn addrs(c: &Core, node: NodeId, id: u64) -> Option<(SocketAddr, SocketAddr)> {
    c.nets[node].conns.get(&id).map(|k| (k.local, k.remote))
}

/// Reads (or, with `peek`, copies) what connection `id` holds into `buf`.
pub(crate) fn read(
    c: &mut Core,
    node: NodeId,
    id: u64,
    buf: &mut [u8],
    peek: bool,
    cx: Option<&Context<'_>>,
) -> Poll<io::Result<usize>> {
    let Some(k) = c.nets[node].conns.get_mut(&id) else {
        return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
    };
    if !k.unread.is_empty() {
        let n = buf.len().min(k.unread.len());
        for (i, b) in k.unread.iter().take(n).enumerate() {
            buf[i] = *b;
        }
        if !peek {
            k.unread.drain(..n);
        }
        return Poll::Ready(Ok(n));
    }
    if k.eof || buf.is_empty() {
        return Poll::Ready(Ok(0));
    }
    match k.state {
        State::Failed(kind) => Poll::Ready(Err(failure(kind))),
        _ => {
            if let Some(cx) = cx {
                k.waker = Some(cx.waker().clone());
            }
            Poll::Pending
        }
    }
}

/// Writes `data` on connection `id`: all of it, at once (the simulated
/// network has no send buffer to fill).
pub(crate) fn write(c: &mut Core, node: NodeId, inc: u64, id: u64, data: &[u8]) -> io::Result<usize> {
    let net = &mut c.nets[node];
    let Some(k) = net.conns.get(&id) else {
        return Err(io::ErrorKind::NotConnected.into());
    };
    match k.state {
        State::Failed(kind) => return Err(failure(kind)),
        State::Connecting => return Err(io::ErrorKind::NotConnected.into()),
        State::Open => {}
    }
    if k.write_closed {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            "the connection was shut down for writing",
        ));
    }
    let (peer, peer_conn) = (k.peer, k.peer_conn);
    for chunk in data.chunks(SEGMENT_BYTES_MAX) {
        match peer {
            Peer::Node(p) => send(
                c,
                node,
                inc,
                p,
                Segment::Data {
                    dst: peer_conn,
                    src: id,
                    bytes: chunk.to_vec(),
                },
            ),
            Peer::Here => arrive_data(c, node, inc, Peer::Here, peer_conn, id, chunk.to_vec()),
        }
    }
    Ok(data.len())
}

/// Connection `id` will write no more: the other end reads to its end.
pub(crate) fn shutdown(c: &mut Core, node: NodeId, inc: u64, id: u64) -> io::Result<()> {
    let Some(k) = c.nets[node].conns.get_mut(&id) else {
        return Err(io::ErrorKind::NotConnected.into());
    };
    if k.write_closed || !matches!(k.state, State::Open) {
        return Ok(());
    }
    k.write_closed = true;
    let (peer, peer_conn) = (k.peer, k.peer_conn);
    match peer {
        Peer::Node(p) => send(
            c,
            node,
            inc,
            p,
            Segment::Fin {
                dst: peer_conn,
                src: id,
            },
        ),
        Peer::Here => {
            arrive_fin(c, node, peer_conn, id);
        }
    }
    Ok(())
}

pub(super) fn refuse_accepted(c: &mut Core, node: NodeId, inc: u64, conn: u64) {
    let Some(k) = c.nets[node].conns.remove(&conn) else {
        return;
    };
    match k.peer {
        Peer::Node(p) => send(c, node, inc, p, Segment::Rst { dst: k.peer_conn }),
        Peer::Here => fail(c, node, k.peer_conn, io::ErrorKind::ConnectionReset),
    }
}

pub(super) fn fail(c: &mut Core, node: NodeId, id: u64, kind: io::ErrorKind) {
    if let Some(k) = c.nets[node].conns.get_mut(&id) {
        let kind = match (&k.state, kind) {
            (State::Connecting, io::ErrorKind::ConnectionReset) => io::ErrorKind::ConnectionRefused,
            _ => kind,
        };
        k.state = State::Failed(kind);
        wake(&mut k.waker);
    }
}

pub(super) fn arrive_syn(c: &mut Core, node: NodeId, inc: u64, peer: Peer, src: u64, remote: SocketAddr, port: u16) {
    let Some(listener) = c.nets[node].listener_on(port) else {
        return match peer {
            Peer::Node(p) => send(c, node, inc, p, Segment::Rst { dst: src }),
            Peer::Here => fail(c, node, src, io::ErrorKind::ConnectionRefused),
        };
    };
    let ip = if remote.ip().is_loopback() {
        remote.ip()
    } else {
        addr_of(node)
    };
    let id = c.nodes[node].fresh_id();
    let net = &mut c.nets[node];
    net.conns.insert(
        id,
        Conn {
            peer,
            peer_conn: src,
            local: SocketAddr::new(ip, port),
            remote,
            state: State::Open,
            unread: VecDeque::new(),
            eof: false,
            write_closed: false,
            waker: None,
        },
    );
    let l = net.listeners.get_mut(&listener).expect("found above");
    l.backlog.push_back(id);
    wake(&mut l.waker);
    match peer {
        Peer::Node(p) => send(c, node, inc, p, Segment::SynAck { dst: src, src: id }),
        Peer::Here => {
            if let Some(k) = c.nets[node].conns.get_mut(&src) {
                k.peer_conn = id;
                k.state = State::Open;
                wake(&mut k.waker);
            }
        }
    }
}

pub(super) fn arrive_data(c: &mut Core, node: NodeId, inc: u64, peer: Peer, dst: u64, src: u64, bytes: Vec<u8>) {
    let flooded = match c.nets[node].conns.get_mut(&dst) {
        Some(k) if k.peer == peer && k.peer_conn == src && matches!(k.state, State::Open) => {
            k.unread.extend(bytes);
            wake(&mut k.waker);
            k.unread.len() > UNREAD_BYTES_MAX
        }
        _ => {
            match peer {
                Peer::Node(p) => send(c, node, inc, p, Segment::Rst { dst: src }),
                Peer::Here => fail(c, node, src, io::ErrorKind::ConnectionReset),
            }
            false
        }
    };
    if flooded {
        let why = format!("a connection of node {node} holds more than {UNREAD_BYTES_MAX} unread bytes");
        host::note(c, node, inc, Note::Stall(why));
    }
}

/// Whether connection `dst` (from `src`) was there to take the end.
pub(super) fn arrive_fin(c: &mut Core, node: NodeId, dst: u64, src: u64) -> bool {
    match c.nets[node].conns.get_mut(&dst) {
        Some(k) if k.peer_conn == src => {
            k.eof = true;
            wake(&mut k.waker);
            true
        }
        _ => false,
    }
}
