//! dst's tokio::net on simulated nodes: each node at its own address,
//! TCP and UDP over dst's network, and the run's faults seen as a real
//! network shows them. Node 0 runs each case as a client, node 1 serves;
//! a check that fails panics, which ends the run as a finding.

mod cases;

use cases::{idle, Case, NodeCtx};
use sim::fault::{Action, PlanEntry};
use sim::{ModelDef, Registry, Status};
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};

const PORT: u16 = 7000;

fn node_addr(node: usize) -> SocketAddr {
    SocketAddr::new(sim::async_node::ip(node), PORT)
}

async fn case(ctx: NodeCtx, name: String) {
    if ctx.id() == 1 {
        return serve(ctx, &name).await;
    }
    if ctx.id() == 0 {
        // The server binds at its boot; give it a moment.
        tokio::time::sleep(Duration::from_millis(5)).await;
        match name.as_str() {
            "echo" => echo().await,
            "refused" => refused().await,
            "loopback" => loopback().await,
            "udp" => udp().await,
            "names" => names().await,
            "binds" => binds().await,
            "halves" => halves().await,
            "cut" => cut(ctx).await,
            "crash" => crash(ctx).await,
            "from-std" => {
                let std = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let _ = TcpListener::from_std(std);
            }
            "into-std" => {
                let _ = TcpStream::connect(node_addr(1)).await.unwrap().into_std();
            }
            "peek" => peek().await,
            other => panic!("no case {other}"),
        }
        ctx.reached("done");
    }
    idle(ctx).await
}

/// Node 1: echoes every connection on TCP, and every datagram on UDP.
async fn serve(ctx: NodeCtx, name: &str) {
    if name == "refused" {
        return idle(ctx).await;
    }
    let listener = TcpListener::bind(("0.0.0.0", PORT)).await.unwrap();
    assert_eq!(listener.local_addr().unwrap(), node_addr(1));
    let udp = UdpSocket::bind(node_addr(1)).await.unwrap();
    tokio::spawn(async move {
        let mut buf = [0u8; 1500];
        loop {
            let (n, from) = udp.recv_from(&mut buf).await.unwrap();
            udp.send_to(&buf[..n], from).await.unwrap();
        }
    });
    tokio::spawn(idle(ctx));
    loop {
        let (mut s, peer) = listener.accept().await.unwrap();
        assert_eq!(s.peer_addr().unwrap(), peer);
        assert_eq!(peer.ip(), tokio::dst::node_ip(0));
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            loop {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if s.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}

async fn echo() {
    let mut s = TcpStream::connect(node_addr(1)).await.unwrap();
    assert_eq!(s.peer_addr().unwrap(), node_addr(1));
    assert_eq!(s.local_addr().unwrap().ip(), tokio::dst::node_ip(0));
    s.set_nodelay(true).unwrap();
    assert!(s.nodelay().unwrap());
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    s.write_all(b"hello").await.unwrap();
    let mut got = [0u8; 5];
    s.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"hello");
    s.write_all(&big).await.unwrap();
    let mut back = vec![0u8; big.len()];
    s.read_exact(&mut back).await.unwrap();
    assert!(back == big, "200 kB come back in order, once");
    s.shutdown().await.unwrap();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty(), "the server closes after our end");
}

/// Looking without taking, and the non-waiting reads and writes.
async fn peek() {
    let s = TcpStream::connect(node_addr(1)).await.unwrap();
    s.writable().await.unwrap();
    assert_eq!(s.try_write(b"abc").unwrap(), 3);
    let mut buf = [0u8; 8];
    let n = s.peek(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], &b"abc"[..n], "peek sees the echo");
    s.readable().await.unwrap();
    let mut got = Vec::new();
    while got.len() < 3 {
        match s.try_read(&mut buf) {
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => s.readable().await.unwrap(),
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(got, b"abc", "what peek saw is still there to read");
    let e = s.try_read(&mut buf).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WouldBlock, "nothing more has come");
    let udp = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    udp.send_to(b"dgram", node_addr(1)).await.unwrap();
    let (n, from) = udp.peek_from(&mut buf).await.unwrap();
    assert_eq!((&buf[..n], from), (&b"dgram"[..], node_addr(1)));
    let (n, _) = udp.recv_from(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"dgram", "peek_from left the datagram");
}

async fn refused() {
    let e = TcpStream::connect(node_addr(1)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused, "{e}");
    let e = TcpStream::connect("10.0.0.9:1").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HostUnreachable, "{e}");
}

async fn loopback() {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = l.local_addr().unwrap();
    assert!(at.ip().is_loopback() && at.port() >= 49152, "{at}");
    let server = tokio::spawn(async move {
        let (mut s, _) = l.accept().await.unwrap();
        let mut buf = [0u8; 4];
        s.read_exact(&mut buf).await.unwrap();
        s.write_all(&buf).await.unwrap();
    });
    let mut c = TcpStream::connect(at).await.unwrap();
    c.write_all(b"ping").await.unwrap();
    let mut buf = [0u8; 4];
    c.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"ping");
    server.await.unwrap();
}

async fn udp() {
    let s = UdpSocket::bind("0.0.0.0:0").await.unwrap();
    s.send_to(b"dgram", node_addr(1)).await.unwrap();
    let mut buf = [0u8; 16];
    let (n, from) = tokio::time::timeout(Duration::from_secs(1), s.recv_from(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((&buf[..n], from), (&b"dgram"[..], node_addr(1)));
    s.connect(node_addr(1)).await.unwrap();
    s.send(b"again").await.unwrap();
    let n = s.recv(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"again");
}

async fn names() {
    let all: Vec<SocketAddr> = tokio::net::lookup_host("localhost:80").await.unwrap().collect();
    assert_eq!(all, vec!["127.0.0.1:80".parse().unwrap()]);
    let all: Vec<SocketAddr> = tokio::net::lookup_host("10.0.0.2:7000").await.unwrap().collect();
    assert_eq!(all, vec![node_addr(1)]);
    let Err(e) = tokio::net::lookup_host("example.com:80").await else {
        panic!("a name that is no address resolved on a node")
    };
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("node n is at 10.0.0.(n+1)"), "{e}");
    let s = TcpStream::connect(("10.0.0.2", PORT)).await.unwrap();
    assert_eq!(s.peer_addr().unwrap(), node_addr(1));
}

async fn binds() {
    let e = TcpListener::bind("10.0.0.2:80").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AddrNotAvailable, "another node's address: {e}");
    let first = TcpListener::bind("0.0.0.0:9000").await.unwrap();
    let e = TcpListener::bind("0.0.0.0:9000").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AddrInUse);
    drop(first);
    TcpListener::bind("0.0.0.0:9000")
        .await
        .expect("a closed listener frees its port");
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_reuseaddr(true).unwrap();
    sock.bind("0.0.0.0:9001".parse().unwrap()).unwrap();
    let l = sock.listen(16).unwrap();
    assert_eq!(l.local_addr().unwrap(), SocketAddr::new(tokio::dst::node_ip(0), 9001));
}

async fn halves() {
    let s = TcpStream::connect(node_addr(1)).await.unwrap();
    let (mut r, mut w) = s.into_split();
    w.write_all(b"split").await.unwrap();
    let mut buf = [0u8; 5];
    r.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"split");
    let mut s = r.reunite(w).unwrap();
    let (mut r, mut w) = s.split();
    w.write_all(b"again").await.unwrap();
    r.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"again");
}

/// A partition cuts node 0 from node 1 at 200 ms: an open connection is
/// reset, and a connect across the cut times out.
async fn cut(ctx: NodeCtx) {
    let mut s = TcpStream::connect(node_addr(1)).await.unwrap();
    s.write_all(b"x").await.unwrap();
    let mut one = [0u8; 1];
    s.read_exact(&mut one).await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    let _ = s.write_all(b"y").await;
    let e = s.read(&mut one).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}");
    let e = TcpStream::connect(node_addr(1)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TimedOut, "{e}");
    ctx.reached("cut-seen");
}

/// Node 1 crashes at 200 ms and restarts at 400 ms: the connection is
/// reset, a connect while it is down is refused, and one after it booted
/// reaches its new listener.
async fn crash(ctx: NodeCtx) {
    let mut s = TcpStream::connect(node_addr(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    let mut one = [0u8; 1];
    let e = s.read(&mut one).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}");
    let e = TcpStream::connect(node_addr(1)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused, "{e}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut s = TcpStream::connect(node_addr(1)).await.unwrap();
    s.write_all(b"z").await.unwrap();
    s.read_exact(&mut one).await.unwrap();
    assert_eq!(&one, b"z");
    ctx.reached("crash-seen");
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add(
        ModelDef::new_async(
            "tokio-net",
            "two nodes talking over dst's tokio::net",
            |s: sim::Setup<'_, Case>| {
                let name = s.config.name.clone();
                Ok(move |ctx| case(ctx, name.clone()))
            },
        )
        .goals(&[
            ("done", "the case ran to its end"),
            ("cut-seen", "a cut connection failed as TCP shows it"),
            ("crash-seen", "a crashed peer's connection failed as TCP shows it"),
        ]),
    );
    r
}

fn scenario(r: &Registry, name: &str) -> sim::Scenario {
    cases::scenario(r, "tokio-net", 2, name, 0.0)
}

fn scenario_dropping(r: &Registry, name: &str, drop: f64) -> sim::Scenario {
    cases::scenario(r, "tokio-net", 2, name, drop)
}

fn run(name: &str, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let r = registry();
    let s = scenario(&r, name);
    run_of(&r, &s, plan)
}

fn run_of(r: &Registry, s: &sim::Scenario, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let name = &s.name;
    let out = r.run(s, 3, &[], Some(plan.clone())).unwrap();
    let again = r.run(s, 3, &[], Some(plan)).unwrap();
    assert_eq!(out.trace.hash_hex(), again.trace.hash_hex(), "{name} replays");
    out
}

fn passes(name: &str, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let out = run(name, plan);

    assert_eq!(out.verdict.status, Status::Pass, "{name}: {:?}", out.verdict);
    assert!(out.coverage.contains("done"), "{name} never ended");
    out
}

const MS: u64 = 1_000_000;

#[test]
fn each_node_has_its_own_address() {
    assert_eq!(sim::async_node::ip(0).to_string(), "10.0.0.1");
    assert_eq!(sim::async_node::ip(8).to_string(), "10.0.0.9");
    assert_eq!(tokio::dst::node_of(sim::async_node::ip(8)), Some(8));
    assert_eq!(tokio::dst::node_of("10.0.1.1".parse().unwrap()), Some(256));
    assert_eq!(tokio::dst::node_of("127.0.0.1".parse().unwrap()), None);
}

#[test]
fn a_connection_carries_bytes_in_order_once_and_to_its_end() {
    passes("echo", vec![]);
}

#[test]
fn a_port_nobody_listens_on_refuses_and_an_address_nobody_has_is_unreachable() {
    passes("refused", vec![]);
}

#[test]
fn loopback_connects_within_the_node() {
    passes("loopback", vec![]);
}

#[test]
fn datagrams_go_to_the_node_at_the_address() {
    passes("udp", vec![]);
}

#[test]
fn names_resolve_when_numeric_or_localhost() {
    passes("names", vec![]);
}

#[test]
fn a_node_binds_its_own_address_and_each_port_once() {
    passes("binds", vec![]);
}

#[test]
fn a_stream_splits_and_reunites() {
    passes("halves", vec![]);
}

#[test]
fn a_partition_resets_connections_and_times_connects_out() {
    let plan = vec![PlanEntry {
        at_ns: 200 * MS,
        action: Action::Partition {
            groups: vec![vec![0], vec![1]],
        },
    }];
    let out = passes("cut", plan);
    assert!(out.coverage.contains("cut-seen"));
}

#[test]
fn a_crashed_peer_resets_then_refuses_then_serves_again() {
    let plan = vec![
        PlanEntry {
            at_ns: 200 * MS,
            action: Action::Crash { node: 1 },
        },
        PlanEntry {
            at_ns: 400 * MS,
            action: Action::Restart { node: 1 },
        },
    ];
    let out = passes("crash", plan);
    assert!(out.coverage.contains("crash-seen"));
}

/// A segment the network loses breaks the connection, as a retransmission
/// that never gets through would, only sooner: the echo sees a reset.
#[test]
fn a_lost_segment_resets_the_connection() {
    let r = registry();
    let s = scenario_dropping(&r, "echo", 0.5);
    let out = run_of(&r, &s, vec![]);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    let m = out.verdict.message.unwrap_or_default();
    assert!(m.contains("ConnectionReset"), "{m}");
    let lost = out.trace.events().iter().any(|e| {
        matches!(&e.kind, sim::EventKind::Drop { msg, cause, .. } if msg == "tcp-data" && *cause == sim::DropCause::Loss)
    });
    assert!(lost, "a data segment was lost");
}

#[test]
fn peek_and_the_non_waiting_calls_see_the_stream_as_it_is() {
    passes("peek", vec![]);
}

#[test]
fn a_node_s_socket_has_no_host_socket_to_give() {
    let out = run("into-std", vec![]);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    let m = out.verdict.message.unwrap_or_default();
    assert!(
        m.contains("dst: TcpStream::into_std is not available on a simulated node: a simulated socket has no operating-system socket behind it"),
        "{m}"
    );
}

#[test]
fn a_host_socket_is_refused_on_a_node() {
    let out = run("from-std", vec![]);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    let m = out.verdict.message.unwrap_or_default();
    assert!(
        m.contains("dst: TcpListener::from_std is not available on a simulated node: a simulated socket has no operating-system socket behind it"),
        "{m}"
    );
}
