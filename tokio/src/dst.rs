//! Where this crate meets the simulator. dst installs a [`Sim`] on the
//! thread of a run and marks, around every poll of a node's task, which
//! node (and incarnation) runs. A call into this crate's task, time, net
//! or fs that finds a node running goes to that node through the `Sim`;
//! anywhere else it goes to real tokio, so a patched dependency graph
//! still runs `#[tokio::main]` binaries and `#[tokio::test]` tests as
//! before.
//!
//! Everything a shim value keeps between calls is plain data (a node, an
//! id, an `Arc`): values stay `Send` and `Sync` as tokio's are, and the
//! state behind them lives with the run, on its one thread.

use std::cell::Cell;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

/// One incarnation of one simulated node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Here {
    /// The node, numbered from 0.
    pub node: usize,
    /// Its incarnation: 1 at first boot, one more at every restart.
    pub inc: u64,
}

/// What the simulator does for a node's task. Every method is called
/// from that task's poll, on the run's thread.
pub trait Sim: Sync {
    /// Runs `task` on the node, beside its other tasks; it dies with the
    /// incarnation. `site` is where the code under test spawned it.
    fn spawn(&self, here: Here, task: Pin<Box<dyn Future<Output = ()>>>, site: &'static std::panic::Location<'static>);

    /// The node's monotonic clock, in ns (drifts with the node's clock,
    /// never jumps).
    fn mono_ns(&self, here: Here) -> u64;

    /// Polls a sleep until the node's monotonic clock reads
    /// `deadline_mono_ns`; what the simulator keeps of it between polls
    /// lives in `state`, which [`Sim::sleep_drop`] releases.
    fn sleep_poll(&self, here: Here, state: &mut SleepState, deadline_mono_ns: u64, cx: &mut Context<'_>) -> Poll<()>;

    /// The sleep of `state` is dropped, has ended or moves to another
    /// deadline: its timer wakes nobody and its node stops counting it.
    fn sleep_drop(&self, here: Here, state: &mut SleepState);

    /// Fills `dest` from the node's own random stream, or (`None`, code of
    /// the run outside every node) from the run's.
    fn fill_random(&self, here: Option<Here>, dest: &mut [u8]);

    // The network. A socket is an id of its node's; `here` is the
    // incarnation that made it, and a call for one gone fails.

    /// Binds a TCP listener to `addr` (port 0: an ephemeral one): its id and address.
    fn tcp_listen(&self, here: Here, addr: SocketAddr) -> io::Result<(u64, SocketAddr)>;
    /// The next connection the listener accepted: its id, local and peer addresses.
    fn tcp_accept(
        &self,
        here: Here,
        listener: u64,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(u64, SocketAddr, SocketAddr)>>;
    /// Starts a TCP connect to `to`: the connection's id, to poll with `tcp_connected`.
    fn tcp_connect(&self, here: Here, to: SocketAddr) -> io::Result<u64>;
    /// Whether the connect of `conn` has ended, and how.
    fn tcp_connected(&self, here: Here, conn: u64, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
    /// The local and peer addresses of `conn`.
    fn tcp_addrs(&self, here: Here, conn: u64) -> io::Result<(SocketAddr, SocketAddr)>;
    /// Reads what `conn` holds (with `peek`, leaves it there); `Ok(0)` at its end.
    /// Without `cx`, a read that would wait is `Pending` and registers nothing.
    fn tcp_read(
        &self,
        here: Here,
        conn: u64,
        buf: &mut [u8],
        peek: bool,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<usize>>;
    /// Writes all of `data` on `conn`.
    fn tcp_write(&self, here: Here, conn: u64, data: &[u8]) -> io::Result<usize>;
    /// `conn` will write no more.
    fn tcp_shutdown(&self, here: Here, conn: u64) -> io::Result<()>;
    /// Binds a UDP socket to `addr`: its id and address.
    fn udp_bind(&self, here: Here, addr: SocketAddr) -> io::Result<(u64, SocketAddr)>;
    /// Sends one datagram from `socket` to `to`.
    fn udp_send(&self, here: Here, socket: u64, data: &[u8], to: SocketAddr) -> io::Result<usize>;
    /// The next datagram of `socket` (with `peek`, left there): its length and sender.
    fn udp_recv(
        &self,
        here: Here,
        socket: u64,
        buf: &mut [u8],
        peek: bool,
        cx: Option<&mut Context<'_>>,
    ) -> Poll<io::Result<(usize, SocketAddr)>>;
    /// The owner dropped `socket` (a listener, a connection or a UDP socket).
    fn close(&self, here: Here, socket: u64);

    // Files. A file handle is an id of its node's, as a socket is.

    /// Opens `path` as `flags` say: the handle's id.
    fn fs_open(&self, here: Here, path: &Path, flags: OpenFlags) -> io::Result<u64>;
    /// Reads at the handle's position, moving it on.
    fn fs_read(&self, here: Here, file: u64, buf: &mut [u8]) -> io::Result<usize>;
    /// Writes at the handle's position (its end, when appending), moving it on.
    fn fs_write(&self, here: Here, file: u64, data: &[u8]) -> io::Result<usize>;
    /// Moves the handle's position.
    fn fs_seek(&self, here: Here, file: u64, to: io::SeekFrom) -> io::Result<u64>;
    /// Cuts or grows the handle's file.
    fn fs_set_len(&self, here: Here, file: u64, len: u64) -> io::Result<()>;
    /// Polls a sync of the handle's file; `slot` is 0 until the first poll
    /// starts it, then names it.
    fn fs_sync(&self, here: Here, file: u64, slot: &mut u64, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
    /// What the handle's file is.
    fn fs_file_meta(&self, here: Here, file: u64) -> io::Result<FileMeta>;
    /// The owner dropped handle `file`.
    fn fs_close(&self, here: Here, file: u64);
    /// What `path` names.
    fn fs_meta(&self, here: Here, path: &Path) -> io::Result<FileMeta>;
    /// Makes directory `path` (with `all`, each missing one above it too).
    fn fs_mkdir(&self, here: Here, path: &Path, all: bool) -> io::Result<()>;
    /// Removes file `path`.
    fn fs_remove_file(&self, here: Here, path: &Path) -> io::Result<()>;
    /// Removes directory `path` (with `all`, with what it holds).
    fn fs_remove_dir(&self, here: Here, path: &Path, all: bool) -> io::Result<()>;
    /// Moves `from` to `to`.
    fn fs_rename(&self, here: Here, from: &Path, to: &Path) -> io::Result<()>;
    /// Gives file `from` a second name `to`.
    fn fs_hard_link(&self, here: Here, from: &Path, to: &Path) -> io::Result<()>;
    /// What directory `path` holds: each path, and whether it is a directory.
    fn fs_read_dir(&self, here: Here, path: &Path) -> io::Result<Vec<(PathBuf, bool)>>;
}

/// What the simulator keeps of a pending sleep, held in the sleep itself
/// (plain data, so a sleep stays `Send` as tokio's is). Only the [`Sim`]
/// reads or writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SleepState {
    /// The true time at which it ends, once a pending poll has set it.
    pub until_ns: Option<u64>,
    /// The simulator's timer for it, while one is armed.
    pub timer: Option<u64>,
    /// Whether its node counts it among the sleeps that will wake a task.
    pub counted: bool,
}

/// How a file is opened, as tokio's `OpenOptions` set it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenFlags {
    /// Open for reading.
    pub read: bool,
    /// Open for writing.
    pub write: bool,
    /// Every write goes to the end.
    pub append: bool,
    /// Cut the file to nothing.
    pub truncate: bool,
    /// Make the file if it is missing.
    pub create: bool,
    /// Make the file; fail if it exists.
    pub create_new: bool,
}

/// What a node's path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// A directory, not a file.
    pub is_dir: bool,
    /// The file's length in bytes (0 for a directory).
    pub len: u64,
}

/// `path` from a node's root, `.` and `..` resolved: a node's working
/// directory is its root.
pub fn normal_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(part) => out.push(part),
        }
    }
    out
}

/// The address of simulated node `node`: 10.0.0.1 for node 0, and so on.
pub fn node_ip(node: usize) -> IpAddr {
    let n = u32::try_from(node + 1).unwrap_or(u32::MAX) & 0x00ff_ffff;
    IpAddr::V4(Ipv4Addr::from(0x0a00_0000 | n))
}

/// The simulated node at `ip`, if `ip` is a node's address.
pub fn node_of(ip: IpAddr) -> Option<usize> {
    let IpAddr::V4(v4) = ip else { return None };
    let bits = u32::from(v4);
    let n = bits & 0x00ff_ffff;
    (bits >> 24 == 10 && n > 0).then(|| n as usize - 1)
}

thread_local! {
    static SIM: Cell<Option<&'static dyn Sim>> = const { Cell::new(None) };
    static HERE: Cell<Option<Here>> = const { Cell::new(None) };
    /// Ids of the tasks this crate spawns on nodes, counted per run so that
    /// a seed run twice on one thread numbers its tasks the same.
    static NEXT_TASK: Cell<u64> = const { Cell::new(0) };
    /// What a node's monotonic clock reading of 0 is as a `std` instant.
    static BASE: Cell<Option<std::time::Instant>> = const { Cell::new(None) };
}

/// Installs `sim` for the run on this thread, until the guard drops.
pub fn install(sim: &'static dyn Sim) -> Installed {
    let prev = SIM.with(|s| s.replace(Some(sim)));
    NEXT_TASK.with(|n| n.set(0));
    BASE.with(|b| b.set(Some(std::time::Instant::now())));
    Installed { prev }
}

/// Keeps a [`Sim`] installed; see [`install`].
pub struct Installed {
    prev: Option<&'static dyn Sim>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        SIM.with(|s| s.set(self.prev.take()));
    }
}

/// Marks `here` as the node whose task runs, until the guard drops.
pub fn enter(here: Here) -> Entered {
    let prev = HERE.with(|h| h.replace(Some(here)));
    Entered { prev }
}

/// Keeps a node marked as running; see [`enter`].
pub struct Entered {
    prev: Option<Here>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        HERE.with(|h| h.set(self.prev));
    }
}

/// The node whose task runs, if one does.
pub fn current() -> Option<Here> {
    HERE.with(Cell::get)
}

/// Spawns `fut` on node `here`, as `tokio::spawn` from one of its tasks
/// would: the simulator's own API for a task with a handle. Panics outside
/// a run.
#[track_caller]
pub fn spawn_on_node<F>(here: Here, fut: F) -> crate::task::JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    crate::task::spawn_on(here, "a spawn", fut)
}

/// The `std` instant that stands for a node clock's 0 on this thread.
pub(crate) fn base() -> std::time::Instant {
    BASE.with(|b| match b.get() {
        Some(i) => i,
        None => {
            let i = std::time::Instant::now();
            b.set(Some(i));
            i
        }
    })
}

/// A fresh id for a task spawned on a node.
pub(crate) fn next_task_id() -> u64 {
    NEXT_TASK.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

/// Whether a simulation run is installed on this thread.
pub fn in_run() -> bool {
    SIM.with(Cell::get).is_some()
}

/// The running node and the simulator, when a node's task runs.
pub(crate) fn node() -> Option<(Here, &'static dyn Sim)> {
    let here = HERE.with(Cell::get)?;
    Some((here, SIM.with(Cell::get)?))
}

/// Where a call that touches the world goes.
pub(crate) enum Route {
    /// To this node, through the simulator.
    Node(Here, &'static dyn Sim),
    /// To real tokio: no simulation runs on this thread.
    Real,
}

/// Where `what`, called now, goes; inside a run but outside every node's
/// task it is refused.
#[track_caller]
pub(crate) fn route(what: &str) -> Route {
    match node() {
        Some((here, sim)) => Route::Node(here, sim),
        None if in_run() => outside_nodes(what),
        None => Route::Real,
    }
}

/// The simulator, if a run is installed (a value made inside a node may
/// be dropped from outside one).
pub(crate) fn sim() -> Option<&'static dyn Sim> {
    SIM.with(Cell::get)
}

/// Fills `dest` with random bytes: the running node's stream inside a
/// simulation (so a seed draws the same bytes every time), the operating
/// system's entropy elsewhere. dst's `getrandom` replacements draw here,
/// so every generator a third-party crate seeds (rand's `thread_rng`,
/// `OsRng`) is seeded by the run.
pub fn fill_random(dest: &mut [u8]) -> std::io::Result<()> {
    if let Some(sim) = sim() {
        sim.fill_random(current(), dest);
        return Ok(());
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(dest)
}

/// Stops a node's task over a call it cannot make: dst reports the panic
/// as a finding with the run's seed.
#[track_caller]
pub(crate) fn refuse(what: &str, instead: &str) -> ! {
    panic!("dst: {what} is not available on a simulated node: {instead}")
}

/// Inside a run but outside any node's task (the world's own code, a task
/// madsim runs for nobody): nothing there may call tokio.
#[track_caller]
pub(crate) fn outside_nodes(what: &str) -> ! {
    panic!("dst: {what} was called inside a simulation run but outside every node's task; only a node's tasks may use tokio")
}
