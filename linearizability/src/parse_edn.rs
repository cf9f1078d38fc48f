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

use super::edn::{Edn, Reader};
use super::history::{History, ParseError, Recorder};
use super::lines::each_line;
use super::string_kv::{StrKvOp, StrKvOutput};
use std::io::BufRead;

/// The line's one map: keyword keys and their values.
fn read_map(line_text: &str) -> Result<Edn, String> {
    let mut r = Reader::new(line_text).one_line();
    let map = match r.next_form().map_err(|e| e.message)? {
        Some((_, map @ Edn::Map(_))) => map,
        _ => return Err("expected a map like {:process 0, :type :invoke, ...}".into()),
    };
    match r.next_form() {
        Ok(None) => Ok(map),
        _ => Err("unexpected text after the map".into()),
    }
}

/// Parse a whole history; the error names the first bad line.
pub fn parse(text: &str) -> Result<History<StrKvOp, StrKvOutput>, ParseError> {
    parse_from(text.as_bytes())
}

/// [`parse`] from a stream, a line at a time.
pub fn parse_from<R: BufRead>(input: R) -> Result<History<StrKvOp, StrKvOutput>, ParseError> {
    let mut rec = Recorder::new("process", "line");
    each_line(input, |n, raw| {
        let t = raw.trim();
        if t.is_empty() || t.starts_with(';') {
            return Ok(());
        }
        record(&mut rec, t, n as u64).map_err(|m| ParseError::at(n, m))
    })?;
    // Only blank lines and comments: a history with nothing to check.
    Ok(rec.finish())
}

fn record(rec: &mut Recorder<StrKvOp, StrKvOutput>, line_text: &str, line: u64) -> Result<(), String> {
    let map = read_map(line_text)?;
    let get = |k: &str| map.get(k);
    let process = match get("process") {
        Some(Edn::Int(p)) if *p >= 0 => *p as u64,
        Some(other) => return Err(format!("expected a process number, found {}", other.brief())),
        None => return Err("missing :process".into()),
    };
    let kind = match get("type") {
        Some(Edn::Keyword(k)) if ["invoke", "ok", "fail", "info"].contains(&k.as_str()) => k.as_str(),
        Some(other) => {
            return Err(format!(
                "expected :invoke, :ok, :fail or :info, found {}",
                other.brief()
            ))
        }
        None => return Err("missing :type".into()),
    };
    let func = match get("f") {
        Some(Edn::Keyword(f)) if ["get", "put", "append"].contains(&f.as_str()) => f.as_str(),
        Some(other) => return Err(format!("expected :f :get, :put or :append, found {}", other.brief())),
        None => return Err("missing :f".into()),
    };
    let key = match get("key") {
        Some(Edn::Str(k)) => k.clone(),
        Some(Edn::Int(k)) => k.to_string(),
        Some(other) => return Err(format!("expected a string or integer :key, found {}", other.brief())),
        None => return Err("missing :key".into()),
    };
    let value = get("value").unwrap_or(&Edn::Nil);
    let string = |what: &str| match value {
        Edn::Str(s) => Ok(s.clone()),
        other => Err(format!("expected a string :value {what}, found {}", other.brief())),
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
        // Blank lines and comments only: an empty history, nothing to check.
        assert!(parse("\n\n; none\n").unwrap().ops.is_empty());
    }
}
