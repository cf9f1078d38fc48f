//! The gRPC service `register.Peer` with its two calls, written by hand
//! as tonic's code generator would write them: a tower service for the
//! server, a client over any channel.

use crate::proto::{ReplicateReply, ReplicateRequest, VoteReply, VoteRequest};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::codegen::{http, Body, BoxFuture, Bytes, GrpcMethod, Service, StdError};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

const SERVICE: &str = "register.Peer";
const VOTE: &str = "/register.Peer/Vote";
const REPLICATE: &str = "/register.Peer/Replicate";

/// What a node answers its peers.
pub trait Peer: Send + Sync + 'static {
    fn vote(self: Arc<Self>, req: VoteRequest) -> Reply<VoteReply>;
    fn replicate(self: Arc<Self>, req: ReplicateRequest) -> Reply<ReplicateReply>;
}

/// An answer on its way.
pub type Reply<A> = Pin<Box<dyn Future<Output = A> + Send + 'static>>;

/// The server side: routes each call to the node.
pub struct PeerServer<P>(pub Arc<P>);

impl<P> Clone for PeerServer<P> {
    fn clone(&self) -> Self {
        PeerServer(self.0.clone())
    }
}

impl<P> NamedService for PeerServer<P> {
    const NAME: &'static str = SERVICE;
}

/// One call of the service, routed to the node's method for it.
struct Call<P, Q, A>(Arc<P>, fn(Arc<P>, Q) -> Reply<A>);

impl<P: Peer, Q: Send + 'static, A: Send + 'static> UnaryService<Q> for Call<P, Q, A> {
    type Response = A;
    type Future = BoxFuture<Response<A>, Status>;

    fn call(&mut self, req: Request<Q>) -> Self::Future {
        let fut = (self.1)(self.0.clone(), req.into_inner());
        Box::pin(async move { Ok(Response::new(fut.await)) })
    }
}

impl<P: Peer, B> Service<http::Request<B>> for PeerServer<P>
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let node = self.0.clone();
        match req.uri().path() {
            VOTE => Box::pin(async move {
                let mut grpc = Grpc::new(ProstCodec::<VoteReply, VoteRequest>::default());
                Ok(grpc.unary(Call(node, P::vote), req).await)
            }),
            REPLICATE => Box::pin(async move {
                let mut grpc = Grpc::new(ProstCodec::<ReplicateReply, ReplicateRequest>::default());
                Ok(grpc.unary(Call(node, P::replicate), req).await)
            }),
            _ => Box::pin(async { Ok(Status::unimplemented("no such method").into_http()) }),
        }
    }
}

/// The client side, over a tonic channel to one peer.
#[derive(Clone)]
pub struct PeerClient<T> {
    inner: tonic::client::Grpc<T>,
}

impl<T> PeerClient<T>
where
    T: tonic::client::GrpcService<tonic::body::Body>,
    T::Error: Into<StdError>,
    T::ResponseBody: Body<Data = Bytes> + Send + 'static,
    <T::ResponseBody as Body>::Error: Into<StdError> + Send,
{
    pub fn new(inner: T) -> Self {
        PeerClient {
            inner: tonic::client::Grpc::new(inner),
        }
    }

    async fn unary<Q, A>(&mut self, q: Q, method: &'static str, path: &'static str) -> Result<A, Status>
    where
        Q: prost::Message + Send + Sync + 'static,
        A: prost::Message + Default + Send + Sync + 'static,
    {
        self.inner
            .ready()
            .await
            .map_err(|e| Status::unavailable(format!("the channel is not ready: {}", e.into())))?;
        let mut req = Request::new(q);
        req.extensions_mut().insert(GrpcMethod::new(SERVICE, method));
        let path = http::uri::PathAndQuery::from_static(path);
        let reply = self.inner.unary(req, path, ProstCodec::<Q, A>::default()).await?;
        Ok(reply.into_inner())
    }

    pub async fn vote(&mut self, q: VoteRequest) -> Result<VoteReply, Status> {
        self.unary(q, "Vote", VOTE).await
    }

    pub async fn replicate(&mut self, q: ReplicateRequest) -> Result<ReplicateReply, Status> {
        self.unary(q, "Replicate", REPLICATE).await
    }
}
