//! Reading EDN text: a recursive descent over bytes (every delimiter is
//! ASCII), counting lines for errors.

use super::number::number;
use super::{Edn, EdnError, NAMED_CHARS};
use std::cell::Cell;

/// Deeper than any history needs, shallow enough for any thread's stack.
pub const DEPTH_MAX: usize = 128;

type Result<T> = std::result::Result<T, EdnError>;

/// Exactly one value in `text` (a command line value, say).
pub fn read_one(text: &str) -> Result<Edn> {
    let mut r = Reader::new(text);
    let value = r
        .next_form()?
        .ok_or_else(|| r.error("expected an EDN value, found nothing"))?;
    match r.next_form()? {
        None => Ok(value.1),
        Some((line, _)) => Err(EdnError {
            line,
            message: "expected one EDN value, found more after it".into(),
        }),
    }
}

/// Reads EDN values one after another from a text held whole.
pub struct Reader<'a> {
    s: &'a str,
    at: usize,
    line: usize,
    /// How errors name the end of the text.
    end: &'static str,
    /// Whether reading looked for a byte past the end of `s`: only then
    /// could more text after it have changed what was read.
    past_end: Cell<bool>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' | b',')
}

/// Ends a token: Clojure's terminating characters.
fn is_delimiter(b: u8) -> bool {
    is_space(b) || b"\";()[]{}^\\@~`".contains(&b)
}

impl<'a> Reader<'a> {
    /// A reader at the start of `s`, on line 1.
    pub fn new(s: &'a str) -> Self {
        let mut r = Reader::resume(s, 1);
        if s.starts_with('\u{feff}') {
            r.at = 3;
        }
        r
    }

    /// Text that goes on from line `line` of a file, and may be cut short
    /// of its end: see [`Reader::past_end`].
    pub fn resume(s: &'a str, line: usize) -> Self {
        Reader {
            s,
            at: 0,
            line,
            end: "the end of the input",
            past_end: Cell::new(false),
        }
    }

    /// Whether reading looked past the end of the text. A result read
    /// without doing so is what the text followed by anything gives; one
    /// read with it may be changed by more text.
    pub fn past_end(&self) -> bool {
        self.past_end.get()
    }

    /// Bytes of the text read so far, and the line reading is on.
    pub fn position(&self) -> (usize, usize) {
        (self.at, self.line)
    }

    /// For text that is one line of a file: errors say "the end of the line".
    pub fn one_line(mut self) -> Self {
        self.end = "the end of the line";
        self
    }

    /// The next top-level value and the line it starts on; `None` at the end.
    pub fn next_form(&mut self) -> Result<Option<(usize, Edn)>> {
        self.skip_space(0)?;
        if self.peek().is_none() {
            return Ok(None);
        }
        let line = self.line;
        self.value(0).map(|v| Some((line, v)))
    }

    /// If the next value is a vector or a list, step inside it and return
    /// its closing bracket and the line it opens on; read its items with
    /// [`Reader::next_in`]. For files that are one long sequence, so that
    /// each item keeps its own line.
    pub fn enter(&mut self) -> Result<Option<(u8, usize)>> {
        self.skip_space(0)?;
        let close = match self.peek() {
            Some(b'[') => b']',
            Some(b'(') => b')',
            _ => return Ok(None),
        };
        let line = self.line;
        self.at += 1;
        Ok(Some((close, line)))
    }

    /// The next item of the sequence [`Reader::enter`] stepped into and its
    /// line; `None` once past its closing bracket.
    pub fn next_in(&mut self, (close, opened): (u8, usize)) -> Result<Option<(usize, Edn)>> {
        self.skip_space(1)?;
        match self.peek() {
            Some(c) if c == close => {
                self.at += 1;
                Ok(None)
            }
            None => Err(self.unclosed(close, sequence(close), opened)),
            Some(_) => {
                let line = self.line;
                self.value(1).map(|v| Some((line, v)))
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.byte(self.at)
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.byte(self.at + ahead)
    }

    fn byte(&self, i: usize) -> Option<u8> {
        let b = self.s.as_bytes().get(i).copied();
        if b.is_none() {
            self.past_end.set(true);
        }
        b
    }

    /// Step over one byte, counting lines.
    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
        }
        self.at += 1;
    }

    fn error(&self, message: impl Into<String>) -> EdnError {
        EdnError {
            line: self.line,
            message: message.into(),
        }
    }

    /// `what` was opened on line `opened` and is still open at the end.
    fn unclosed(&self, close: u8, what: &str, opened: usize) -> EdnError {
        EdnError {
            line: opened,
            message: format!("expected '{}' to close the {what}, found {}", close as char, self.end),
        }
    }

    /// Whitespace, commas, comments and discarded values (`#_ value`).
    fn skip_space(&mut self, depth: usize) -> Result<()> {
        loop {
            match self.peek() {
                Some(b) if is_space(b) => self.bump(),
                Some(b';') => self.skip_comment(),
                Some(b'#') if self.peek_at(1) == Some(b'!') => self.skip_comment(),
                Some(b'#') if self.peek_at(1) == Some(b'_') => {
                    // `#_ #_ ...` nests without passing through `value`.
                    if depth > DEPTH_MAX {
                        return Err(self.error(format!("nested deeper than {DEPTH_MAX}")));
                    }
                    self.at += 2;
                    self.skip_space(depth + 1)?;
                    if self.peek().is_none() {
                        return Err(self.error(format!("expected a value to discard after #_, found {}", self.end)));
                    }
                    self.value(depth + 1)?;
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|b| b != b'\n') {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Edn> {
        if depth > DEPTH_MAX {
            return Err(self.error(format!("nested deeper than {DEPTH_MAX}")));
        }
        self.skip_space(depth)?;
        let line = self.line;
        match self.peek() {
            None => Err(self.error(format!("expected a value, found {}", self.end))),
            Some(b'[') => self.items(b']', "vector", depth).map(Edn::Vector),
            Some(b'(') => self.items(b')', "list", depth).map(Edn::List),
            Some(b'{') => self.map(depth),
            Some(c @ (b']' | b')' | b'}')) => {
                Err(self.error(format!("expected a value, found a closing bracket '{}'", c as char)))
            }
            Some(b'"') => self.string().map(Edn::Str),
            Some(b'\\') => self.character().map(Edn::Char),
            Some(b'#') => self.dispatch(depth),
            Some(b'^') => {
                // Metadata says nothing about the value: read it and drop it.
                self.at += 1;
                self.value(depth + 1)?;
                self.skip_space(depth)?;
                if self.peek().is_none() {
                    return Err(EdnError {
                        line,
                        message: format!("expected a value after the metadata, found {}", self.end),
                    });
                }
                self.value(depth + 1)
            }
            Some(c @ (b'@' | b'~' | b'`')) => Err(self.error(format!("'{}' is not EDN", c as char))),
            Some(_) => {
                let token = self.token();
                atom(token).map_err(|m| EdnError { line, message: m })
            }
        }
    }

    /// Up to the next delimiter; at least one byte.
    fn token(&mut self) -> &'a str {
        let start = self.at;
        self.at += 1;
        while self.peek().is_some_and(|b| !is_delimiter(b)) {
            self.at += 1;
        }
        // It starts on a char boundary and ends at an ASCII delimiter or the
        // end, so slicing cannot split a char.
        &self.s[start..self.at]
    }

    fn items(&mut self, close: u8, what: &str, depth: usize) -> Result<Vec<Edn>> {
        let opened = self.line;
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space(depth + 1)?;
            match self.peek() {
                None => return Err(self.unclosed(close, what, opened)),
                Some(c) if c == close => {
                    self.at += 1;
                    return Ok(items);
                }
                Some(_) => items.push(self.value(depth + 1)?),
            }
        }
    }

    fn map(&mut self, depth: usize) -> Result<Edn> {
        let opened = self.line;
        self.at += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_space(depth + 1)?;
            match self.peek() {
                None => return Err(self.unclosed(b'}', "map", opened)),
                Some(b'}') => {
                    self.at += 1;
                    self.distinct(entries.iter().map(|(k, _)| k), "map key")?;
                    return Ok(Edn::Map(entries));
                }
                Some(_) => {}
            }
            let key = self.value(depth + 1)?;
            self.skip_space(depth + 1)?;
            let missing = match self.peek() {
                None => Some(self.end.to_string()),
                Some(b'}') => Some("the closing bracket '}'".to_string()),
                Some(_) => None,
            };
            if let Some(found) = missing {
                return Err(self.error(format!("expected a value for key {}, found {found}", key.brief())));
            }
            let value = self.value(depth + 1)?;
            entries.push((key, value));
        }
    }

    /// Refuses a value written twice where Clojure's reader does (map keys,
    /// set members): equal as `=` takes them, so `1` and `1N` are one key.
    fn distinct<'v>(&self, values: impl Iterator<Item = &'v Edn>, what: &str) -> Result<()> {
        let mut seen = std::collections::BTreeSet::new();
        for v in values {
            if !seen.insert(v.canonical()) {
                return Err(self.error(format!("duplicate {what} {}", v.brief())));
            }
        }
        Ok(())
    }

    fn dispatch(&mut self, depth: usize) -> Result<Edn> {
        let line = self.line;
        match self.peek_at(1) {
            Some(b'{') => {
                self.at += 1;
                let items = self.items(b'}', "set", depth)?;
                self.distinct(items.iter(), "set member")?;
                Ok(Edn::Set(items))
            }
            Some(b'#') => {
                self.at += 2;
                let name = if self.peek().is_some_and(|b| !is_delimiter(b)) {
                    self.token()
                } else {
                    ""
                };
                match name {
                    "Inf" => Ok(Edn::Float(f64::INFINITY)),
                    "-Inf" => Ok(Edn::Float(f64::NEG_INFINITY)),
                    "NaN" => Ok(Edn::Float(f64::NAN)),
                    _ => Err(EdnError {
                        line,
                        message: format!("unknown symbolic value '##{name}' (##Inf, ##-Inf or ##NaN)"),
                    }),
                }
            }
            Some(b'"') => {
                self.at += 1;
                self.regex().map(Edn::Regex)
            }
            Some(b':') => {
                self.at += 1;
                let ns = self.token()[1..].to_string();
                self.skip_space(depth)?;
                if ns.is_empty() || self.peek() != Some(b'{') {
                    return Err(EdnError {
                        line,
                        message: "expected a namespaced map like #:ns{:a 1}".into(),
                    });
                }
                match self.map(depth)? {
                    Edn::Map(entries) => {
                        let entries: Vec<(Edn, Edn)> = entries.into_iter().map(|(k, v)| (qualify(&ns, k), v)).collect();
                        self.distinct(entries.iter().map(|(k, _)| k), "map key")?;
                        Ok(Edn::Map(entries))
                    }
                    other => Ok(other),
                }
            }
            Some(b) if b.is_ascii_alphabetic() || b >= 0x80 => {
                self.at += 1;
                let tag = self.token().to_string();
                self.skip_space(depth + 1)?;
                if self.peek().is_none() {
                    return Err(EdnError {
                        line,
                        message: format!("expected a value after the tag #{tag}, found {}", self.end),
                    });
                }
                let value = self.value(depth + 1)?;
                Ok(Edn::Tagged(tag, Box::new(value)))
            }
            Some(b) if !is_space(b) => Err(self.error(format!("'#{}' is not EDN", b as char))),
            _ => Err(self.error("'#' with no tag after it")),
        }
    }

    fn string(&mut self) -> Result<String> {
        let opened = self.line;
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while self.peek().is_some_and(|b| b != b'"' && b != b'\\') {
                self.bump();
            }
            out.push_str(&self.s[start..self.at]);
            match self.peek() {
                None => {
                    return Err(EdnError {
                        line: opened,
                        message: format!("unterminated string, open to {}", self.end),
                    })
                }
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(_) => {
                    self.at += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
            }
        }
    }

    /// What follows a backslash in a string.
    fn escape(&mut self) -> Result<char> {
        let Some(e) = self.peek() else {
            return Err(self.error(format!("unterminated string, open to {}", self.end)));
        };
        self.at += 1;
        Ok(match e {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'"' => '"',
            b'\\' => '\\',
            b'u' => {
                let hi = self.hex4()?;
                if (0xDC00..0xE000).contains(&hi) {
                    return Err(self.error(format!("lone surrogate \\u{hi:04X} in string")));
                }
                if (0xD800..0xDC00).contains(&hi) {
                    // Java strings are UTF-16: a char beyond the BMP is a pair.
                    let lo = match (self.peek(), self.peek_at(1)) {
                        (Some(b'\\'), Some(b'u')) => {
                            self.at += 2;
                            self.hex4()?
                        }
                        _ => 0,
                    };
                    if !(0xDC00..0xE000).contains(&lo) {
                        return Err(self.error(format!("lone surrogate \\u{hi:04X} in string")));
                    }
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return char::from_u32(c).ok_or_else(|| self.error("bad surrogate pair in string"));
                }
                char::from_u32(hi).ok_or_else(|| self.error("bad \\u escape in string"))?
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.at += 1;
                        }
                        _ => break,
                    }
                }
                if v > 0o377 {
                    return Err(self.error("octal escape above \\377 in string"));
                }
                char::from_u32(v).unwrap_or('\u{fffd}')
            }
            _ => {
                let c = self.s[self.at - 1..].chars().next().unwrap_or('?');
                return Err(self.error(format!("unsupported escape '\\{c}' in string")));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        if self.at + 4 > self.s.len() {
            self.past_end.set(true);
        }
        let digits = self
            .s
            .get(self.at..self.at + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        let Some(d) = digits else {
            return Err(self.error("expected 4 hex digits after \\u"));
        };
        self.at += 4;
        Ok(u32::from_str_radix(d, 16).unwrap_or(0))
    }

    /// A regex's text is kept as written: its backslashes are the regex's.
    fn regex(&mut self) -> Result<String> {
        let opened = self.line;
        self.at += 1;
        let start = self.at;
        loop {
            match self.peek() {
                None => {
                    return Err(EdnError {
                        line: opened,
                        message: format!("unterminated regex, open to {}", self.end),
                    })
                }
                Some(b'"') => {
                    let text = self.s[start..self.at].to_string();
                    self.at += 1;
                    return Ok(text);
                }
                Some(b'\\') => {
                    self.at += 1;
                    if self.peek().is_some() {
                        self.bump();
                    }
                }
                Some(_) => self.bump(),
            }
        }
    }

    fn character(&mut self) -> Result<char> {
        self.at += 1;
        let Some(first) = self.s[self.at..].chars().next() else {
            self.past_end.set(true);
            return Err(self.error(format!("expected a character after '\\', found {}", self.end)));
        };
        let start = self.at;
        self.at += first.len_utf8();
        while self.peek().is_some_and(|b| !is_delimiter(b)) {
            self.at += 1;
        }
        let name = &self.s[start..self.at];
        if name.len() == first.len_utf8() {
            return Ok(first);
        }
        if let Some((c, _)) = NAMED_CHARS.iter().find(|(_, n)| *n == name) {
            return Ok(*c);
        }
        let code = match (name.strip_prefix('u'), name.strip_prefix('o')) {
            (Some(hex), _) if hex.len() == 4 => u32::from_str_radix(hex, 16).ok(),
            (_, Some(oct)) if (1..=3).contains(&oct.len()) => u32::from_str_radix(oct, 8).ok().filter(|&v| v <= 0o377),
            _ => None,
        };
        code.and_then(char::from_u32)
            .ok_or_else(|| self.error(format!("unsupported character '\\{name}'")))
    }
}

/// What a sequence [`Reader::enter`] steps into is, by its closing bracket.
fn sequence(close: u8) -> &'static str {
    if close == b']' {
        "vector"
    } else {
        "list"
    }
}

/// `#:ns{:a 1}` is `{:ns/a 1}`; `:_/a` stays `:a`.
fn qualify(ns: &str, key: Edn) -> Edn {
    let q = |name: String| match name.strip_prefix("_/") {
        Some(bare) => bare.to_string(),
        None if name.contains('/') => name,
        None => format!("{ns}/{name}"),
    };
    match key {
        Edn::Keyword(k) => Edn::Keyword(q(k)),
        Edn::Symbol(s) => Edn::Symbol(q(s)),
        other => other,
    }
}

/// A token: nil, a boolean, a number, a keyword or a symbol.
fn atom(t: &str) -> std::result::Result<Edn, String> {
    match t {
        "nil" => return Ok(Edn::Nil),
        "true" => return Ok(Edn::Bool(true)),
        "false" => return Ok(Edn::Bool(false)),
        _ => {}
    }
    if let Some(k) = t.strip_prefix(':') {
        if k.is_empty() || k.starts_with(':') || k.ends_with('/') {
            return Err(format!("'{t}' is not an EDN keyword"));
        }
        return Ok(Edn::Keyword(k.to_string()));
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned.starts_with(|c: char| c.is_ascii_digit()) {
        return number(t).ok_or_else(|| format!("cannot read '{t}' as a number"));
    }
    Ok(Edn::Symbol(t.to_string()))
}
