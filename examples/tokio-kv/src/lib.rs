//! A user's own tokio code under dst: a small key-value service written
//! against tokio's API (spawned tasks, `tokio::time`, channels,
//! `select!`), depending on plain `tokio` (which the workspace patches with
//! dst's), and registered as an async model. Only its I/O goes through
//! dst's [`Ctx`]: client requests and replies, and the disk; everything
//! else is the tokio code it was, its tasks on the node that spawned them
//! and its timers on that node's clock.
//!
//! Node 0 serves every request; the others refer clients to it. A write
//! goes to a flusher task over a channel; the flusher gathers writes for a
//! few milliseconds (or until its batch is full), appends them to its
//! write-ahead log, fsyncs, applies them and answers each writer. Reads are
//! served from the applied state. At boot the node replays its log.
//!
//! The bug switch `tokio-kv-apply-before-fsync` applies a write as soon as
//! the flusher receives it: a read may then see a write that a power loss
//! erases before the fsync, which `linearizable` catches.

use serde::Serialize;
use sim::async_node::Ctx;
use sim::{
    apply_to_map, Bug, ClientReply, ClientReq, KvMap, KvOp, KvResult, ModelDef, ModelEvent, Registry, Role, Setup,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// The service sends nothing between nodes.
#[derive(Clone, Debug, Serialize)]
pub enum Msg {}

impl sim::MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

/// The write-ahead log holds each write.
pub type Rec = KvOp;

pub const MODEL: &str = "tokio-kv";
pub const APPLY_BEFORE_FSYNC: &str = "tokio-kv-apply-before-fsync";

/// How long the flusher gathers writes before it syncs them.
const FLUSH_EVERY: Duration = Duration::from_millis(4);
/// A full batch is synced at once.
const BATCH_MAX: usize = 8;
/// A writer that waits longer answers "unknown".
const WRITE_TIMEOUT: Duration = Duration::from_millis(400);

struct Write {
    op: KvOp,
    done: oneshot::Sender<KvResult>,
}

type State = Arc<Mutex<KvMap>>;

fn locked(state: &State) -> std::sync::MutexGuard<'_, KvMap> {
    state
        .lock()
        .expect("one thread: poisoned only by a panic, which ends the run")
}

/// One node incarnation of the service.
pub async fn serve(ctx: Ctx<Msg, Rec>, apply_early: bool) {
    let mut map = KvMap::new();
    let log = ctx.disk();
    if !log.is_empty() {
        ctx.reached("replayed-log");
    }
    for op in &log {
        apply_to_map(&mut map, op);
    }
    let primary = ctx.id() == 0;
    ctx.event(ModelEvent::Role {
        term: 1,
        role: if primary { Role::Leader } else { Role::Follower },
        cause: "boot".into(),
        from: None,
        ballot: None,
    });
    if !primary {
        loop {
            let req = ctx.client_request().await;
            ctx.client_reply(req.req_id, ClientReply::NotLeader { hint: Some(0) });
        }
    }
    let state: State = Arc::new(Mutex::new(map));
    let (writes, queue) = mpsc::channel::<Write>(64);
    tokio::spawn(flusher(ctx, queue, state.clone(), apply_early));
    loop {
        let req = ctx.client_request().await;
        tokio::spawn(handle(ctx, req, writes.clone(), state.clone()));
    }
}

async fn handle(ctx: Ctx<Msg, Rec>, req: ClientReq, writes: mpsc::Sender<Write>, state: State) {
    let reply = if req.op.is_read() {
        ctx.reached("read-served");
        let value = locked(&state).get(&req.op.key()).cloned().unwrap_or_default();
        ClientReply::Ok(KvResult::Value { value })
    } else {
        let (done, result) = oneshot::channel();
        let sent = writes.send(Write { op: req.op, done }).await;
        match (sent, tokio::time::timeout(WRITE_TIMEOUT, result).await) {
            (Ok(()), Ok(Ok(r))) => ClientReply::Ok(r),
            _ => ClientReply::Unknown,
        }
    };
    ctx.client_reply(req.req_id, reply);
}

/// Gathers writes, makes them durable, applies them, answers them.
async fn flusher(ctx: Ctx<Msg, Rec>, mut queue: mpsc::Receiver<Write>, state: State, apply_early: bool) {
    let mut tick = tokio::time::interval(FLUSH_EVERY);
    let mut batch: Vec<(Write, Option<KvResult>)> = Vec::new();
    loop {
        tokio::select! {
            got = queue.recv() => {
                let Some(w) = got else { return };
                let early = apply_early.then(|| apply_to_map(&mut locked(&state), &w.op));
                batch.push((w, early));
                if batch.len() < BATCH_MAX {
                    continue;
                }
            }
            _ = tick.tick() => {
                if batch.is_empty() {
                    continue;
                }
            }
        }
        for (w, _) in &batch {
            if ctx.append(w.op.clone()).is_err() {
                return ctx.halt("the disk is full");
            }
        }
        if ctx.fsync().await.is_err() {
            return ctx.halt("an fsync failed");
        }
        if batch.len() > 1 {
            ctx.reached("batch-flushed");
        }
        for (w, early) in batch.drain(..) {
            let result = early.unwrap_or_else(|| apply_to_map(&mut locked(&state), &w.op));
            let _ = w.done.send(result);
        }
    }
}

pub const GOALS: &[(&str, &str)] = &[
    ("replayed-log", "a node rebuilt its state from its write-ahead log"),
    ("batch-flushed", "one fsync made several writes durable"),
    ("read-served", "a read was answered from the applied state"),
];

pub const SCENARIOS: &[(&str, &str)] = &[(
    "tokio-kv-crash-restart",
    include_str!("../scenarios/tokio-kv-crash-restart.json"),
)];

/// The service as a dst model, with its scenario.
pub fn register(registry: &mut Registry) {
    registry.add(
        ModelDef::new_async(
            MODEL,
            "a key-value service written against tokio, on dst's tokio",
            |setup: Setup<'_, sim::NoConfig>| {
                let early = setup.bug(APPLY_BEFORE_FSYNC);
                Ok(move |ctx| serve(ctx, early))
            },
        )
        .bugs(&[Bug {
            id: APPLY_BEFORE_FSYNC,
            kind: "safety",
            invariants: &["linearizable"],
            scenario: "tokio-kv-crash-restart",
            summary: "the flusher applies a write when it receives it, before its fsync: a read sees a write a power loss then erases",
        }])
        .goals(GOALS)
        .generic(&["linearizable", "liveness"]),
    );
    for (_, json) in SCENARIOS {
        registry.scenario(json);
    }
}

/// A registry with the service and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}
