//! UDP: sockets and the datagrams that reach them.

use super::{addr_of, local_addr, peer_of, send, Peer, Segment, UNREAD_BYTES_MAX};
use crate::async_node::host::Core;
use crate::machine::NodeId;
use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll, Waker};

pub(super) struct Udp {
    pub(super) port: u16,
    pub(super) queue: VecDeque<(SocketAddr, Vec<u8>)>,
    pub(super) queued_bytes: usize,
    /// The last task that waited on it, kept so that waiting again does
    /// not clone a waker; `waiting` says whether a datagram wakes it.
    pub(super) waker: Option<Waker>,
    pub(super) waiting: bool,
}

/// Binds a UDP socket of `node` to `addr`: its id and address.
pub(crate) fn udp_bind(c: &mut Core, node: NodeId, addr: SocketAddr) -> io::Result<(u64, SocketAddr)> {
    let port = c.nets[node].port(addr.port(), true)?;
    let local = local_addr(node, addr, port)?;
    let id = c.nodes[node].fresh_id();
    c.nets[node].udp.insert(
        id,
        Udp {
            port,
            queue: VecDeque::new(),
            queued_bytes: 0,
            waker: None,
            waiting: false,
        },
    );
    Ok((id, local))
}

/// Sends one datagram from socket `id` to `to`.
pub(crate) fn udp_send(
    c: &mut Core,
    node: NodeId,
    inc: u64,
    id: u64,
    data: &[u8],
    to: SocketAddr,
) -> io::Result<usize> {
    let Some(port) = c.nets[node].udp.get(&id).map(|u| u.port) else {
        return Err(io::ErrorKind::NotConnected.into());
    };
    if data.len() > 65_507 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "message too long"));
    }
    match peer_of(c, node, to.ip()) {
        None => Err(io::Error::new(
            io::ErrorKind::HostUnreachable,
            format!("no node has address {}", to.ip()),
        )),
        Some(Peer::Here) => {
            let from = SocketAddr::new(if to.ip().is_loopback() { to.ip() } else { addr_of(node) }, port);
            arrive_udp(c, node, from, to.port(), data.to_vec());
            Ok(data.len())
        }
        Some(Peer::Node(p)) => {
            let seg = Segment::Udp {
                src_port: port,
                dst_port: to.port(),
                bytes: data.to_vec(),
            };
            send(c, node, inc, p, seg);
            Ok(data.len())
        }
    }
}

/// Takes (or, with `peek`, copies) the next datagram of socket `id`.
pub(crate) fn udp_recv(
    c: &mut Core,
    node: NodeId,
    id: u64,
    buf: &mut [u8],
    peek: bool,
    cx: Option<&Context<'_>>,
) -> Poll<io::Result<(usize, SocketAddr)>> {
    let Some(u) = c.nets[node].udp.get_mut(&id) else {
        return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
    };
    let Some((from, data)) = u.queue.front() else {
        if let Some(cx) = cx {
            crate::async_node::exec::hold(&mut u.waker, cx.waker());
            u.waiting = true;
        }
        return Poll::Pending;
    };
    let n = buf.len().min(data.len());
    buf[..n].copy_from_slice(&data[..n]);
    let from = *from;
    if !peek {
        let (_, data) = u.queue.pop_front().expect("a datagram was looked at");
        u.queued_bytes -= data.len();
    }
    Poll::Ready(Ok((n, from)))
}

pub(super) fn arrive_udp(c: &mut Core, node: NodeId, from: SocketAddr, port: u16, bytes: Vec<u8>) {
    let net = &mut c.nets[node];
    let Some(u) = net.udp.values_mut().find(|u| u.port == port) else {
        // Nobody listens: the datagram is gone, as a real host drops it.
        return;
    };
    if u.queued_bytes + bytes.len() > UNREAD_BYTES_MAX {
        return;
    }
    u.queued_bytes += bytes.len();
    u.queue.push_back((from, bytes));
    if std::mem::take(&mut u.waiting) {
        if let Some(w) = &u.waker {
            w.wake_by_ref();
        }
    }
}
