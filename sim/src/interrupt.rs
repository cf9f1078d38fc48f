//! Interruption. Ctrl-C (SIGINT) or SIGTERM asks long commands to stop
//! taking new work: they finish the runs in flight, say what ran and exit
//! 130. A second signal ends the process at once. A closed stdout (a reader
//! such as `head` that went away) stops them the same way, quietly.
//!
//! Only the runner reads these flags, between runs: a run itself never sees
//! them, so an interruption cannot change any run's trace.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// The exit code of a command ended by a signal (128 + SIGINT).
pub const EXIT_SIGNAL: u8 = 130;
/// The exit code of a command whose stdout was closed (128 + SIGPIPE).
pub const EXIT_PIPE: u8 = 141;

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
static PIPE_CLOSED: AtomicBool = AtomicBool::new(false);
/// Files being written right now, removed if the process is ended mid-write.
static TEMPS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Installs the SIGINT/SIGTERM handler, once per process. Without it (a
/// library user's own program) signals keep their default meaning.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Fails only if the program installed its own handler: then that one rules.
        let _ = ctrlc::set_handler(on_signal);
    });
}

fn on_signal() {
    STOP.store(true, Ordering::SeqCst);
    if SIGNALS.fetch_add(1, Ordering::SeqCst) == 0 {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "dst: interrupted: finishing the runs in flight (interrupt again to stop at once)"
        );
    } else {
        remove_temps();
        std::process::exit(i32::from(EXIT_SIGNAL));
    }
}

/// Whether new work should not start.
pub fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Asks for a stop as a signal would (without counting as one); for tests
/// and for callers embedding the runner.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether a signal arrived.
pub fn signalled() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// Records that stdout is gone: output stops and so does new work.
pub fn pipe_closed() {
    PIPE_CLOSED.store(true, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

pub fn stdout_closed() -> bool {
    PIPE_CLOSED.load(Ordering::SeqCst)
}

/// The exit code an interruption overrides a command's own with, if any.
pub fn exit_code() -> Option<u8> {
    if signalled() {
        Some(EXIT_SIGNAL)
    } else if stdout_closed() {
        Some(EXIT_PIPE)
    } else {
        None
    }
}

pub(crate) fn track(tmp: PathBuf) {
    if let Ok(mut t) = TEMPS.lock() {
        t.insert(tmp);
    }
}

pub(crate) fn untrack(tmp: &PathBuf) {
    if let Ok(mut t) = TEMPS.lock() {
        t.remove(tmp);
    }
}

fn remove_temps() {
    // The handler may run while a writer holds the lock; it must not wait.
    if let Ok(t) = TEMPS.try_lock() {
        for p in t.iter() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// `println!` that does not panic when stdout is closed: the first failed
/// write marks the pipe closed, and later output is dropped.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::interrupt::write_out(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::interrupt::write_out(format_args!($($arg)*))
    };
}

/// `eprintln!` that does not panic when stderr is closed.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::errln!("")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

#[doc(hidden)]
pub fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    if stdout_closed() {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out.write_fmt(args).and_then(|_| out.write_all(b"\n")).is_err() {
        pipe_closed();
    }
}
