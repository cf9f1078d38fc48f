//! One node: async-raft behind a key-value store. It rebuilds from its
//! disk, starts async-raft (whose core and every task it spawns run on
//! this node through dst's tokio), offers the cluster's membership at
//! every boot as async-raft's documentation advises, serves its peers'
//! RPCs and the clients' requests, and reports its role and term as
//! async-raft's metrics show them.

use crate::msg::{Msg, Recovered};
use crate::net::Network;
use crate::store::{NodeCtx, Store};
use crate::{Request, Response};
use async_raft::error::{ClientReadError, ClientWriteError, InitializeError};
use async_raft::raft::ClientWriteRequest;
use async_raft::{Config, Raft, State};
use sim::{ClientReply, ClientReq, KvOp, KvResult, Role, RoleWatch};
use std::collections::HashSet;
use std::sync::Arc;

type AsyncRaft = Raft<Request, Response, Network, Store>;

/// The main task of one node incarnation.
pub async fn node(ctx: NodeCtx, config: Arc<Config>) {
    let disk = match ctx.read_disk() {
        Ok(d) => d,
        Err(e) => return ctx.halt(&format!("its disk cannot be read: {e}")),
    };
    let recovered = Recovered::replay(&disk);
    if !recovered.log.is_empty() {
        ctx.reached("restart-with-log");
    }
    let store = Arc::new(Store::new(ctx, recovered));
    let raft = AsyncRaft::new(ctx.id() as u64, config, Arc::new(Network { ctx }), store.clone());
    // At every boot, as the crate's documentation says an application
    // should: "NotAllowed ... is safe to ignore, as it simply indicates
    // that the cluster is already up and running".
    let members: HashSet<u64> = (0..ctx.nodes() as u64).collect();
    match raft.initialize(members).await {
        Ok(()) => ctx.reached("initialized"),
        Err(InitializeError::NotAllowed) => {}
        Err(e) => return ctx.halt(&format!("async-raft did not initialize: {e}")),
    }
    ctx.spawn(watch_metrics(ctx, raft.clone()));
    ctx.spawn(serve_clients(ctx, raft.clone(), store));
    loop {
        let envelope = ctx.recv().await;
        let Some(reply_to) = envelope.reply_to else { continue };
        let raft = raft.clone();
        ctx.spawn(async move {
            let answer = match envelope.msg {
                Msg::Append(rpc) => Msg::AppendAnswer(raft.append_entries(rpc).await.map_err(|e| e.to_string())),
                Msg::Vote(rpc) => Msg::VoteAnswer(raft.vote(rpc).await.map_err(|e| e.to_string())),
                Msg::Snapshot(rpc) => Msg::SnapshotAnswer(raft.install_snapshot(rpc).await.map_err(|e| e.to_string())),
                // Answers come back through the calls that asked.
                _ => return,
            };
            ctx.answer(reply_to, answer);
        });
    }
}

/// Role and term as async-raft reports them; a core that shut down (a
/// storage error is fatal to it) halts the node, as a supervisor would.
async fn watch_metrics(ctx: NodeCtx, raft: AsyncRaft) {
    let mut metrics = raft.metrics();
    let mut watch = RoleWatch::default();
    loop {
        let (state, term) = {
            let m = metrics.borrow();
            (m.state, m.current_term)
        };
        let role = match state {
            State::Leader => Role::Leader,
            State::Candidate => Role::Candidate,
            State::Follower | State::NonVoter => Role::Follower,
            State::Shutdown => return ctx.halt("async-raft shut down"),
        };
        if let Some(change) = watch.see(role, term) {
            if change.elected {
                ctx.reached("leader-elected");
            }
            if change.deposed {
                ctx.reached("leader-deposed");
            }
            ctx.event(change.event);
        }
        if metrics.changed().await.is_err() {
            return ctx.halt("async-raft's core ended");
        }
    }
}

async fn serve_clients(ctx: NodeCtx, raft: AsyncRaft, store: Arc<Store>) {
    loop {
        let req = ctx.client_request().await;
        let (raft, store) = (raft.clone(), store.clone());
        ctx.spawn(async move {
            let reply = serve(ctx, &raft, &store, req.clone()).await;
            ctx.client_reply(req.req_id, reply);
        });
    }
}

/// A refusal that names the leader async-raft knows of.
fn hint(leader: Option<u64>) -> ClientReply {
    ClientReply::NotLeader {
        hint: leader.map(|l| l as usize),
    }
}

async fn serve(ctx: NodeCtx, raft: &AsyncRaft, store: &Store, req: ClientReq) -> ClientReply {
    match req.op {
        KvOp::Get { key } | KvOp::FollowerGet { key } => match raft.client_read().await {
            Ok(()) => {
                ctx.reached("linearizable-read");
                ClientReply::Ok(KvResult::Value { value: store.get(key) })
            }
            Err(ClientReadError::ForwardToLeader(leader)) => hint(leader),
            // A read changes nothing: whatever failed, nothing was applied.
            Err(_) => hint(None),
        },
        op => match raft.client_write(ClientWriteRequest::new(Request { op })).await {
            Ok(resp) => ClientReply::Ok(resp.data.0),
            // Answered only by a node that is not leader, before anything
            // was appended (core/mod.rs, forward_client_write_request).
            Err(ClientWriteError::ForwardToLeader(_, leader)) => hint(leader),
            Err(_) => ClientReply::Unknown,
        },
    }
}
