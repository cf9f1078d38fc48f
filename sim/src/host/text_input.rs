//! A text file read as a stream, for readers that keep far less than the
//! text: what [`crate::host::files::read_text`] reads whole, with its checks and
//! its messages (a regular file of at most [`INPUT_BYTES_MAX`] bytes,
//! gunzipped if it is gzip to at most a bound, UTF-8).
//!
//! `read_text` refuses a file for its size, its gzip or its UTF-8 before
//! anything in it is read, wherever the fault is. So that a reader that
//! stops early (at a bad line, say) says the same, [`TextInput::finish`]
//! reads on to the end and names the file's fault if it has one: the first
//! of its size or gzip, else where it first is not UTF-8.

use crate::host::files::{GZIP_MAGIC, INPUT_BYTES_MAX};
use std::cell::{Cell, RefCell};
use std::io::{BufRead, Read};
use std::path::Path;
use std::rc::Rc;

/// Bytes read at a time.
const CHUNK: usize = 1 << 20;

/// A text file being read, with the checks and messages of `read_text`.
pub struct TextInput {
    path: String,
    source: Box<dyn Read>,
    gzip: bool,
    gunzip_max: u64,
    raw: Rc<Raw>,
    /// Bytes the source gave.
    given: u64,
    /// Bytes found to be UTF-8 so far.
    checked: u64,
    /// Text not yet consumed, from `pos`.
    buf: String,
    pos: usize,
    /// Bytes of a char the last read cut in two.
    pending: Vec<u8>,
    scratch: Vec<u8>,
    eof: bool,
    /// Its size or its gzip is wrong.
    broken: Option<String>,
    /// Where it first is not UTF-8.
    not_utf8: Option<String>,
}

/// What was read of the file itself, before any gunzip.
#[derive(Default)]
struct Raw {
    bytes: Cell<u64>,
    error: RefCell<Option<String>>,
}

struct Counted<R> {
    inner: R,
    raw: Rc<Raw>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(out) {
            Ok(n) => {
                self.raw.bytes.set(self.raw.bytes.get() + n as u64);
                Ok(n)
            }
            Err(e) => {
                if e.kind() != std::io::ErrorKind::Interrupted {
                    *self.raw.error.borrow_mut() = Some(e.to_string());
                }
                Err(e)
            }
        }
    }
}

impl TextInput {
    /// Open `path`; a gzip file is read gunzipped, to at most `gunzip_max`
    /// bytes. The error is one line.
    pub fn open(path: &Path, gunzip_max: u64) -> Result<TextInput, String> {
        let shown = crate::host::files::shown(path).to_string();
        let cannot = |e: &dyn std::fmt::Display| format!("cannot read {shown}: {e}");
        let m = crate::host::files::regular_input(path).map_err(|e| cannot(&e))?;
        let too_large = format!("it is larger than {} MB", INPUT_BYTES_MAX >> 20);
        if m.len() > INPUT_BYTES_MAX {
            return Err(cannot(&too_large));
        }
        let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
        let raw = Rc::new(Raw::default());
        let mut counted = Counted {
            inner: file.take(INPUT_BYTES_MAX + 1),
            raw: raw.clone(),
        };
        let mut magic = Vec::new();
        (&mut counted).take(2).read_to_end(&mut magic).map_err(|e| cannot(&e))?;
        let gzip = magic == GZIP_MAGIC;
        let whole = std::io::Cursor::new(magic).chain(counted);
        let source: Box<dyn Read> = if gzip {
            Box::new(flate2::read::MultiGzDecoder::new(whole))
        } else {
            Box::new(whole)
        };
        Ok(TextInput {
            path: shown,
            source,
            gzip,
            gunzip_max,
            raw,
            given: 0,
            checked: 0,
            buf: String::new(),
            pos: 0,
            pending: Vec::new(),
            scratch: vec![0; CHUNK],
            eof: false,
            broken: None,
            not_utf8: None,
        })
    }

    /// The text's first `n` bytes or more (all of it if shorter), without
    /// taking them, and whether that is all of it.
    pub fn prefix(&mut self, n: usize) -> Result<(&str, bool), String> {
        while self.buf.len() - self.pos < n && self.not_utf8.is_none() && !crate::mem::over_cap() && self.more() {}
        if self.broken.is_some() || self.not_utf8.is_some() {
            return Err(self.fault_at_end());
        }
        Ok((self.buf.get(self.pos..).unwrap_or(""), self.eof))
    }

    /// Why reading stopped short once the thread passed its memory cap.
    fn stopped_at_cap(&self) -> String {
        format!("{}: reading stopped at the memory cap", self.path)
    }

    /// The rest of the text, for readers that need it whole.
    pub fn rest(&mut self) -> Result<String, String> {
        while self.not_utf8.is_none() && !crate::mem::over_cap() && self.more() {}
        if self.broken.is_some() || self.not_utf8.is_some() {
            return Err(self.fault_at_end());
        }
        if crate::mem::over_cap() {
            return Err(self.stopped_at_cap());
        }
        Ok(self.buf.split_off(self.pos.min(self.buf.len())))
    }

    /// Read on to the end: the file's fault, if it has one, as
    /// `read_text` says it.
    pub fn finish(&mut self) -> Result<(), String> {
        loop {
            self.buf.clear();
            self.pos = 0;
            if !self.more() {
                break;
            }
        }
        match self.broken.clone().or_else(|| self.not_utf8.clone()) {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }

    fn fault_at_end(&mut self) -> String {
        self.finish().err().unwrap_or_default()
    }

    /// Read one more chunk, appending what is UTF-8 to `buf` (nothing once
    /// some was not); false at the end or once the file is found broken.
    fn more(&mut self) -> bool {
        if self.eof || self.broken.is_some() {
            return false;
        }
        let n = loop {
            match self.source.read(&mut self.scratch) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.broken = Some(self.read_fault(&e));
                    return false;
                }
            }
        };
        self.given += n as u64;
        if self.raw.bytes.get() > INPUT_BYTES_MAX {
            self.broken = Some(format!(
                "cannot read {}: it is larger than {} MB",
                self.path,
                INPUT_BYTES_MAX >> 20
            ));
            return false;
        }
        if self.gzip && self.given > self.gunzip_max {
            self.broken = Some(format!(
                "{}: gunzips to more than {} MB, more than any report",
                self.path,
                self.gunzip_max >> 20
            ));
            return false;
        }
        if n == 0 {
            self.eof = true;
            if !self.pending.is_empty() && self.not_utf8.is_none() {
                self.not_utf8 = Some(self.utf8_fault(None));
            }
            return false;
        }
        if self.not_utf8.is_some() {
            return true;
        }
        self.pending.extend_from_slice(&self.scratch[..n]);
        let (valid, bad) = match std::str::from_utf8(&self.pending) {
            Ok(_) => (self.pending.len(), None),
            Err(e) => (e.valid_up_to(), e.error_len()),
        };
        if let Ok(s) = std::str::from_utf8(&self.pending[..valid]) {
            self.buf.push_str(s);
        }
        self.pending.drain(..valid);
        self.checked += valid as u64;
        if let Some(len) = bad {
            self.not_utf8 = Some(self.utf8_fault(Some(len)));
            self.pending.clear();
        }
        true
    }

    fn read_fault(&self, e: &std::io::Error) -> String {
        if let Some(raw) = self.raw.error.borrow().as_ref() {
            return format!("cannot read {}: {raw}", self.path);
        }
        match (self.gzip, e.kind()) {
            (false, _) => format!("cannot read {}: {e}", self.path),
            (true, std::io::ErrorKind::UnexpectedEof) => format!("{}: truncated gzip ({e})", self.path),
            (true, _) => format!("{}: not valid gzip ({e})", self.path),
        }
    }

    /// As `String::from_utf8` says it of the whole text: a sequence `len`
    /// bytes long that is not UTF-8, or (`None`) one cut short by the end.
    fn utf8_fault(&self, len: Option<usize>) -> String {
        let why = match len {
            Some(len) => format!("invalid utf-8 sequence of {len} bytes from index {}", self.checked),
            None => format!("incomplete utf-8 byte sequence from index {}", self.checked),
        };
        match self.gzip {
            false => format!("cannot read {}: not UTF-8 ({why})", self.path),
            true => format!("{}: not UTF-8 text once gunzipped ({why})", self.path),
        }
    }
}

impl Read for TextInput {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(out.len());
            out[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for TextInput {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.pos == self.buf.len() {
            // Reading stops once what the thread holds passed its cap (see
            // `crate::mem::cap_from_here`): the caller says so.
            if crate::mem::over_cap() {
                return Err(std::io::Error::other(self.stopped_at_cap()));
            }
            self.buf.clear();
            self.pos = 0;
            if self.not_utf8.is_some() || !self.more() {
                if self.broken.is_some() || self.not_utf8.is_some() {
                    return Err(std::io::Error::other(format!("{} is not readable text", self.path)));
                }
                break;
            }
        }
        Ok(&self.buf.as_bytes()[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("dst-text-input-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// What `read_text` says of the file, and what reading it as a stream
    /// to the end says.
    fn both(path: &Path) -> (Result<String, String>, Result<String, String>) {
        let whole = crate::host::files::read_text(path, 1 << 20);
        let streamed = TextInput::open(path, 1 << 20).and_then(|mut t| {
            let mut text = String::new();
            let read = t.read_to_string(&mut text);
            t.finish()?;
            read.map(|_| text).map_err(|e| e.to_string())
        });
        (whole, streamed)
    }

    #[test]
    fn says_what_read_text_says() {
        let big: Vec<u8> = (0..3 * CHUNK).map(|i| b"abc\xc3\xa9\n"[i % 6]).collect();
        let mut bad_late = big.clone();
        bad_late.extend_from_slice(b"x\xffy");
        let cut_char = &big[..big.len() - 2];
        let gz = crate::host::files::gzip(&big).unwrap();
        let gz_cut = &gz[..gz.len() / 2];
        let gz_bad = crate::host::files::gzip(&bad_late).unwrap();
        let cases: [(&str, &[u8]); 7] = [
            ("empty", b""),
            ("big", &big),
            ("bad-late", &bad_late),
            ("cut-char", cut_char),
            ("gz", &gz),
            ("gz-cut", gz_cut),
            ("gz-bad", &gz_bad),
        ];
        for (name, bytes) in cases {
            let (whole, streamed) = both(&file(name, bytes));
            assert_eq!(whole, streamed, "{name}");
            let rest = TextInput::open(&file(name, bytes), 1 << 20).and_then(|mut t| t.rest());
            assert_eq!(whole, rest, "{name}");
        }
        let (whole, streamed) = both(Path::new("/no/such/file"));
        assert_eq!(whole, streamed);
        let (whole, streamed) = both(&std::env::temp_dir());
        assert_eq!(whole, streamed);
    }

    #[test]
    fn a_prefix_is_not_taken() {
        let mut t = TextInput::open(&file("prefix", b"ab\ncd\n"), 1 << 20).unwrap();
        assert_eq!(t.prefix(100).unwrap(), ("ab\ncd\n", true));
        let mut text = String::new();
        t.read_to_string(&mut text).unwrap();
        assert_eq!(text, "ab\ncd\n");
    }
}
