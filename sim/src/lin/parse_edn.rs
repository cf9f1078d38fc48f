//! Key-value histories in EDN, one op event a line (the format of
//! porcupine's and Jepsen's kv tests):
//!
//! ```text
//! {:process 0, :type :invoke, :f :append, :key "3", :value "x 0 1 y"}
//! {:process 0, :type :ok, :f :append, :key "3", :value "x 0 1 y"}
//! {:process 1, :type :invoke, :f :get, :key "3", :value nil}
//! {:process 1, :type :ok, :f :get, :key "3", :value "x 0 1 y"}
//! ```
//!
//! `:f` is `:get`, `:put` or `:append`; keys start as "". Other map keys
//! (`:time`, `:index`, ..) are ignored; blank lines and `;` comments skipped.

use super::history::{History, ParseError, Recorder};
use super::string_kv::{StrKvOp, StrKvOutput};

/// An EDN value, as far as these histories need one.
#[derive(Clone, Debug, PartialEq)]
enum Edn {
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    Keyword(String),
    /// Vectors, lists, sets and maps: read so that a line carrying one
    /// parses, but never looked into.
    Nested,
}

/// Deep enough for any real history, shallow enough for any stack.
const DEPTH_MAX: usize = 64;

struct Reader<'a> {
    s: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self.at < self.s.len() && (self.s[self.at].is_ascii_whitespace() || self.s[self.at] == b',') {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.s.get(self.at).copied()
    }

    fn token(&mut self) -> &str {
        let start = self.at;
        while self.at < self.s.len() && !b" \t\r\n,{}[]()\"".contains(&self.s[self.at]) {
            self.at += 1;
        }
        std::str::from_utf8(&self.s[start..self.at]).unwrap_or("")
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1; // opening quote
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.at) {
            self.at += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|_| "string is not UTF-8".to_string()),
                b'\\' => {
                    let e = self.s.get(self.at).copied().ok_or("unterminated string")?;
                    self.at += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'"' | b'\\' => e,
                        _ => return Err(format!("unsupported escape '\\{}' in string", e as char)),
                    });
                }
                _ => out.push(c),
            }
        }
        Err("unterminated string".into())
    }

    /// One value. Collections are skipped with a depth count, not by
    /// recursion, so nesting costs no stack.
    fn value(&mut self) -> Result<Edn, String> {
        match self.peek() {
            None => Err("expected a value, found the end of the line".into()),
            Some(b'"') => self.string().map(Edn::Str),
            Some(b'{' | b'[' | b'(') => self.skip_nested().map(|_| Edn::Nested),
            Some(b'#') if self.s.get(self.at + 1) == Some(&b'{') => {
                self.at += 1;
                self.skip_nested().map(|_| Edn::Nested)
            }
            Some(b'#') => Err("tagged EDN values are not supported".into()),
            Some(b'}' | b']' | b')') => Err("expected a value, found a closing bracket".into()),
            Some(_) => {
                let t = self.token();
                Ok(match t {
                    "nil" => Edn::Nil,
                    "true" => Edn::Bool(true),
                    "false" => Edn::Bool(false),
                    _ if t.starts_with(':') && t.len() > 1 => Edn::Keyword(t[1..].to_string()),
                    _ => Edn::Int(t.parse().map_err(|_| format!("cannot read '{t}' as an EDN value"))?),
                })
            }
        }
    }

    fn skip_nested(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err("unclosed bracket".into()),
                Some(b'"') => {
                    self.string()?;
                }
                Some(b'#') => self.at += 1, // a set's marker, or a tag: skipped with what follows
                Some(b'{' | b'[' | b'(') => {
                    depth += 1;
                    if depth > DEPTH_MAX {
                        return Err(format!("nested deeper than {DEPTH_MAX}"));
                    }
                    self.at += 1;
                }
                Some(b'}' | b']' | b')') => {
                    self.at += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(_) => {
                    if self.token().is_empty() {
                        self.at += 1;
                    }
                }
            }
        }
    }

    /// A flat map of keyword keys, the whole line.
    fn map(&mut self) -> Result<Vec<(String, Edn)>, String> {
        if self.peek() != Some(b'{') {
            return Err("expected a map like {:process 0, :type :invoke, ...}".into());
        }
        self.at += 1;
        let mut fields = Vec::new();
        loop {
            match self.peek() {
                Some(b'}') => break,
                None => return Err("expected '}' to close the map".into()),
                _ => {}
            }
            let key = match self.value()? {
                Edn::Keyword(k) => k,
                other => return Err(format!("expected a keyword map key, found {other:?}")),
            };
            fields.push((key, self.value()?));
        }
        self.at += 1;
        if self.peek().is_some() {
            return Err("unexpected text after the map".into());
        }
        Ok(fields)
    }
}

/// Parse a whole history; the error names the first bad line.
pub fn parse(text: &str) -> Result<History<StrKvOp, StrKvOutput>, ParseError> {
    let mut rec = Recorder::new("process", "line");
    for (n, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if t.is_empty() || t.starts_with(';') {
            continue;
        }
        record(&mut rec, t, n as u64 + 1).map_err(|m| ParseError::at(n + 1, m))?;
    }
    if rec.is_empty() {
        return Err(ParseError::whole(
            "no EDN history lines (like `{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}`)",
        ));
    }
    Ok(rec.finish())
}

fn record(rec: &mut Recorder<StrKvOp, StrKvOutput>, line_text: &str, line: u64) -> Result<(), String> {
    let fields = Reader {
        s: line_text.as_bytes(),
        at: 0,
    }
    .map()?;
    let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v);
    let process = match get("process") {
        Some(Edn::Int(p)) if *p >= 0 => *p as u64,
        Some(other) => return Err(format!("expected a process number, found {other:?}")),
        None => return Err("missing :process".into()),
    };
    let kind = match get("type") {
        Some(Edn::Keyword(k)) if ["invoke", "ok", "fail", "info"].contains(&k.as_str()) => k.as_str(),
        Some(other) => return Err(format!("expected :invoke, :ok, :fail or :info, found {other:?}")),
        None => return Err("missing :type".into()),
    };
    let func = match get("f") {
        Some(Edn::Keyword(f)) if ["get", "put", "append"].contains(&f.as_str()) => f.as_str(),
        Some(other) => return Err(format!("expected :f :get, :put or :append, found {other:?}")),
        None => return Err("missing :f".into()),
    };
    let key = match get("key") {
        Some(Edn::Str(k)) => k.clone(),
        Some(Edn::Int(k)) => k.to_string(),
        Some(other) => return Err(format!("expected a string or integer :key, found {other:?}")),
        None => return Err("missing :key".into()),
    };
    let value = get("value").unwrap_or(&Edn::Nil);
    let string = |what: &str| match value {
        Edn::Str(s) => Ok(s.clone()),
        other => Err(format!("expected a string :value {what}, found {other:?}")),
    };
    if kind == "invoke" {
        let input = match func {
            "get" => StrKvOp::Get(key),
            "put" => StrKvOp::Put(key, string("to put")?),
            _ => StrKvOp::Append(key, string("to append")?),
        };
        return rec.invoke(process, input, line);
    }
    let invoked = rec.open_op(process)?;
    let (f0, k0) = match &invoked.input {
        StrKvOp::Get(k) => ("get", k),
        StrKvOp::Put(k, _) => ("put", k),
        StrKvOp::Append(k, _) => ("append", k),
    };
    if (f0, k0.as_str()) != (func, key.as_str()) {
        return Err(format!(
            "process {process} completes :{func} on key {key:?} but invoked :{f0} on key {k0:?} on line {}",
            invoked.invoke
        ));
    }
    match kind {
        "fail" => rec.fail(process, line),
        "info" => rec.info(process, line),
        _ if func == "get" => {
            // A missing key reads as "", whichever way the client wrote it.
            let v = match value {
                Edn::Nil => String::new(),
                _ => string("read")?,
            };
            rec.ok(process, StrKvOutput::Value(v), line)
        }
        _ => rec.ok(process, StrKvOutput::Done, line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kv_lines() {
        let text = r#"{:process 0, :type :invoke, :f :append, :key "3", :value "x 0 1 y"}
{:process 1, :type :invoke, :f :get, :key "3", :value nil, :time 12, :error [:a {:b "c}"}]}
{:process 0, :type :ok, :f :append, :key "3", :value "x 0 1 y"}
; a comment

{:process 1, :type :ok, :f :get, :key "3", :value "x 0 1 y"}
{:process 2 :type :invoke :f :put :key 4 :value "a\"b"}
{:process 2, :type :fail, :f :put, :key "4", :value "a\"b"}
{:process 3, :type :invoke, :f :put, :key "4", :value "z"}
{:process 3, :type :info, :f :put, :key "4", :value :timed-out}
"#;
        let h = parse(text).unwrap();
        let got: Vec<_> = h
            .ops
            .iter()
            .map(|o| (o.client, o.input.clone(), o.output.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    0,
                    StrKvOp::Append("3".into(), "x 0 1 y".into()),
                    Some(StrKvOutput::Done)
                ),
                (1, StrKvOp::Get("3".into()), Some(StrKvOutput::Value("x 0 1 y".into()))),
                (3, StrKvOp::Put("4".into(), "z".into()), None),
            ]
        );
        assert_eq!((h.ops[1].invoke, h.ops[1].complete), (2, Some(6)));
    }

    fn err(text: &str) -> ParseError {
        parse(text).unwrap_err()
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let get = "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n";
        let e = err(&format!("{get}{{:process 0, :type :done, :f :get, :key \"1\"}}\n"));
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("expected :invoke, :ok, :fail or :info"), "{e}");
        assert!(err("{:process 0, :type :invoke").message.contains("expected '}'"));
        assert!(err("{:process 0, :type").message.contains("end of the line"));
        assert!(err("{:process 0 :type}").message.contains("closing bracket"));
        assert!(err("[1 2]").message.contains("expected a map"));
        assert!(err("{:process 0, :type :invoke, :f :cas, :key \"1\"}")
            .message
            .contains(":get, :put or :append"));
        assert!(err("{:process 0, :type :invoke, :f :put, :key \"1\", :value 3}")
            .message
            .contains("string :value"));
        assert!(err("{:process 0, :type :invoke, :f :get, :key \"1\"} x")
            .message
            .contains("after the map"));
        assert!(err("{:process 0, :type :invoke, :f :get, :key \"1\", :value \"abc}")
            .message
            .contains("unterminated"));
        let deep = format!("{{:process 0, :x {}}}", "[".repeat(100_000));
        assert!(err(&deep).message.contains("nested deeper"));
        let wrong = format!("{get}{{:process 0, :type :ok, :f :get, :key \"2\", :value \"\"}}\n");
        assert!(err(&wrong).message.contains("but invoked :get on key \"1\" on line 1"));
        assert_eq!(err("\n\n").line, None);
    }
}
