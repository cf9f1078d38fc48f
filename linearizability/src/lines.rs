//! The lines of a text read as a stream, split as `str::lines` splits a
//! whole text: at each `\n`, a `\r` before it dropped, the last line with
//! or without its `\n`. Only the line at hand is held.

use super::history::ParseError;
use std::io::BufRead;

/// Hand `each` every line with its number (from 1), until it refuses one.
pub fn each_line<R: BufRead>(
    mut input: R,
    mut each: impl FnMut(usize, &str) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let mut buf = Vec::new();
    let mut line = 0;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| ParseError::at(line + 1, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        let bytes = match buf.strip_suffix(b"\n") {
            Some(b) => b.strip_suffix(b"\r").unwrap_or(b),
            None => &buf[..],
        };
        let text = std::str::from_utf8(bytes).map_err(|_| ParseError::at(line, "not UTF-8 text"))?;
        // A line is parsed whole: under a memory cap, only if its values
        // surely fit (see `mem::room_to_parse`).
        if !crate::mem::room_to_parse(text.len()) {
            return Err(ParseError::at(
                line,
                format!(
                    "reading stopped at the memory cap: a line of {} MB would not fit",
                    text.len() >> 20
                ),
            ));
        }
        each(line, text)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_str_lines_does() {
        for text in ["", "a", "a\n", "a\r\nb", "a\n\nb\r\n", "\r", "a\rb\n\r\n", "é\n"] {
            let mut got = Vec::new();
            each_line(text.as_bytes(), |n, l| {
                got.push((n, l.to_string()));
                Ok(())
            })
            .unwrap();
            let want: Vec<(usize, String)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.to_string())).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }
}
