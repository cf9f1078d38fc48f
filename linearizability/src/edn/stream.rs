//! The items of a history file read from a stream, one at a time, so that
//! a file far larger than what is kept of it is never held whole: the items
//! of its one top-level vector (or list), or else every top-level value.
//!
//! The text is read in chunks. Each step reads from what is buffered; a
//! step that looked past the end of the buffer (a value cut in two, a
//! comment running on) is taken again once more text is in, so every
//! result and every error is the one the whole text gives. A value longer
//! than the buffer grows it by as much again, keeping the re-reading linear.

use super::{Edn, EdnError, Reader};
use std::io::BufRead;

/// Bytes read ahead at a time.
const CHUNK: usize = 1 << 20;

/// The items of an EDN stream read a chunk at a time: the values of a
/// top-level vector or list, or a sequence of top-level values, so a large
/// file is never held whole.
pub struct Items<R> {
    input: R,
    chunk: usize,
    /// Text not yet read as items, from `start`; complete UTF-8 chars only.
    text: String,
    start: usize,
    /// The line `text[start..]` starts on.
    line: usize,
    /// Bytes of a char cut by the end of a chunk.
    pending: Vec<u8>,
    eof: bool,
    began: bool,
    state: State,
}

#[derive(Clone, Copy)]
enum State {
    Start,
    /// Inside the top-level sequence: its closing bracket and first line.
    Sequence(u8, usize),
    AfterSequence,
    TopLevel,
    Done,
}

impl<R: BufRead> Items<R> {
    /// The items of `input`, read in chunks of 1 MiB.
    pub fn new(input: R) -> Self {
        Items::with_chunk(input, CHUNK)
    }

    /// Reading ahead `chunk` bytes at a time (at least 1).
    pub fn with_chunk(input: R, chunk: usize) -> Self {
        Items {
            input,
            chunk: chunk.max(1),
            text: String::new(),
            start: 0,
            line: 1,
            pending: Vec::new(),
            eof: false,
            began: false,
            state: State::Start,
        }
    }

    /// The next item and the line it starts on; `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<(usize, Edn)>, EdnError> {
        loop {
            match self.state {
                State::Start => {
                    self.state = match self.step(|r| r.enter())? {
                        Some(seq) => State::Sequence(seq.0, seq.1),
                        None => State::TopLevel,
                    };
                }
                State::Sequence(close, opened) => match self.step(|r| r.next_in((close, opened)))? {
                    Some(item) => return Ok(Some(item)),
                    None => self.state = State::AfterSequence,
                },
                State::AfterSequence => {
                    if let Some((line, _)) = self.step(|r| r.next_form())? {
                        return Err(EdnError {
                            line,
                            message: "unexpected value after the history's closing bracket".into(),
                        });
                    }
                    self.state = State::Done;
                }
                State::TopLevel => match self.step(|r| r.next_form())? {
                    Some(item) => return Ok(Some(item)),
                    None => self.state = State::Done,
                },
                State::Done => return Ok(None),
            }
        }
    }

    /// One step of reading, taken again with more text for as long as it
    /// looks past the end of what is buffered and the input has more.
    fn step<T>(&mut self, read: impl Fn(&mut Reader<'_>) -> Result<T, EdnError>) -> Result<T, EdnError> {
        let mut refills = 0;
        loop {
            let (got, past_end, (at, line)) = {
                let mut r = Reader::resume(&self.text[self.start..], self.line);
                let got = read(&mut r);
                (got, r.past_end(), r.position())
            };
            if past_end && !self.eof {
                self.refill()?;
                refills += 1;
                // One form longer than a chunk is parsed again over all
                // the text buffered for it, and its values can take many
                // times that text (a value per two bytes: `0 0 0`). Under
                // a memory cap, stop before a parse that may not fit.
                if refills > 1 {
                    self.fits_the_cap()?;
                }
                continue;
            }
            if got.is_ok() {
                self.start += at;
                self.line = line;
            }
            return got;
        }
    }

    /// Drop what was read and buffer at least as much again as is left
    /// (a chunk at least), or up to the end of the input.
    fn refill(&mut self) -> Result<(), EdnError> {
        self.text.drain(..self.start);
        self.start = 0;
        let want = self.chunk.max(self.text.len());
        let mut got = 0;
        while got < want {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.error_at_end(format!("cannot read: {e}"))),
            };
            if chunk.is_empty() {
                self.eof = true;
                break;
            }
            let n = chunk.len();
            self.pending.extend_from_slice(chunk);
            self.input.consume(n);
            got += n;
        }
        let (valid, bad) = match std::str::from_utf8(&self.pending) {
            Ok(_) => (self.pending.len(), false),
            Err(e) => (e.valid_up_to(), e.error_len().is_some() || self.eof),
        };
        if let Ok(s) = std::str::from_utf8(&self.pending[..valid]) {
            self.text.push_str(s);
        }
        self.pending.drain(..valid);
        if bad {
            return Err(self.error_at_end("not UTF-8 text".into()));
        }
        // Known once the first char is in, and before any of it is read.
        if !self.began && !self.text.is_empty() {
            self.began = true;
            if self.text.starts_with('\u{feff}') {
                self.start = 3;
            }
        }
        Ok(())
    }

    /// Whether parsing the buffered text again fits in what the thread's
    /// memory cap leaves (see [`crate::mem::cap_from_here`]); where it may
    /// not, the thread is marked over its cap and reading stops.
    fn fits_the_cap(&self) -> Result<(), EdnError> {
        if crate::mem::room_to_parse(self.text.len() - self.start) {
            return Ok(());
        }
        Err(self.error_at_end(format!(
            "reading stopped at the memory cap: one value of over {} MB of text would not fit",
            (self.text.len() - self.start) >> 20
        )))
    }

    /// An error at the end of what is buffered.
    fn error_at_end(&self, message: String) -> EdnError {
        let lines = self.text[self.start..].bytes().filter(|&b| b == b'\n').count();
        EdnError {
            line: self.line + lines,
            message,
        }
    }
}
