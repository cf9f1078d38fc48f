//! Sockets of dst's tokio on the simulated nodes: TCP listeners and
//! connections, UDP sockets, each node at its own address.
//!
//! A TCP connection's segments cross dst's network as stream messages
//! whatever the link's mode, so each connection sees its bytes in order and
//! once, and a loss or a cut breaks the link between the two nodes: both
//! ends learn it one network delay later and every connection between them
//! is reset (a connect still pending fails: refused when the peer went
//! down, timed out when a partition cut it off). A segment for a
//! connection its node no longer has (it was closed, or the node restarted)
//! is answered with a reset, as a real host answers. A UDP datagram is a
//! datagram message: lost, duplicated or overtaken as the chaos draws.
//! Connections to the node's own address or to loopback never leave it.

mod segment;
mod tcp;
mod udp;

pub(crate) use segment::Segment;
pub(crate) use tcp::{accept, addrs, connect, connected, listen, read, shutdown, write};
pub(crate) use udp::{udp_bind, udp_recv, udp_send};

use super::host::{self, Core};
use crate::event::DropCause;
use crate::machine::NodeId;
use std::collections::BTreeMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::task::Waker;
use tcp::{Conn, Listener, State};
use udp::Udp;

/// Ports handed out to sockets bound to port 0, counting up.
const EPHEMERAL_FIRST: u16 = 49152;
/// The most bytes one data segment carries.
pub(super) const SEGMENT_BYTES_MAX: usize = 64 * 1024;
/// The most bytes a connection or socket holds unread before its node's
/// run ends as a stall: a reader that never reads.
pub(super) const UNREAD_BYTES_MAX: usize = 256 * 1024 * 1024;

/// Where the other end of a connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Peer {
    Node(NodeId),
    /// The same node, through loopback or its own address.
    Here,
}

/// One node's sockets; cleared at every boot and crash.
#[derive(Default)]
pub(crate) struct NodeNet {
    listeners: BTreeMap<u64, Listener>,
    conns: BTreeMap<u64, Conn>,
    udp: BTreeMap<u64, Udp>,
    next_port: u16,
}

impl NodeNet {
    /// Futures of the node waiting on a socket.
    pub(crate) fn waits(&self) -> usize {
        self.listeners.values().filter(|l| l.waker.is_some()).count()
            + self.conns.values().filter(|c| c.waker.is_some()).count()
            + self.udp.values().filter(|u| u.waiting).count()
    }

    /// Whether `port` is bound: for TCP (`udp` false) or UDP, each its own port space.
    fn port_taken(&self, port: u16, udp: bool) -> bool {
        match udp {
            false => self.listeners.values().any(|l| l.port == port),
            true => self.udp.values().any(|u| u.port == port),
        }
    }

    fn listener_on(&self, port: u16) -> Option<u64> {
        self.listeners.iter().find(|(_, l)| l.port == port).map(|(id, _)| *id)
    }

    /// A free port of TCP's or UDP's space: the one asked for, or the
    /// next ephemeral one (which neither uses, so a connection's port never
    /// meets a listener's).
    fn port(&mut self, asked: u16, udp: bool) -> io::Result<u16> {
        if asked != 0 {
            return match self.port_taken(asked, udp) {
                true => Err(io::Error::new(io::ErrorKind::AddrInUse, "address in use")),
                false => Ok(asked),
            };
        }
        for _ in 0..=(u16::MAX - EPHEMERAL_FIRST) {
            let p = self.next_port.max(EPHEMERAL_FIRST);
            self.next_port = if p == u16::MAX { EPHEMERAL_FIRST } else { p + 1 };
            if !self.port_taken(p, false) && !self.port_taken(p, true) {
                return Ok(p);
            }
        }
        Err(io::Error::new(io::ErrorKind::AddrInUse, "no ephemeral port is free"))
    }
}

/// Node `node`'s address on the simulated network.
pub(crate) fn addr_of(node: NodeId) -> IpAddr {
    tokio::dst::node_ip(node)
}

/// Where an address leads from `node`: itself, another node, or nowhere.
pub(super) fn peer_of(c: &Core, node: NodeId, ip: IpAddr) -> Option<Peer> {
    if ip.is_loopback() || ip.is_unspecified() || ip == addr_of(node) {
        return Some(Peer::Here);
    }
    tokio::dst::node_of(ip).filter(|n| *n < c.nodes.len()).map(Peer::Node)
}

/// The address a socket of `node` bound to `addr` answers at.
pub(super) fn local_addr(node: NodeId, addr: SocketAddr, port: u16) -> io::Result<SocketAddr> {
    let ip = addr.ip();
    let ok = ip.is_unspecified() || ip.is_loopback() || ip == addr_of(node);
    if !ok {
        return Err(io::Error::new(
            io::ErrorKind::AddrNotAvailable,
            format!(
                "{ip} is not an address of node {node} (it has {} and loopback)",
                addr_of(node)
            ),
        ));
    }
    let ip = if ip.is_loopback() { ip } else { addr_of(node) };
    Ok(SocketAddr::new(ip, port))
}

pub(super) fn send(c: &mut Core, node: NodeId, inc: u64, to: NodeId, seg: Segment) {
    host::push_raw(c, node, inc, host::Raw::Segment(to, seg));
}

pub(super) fn wake(w: &mut Option<Waker>) {
    if let Some(w) = w.take() {
        w.wake();
    }
}

/// The owner dropped socket `id` (a listener, a connection or a UDP
/// socket): a connection sends its last, a listener refuses what it had
/// not accepted.
pub(crate) fn close(c: &mut Core, node: NodeId, inc: u64, id: u64) {
    if c.nets[node].conns.contains_key(&id) {
        let _ = tcp::shutdown(c, node, inc, id);
        c.nets[node].conns.remove(&id);
    } else if let Some(l) = c.nets[node].listeners.remove(&id) {
        for conn in l.backlog {
            tcp::refuse_accepted(c, node, inc, conn);
        }
    } else {
        c.nets[node].udp.remove(&id);
    }
}

/// A segment from `from` reaches `node`.
pub(crate) fn deliver(c: &mut Core, node: NodeId, inc: u64, from: NodeId, seg: Segment) {
    let peer = Peer::Node(from);
    match seg {
        Segment::Syn {
            src,
            src_port,
            dst_port,
        } => {
            let remote = SocketAddr::new(addr_of(from), src_port);
            tcp::arrive_syn(c, node, inc, peer, src, remote, dst_port)
        }
        Segment::SynAck { dst, src } => match c.nets[node].conns.get_mut(&dst) {
            Some(k) if matches!(k.state, State::Connecting) && k.peer == peer => {
                k.peer_conn = src;
                k.state = State::Open;
                wake(&mut k.waker);
            }
            _ => send(c, node, inc, from, Segment::Rst { dst: src }),
        },
        Segment::Data { dst, src, bytes } => tcp::arrive_data(c, node, inc, peer, dst, src, bytes),
        Segment::Fin { dst, src } => {
            if !tcp::arrive_fin(c, node, dst, src) {
                send(c, node, inc, from, Segment::Rst { dst: src });
            }
        }
        Segment::Rst { dst } => {
            if c.nets[node].conns.get(&dst).is_some_and(|k| k.peer == peer) {
                tcp::fail(c, node, dst, io::ErrorKind::ConnectionReset);
            }
        }
        Segment::Udp {
            src_port,
            dst_port,
            bytes,
        } => udp::arrive_udp(c, node, SocketAddr::new(addr_of(from), src_port), dst_port, bytes),
    }
}

/// The link between `node` and `peer` broke (`cause` is what broke it):
/// every connection between them fails as TCP shows it.
pub(crate) fn link_broken(c: &mut Core, node: NodeId, peer: NodeId, cause: DropCause) {
    let ids: Vec<u64> = c.nets[node]
        .conns
        .iter()
        .filter(|(_, k)| k.peer == Peer::Node(peer))
        .map(|(id, _)| *id)
        .collect();
    for id in ids {
        let connecting = matches!(c.nets[node].conns[&id].state, State::Connecting);
        let kind = match (connecting, cause) {
            (true, DropCause::Down) => io::ErrorKind::ConnectionRefused,
            (true, _) => io::ErrorKind::TimedOut,
            (false, _) => io::ErrorKind::ConnectionReset,
        };
        tcp::fail(c, node, id, kind);
    }
}
