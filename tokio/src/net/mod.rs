//! The network. On a simulated node, sockets are the node's own on dst's
//! network: each node has an address (10.0.0.1 for node 0, 10.0.0.2 for
//! node 1, ...; see [`crate::dst::node_ip`]) and loopback. A TCP
//! connection's bytes arrive in order and once, and the faults of the run
//! show as a real network shows them: a connect to a port nobody listens
//! on, or to a node that is down, is refused; one cut off by a partition
//! times out; a connection whose peer crashed or that a partition or a lost
//! segment broke is reset. UDP datagrams are lost, duplicated and overtaken
//! as the run's message chaos draws. Names resolve only when they are
//! numeric addresses or `localhost`. Elsewhere, real tokio's.
//!
//! Unix sockets are real tokio's everywhere: they are the host's.

mod addr;
mod listener;
mod node;
mod socket;
mod stream;
pub mod tcp;
mod udp;

pub use addr::{lookup_host, ToSocketAddrs};
pub use listener::TcpListener;
pub use socket::TcpSocket;
pub use stream::TcpStream;
pub use udp::UdpSocket;

#[cfg(unix)]
pub use real::net::{unix, UnixDatagram, UnixListener, UnixSocket, UnixStream};
