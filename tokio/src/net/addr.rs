//! Addresses: tokio's [`ToSocketAddrs`] for the same types, and
//! [`lookup_host`]. On a simulated node a name must be a numeric address
//! or `localhost`; elsewhere names go to the system's resolver.

use crate::dst;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

/// What can be resolved to socket addresses, as tokio has it.
pub trait ToSocketAddrs: sealed::ToSocketAddrsPriv {}

// Sealed, as tokio's own: only this crate implements it, so its methods
// and types need no name outside.
#[allow(unnameable_types)]
pub(crate) mod sealed {
    /// What an address asks of a resolver.
    pub trait ToSocketAddrsPriv {
        /// The addresses, or the `host:port` text a resolver must look up.
        fn to_socket_addrs(&self) -> Resolve;
    }

    /// See [`ToSocketAddrsPriv::to_socket_addrs`].
    #[derive(Debug)]
    pub enum Resolve {
        /// Already one address (most calls: kept off the heap).
        One(std::net::SocketAddr),
        /// Already addresses.
        Addrs(Vec<std::net::SocketAddr>),
        /// A `host:port` for a resolver.
        Host(String),
    }
}

use sealed::{Resolve, ToSocketAddrsPriv};

macro_rules! addrs {
    ($($t:ty => |$v:ident| $e:expr;)*) => {
        $(
            impl ToSocketAddrs for $t {}
            impl ToSocketAddrsPriv for $t {
                fn to_socket_addrs(&self) -> Resolve {
                    let $v = self;
                    $e
                }
            }
        )*
    };
}

addrs! {
    SocketAddr => |a| Resolve::One(*a);
    SocketAddrV4 => |a| Resolve::One(SocketAddr::V4(*a));
    SocketAddrV6 => |a| Resolve::One(SocketAddr::V6(*a));
    (IpAddr, u16) => |a| Resolve::One(SocketAddr::new(a.0, a.1));
    (Ipv4Addr, u16) => |a| Resolve::One(SocketAddr::new(IpAddr::V4(a.0), a.1));
    (Ipv6Addr, u16) => |a| Resolve::One(SocketAddr::new(IpAddr::V6(a.0), a.1));
    [SocketAddr] => |a| Resolve::Addrs(a.to_vec());
    str => |a| host(a.to_string());
    String => |a| host(a.clone());
    (&str, u16) => |a| host_port(a.0, a.1);
    (String, u16) => |a| host_port(&a.0, a.1);
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}
impl<T: ToSocketAddrsPriv + ?Sized> ToSocketAddrsPriv for &T {
    fn to_socket_addrs(&self) -> Resolve {
        (**self).to_socket_addrs()
    }
}

fn host(text: String) -> Resolve {
    match text.parse::<SocketAddr>() {
        Ok(a) => Resolve::One(a),
        Err(_) => Resolve::Host(text),
    }
}

fn host_port(name: &str, port: u16) -> Resolve {
    match name.parse::<IpAddr>() {
        Ok(ip) => Resolve::One(SocketAddr::new(ip, port)),
        Err(_) => Resolve::Host(format!("{name}:{port}")),
    }
}

/// The addresses `addr` names: on a simulated node without a resolver.
/// One address is kept off the heap (an empty `Vec` allocates nothing),
/// which a datagram sent to a `SocketAddr` would otherwise pay every time.
pub(crate) async fn resolve<A: ToSocketAddrs + ?Sized>(addr: &A) -> io::Result<impl Iterator<Item = SocketAddr>> {
    let (one, many) = match addr.to_socket_addrs() {
        Resolve::One(a) => (Some(a), Vec::new()),
        Resolve::Addrs(a) => (None, a),
        Resolve::Host(text) if dst::current().is_some() => (None, resolve_here(&text)?),
        Resolve::Host(text) => (None, real::net::lookup_host(text).await?.collect()),
    };
    Ok(one.into_iter().chain(many))
}

/// `localhost:port` on a node; any other name is refused, with where a
/// node's address comes from.
fn resolve_here(text: &str) -> io::Result<Vec<SocketAddr>> {
    let (name, port) = text
        .rsplit_once(':')
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("invalid socket address {text:?}")))?;
    let port: u16 = port
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, format!("invalid port in {text:?}")))?;
    if name.eq_ignore_ascii_case("localhost") {
        return Ok(vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)]);
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!("dst resolves only numeric addresses and localhost, not {name:?}: node n is at 10.0.0.(n+1) (tokio::dst::node_ip)"),
    ))
}

/// The addresses `host` resolves to.
pub async fn lookup_host<T: ToSocketAddrs>(host: T) -> io::Result<impl Iterator<Item = SocketAddr>> {
    resolve(&host).await
}

/// Tries `each` on every address `addr` names, in order: the first that
/// succeeds, else the last error.
pub(crate) async fn each_addr<A, T, F, Fut>(addr: A, mut each: F) -> io::Result<T>
where
    A: ToSocketAddrs,
    F: FnMut(SocketAddr) -> Fut,
    Fut: std::future::Future<Output = io::Result<T>>,
{
    let mut last = None;
    for a in resolve(&addr).await? {
        match each(a).await {
            Ok(t) => return Ok(t),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "could not resolve to any address")))
}
