use super::node::refuse_os;
use super::{TcpListener, TcpStream};
use crate::dst::{self, Route};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Mutex;
use std::time::Duration;

/// A TCP socket not yet connected or listening: real tokio's, or one of a
/// simulated node's, whose options are kept and otherwise have no effect.
#[derive(Debug)]
pub struct TcpSocket(Repr);

#[derive(Debug)]
enum Repr {
    Real(real::net::TcpSocket),
    Node(Mutex<Options>),
}

#[derive(Debug)]
struct Options {
    bound: SocketAddr,
    keepalive: bool,
    reuseaddr: bool,
    reuseport: bool,
    send_buffer: u32,
    recv_buffer: u32,
    nodelay: bool,
    linger: Option<Duration>,
}

macro_rules! option {
    ($get:ident, $set:ident, $field:ident: $t:ty) => {
        #[doc = concat!("The `", stringify!($field), "` option.")]
        pub fn $get(&self) -> io::Result<$t> {
            match &self.0 {
                Repr::Real(s) => s.$get(),
                Repr::Node(o) => Ok(o.lock().unwrap_or_else(|p| p.into_inner()).$field),
            }
        }

        #[doc = concat!("Sets the `", stringify!($field), "` option.")]
        pub fn $set(&self, value: $t) -> io::Result<()> {
            match &self.0 {
                Repr::Real(s) => s.$set(value),
                Repr::Node(o) => {
                    o.lock().unwrap_or_else(|p| p.into_inner()).$field = value;
                    Ok(())
                }
            }
        }
    };
}

impl TcpSocket {
    fn new(unspecified: IpAddr, real: fn() -> io::Result<real::net::TcpSocket>) -> io::Result<TcpSocket> {
        match dst::route("tokio::net::TcpSocket::new") {
            Route::Real => real().map(|s| TcpSocket(Repr::Real(s))),
            Route::Node(..) => Ok(TcpSocket(Repr::Node(Mutex::new(Options {
                bound: SocketAddr::new(unspecified, 0),
                keepalive: false,
                reuseaddr: false,
                reuseport: false,
                send_buffer: 212_992,
                recv_buffer: 131_072,
                nodelay: false,
                linger: None,
            })))),
        }
    }

    /// An IPv4 socket.
    #[track_caller]
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), real::net::TcpSocket::new_v4)
    }

    /// An IPv6 socket.
    #[track_caller]
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), real::net::TcpSocket::new_v6)
    }

    option!(keepalive, set_keepalive, keepalive: bool);
    option!(reuseaddr, set_reuseaddr, reuseaddr: bool);
    option!(reuseport, set_reuseport, reuseport: bool);
    option!(send_buffer_size, set_send_buffer_size, send_buffer: u32);
    option!(recv_buffer_size, set_recv_buffer_size, recv_buffer: u32);
    option!(nodelay, set_nodelay, nodelay: bool);

    /// The linger on close.
    pub fn linger(&self) -> io::Result<Option<Duration>> {
        match &self.0 {
            Repr::Real(s) => s.linger(),
            Repr::Node(o) => Ok(o.lock().unwrap_or_else(|p| p.into_inner()).linger),
        }
    }

    /// Sets the linger on close.
    #[allow(deprecated)]
    pub fn set_linger(&self, dur: Option<Duration>) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.set_linger(dur),
            Repr::Node(o) => {
                o.lock().unwrap_or_else(|p| p.into_inner()).linger = dur;
                Ok(())
            }
        }
    }

    /// The address it is bound to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        match &self.0 {
            Repr::Real(s) => s.local_addr(),
            Repr::Node(o) => Ok(o.lock().unwrap_or_else(|p| p.into_inner()).bound),
        }
    }

    /// The socket's pending error; a node's reports errors on use.
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        match &self.0 {
            Repr::Real(s) => s.take_error(),
            Repr::Node(_) => Ok(None),
        }
    }

    /// Binds to `addr` (a node's binds when it listens).
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        match &self.0 {
            Repr::Real(s) => s.bind(addr),
            Repr::Node(o) => {
                o.lock().unwrap_or_else(|p| p.into_inner()).bound = addr;
                Ok(())
            }
        }
    }

    /// Connects to `addr` (a node's from an ephemeral port).
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        match self.0 {
            Repr::Real(s) => s.connect(addr).await.map(TcpStream::real),
            Repr::Node(o) => {
                let nodelay = o.lock().unwrap_or_else(|p| p.into_inner()).nodelay;
                let s = TcpStream::connect(addr).await?;
                s.set_nodelay(nodelay)?;
                Ok(s)
            }
        }
    }

    /// Listens at the bound address.
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        match self.0 {
            Repr::Real(s) => s.listen(backlog).map(TcpListener::real),
            Repr::Node(o) => {
                let bound = o.lock().unwrap_or_else(|p| p.into_inner()).bound;
                match dst::route("tokio::net::TcpSocket::listen") {
                    Route::Node(here, sim) => {
                        let (id, local) = sim.tcp_listen(here, bound)?;
                        Ok(TcpListener::node(super::node::NodeSocket { here, id }, local))
                    }
                    Route::Real => Err(io::Error::new(
                        io::ErrorKind::NotConnected,
                        "a node's socket, off its node",
                    )),
                }
            }
        }
    }

    /// A socket of a `std` stream; refused on a node (a host's socket).
    #[track_caller]
    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        match dst::route("tokio::net::TcpSocket::from_std_stream") {
            Route::Real => TcpSocket(Repr::Real(real::net::TcpSocket::from_std_stream(stream))),
            Route::Node(..) => refuse_os("TcpSocket::from_std_stream"),
        }
    }
}
