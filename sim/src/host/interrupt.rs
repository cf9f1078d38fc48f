//! Interruption. Ctrl-C (SIGINT) or SIGTERM asks long commands to stop
//! taking new work: they finish the runs in flight, say what ran and exit
//! 130. A second signal ends the process at once. A closed stdout (a reader
//! such as `head` that went away) stops them the same way, quietly.
//!
//! The runner reads these flags between runs, so an interruption cannot
//! change the trace of any run a campaign counts. A command that does one
//! run (`run`, `replay`) asks for runs to be cut instead ([`cut_runs`]):
//! the world then looks at the flag every few thousand events and ends
//! the run as interrupted, with a report of what it did so far.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// The exit code of a command ended by a signal (128 + SIGINT).
pub(crate) const EXIT_SIGNAL: u8 = 130;
/// The exit code of a command whose stdout was closed (128 + SIGPIPE).
pub(crate) const EXIT_PIPE: u8 = 141;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static PIPE_CLOSED: AtomicBool = AtomicBool::new(false);
static CUT_RUNS: AtomicBool = AtomicBool::new(false);
/// Why stdout could not be written, when it was not a closed pipe (a full
/// disk, an I/O error): that is a failed command, not a reader gone away.
static WRITE_FAILED: Mutex<Option<String>> = Mutex::new(None);
/// Files being written right now, removed if the process is ended mid-write.
static TEMPS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// Installs the SIGINT/SIGTERM handler, once per process. Without it (a
/// library user's own program) signals keep their default meaning.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Fails only if the program installed its own handler: then that one rules.
        let _ = ctrlc::set_handler(on_signal);
        // A file-size limit (`ulimit -f`) would otherwise kill the process
        // mid-write with its temporary file left behind; ignored, the write
        // fails with EFBIG and is reported as any other write error.
        // SAFETY: SIG_IGN needs no handler code and no state.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
    });
}

fn on_signal() {
    linearizability::stop::request();
    if SIGNALS.fetch_add(1, Ordering::SeqCst) == 0 {
        use std::io::Write;
        let what = match CUT_RUNS.load(Ordering::SeqCst) {
            true => "ending the run and writing what it did",
            false => "finishing the runs in flight",
        };
        let _ = writeln!(
            std::io::stderr(),
            "dst: interrupted: {what} (interrupt again to stop at once)"
        );
    } else {
        remove_temps();
        std::process::exit(i32::from(EXIT_SIGNAL));
    }
}

/// Whether new work should not start.
pub fn stopping() -> bool {
    // One flag with the linearizability checker's, which reads it alone.
    linearizability::stop::requested()
}

/// Asks for a stop as a signal would (without counting as one); for tests
/// and for callers embedding the runner.
pub fn request_stop() {
    linearizability::stop::request();
}

/// Makes a stop end the run in progress, not only keep new runs from
/// starting: for commands whose one run may be long.
pub fn cut_runs() {
    CUT_RUNS.store(true, Ordering::SeqCst);
}

/// Whether the run in progress should end now, as interrupted.
#[inline]
pub(crate) fn cut_now() -> bool {
    CUT_RUNS.load(Ordering::Relaxed) && linearizability::stop::requested()
}

/// Whether a signal arrived.
pub fn signalled() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}

/// Records that stdout is gone: output stops and so does new work.
pub(crate) fn pipe_closed() {
    PIPE_CLOSED.store(true, Ordering::SeqCst);
    linearizability::stop::request();
}

/// Whether stdout is gone (see [`pipe_closed`], [`stdout_failed`]).
pub(crate) fn stdout_closed() -> bool {
    PIPE_CLOSED.load(Ordering::SeqCst)
}

/// Records that stdout failed for another reason than a closed pipe:
/// output and new work stop, and the command ends with exit 2.
pub fn stdout_failed(e: &std::io::Error) {
    if let Ok(mut w) = WRITE_FAILED.lock() {
        w.get_or_insert_with(|| e.to_string());
    }
    pipe_closed();
}

/// Why stdout could not be written, if it failed (see [`stdout_failed`]).
pub fn stdout_error() -> Option<String> {
    WRITE_FAILED.lock().ok().and_then(|w| w.clone())
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
        $crate::host::interrupt::write_out(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::host::interrupt::write_out(format_args!($($arg)*))
    };
}

/// `eprintln!` that does not panic when stderr is closed.
#[macro_export]
macro_rules! errln {
    () => {
        $crate::errln!("")
    };
    ($($arg:tt)*) => {
        $crate::host::interrupt::write_err(format_args!($($arg)*))
    };
}

#[doc(hidden)]
pub fn write_err(args: std::fmt::Arguments) {
    use std::io::Write;
    let text = std::fmt::format(args);
    let _ = writeln!(std::io::stderr(), "{}", crate::one_line::terminal_safe(&text));
}

/// Standard output written a piece at a time, as [`outln!`](crate::outln)
/// writes a line: each piece made terminal-safe (its JSON escapes for what
/// a terminal would obey), a closed pipe ending it quietly. For output too
/// long to hold whole.
pub struct Stdout(std::io::BufWriter<std::io::Stdout>);

impl Stdout {
    /// Standard output, buffered.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Stdout {
        Stdout(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout()))
    }

    /// Writes `text`; an error stops the writer (and is recorded as
    /// `outln!` records it).
    pub fn piece(&mut self, text: &str) -> std::io::Result<()> {
        use std::io::Write;
        if stdout_closed() {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        }
        let text = crate::one_line::terminal_safe(text);
        self.0.write_all(text.as_bytes()).inspect_err(Self::failed)
    }

    /// Ends the line and flushes.
    pub fn end_line(mut self) {
        use std::io::Write;
        if !stdout_closed() {
            let _ = self
                .0
                .write_all(b"\n")
                .and_then(|()| self.0.flush())
                .inspect_err(Self::failed);
        }
    }

    fn failed(e: &std::io::Error) {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => pipe_closed(),
            _ => stdout_failed(e),
        }
    }
}

#[doc(hidden)]
pub fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    if stdout_closed() {
        return;
    }
    let text = match args.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(std::fmt::format(args)),
    };
    let text = crate::one_line::terminal_safe(&text);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.write_all(b"\n")) {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => pipe_closed(),
            _ => stdout_failed(&e),
        }
    }
}
