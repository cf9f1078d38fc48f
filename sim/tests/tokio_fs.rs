//! dst's tokio::fs on simulated nodes: files and directories on the node's
//! disk, what the node writes read back at once, and only what a sync made
//! durable surviving a crash; the disk's faults as `io::Error`s. Node 0
//! runs each case; a check that fails panics, which ends the run as a
//! finding.

mod cases;

use cases::{idle, Case, NodeCtx};
use serde::Serialize;
use sim::fault::{Action, DiskFault, PlanEntry};
use sim::{ModelDef, Registry, Status};
use std::io::ErrorKind;
use std::time::Duration;
use tokio::fs;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

/// What a node found at boot, in the trace.
#[derive(Serialize)]
struct Found {
    model: &'static str,
    incarnation: u64,
    what: String,
}

fn found(ctx: NodeCtx, what: String) {
    ctx.emit(&Found {
        model: "found",
        incarnation: ctx.incarnation(),
        what,
    });
}

async fn case(ctx: NodeCtx, name: String) {
    if ctx.id() == 0 {
        match name.as_str() {
            "files" => files().await,
            "dirs" => dirs().await,
            "durable" => durable(ctx).await,
            "rename" => rename(ctx).await,
            "full" => full().await,
            "fsync-error" => fsync_error().await,
            "unreadable" => unreadable(ctx).await,
            "from-std" => {
                let _ = fs::File::from_std(std::fs::File::open("/dev/null").unwrap());
            }
            "into-std" => {
                let _ = fs::File::create("f").await.unwrap().into_std().await;
            }
            "links" => {
                fs::write("target", b"x").await.unwrap();
                let e = fs::symlink("target", "link").await.unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
                let e = fs::read_link("target").await.unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
                assert!(!fs::try_exists("link").await.unwrap());
            }
            other => panic!("no case {other}"),
        }
        ctx.reached("done");
    }
    idle(ctx).await
}

async fn files() {
    fs::write("notes.txt", b"hello").await.unwrap();
    assert_eq!(
        fs::read("/notes.txt").await.unwrap(),
        b"hello",
        "relative paths are from the root"
    );
    assert_eq!(fs::read_to_string("./notes.txt").await.unwrap(), "hello");
    let mut f = fs::OpenOptions::new().append(true).open("notes.txt").await.unwrap();
    f.write_all(b", world").await.unwrap();
    assert_eq!(f.metadata().await.unwrap().len(), 12);
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("notes.txt")
        .await
        .unwrap();
    f.seek(std::io::SeekFrom::Start(7)).await.unwrap();
    let mut rest = String::new();
    f.read_to_string(&mut rest).await.unwrap();
    assert_eq!(rest, "world");
    f.set_len(5).await.unwrap();
    assert_eq!(fs::metadata("notes.txt").await.unwrap().len(), 5);
    assert!(fs::metadata("notes.txt").await.unwrap().is_file());
    let e = fs::File::create_new("notes.txt").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    let e = fs::File::open("missing").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    let e = fs::File::create("no/such/dir/file").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "a file needs its directory");
    assert_eq!(fs::copy("notes.txt", "copy.txt").await.unwrap(), 5);
    fs::hard_link("notes.txt", "link.txt").await.unwrap();
    fs::remove_file("notes.txt").await.unwrap();
    assert_eq!(
        fs::read("link.txt").await.unwrap(),
        b"hello",
        "a second name keeps the file"
    );
    assert!(!fs::try_exists("notes.txt").await.unwrap());
    let g = fs::File::open("copy.txt").await.unwrap();
    let mut h = g.try_clone().await.unwrap();
    let mut back = Vec::new();
    h.read_to_end(&mut back).await.unwrap();
    assert_eq!(back, b"hello");
}

async fn dirs() {
    fs::create_dir_all("/var/lib/app").await.unwrap();
    let e = fs::create_dir("/var/lib/app").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    let e = fs::create_dir("/x/y").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    fs::write("/var/lib/app/b", b"2").await.unwrap();
    fs::write("/var/lib/app/a", b"1").await.unwrap();
    fs::create_dir("/var/lib/app/sub").await.unwrap();
    let mut rd = fs::read_dir("/var/lib/app").await.unwrap();
    let mut names = Vec::new();
    while let Some(e) = rd.next_entry().await.unwrap() {
        let dir = e.file_type().await.unwrap().is_dir();
        names.push((e.file_name().into_string().unwrap(), dir));
    }
    assert_eq!(
        names,
        [("a".into(), false), ("b".into(), false), ("sub".into(), true)],
        "in name order"
    );
    let e = fs::remove_dir("/var/lib/app").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DirectoryNotEmpty);
    fs::rename("/var/lib/app", "/var/lib/moved").await.unwrap();
    assert_eq!(
        fs::read("/var/lib/moved/a").await.unwrap(),
        b"1",
        "a directory moves with what it holds"
    );
    assert!(fs::metadata("/var/lib/moved/sub").await.unwrap().is_dir());
    assert_eq!(
        fs::canonicalize("/var/lib/moved/sub/../a").await.unwrap(),
        std::path::PathBuf::from("/var/lib/moved/a")
    );
    fs::remove_dir_all("/var").await.unwrap();
    assert!(!fs::try_exists("/var").await.unwrap());
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    b.create("/made/by/builder").await.unwrap();
    assert!(fs::try_exists("/made/by/builder").await.unwrap());
    let e = fs::File::create("/made").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IsADirectory);
}

/// Incarnation 1 writes and syncs some of it, then the plan crashes the
/// node; incarnation 2 reports what survived.
async fn durable(ctx: NodeCtx) {
    if ctx.incarnation() > 1 {
        let a = fs::read_to_string("/data/a").await;
        let b = fs::try_exists("/data/b").await.unwrap();
        let c = fs::read_to_string("/data/c").await;
        found(ctx, format!("a={a:?} b={b} c={c:?}"));
        return;
    }
    fs::create_dir_all("/data").await.unwrap();
    let mut a = fs::File::create("/data/a").await.unwrap();
    a.write_all(b"synced").await.unwrap();
    a.sync_all().await.unwrap();
    let mut c = fs::File::create("/data/c").await.unwrap();
    c.write_all(b"data only").await.unwrap();
    c.sync_data().await.unwrap();
    a.write_all(b"+lost").await.unwrap();
    fs::write("/data/b", b"never synced").await.unwrap();
    assert_eq!(
        fs::read("/data/a").await.unwrap(),
        b"synced+lost",
        "read back at once, synced or not"
    );
    std::future::pending::<()>().await
}

/// A file written, synced and renamed into place: the rename is durable
/// only once something is synced after it (here, the directory); one with
/// nothing synced after it is lost at a crash, the old name back.
async fn rename(ctx: NodeCtx) {
    if ctx.incarnation() > 1 {
        let names: Vec<bool> = vec![
            fs::try_exists("/db/tmp1").await.unwrap(),
            fs::try_exists("/db/final1").await.unwrap(),
            fs::try_exists("/db/tmp2").await.unwrap(),
            fs::try_exists("/db/final2").await.unwrap(),
        ];
        found(
            ctx,
            format!("{names:?} {:?}", fs::read_to_string("/db/final1").await.ok()),
        );
        return;
    }
    fs::create_dir("/db").await.unwrap();
    for n in ["1", "2"] {
        let mut f = fs::File::create(format!("/db/tmp{n}")).await.unwrap();
        f.write_all(b"state").await.unwrap();
        f.sync_all().await.unwrap();
        fs::rename(format!("/db/tmp{n}"), format!("/db/final{n}"))
            .await
            .unwrap();
        if n == "1" {
            fs::File::open("/db").await.unwrap().sync_all().await.unwrap();
        }
    }
    std::future::pending::<()>().await
}

/// The plan fills the disk from 50 ms for 100 ms.
async fn full() {
    let mut f = fs::File::create("f").await.unwrap();
    tokio::time::sleep(Duration::from_millis(60)).await;
    let e = f.write_all(b"x").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StorageFull);
    tokio::time::sleep(Duration::from_millis(100)).await;
    f.write_all(b"x").await.unwrap();
    f.sync_all().await.unwrap();
}

/// The plan fails the fsyncs that complete from 50 ms for 100 ms.
async fn fsync_error() {
    let mut f = fs::File::create("f").await.unwrap();
    tokio::time::sleep(Duration::from_millis(60)).await;
    f.write_all(b"x").await.unwrap();
    let e = f.sync_all().await.unwrap_err();
    assert!(e.to_string().contains("fsync failed"), "{e}");
}

/// The plan crashes the node and makes its disk unreadable as it boots.
async fn unreadable(ctx: NodeCtx) {
    if ctx.incarnation() == 1 {
        fs::write("f", b"x").await.unwrap();
        return std::future::pending().await;
    }
    let e = fs::read("f").await.unwrap_err();
    found(ctx, e.to_string());
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add(
        ModelDef::new_async(
            "tokio-fs",
            "one node using dst's tokio::fs",
            |s: sim::Setup<'_, Case>| {
                let name = s.config.name.clone();
                Ok(move |ctx| case(ctx, name.clone()))
            },
        )
        .goals(&[("done", "the case ran to its end")]),
    );
    r
}

const MS: u64 = 1_000_000;

fn run(name: &str, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let r = registry();
    let s = cases::scenario(&r, "tokio-fs", 1, name, 0.0);
    let out = r.run(&s, 5, &[], Some(plan.clone())).unwrap();
    let again = r.run(&s, 5, &[], Some(plan)).unwrap();
    assert_eq!(out.trace.hash_hex(), again.trace.hash_hex(), "{name} replays");
    out
}

fn passes(name: &str, plan: Vec<PlanEntry>) -> sim::RunOutcome {
    let out = run(name, plan);
    assert_eq!(out.verdict.status, Status::Pass, "{name}: {:?}", out.verdict);
    out
}

/// What the second incarnation found.
fn after_restart(out: &sim::RunOutcome) -> String {
    out.trace
        .events()
        .iter()
        .find_map(|e| {
            let v = serde_json::to_value(&e.kind).ok()?;
            (v.get("model")? == "found").then(|| v["what"].as_str().unwrap_or_default().to_string())
        })
        .expect("the node booted again and reported")
}

fn crash_and_restart() -> Vec<PlanEntry> {
    vec![
        PlanEntry {
            at_ns: 200 * MS,
            action: Action::Crash { node: 0 },
        },
        PlanEntry {
            at_ns: 300 * MS,
            action: Action::Restart { node: 0 },
        },
    ]
}

#[test]
fn files_read_back_what_was_written_as_tokio_s_calls_say() {
    let out = passes("files", vec![]);
    assert!(out.coverage.contains("done"));
}

#[test]
fn directories_hold_move_and_go_as_a_file_system_s() {
    let out = passes("dirs", vec![]);
    assert!(out.coverage.contains("done"));
}

#[test]
fn a_crash_keeps_what_was_synced_and_loses_the_rest() {
    let out = passes("durable", crash_and_restart());
    assert_eq!(after_restart(&out), "a=Ok(\"synced\") b=false c=Ok(\"data only\")");
}

#[test]
fn a_rename_is_durable_once_something_after_it_is_synced() {
    let out = passes("rename", crash_and_restart());
    assert_eq!(after_restart(&out), "[false, true, true, false] Some(\"state\")");
}

#[test]
fn a_full_disk_refuses_writes_until_it_has_room() {
    let plan = vec![PlanEntry {
        at_ns: 50 * MS,
        action: Action::Disk {
            node: 0,
            fault: DiskFault::NoSpace,
            ms: 100,
        },
    }];
    let out = passes("full", plan);
    assert!(out.coverage.contains("done"));
}

#[test]
fn a_failed_fsync_fails_the_sync() {
    let plan = vec![PlanEntry {
        at_ns: 50 * MS,
        action: Action::Disk {
            node: 0,
            fault: DiskFault::FsyncError,
            ms: 100,
        },
    }];
    let out = passes("fsync-error", plan);
    assert!(out.coverage.contains("done"));
}

#[test]
fn a_disk_unreadable_at_boot_fails_every_call() {
    let mut plan = crash_and_restart();
    plan.push(PlanEntry {
        at_ns: 250 * MS,
        action: Action::Disk {
            node: 0,
            fault: DiskFault::ReadError,
            ms: 100,
        },
    });
    let out = passes("unreadable", plan);
    assert!(
        after_restart(&out).contains("the node's disk cannot be read"),
        "{}",
        after_restart(&out)
    );
}

#[test]
fn a_node_s_files_have_no_symbolic_links() {
    passes("links", vec![]);
}

#[test]
fn a_node_s_file_has_no_host_file_to_give() {
    let out = run("into-std", vec![]);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    let m = out.verdict.message.unwrap_or_default();
    assert!(
        m.contains("dst: File::into_std is not available on a simulated node: a simulated file has no operating-system file behind it"),
        "{m}"
    );
}

#[test]
fn a_host_file_is_refused_on_a_node() {
    let out = run("from-std", vec![]);
    assert_eq!(out.verdict.status, Status::Error, "{:?}", out.verdict);
    let m = out.verdict.message.unwrap_or_default();
    assert!(
        m.contains("dst: File::from_std is not available on a simulated node"),
        "{m}"
    );
}
