//! Panics inside a run: a model's panic ends the run with an error verdict
//! that names where it happened, without the default hook's noise.

use std::cell::{Cell, RefCell};

thread_local! {
    static IN_RUN: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks this thread as inside a run until dropped, then restores what it
/// was before.
pub(super) struct InRun(bool);

impl InRun {
    pub(super) fn enter() -> Self {
        InRun(IN_RUN.with(|f| f.replace(true)))
    }
}

impl Drop for InRun {
    fn drop(&mut self) {
        IN_RUN.with(|f| f.set(self.0));
    }
}

/// Keep panics inside a run quiet (they become findings with their
/// location), and leave every other panic to the default hook.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if IN_RUN.with(|f| f.get()) {
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(at));
        } else {
            default(info);
        }
    }));
}

/// The message of a caught panic, with its location when the hook saw it.
pub fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    let at = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
    format!("{}{at}", panic_message(payload))
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
