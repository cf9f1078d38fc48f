//! One node of the register: what it holds, how it boots, how it saves
//! and how it answers clients. Its peers reach it over gRPC (`serve.rs`),
//! it campaigns in `elect.rs` and leads in `lead.rs`.

use crate::config::Config;
use crate::peers::{self, PORT};
use crate::rpc::{PeerClient, PeerServer};
use crate::state::{self, Durable};
use crate::{Msg, Rec};
use serde::Serialize;
use sim::async_node::Ctx;
use sim::{apply_to_map, ClientReply, ClientReq, KvOp, KvResult, Role, RoleWatch};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Channel, Server};

/// Which of the register's defects this run switches on.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bugs {
    /// The lease is the whole promise, as if clocks kept true time.
    pub lease_ignores_drift: bool,
    /// The saved state's rename is not synced: a crash may bring the
    /// previous state back, and with it a vote the node forgot it gave.
    pub rename_without_dir_sync: bool,
}

/// Calls to every peer: each ends with the peer's answer, its error, or
/// `None` at its deadline.
pub type Calls<A> = JoinSet<(usize, Option<Result<A, tonic::Status>>)>;

/// A client's write, waiting for the leader's loop.
pub struct Write {
    pub op: KvOp,
    pub done: oneshot::Sender<KvResult>,
}

/// What the node knows now.
pub struct Local {
    /// What it saves: term, vote, and the newest state it holds.
    pub d: Durable,
    pub role: Role,
    pub leader: Option<u32>,
    /// On a leader, the newest state a majority acknowledged in its term.
    pub committed: Option<state::Held>,
    /// On a leader, until when it may serve reads alone.
    pub lease_until: Option<Instant>,
    /// Until when it votes for nobody: it acknowledged a leader (or leads)
    /// and promised not to help elect another before then.
    pub promise_until: Instant,
    /// When a leader or a vote it granted last put off its own campaign.
    pub heard: Instant,
    /// On a leader, the way to its loop.
    pub writes: Option<mpsc::Sender<Write>>,
    watch: RoleWatch,
    unreachable: Vec<bool>,
}

pub struct Node {
    pub ctx: Ctx<Msg, Rec>,
    pub cfg: Config,
    pub bugs: Bugs,
    pub me: u32,
    pub peers: Vec<(usize, PeerClient<Channel>)>,
    local: Mutex<Local>,
    /// One save at a time, each writing the state as it is when it starts.
    disk: tokio::sync::Mutex<()>,
}

/// A change of a peer's reachability, in the trace.
#[derive(Serialize)]
struct Reach<'a> {
    model: &'static str,
    peer: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
}

impl Node {
    pub fn lock(&self) -> MutexGuard<'_, Local> {
        self.local
            .lock()
            .expect("one thread: poisoned only by a panic, which ends the run")
    }

    pub fn majority(&self) -> usize {
        self.ctx.nodes() / 2 + 1
    }

    /// Reports a change of role or term, and the goals it reaches.
    pub fn report(&self, l: &mut Local) {
        if let Some(change) = l.watch.see(l.role, l.d.term) {
            self.ctx.event(change.event);
            if change.elected {
                self.ctx.reached("leader-elected");
            }
            if change.deposed {
                self.ctx.reached("leader-deposed");
            }
        }
    }

    /// Moves to `term` if it is newer, as a follower that has not voted in it.
    pub fn adopt_term(&self, l: &mut Local, term: u64) {
        if term > l.d.term {
            l.d.term = term;
            l.d.voted_for = None;
            l.leader = None;
            self.step_down(l);
        }
    }

    pub fn step_down(&self, l: &mut Local) {
        if l.role != Role::Follower {
            l.role = Role::Follower;
            l.writes = None;
            l.committed = None;
            l.lease_until = None;
        }
        self.report(l);
    }

    /// Saves the state as it is now. A node that cannot save stops (and
    /// dst boots it again): it cannot know what its disk holds.
    pub async fn persist(&self) -> bool {
        let _one = self.disk.lock().await;
        let d = self.lock().d.clone();
        match state::save(&d, !self.bugs.rename_without_dir_sync).await {
            Ok(()) => true,
            Err(e) => {
                self.ctx.halt(&format!("cannot save the state: {e}"));
                false
            }
        }
    }

    /// Notes how a call to `peer` went; a change is an event in the trace.
    pub fn rpc_outcome(&self, peer: usize, failed: Option<String>) {
        let mut l = self.lock();
        let was = l.unreachable[peer];
        l.unreachable[peer] = failed.is_some();
        drop(l);
        if let Some(status) = &failed {
            self.ctx.reached("rpc-failed");
            if !was {
                self.ctx.emit(&Reach {
                    model: "peer-unreachable",
                    peer,
                    status: Some(status),
                });
            }
        } else if was {
            self.ctx.emit(&Reach {
                model: "peer-reachable",
                peer,
                status: None,
            });
        }
    }

    /// Calls every peer at once, each call with its deadline.
    pub fn call_all<A, F, Fut>(&self, call: F) -> Calls<A>
    where
        F: Fn(PeerClient<Channel>) -> Fut,
        Fut: Future<Output = Result<A, tonic::Status>> + Send + 'static,
        A: Send + 'static,
    {
        let mut calls = JoinSet::new();
        for (peer, client) in &self.peers {
            let (peer, deadline, call) = (*peer, self.cfg.rpc_timeout(), call(client.clone()));
            calls.spawn(async move { (peer, tokio::time::timeout(deadline, call).await.ok()) });
        }
        calls
    }

    /// The next answer, `Some(None)` for a call that failed (noted as the
    /// peer's reachability), `None` once every call ended.
    pub async fn next_answer<A: Send + 'static>(&self, calls: &mut Calls<A>) -> Option<Option<A>> {
        let (peer, outcome) = calls.join_next().await?.ok()?;
        Some(match outcome {
            Some(Ok(a)) => {
                self.rpc_outcome(peer, None);
                Some(a)
            }
            Some(Err(status)) => {
                self.rpc_outcome(peer, Some(format!("{:?}: {}", status.code(), status.message())));
                None
            }
            None => {
                self.rpc_outcome(peer, Some("deadline exceeded".into()));
                None
            }
        })
    }

    fn hint(&self) -> ClientReply {
        ClientReply::NotLeader {
            hint: self.lock().leader.map(|n| n as usize),
        }
    }

    async fn client(self: Arc<Self>, req: ClientReq) {
        let reply = if req.op.is_read() {
            self.read(&req.op)
        } else {
            self.write(req.op).await
        };
        self.ctx.client_reply(req.req_id, reply);
    }

    /// A read, from the committed state, while the lease holds.
    fn read(&self, op: &KvOp) -> ClientReply {
        let l = self.lock();
        let now = Instant::now();
        match (&l.committed, l.lease_until) {
            (Some(c), Some(until)) if l.role == Role::Leader && now < until => {
                self.ctx.reached("lease-read");
                let mut map = c.map.clone();
                ClientReply::Ok(apply_to_map(&mut map, op))
            }
            _ => ClientReply::NotLeader {
                hint: l.leader.filter(|&n| n != self.me).map(|n| n as usize),
            },
        }
    }

    async fn write(&self, op: KvOp) -> ClientReply {
        let Some(writes) = self.lock().writes.clone() else {
            return self.hint();
        };
        let (done, result) = oneshot::channel();
        if writes.send(Write { op, done }).await.is_err() {
            return self.hint();
        }
        let wait = Duration::from_millis(self.cfg.rpc_timeout_ms * 4);
        match tokio::time::timeout(wait, result).await {
            Ok(Ok(r)) => ClientReply::Ok(r),
            _ => ClientReply::Unknown,
        }
    }
}

/// One incarnation of node `ctx.id()`: reads what it saved, serves its
/// peers over gRPC, campaigns when it hears no leader, answers clients.
pub async fn node(ctx: Ctx<Msg, Rec>, cfg: Config, bugs: Bugs) {
    let saved = match state::load().await {
        Ok(saved) => saved,
        Err(e) => return ctx.halt(&format!("cannot read the saved state: {e}")),
    };
    if saved.is_some() {
        ctx.reached("restart-with-state");
    }
    let me = ctx.id();
    let now = Instant::now();
    let node = Arc::new(Node {
        ctx,
        bugs,
        me: me as u32,
        peers: (0..ctx.nodes())
            .filter(|&p| p != me)
            .map(|p| (p, peers::client(p)))
            .collect(),
        local: Mutex::new(Local {
            d: saved.unwrap_or_default(),
            role: Role::Follower,
            leader: None,
            committed: None,
            lease_until: None,
            // It may have promised a leader just before it went down.
            promise_until: now + cfg.promise(),
            heard: now,
            writes: None,
            watch: RoleWatch::default(),
            unreachable: vec![false; ctx.nodes()],
        }),
        disk: tokio::sync::Mutex::new(()),
        cfg,
    });
    node.report(&mut node.lock());
    let listener = match TcpListener::bind(("0.0.0.0", PORT)).await {
        Ok(l) => l,
        Err(e) => return ctx.halt(&format!("cannot listen on port {PORT}: {e}")),
    };
    let server = Server::builder()
        .add_service(PeerServer(node.clone()))
        .serve_with_incoming(TcpIncoming::from(listener));
    tokio::spawn(async move {
        if let Err(e) = server.await {
            ctx.halt(&format!("the gRPC server stopped: {e}"));
        }
    });
    tokio::spawn(node.clone().elections());
    loop {
        let req = ctx.client_request().await;
        tokio::spawn(node.clone().client(req));
    }
}
