//! Jepsen's log of a single-register test, one op event a line:
//!
//! ```text
//! INFO  jepsen.util - 2  :invoke  :write  4
//! INFO  jepsen.util - 2  :ok  :write  4
//! INFO  jepsen.util - 3  :invoke  :cas  [4 1]
//! INFO  jepsen.util - 3  :fail  :cas  [4 1]
//! INFO  jepsen.util - 0  :info  :read  :timed-out
//! ```
//!
//! Fields, tab-separated in Jepsen's logs: process, type (`:invoke`, `:ok`,
//! `:fail`, `:info`), function (`:read`, `:write`, `:cas`) and value. The
//! `jepsen.util - ` prefix is optional; other log lines, and the nemesis's,
//! are skipped.

use super::history::{History, ParseError, Recorder};
use super::lines::each_line;
use super::register::{RegisterOp, RegisterOutput};
use std::io::BufRead;

const MARK: &str = "jepsen.util - ";

/// Parse a whole log; the error names the first bad line.
pub fn parse(text: &str) -> Result<History<RegisterOp, RegisterOutput>, ParseError> {
    parse_from(text.as_bytes())
}

/// [`parse`] from a stream, a line at a time.
pub fn parse_from<R: BufRead>(input: R) -> Result<History<RegisterOp, RegisterOutput>, ParseError> {
    let mut rec = Recorder::new("process", "line");
    let mut history_lines = 0;
    let mut blank = true;
    each_line(input, |line, raw| {
        blank &= raw.trim().is_empty();
        let body = match raw.find(MARK) {
            Some(p) => &raw[p + MARK.len()..],
            None if raw.trim_start().starts_with(|c: char| c.is_ascii_digit()) => raw.trim_start(),
            None => return Ok(()),
        };
        history_lines += 1;
        record(&mut rec, body, line as u64).map_err(|m| ParseError::at(line, m))
    })?;
    // An empty file, or a log of nemesis lines only, is a history with
    // nothing to check; text without a single history line is not a log.
    if rec.is_empty() && history_lines == 0 && !blank {
        return Err(ParseError::whole(format!(
            "no Jepsen history lines (like `INFO  {MARK}2 :invoke :write 4`, tab-separated)"
        )));
    }
    Ok(rec.finish())
}

/// Process, type, function and value. Fields are tab-separated in Jepsen's
/// logs; with spaces instead, the value is the rest of the line.
fn fields(body: &str) -> Vec<&str> {
    if body.contains('\t') {
        return body.split('\t').map(str::trim).collect();
    }
    let mut out = Vec::new();
    let mut rest = body.trim();
    while out.len() < 3 && !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn record(rec: &mut Recorder<RegisterOp, RegisterOutput>, body: &str, line: u64) -> Result<(), String> {
    let f = fields(body);
    let process = match f.first().copied() {
        Some(":nemesis") => return Ok(()),
        Some(p) => p
            .parse::<u64>()
            .map_err(|_| format!("expected a process number or :nemesis, found '{p}'"))?,
        None => return Err("expected a process number".into()),
    };
    let kind = f.get(1).copied().unwrap_or("");
    if ![":invoke", ":ok", ":fail", ":info"].contains(&kind) {
        return Err(format!("expected :invoke, :ok, :fail or :info, found '{kind}'"));
    }
    let func = f.get(2).copied().unwrap_or("");
    let value = f.get(3).copied().unwrap_or("");
    if kind == ":invoke" {
        let input = match func {
            ":read" => RegisterOp::Read,
            ":write" => RegisterOp::Write(int(value)?),
            ":cas" => pair(value)?,
            _ => return Err(format!("expected :read, :write or :cas, found '{func}'")),
        };
        return rec.invoke(process, input, line);
    }
    let invoked = rec.open_op(process)?;
    let same = matches!(
        (func, invoked.input),
        (":read", RegisterOp::Read) | (":write", RegisterOp::Write(_)) | (":cas", RegisterOp::Cas(..))
    );
    if !same {
        return Err(format!(
            "process {process} completes {func} but invoked {:?} on line {}",
            invoked.input, invoked.invoke
        ));
    }
    match kind {
        ":fail" => rec.fail(process, line),
        ":info" => rec.info(process, line),
        _ => {
            let output = match invoked.input {
                RegisterOp::Read => RegisterOutput::Read(nil_or_int(value)?),
                _ => RegisterOutput::Done,
            };
            rec.ok(process, output, line)
        }
    }
}

fn int(s: &str) -> Result<i64, String> {
    s.parse().map_err(|_| format!("expected an integer value, found '{s}'"))
}

fn nil_or_int(s: &str) -> Result<Option<i64>, String> {
    if s == "nil" {
        Ok(None)
    } else {
        int(s).map(Some)
    }
}

fn pair(s: &str) -> Result<RegisterOp, String> {
    let bad = || format!("expected a cas value like [old new], found '{s}'");
    let inner = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(bad)?;
    let v: Vec<&str> = inner.split([' ', ',']).filter(|x| !x.is_empty()).collect();
    match v[..] {
        [old, new] => Ok(RegisterOp::Cas(int(old)?, int(new)?)),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ops_and_skips_other_lines() {
        let text = "INFO  jepsen.core - Worker 0 starting\n\
                    INFO  jepsen.util - 0\t:invoke\t:write\t4\n\
                    INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n\
                    INFO  jepsen.util - 1\t:invoke\t:read\tnil\n\
                    INFO  jepsen.util - 0\t:ok\t:write\t4\n\
                    INFO  jepsen.util - 1\t:ok\t:read\t4\n\
                    \n\
                    2 :invoke :cas [4 5]\n\
                    2 :fail :cas [4 5]\n\
                    3\t:invoke\t:cas\t[4 6]\n\
                    3\t:info\t:cas\t:timed-out\n\
                    4\t:invoke\t:read\tnil\n";
        let h = parse(text).unwrap();
        let got: Vec<_> = h
            .ops
            .iter()
            .map(|o| (o.client, o.input, o.output, o.invoke, o.complete))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, RegisterOp::Write(4), Some(RegisterOutput::Done), 2, Some(5)),
                (1, RegisterOp::Read, Some(RegisterOutput::Read(Some(4))), 4, Some(6)),
                (3, RegisterOp::Cas(4, 6), None, 10, Some(11)),
                (4, RegisterOp::Read, None, 12, None),
            ]
        );
    }

    fn err(text: &str) -> ParseError {
        parse(text).unwrap_err()
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let ok = "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n";
        let e = err(&format!("{ok}INFO  jepsen.util - 0\t:done\t:read\tnil\n"));
        assert_eq!(e.to_string(), "2: expected :invoke, :ok, :fail or :info, found ':done'");
        assert_eq!(err(&format!("{ok}{ok}")).line, Some(2));
        assert!(err(&format!("{ok}0\t:ok\t:write\t3\n"))
            .message
            .contains("completes :write but invoked Read"));
        assert!(err("x\n1\t:ok\t:read\t3\n").message.contains("never invoked"));
        assert_eq!(err("1\t:invoke\t:write\tfour\n").line, Some(1));
        assert!(err("1\t:invoke\t:cas\t[1]\n").message.contains("[old new]"));
        assert!(err("1\t:invoke\t:add\t1\n").message.contains(":read, :write or :cas"));
        assert!(err("INFO  jepsen.util - x\t:invoke\t:read\tnil\n")
            .message
            .contains("process number"));
        assert!(err(&format!("{ok}0\t:ok\t:read\tmaybe\n")).message.contains("integer"));
        assert_eq!(err("hello\n").line, None);
        // An empty log, or nemesis lines only: an empty history.
        assert!(parse("").unwrap().ops.is_empty());
        assert!(parse("INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n")
            .unwrap()
            .ops
            .is_empty());
    }
}
