//! A small service under dst, as `dst init` wrote it: make it yours, or
//! replace it with a call into your own system.
//!
//! It is plain tokio code. Node 0 keeps a key-value map and its log file
//! (`tokio::fs`), and serves the map over TCP (`tokio::net`) on port 7000;
//! each connection gets its own task (`tokio::spawn`). The other nodes
//! forward their clients' requests to node 0 with a deadline
//! (`tokio::time`). Only the clients' requests and replies go through dst's
//! `Ctx`; everything else runs on the simulated node that started it,
//! under the scenario's faults.

use serde::Serialize;
use sim::async_node::Ctx;
use sim::{apply_to_map, Bug, ClientReply, KvMap, KvOp, KvResult, ModelDef, ModelEvent, Registry, Role, Setup};
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::fs::{self, File, OpenOptions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

/// The model's name: the crate's.
pub const MODEL: &str = env!("CARGO_PKG_NAME");
/// A bug switch: the log is never synced, so a crash loses writes that
/// were acknowledged.
pub const ACK_BEFORE_SYNC: &str = concat!(env!("CARGO_PKG_NAME"), "-ack-before-sync");

const PORT: u16 = 7000;
const LOG: &str = "kv.log";
/// How long a forwarding node waits for node 0.
const DEADLINE: Duration = Duration::from_millis(300);

/// The service sends nothing through dst's `Ctx`: its nodes talk TCP.
#[derive(Clone, Debug, Serialize)]
pub enum Msg {}

impl sim::MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

/// Its disk holds files only, written through `tokio::fs`.
type NodeCtx = Ctx<Msg, ()>;

/// The map and the log that makes it durable: one line of JSON per write.
struct Store {
    map: KvMap,
    log: File,
    sync: bool,
}

impl Store {
    /// Replays the log. A crash may leave a torn last line, never
    /// acknowledged: it is cut off, so the next write starts a line.
    async fn open(ctx: NodeCtx, sync: bool) -> io::Result<Store> {
        let text = match fs::read(LOG).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut map = KvMap::new();
        for line in text[..whole].split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let op: KvOp = serde_json::from_slice(line).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            apply_to_map(&mut map, &op);
        }
        if whole > 0 {
            ctx.reached("log-replayed");
        }
        let log = OpenOptions::new().create(true).append(true).open(LOG).await?;
        log.set_len(whole as u64).await?;
        log.sync_all().await?;
        Ok(Store { map, log, sync })
    }

    /// Applies `op`; a write is durable before it is applied and answered.
    async fn apply(&mut self, op: &KvOp) -> io::Result<KvResult> {
        if !op.is_read() {
            let mut line = serde_json::to_vec(op).map_err(io::Error::other)?;
            line.push(b'\n');
            self.log.write_all(&line).await?;
            if self.sync {
                self.log.sync_data().await?;
            }
        }
        Ok(apply_to_map(&mut self.map, op))
    }
}

/// One incarnation of node `ctx.id()`.
pub async fn node(ctx: NodeCtx, sync: bool) {
    // The liveness check asks for a leader once faults heal: node 0 is
    // this service's only one.
    ctx.event(ModelEvent::Role {
        term: 1,
        role: if ctx.id() == 0 { Role::Leader } else { Role::Follower },
        cause: "boot".into(),
        from: None,
        ballot: None,
    });
    if ctx.id() == 0 {
        primary(ctx, sync).await
    } else {
        forwarder(ctx).await
    }
}

async fn primary(ctx: NodeCtx, sync: bool) {
    let store = match Store::open(ctx, sync).await {
        Ok(s) => Arc::new(Mutex::new(s)),
        Err(e) => return ctx.halt(&format!("cannot open the log: {e}")),
    };
    let listener = match TcpListener::bind(("0.0.0.0", PORT)).await {
        Ok(l) => l,
        Err(e) => return ctx.halt(&format!("cannot listen: {e}")),
    };
    let shared = store.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            tokio::spawn(serve_peer(ctx, conn, shared.clone()));
        }
    });
    loop {
        let req = ctx.client_request().await;
        let store = store.clone();
        tokio::spawn(async move {
            let reply = apply(ctx, &store, &req.op)
                .await
                .map_or(ClientReply::Unknown, ClientReply::Ok);
            ctx.client_reply(req.req_id, reply);
        });
    }
}

/// A write that could not be made durable leaves the log in doubt: the
/// node stops, and dst boots it again.
async fn apply(ctx: NodeCtx, store: &Mutex<Store>, op: &KvOp) -> Option<KvResult> {
    match store.lock().await.apply(op).await {
        Ok(r) => Some(r),
        Err(e) => {
            ctx.halt(&format!("cannot write the log: {e}"));
            None
        }
    }
}

/// Answers one forwarding node: a line of JSON per request and per reply.
async fn serve_peer(ctx: NodeCtx, conn: TcpStream, store: Arc<Mutex<Store>>) {
    let (read, mut write) = conn.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(op) = serde_json::from_str::<KvOp>(&line) else {
            return;
        };
        let Some(result) = apply(ctx, &store, &op).await else {
            return;
        };
        let mut out = serde_json::to_string(&result).expect("a result serializes");
        out.push('\n');
        if write.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}

async fn forwarder(ctx: NodeCtx) {
    loop {
        let req = ctx.client_request().await;
        tokio::spawn(async move {
            let reply = match tokio::time::timeout(DEADLINE, forward(&req.op)).await {
                Ok(Ok(r)) => {
                    ctx.reached("forwarded");
                    ClientReply::Ok(r)
                }
                // Node 0 never got it: a refused connect.
                Ok(Err(Forward::NotSent)) => ClientReply::NotLeader { hint: Some(0) },
                // It may have: a reset or a timeout after the request left.
                Ok(Err(Forward::Lost)) | Err(_) => ClientReply::Unknown,
            };
            ctx.client_reply(req.req_id, reply);
        });
    }
}

enum Forward {
    NotSent,
    Lost,
}

async fn forward(op: &KvOp) -> Result<KvResult, Forward> {
    let primary = std::net::SocketAddr::new(sim::async_node::ip(0), PORT);
    let conn = TcpStream::connect(primary).await.map_err(|_| Forward::NotSent)?;
    let (read, mut write) = conn.into_split();
    let mut line = serde_json::to_string(op).expect("an op serializes");
    line.push('\n');
    write.write_all(line.as_bytes()).await.map_err(|_| Forward::Lost)?;
    match BufReader::new(read).lines().next_line().await {
        Ok(Some(reply)) => serde_json::from_str(&reply).map_err(|_| Forward::Lost),
        _ => Err(Forward::Lost),
    }
}

/// The coverage goals the service marks.
pub const GOALS: &[(&str, &str)] = &[
    ("log-replayed", "node 0 rebuilt its map from its log"),
    ("forwarded", "a request was answered through node 0 over TCP"),
];

/// The service as a dst model, with its scenario.
pub fn register(registry: &mut Registry) {
    registry.add(
        ModelDef::new_async(
            MODEL,
            "a key-value service on tokio: node 0 serves it over TCP from a log file",
            |setup: Setup<'_, sim::NoConfig>| {
                let sync = !setup.bug(ACK_BEFORE_SYNC);
                Ok(move |ctx| node(ctx, sync))
            },
        )
        .bugs(&[Bug {
            id: ACK_BEFORE_SYNC,
            kind: "safety",
            invariants: &["linearizable"],
            scenario: concat!(env!("CARGO_PKG_NAME"), "-crash-restart"),
            summary: "writes are acknowledged without a sync: a crash loses them",
        }])
        .goals(GOALS)
        .generic(&["linearizable", "liveness"]),
    );
    registry.scenario(include_str!(concat!(
        "../scenarios/",
        env!("CARGO_PKG_NAME"),
        "-crash-restart.json"
    )));
}

/// A registry with the service and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}
