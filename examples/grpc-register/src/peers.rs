//! A node's channels to its peers: tonic channels over `tokio::net`
//! connections, opened on first use and opened again after a break.

use crate::rpc::PeerClient;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use tokio::net::TcpStream;
use tonic::transport::{Channel, Endpoint, Uri};
use tower::service_fn;

/// The port every node serves on.
pub const PORT: u16 = 50051;

/// Where node `n` listens.
pub fn addr(n: usize) -> SocketAddr {
    SocketAddr::new(sim::async_node::ip(n), PORT)
}

/// A client of node `n`; it connects when first called.
pub fn client(n: usize) -> PeerClient<Channel> {
    let to = addr(n);
    let endpoint = Endpoint::from_shared(format!("http://{to}")).expect("an address is a valid URI");
    let channel = endpoint.connect_with_connector_lazy(service_fn(move |_: Uri| async move {
        TcpStream::connect(to).await.map(TokioIo::new)
    }));
    PeerClient::new(channel)
}
