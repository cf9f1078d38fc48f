//! async-raft's network over dst's: each RPC is a call that crosses the
//! simulated network (and its faults) both ways. A call that gets no
//! answer never ends on its own: async-raft bounds every RPC by its
//! heartbeat interval, and an RPC that failed at once would make its
//! replication stream retry in a loop that never yields.

use crate::msg::Msg;
use crate::store::NodeCtx;
use crate::Request;
use anyhow::{anyhow, Result};
use async_raft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use async_raft::{NodeId, RaftNetwork};
use std::time::Duration;

pub struct Network {
    pub ctx: NodeCtx,
}

/// Far beyond any RPC deadline async-raft sets: the crate's own timeout
/// ends a call first.
const CALL_MAX: Duration = Duration::from_secs(3600);

impl Network {
    async fn call(&self, target: NodeId, msg: Msg) -> Msg {
        match self.ctx.call(target as usize, msg, CALL_MAX).await {
            Ok(m) => m,
            Err(_) => std::future::pending().await,
        }
    }
}

fn mismatch(got: &Msg) -> anyhow::Error {
    anyhow!("a peer answered with {}", sim::MsgInfo::kind(got))
}

#[async_trait::async_trait]
impl RaftNetwork<Request> for Network {
    async fn append_entries(
        &self,
        target: NodeId,
        rpc: AppendEntriesRequest<Request>,
    ) -> Result<AppendEntriesResponse> {
        match self.call(target, Msg::Append(rpc)).await {
            Msg::AppendAnswer(got) => got.map_err(|e| anyhow!(e)),
            other => Err(mismatch(&other)),
        }
    }

    async fn install_snapshot(&self, target: NodeId, rpc: InstallSnapshotRequest) -> Result<InstallSnapshotResponse> {
        match self.call(target, Msg::Snapshot(rpc)).await {
            Msg::SnapshotAnswer(got) => got.map_err(|e| anyhow!(e)),
            other => Err(mismatch(&other)),
        }
    }

    async fn vote(&self, target: NodeId, rpc: VoteRequest) -> Result<VoteResponse> {
        match self.call(target, Msg::Vote(rpc)).await {
            Msg::VoteAnswer(got) => got.map_err(|e| anyhow!(e)),
            other => Err(mismatch(&other)),
        }
    }
}
