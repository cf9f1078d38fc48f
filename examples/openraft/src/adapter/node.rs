//! One node: openraft behind a key-value store. It rebuilds from its disk,
//! starts openraft, joins the cluster at first boot, serves its peers'
//! RPCs and the clients' requests, and reports its role and term as
//! openraft's metrics show them.

use super::msg::Recovered;
use super::net::Network;
use super::openraft;
use super::sm::StateMachine;
use super::store::{LogStore, NodeCtx};
use super::{Msg, Request, TypeConfig};
use crate::config::{OpenraftConfig, WriteForward};
use openraft::error::{ClientWriteError, RaftError};
use openraft::{Config, Raft, ServerState, SnapshotPolicy};
use sim::{ClientReply, ClientReq, KvOp, KvResult, Role, RoleWatch};
use std::collections::BTreeSet;
use std::sync::Arc;

type OpenRaft = Raft<TypeConfig>;

/// openraft's configuration for a scenario's config.
pub fn raft_config(c: &OpenraftConfig) -> Result<Config, String> {
    let config = Config {
        cluster_name: "dst".into(),
        heartbeat_interval: c.heartbeat_ms,
        election_timeout_min: c.election_timeout_ms_min,
        election_timeout_max: c.election_timeout_ms_max,
        max_payload_entries: c.max_payload_entries,
        snapshot_policy: SnapshotPolicy::LogsSinceLast(c.snapshot_every_entries),
        max_in_snapshot_log_to_keep: c.logs_to_keep,
        ..Config::default()
    };
    config
        .validate()
        .map_err(|e| format!("openraft refuses the config: {e}"))
}

/// The main task of one node incarnation.
pub async fn node(ctx: NodeCtx, config: Arc<Config>, store: Arc<OpenraftConfig>) {
    let disk = match ctx.read_disk() {
        Ok(d) => d,
        Err(e) => return ctx.halt(&format!("its disk cannot be read: {e}")),
    };
    let recovered = Recovered::replay(&disk);
    if !recovered.log.is_empty() {
        ctx.reached("restart-with-log");
    }
    let log = LogStore::new(ctx, &recovered, &store);
    let sm = match StateMachine::new(ctx, &recovered) {
        Ok(sm) => sm,
        Err(e) => return ctx.halt(&e),
    };
    let id = ctx.id() as u64;
    let raft = match OpenRaft::new(
        id,
        config,
        Network {
            ctx,
            backoff: store.backoff_ms.map(std::time::Duration::from_millis),
        },
        log,
        sm.clone(),
    )
    .await
    {
        Ok(r) => r,
        Err(e) => return ctx.halt(&format!("openraft did not start: {e}")),
    };
    // Every node offers the same membership at its first boot (and after
    // losing everything it had): openraft refuses it once a node holds a
    // vote or a log, so a cluster forms once.
    if !raft.is_initialized().await.unwrap_or(true) {
        let members: BTreeSet<u64> = (0..ctx.nodes() as u64).collect();
        let _ = raft.initialize(members).await;
    }
    ctx.spawn(watch_metrics(ctx, raft.clone()));
    if store.membership_churn_ms > 0 {
        ctx.spawn(churn(ctx, raft.clone(), store.membership_churn_ms));
    }
    ctx.spawn(serve_clients(ctx, raft.clone(), sm, store.write_forward));
    loop {
        let envelope = ctx.recv().await;
        let Some(reply_to) = envelope.reply_to else { continue };
        let raft = raft.clone();
        ctx.spawn(async move {
            let answer = match envelope.msg {
                Msg::Append(rpc) => Msg::AppendAnswer(raft.append_entries(rpc).await),
                Msg::Vote(rpc) => Msg::VoteAnswer(raft.vote(rpc).await),
                Msg::Snapshot(rpc) => Msg::SnapshotAnswer(raft.install_snapshot(rpc).await),
                // Answers come back through the calls that asked.
                _ => return,
            };
            ctx.answer(reply_to, answer);
        });
    }
}

/// Role and term as openraft reports them; a stopped core (a storage
/// error is fatal to openraft) halts the node, as a supervisor would.
async fn watch_metrics(ctx: NodeCtx, raft: OpenRaft) {
    let mut metrics = raft.metrics();
    let mut watch = RoleWatch::default();
    loop {
        let (role, term, stopped) = {
            let m = metrics.borrow();
            let role = match m.state {
                ServerState::Leader => Role::Leader,
                ServerState::Candidate => Role::Candidate,
                ServerState::Follower | ServerState::Learner | ServerState::Shutdown => Role::Follower,
            };
            let stopped = m.running_state.as_ref().err().map(|e| e.to_string());
            (role, m.current_term, stopped)
        };
        if let Some(why) = stopped {
            return ctx.halt(&format!("openraft stopped: {why}"));
        }
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
            return ctx.halt("openraft's core ended");
        }
    }
}

/// The operator's membership changes, made by whichever node leads.
async fn churn(ctx: NodeCtx, raft: OpenRaft, every_ms: u64) {
    let all: BTreeSet<u64> = (0..ctx.nodes() as u64).collect();
    loop {
        let wait = every_ms / 2 + ctx.random_range(0, every_ms);
        ctx.sleep(std::time::Duration::from_millis(wait)).await;
        let voters: BTreeSet<u64> = {
            let m = raft.metrics();
            let m = m.borrow();
            if m.state != ServerState::Leader {
                continue;
            }
            m.membership_config.membership().voter_ids().collect()
        };
        let next = if voters.len() < all.len() {
            all.clone()
        } else {
            let others: Vec<u64> = all.iter().copied().filter(|n| *n != ctx.id() as u64).collect();
            let out = others[ctx.random_range(0, others.len() as u64 - 1) as usize];
            all.iter().copied().filter(|n| *n != out).collect()
        };
        if raft.change_membership(next, true).await.is_ok() {
            ctx.reached("membership-changed");
        }
    }
}

async fn serve_clients(ctx: NodeCtx, raft: OpenRaft, sm: StateMachine, forward: WriteForward) {
    loop {
        let req = ctx.client_request().await;
        let (raft, sm) = (raft.clone(), sm.clone());
        ctx.spawn(async move {
            let reply = serve(ctx, &raft, &sm, req.clone(), forward).await;
            ctx.client_reply(req.req_id, reply);
        });
    }
}

/// Leader hint of a refusal, as a dst node id.
fn hint(leader: Option<u64>) -> ClientReply {
    ClientReply::NotLeader {
        hint: leader.map(|l| l as usize),
    }
}

async fn serve(ctx: NodeCtx, raft: &OpenRaft, sm: &StateMachine, req: ClientReq, forward: WriteForward) -> ClientReply {
    match req.op {
        KvOp::Get { key } | KvOp::FollowerGet { key } => match raft.ensure_linearizable().await {
            Ok(_) => {
                ctx.reached("linearizable-read");
                ClientReply::Ok(KvResult::Value { value: sm.get(key) })
            }
            Err(RaftError::APIError(e)) => match e {
                openraft::error::CheckIsLeaderError::ForwardToLeader(f) => hint(f.leader_id),
                // A read changes nothing: refused or not, it was not applied.
                _ => hint(None),
            },
            Err(_) => hint(None),
        },
        op => {
            // Refused here, before anything was proposed: a definite no.
            let leader = raft.metrics().borrow().current_leader;
            if leader != Some(ctx.id() as u64) {
                return hint(leader);
            }
            match raft.client_write(Request { op }).await {
                Ok(resp) => ClientReply::Ok(resp.data),
                // Either refused before it was proposed (leadership lost
                // since the check above) or its entry was truncated from
                // this node's log, which may happen after it committed
                // elsewhere: openraft answers both alike.
                Err(RaftError::APIError(ClientWriteError::ForwardToLeader(f))) if forward == WriteForward::Refusal => {
                    hint(f.leader_id)
                }
                Err(_) => ClientReply::Unknown,
            }
        }
    }
}
