//! EDN as Clojure's printer writes it, which is what Jepsen's files hold:
//! besides EDN proper, records (`#jepsen.history.Op{...}`), `#object[..]`
//! and `#error {..}` for what the printer cannot print, regexes, `##Inf`,
//! ratios, `N` and `M` numbers, namespaced maps and metadata.
//!
//! A recursive descent with a depth limit: nesting beyond it is an error,
//! never a stack overflow. Errors carry the line they concern; for
//! something left open at the end of the input, the line it was opened on.

mod number;
mod read;
mod stream;
#[cfg(test)]
mod tests;

pub use read::{read_one, Reader, DEPTH_MAX};
pub use stream::Items;

use std::fmt::{self, Write as _};

#[derive(Clone, Debug, PartialEq)]
/// An EDN value, as Clojure's reader reads it.
pub enum Edn {
    /// `nil`.
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in 64 bits, written with or without `N`.
    Int(i64),
    /// A larger integer: its sign and digits, without `N`.
    BigInt(String),
    /// A float, as written or as Clojure rounds it.
    Float(f64),
    /// A BigDecimal (`1.50M`): its text, without `M` or a `+`.
    Decimal(String),
    /// A ratio in lowest terms as `n/d`, `d` above 1 (the reader turns
    /// `4/2` into 2, as Clojure's does).
    Ratio(String),
    /// A character literal (`\a`, `\newline`).
    Char(char),
    /// A string, its escapes resolved.
    Str(String),
    /// Without its colon: `:jepsen.nemesis/x` is `jepsen.nemesis/x`.
    Keyword(String),
    /// A symbol, as written.
    Symbol(String),
    /// `[...]`.
    Vector(Vec<Edn>),
    /// `(...)`.
    List(Vec<Edn>),
    /// In the order written.
    Map(Vec<(Edn, Edn)>),
    /// In the order written.
    Set(Vec<Edn>),
    /// `#tag value`: a tagged literal or a record.
    Tagged(String, Box<Edn>),
    /// `#"..."`, its text as written.
    Regex(String),
}

impl Edn {
    /// The value under keyword `key` when this is a map.
    pub fn get(&self, key: &str) -> Option<&Edn> {
        match self {
            Edn::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Edn::Keyword(k) if k == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a value equal to this one, the same for all values that
    /// Clojure's `=` takes as equal among those the reader produces: lists
    /// print as vectors, and map entries and set members in sorted order.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, true);
        out
    }

    /// The value's text, cut short if long, for an error message.
    pub fn brief(&self) -> String {
        brief(self.to_string())
    }

    fn write(&self, out: &mut String, canonical: bool) {
        let seq = |out: &mut String, open: &str, items: Vec<String>, close: &str| {
            out.push_str(open);
            out.push_str(&items.join(" "));
            out.push_str(close);
        };
        let text = |e: &Edn| {
            let mut s = String::new();
            e.write(&mut s, canonical);
            s
        };
        match self {
            Edn::Nil => out.push_str("nil"),
            Edn::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Edn::Int(i) => out.push_str(&i.to_string()),
            Edn::BigInt(d) => {
                out.push_str(d);
                out.push('N');
            }
            Edn::Float(f) if f.is_nan() => out.push_str("##NaN"),
            Edn::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "##Inf" } else { "##-Inf" }),
            // Clojure's = holds 0.0 and -0.0 equal.
            Edn::Float(f) if *f == 0.0 && canonical => out.push_str("0.0"),
            Edn::Float(f) => {
                let _ = write!(out, "{f:?}");
            }
            Edn::Decimal(d) => {
                out.push_str(d);
                out.push('M');
            }
            Edn::Ratio(r) => out.push_str(r),
            Edn::Char(c) => {
                out.push('\\');
                match char_name(*c) {
                    Some(name) => out.push_str(name),
                    None => out.push(*c),
                }
            }
            Edn::Str(s) => write_string(out, s),
            Edn::Keyword(k) => {
                out.push(':');
                out.push_str(k);
            }
            Edn::Symbol(s) => out.push_str(s),
            Edn::Vector(items) => seq(out, "[", items.iter().map(text).collect(), "]"),
            Edn::List(items) if canonical => seq(out, "[", items.iter().map(text).collect(), "]"),
            Edn::List(items) => seq(out, "(", items.iter().map(text).collect(), ")"),
            Edn::Map(entries) => {
                let mut items: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{} {}", text(k), text(v)))
                    .collect();
                if canonical {
                    items.sort();
                }
                out.push('{');
                out.push_str(&items.join(", "));
                out.push('}');
            }
            Edn::Set(items) => {
                let mut items: Vec<String> = items.iter().map(text).collect();
                if canonical {
                    items.sort();
                }
                seq(out, "#{", items, "}");
            }
            Edn::Tagged(tag, value) => {
                out.push('#');
                out.push_str(tag);
                if !matches!(**value, Edn::Map(_)) {
                    out.push(' ');
                }
                value.write(out, canonical);
            }
            Edn::Regex(r) => {
                out.push('#');
                out.push('"');
                out.push_str(r);
                out.push('"');
            }
        }
    }
}

impl fmt::Display for Edn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out, false);
        f.write_str(&out)
    }
}

/// A value's text cut short if long, for an error message.
pub fn brief(text: String) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

const NAMED_CHARS: [(char, &str); 6] = [
    ('\n', "newline"),
    (' ', "space"),
    ('\t', "tab"),
    ('\r', "return"),
    ('\u{8}', "backspace"),
    ('\u{c}', "formfeed"),
];

fn char_name(c: char) -> Option<&'static str> {
    NAMED_CHARS.iter().find(|(n, _)| *n == c).map(|(_, name)| *name)
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// Text that is not EDN: where and why.
pub struct EdnError {
    /// The line the error is on, from 1.
    pub line: usize,
    /// What is wrong, on one line.
    pub message: String,
}
