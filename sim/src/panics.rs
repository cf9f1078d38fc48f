//! Panics inside a run: a model's panic ends the run with an error verdict
//! that names where it happened, without the default hook's noise.

use std::cell::{Cell, RefCell};

thread_local! {
    static IN_RUN: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// In a run of async nodes: the node whose task panicked last.
    static PANIC_NODE: Cell<Option<usize>> = const { Cell::new(None) };
    static ASYNC_RUN: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as running async nodes until dropped.
pub(crate) struct InAsyncRun(bool);

impl InAsyncRun {
    pub(crate) fn enter() -> Self {
        InAsyncRun(ASYNC_RUN.with(|f| f.replace(true)))
    }
}

impl Drop for InAsyncRun {
    fn drop(&mut self) {
        ASYNC_RUN.with(|f| f.set(self.0));
    }
}

/// The node whose task panicked last, if the hook saw one.
pub(crate) fn take_panic_node() -> Option<usize> {
    PANIC_NODE.with(Cell::take)
}

/// Marks this thread as inside a run until dropped, then restores what it
/// was before.
pub(crate) struct InRun(bool);

impl InRun {
    pub(crate) fn enter() -> Self {
        InRun(IN_RUN.with(|f| f.replace(true)))
    }
}

impl Drop for InRun {
    fn drop(&mut self) {
        IN_RUN.with(|f| f.set(self.0));
    }
}

/// Keep panics inside a run quiet (they become findings with their
/// location), and leave every other panic to the default hook. Installed
/// once per process, by the first run at the latest.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_RUN.with(|f| f.get()) {
                let at = info
                    .location()
                    .map(|l| format!(" at {}:{}", portable(l.file()), l.line()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(at));
                if ASYNC_RUN.with(|f| f.get()) {
                    PANIC_NODE.with(|p| p.set(tokio::dst::current().map(|h| h.node)));
                }
            } else {
                default(info);
            }
        }));
    });
}

/// A source path that is the same on every machine: a dependency's file
/// is absolute (under cargo's home, which differs between machines), so
/// it is cut to its crate folder ("raft-0.4.3/src/raft_log.rs"), because
/// the panic message is part of the trace and so of its hash.
fn portable(file: &str) -> &str {
    if !file.starts_with('/') && !file.contains(":\\") {
        return file;
    }
    let sep = if file.contains('/') { '/' } else { '\\' };
    let Some(src) = file.rfind(&format!("{sep}src{sep}")) else {
        return file.rsplit(sep).next().unwrap_or(file);
    };
    match file[..src].rfind(sep) {
        Some(start) => &file[start + 1..],
        None => file,
    }
}

/// The message of a caught panic, with its location when the hook saw it.
pub fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    let at = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
    let text = format!("{}{at}", panic_message(payload));
    match cause(&text) {
        Some(why) => format!("{text}; {why}"),
        None => text,
    }
}

/// What a panic some dependency raises means on a simulated node, and the
/// fix, for the panics whose own words point elsewhere.
fn cause(message: &str) -> Option<&'static str> {
    const OS_THREAD: &str = "an OS thread was started on a simulated node, where it would run outside the seed's \
                             schedule: spawn a task (tokio::spawn, tokio::task::spawn_blocking) instead";
    const CAUSES: &[(&str, &str)] = &[
        (
            "must be called from the context of a Tokio 1.x runtime",
            "the graph holds a tokio that is not dst's, and nothing drives it on a simulated node: patch tokio at the \
             root of the workspace (`[patch.crates-io] tokio = { path = \"<dst>/tokio\" }`, as `dst init` writes it) \
             and check that `cargo tree -i tokio` shows one tokio",
        ),
        (
            "Cannot start a runtime from within a runtime",
            "a tokio that is not dst's tried to block a simulated node: patch tokio at the root of the workspace, \
             as `dst init` writes it",
        ),
        // madsim refuses the thread's attributes, and std asserts on that.
        ("sys/thread/unix.rs", OS_THREAD),
        ("sys/pal/unix/thread.rs", OS_THREAD),
        ("failed to spawn thread", OS_THREAD),
    ];
    CAUSES
        .iter()
        .find(|(said, _)| message.contains(said))
        .map(|(_, why)| *why)
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_foreign_tokio_and_an_os_thread_are_named_with_their_fix() {
        let tokio = "there is no reactor running, must be called from the context of a Tokio 1.x runtime";
        assert!(super::cause(tokio).unwrap().contains("[patch.crates-io] tokio"));
        let thread = "assertion `left == right` failed\n  left: -1\n right: 0 at std/src/sys/thread/unix.rs:49";
        assert!(super::cause(thread).unwrap().contains("tokio::spawn"));
        assert_eq!(super::cause("index out of bounds"), None);
    }

    #[test]
    fn a_dependency_path_is_cut_to_its_crate_folder() {
        let p = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/raft-0.4.3/src/raft_log.rs";
        assert_eq!(super::portable(p), "raft-0.4.3/src/raft_log.rs");
        assert_eq!(super::portable("sim/src/world/node.rs"), "sim/src/world/node.rs");
        assert_eq!(super::portable("/tmp/x.rs"), "x.rs");
    }
}
