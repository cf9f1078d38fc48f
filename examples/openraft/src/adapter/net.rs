//! openraft's network over dst's: each RPC is a call that crosses the
//! simulated network (and its faults) both ways, bounded by the deadline
//! openraft gives it.

use super::openraft;
use super::store::NodeCtx;
use super::{Msg, TypeConfig};
use openraft::error::{InstallSnapshotError, RPCError, RaftError, RemoteError, Unreachable};
use openraft::network::{Backoff, RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use openraft::BasicNode;
use sim::async_node::CallError;
use std::time::Duration;

pub struct Network {
    pub ctx: NodeCtx,
    /// The scenario's `backoff_ms`, if it sets one.
    pub backoff: Option<Duration>,
}

pub struct Peer {
    ctx: NodeCtx,
    target: u64,
    backoff: Option<Duration>,
}

/// openraft's own `RaftNetwork::backoff`, which an override cannot call.
const OPENRAFT_BACKOFF: Duration = Duration::from_millis(500);

impl RaftNetworkFactory<TypeConfig> for Network {
    type Network = Peer;

    async fn new_client(&mut self, target: u64, _node: &BasicNode) -> Peer {
        Peer {
            ctx: self.ctx,
            target,
            backoff: self.backoff,
        }
    }
}

type Failed<E> = RPCError<u64, BasicNode, RaftError<u64, E>>;

impl Peer {
    async fn call(&self, msg: Msg, option: &RPCOption) -> Result<Msg, CallError> {
        self.ctx.call(self.target as usize, msg, option.hard_ttl()).await
    }

    // openraft's `RaftNetwork` methods return this error type; it is theirs to size.
    #[allow(clippy::result_large_err)]
    fn answer<T, E: std::error::Error>(&self, got: Result<T, RaftError<u64, E>>) -> Result<T, Failed<E>> {
        got.map_err(|e| RPCError::RemoteError(RemoteError::new(self.target, e)))
    }
}

#[allow(clippy::result_large_err)]
fn unreachable<E: std::error::Error>(e: CallError) -> Failed<E> {
    RPCError::Unreachable(Unreachable::new(&e))
}

fn mismatch<E: std::error::Error>(got: &Msg) -> Failed<E> {
    let e = std::io::Error::other(format!("a peer answered with {:?}", sim::MsgInfo::kind(got)));
    RPCError::Unreachable(Unreachable::new(&e))
}

impl RaftNetwork<TypeConfig> for Peer {
    fn backoff(&self) -> Backoff {
        Backoff::new(std::iter::repeat(self.backoff.unwrap_or(OPENRAFT_BACKOFF)))
    }

    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, Failed<openraft::error::Infallible>> {
        match self.call(Msg::Append(rpc), &option).await.map_err(unreachable)? {
            Msg::AppendAnswer(got) => self.answer(got),
            other => Err(mismatch(&other)),
        }
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<InstallSnapshotResponse<u64>, Failed<InstallSnapshotError>> {
        match self.call(Msg::Snapshot(rpc), &option).await.map_err(unreachable)? {
            Msg::SnapshotAnswer(got) => self.answer(got),
            other => Err(mismatch(&other)),
        }
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<u64>,
        option: RPCOption,
    ) -> Result<VoteResponse<u64>, Failed<openraft::error::Infallible>> {
        match self.call(Msg::Vote(rpc), &option).await.map_err(unreachable)? {
            Msg::VoteAnswer(got) => self.answer(got),
            other => Err(mismatch(&other)),
        }
    }
}
