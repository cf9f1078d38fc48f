//! Error messages are one line on stderr. A message that quotes what the
//! user gave (a field of a history line, a string in a JSON file, a command
//! line value) would otherwise carry that text's line breaks and control
//! characters with it, so they are written as escapes instead.

/// Characters a terminal obeys instead of showing: control characters
/// (C0, DEL, C1), the Unicode line and paragraph separators, and the
/// bidirectional formatting characters that reorder what is shown around
/// them (a name could otherwise display as something it is not).
fn obeyed(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with every control character, line separator and bidirectional
/// control escaped (`\n`, `\r`, `\u{b}`, ..); everything else as it was.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if obeyed(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` as a terminal shows it without obeying it: line breaks and tabs as
/// they are, every other character a terminal obeys (escape sequences that
/// move the cursor, recolour or retitle the terminal, a carriage return
/// that hides what came before, a bidirectional override) as `\uXXXX`.
/// Output quotes data (scenario names, failure lines, paths from files),
/// and data must not drive the terminal. The escape is JSON's own, and no
/// such character stands outside a string in JSON, so `--json` output stays
/// valid JSON that reads back as the very same text.
pub fn terminal_safe(s: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| obeyed(c) && c != '\n' && c != '\t';
    if !s.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            // Every such character is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `s` prints as exactly one line: not empty, and nothing in it
/// that [`one_line`] would escape.
pub fn is_one_line(s: &str) -> bool {
    !s.trim().is_empty() && one_line(s) == s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_and_controls_become_escapes() {
        assert_eq!(
            one_line("a\nb\r\tc\u{b}\u{85}\u{2028}é"),
            "a\\nb\\r\\tc\\u{b}\\u{85}\\u{2028}é"
        );
        assert!(is_one_line("dst: fine 'é' [1, 2]"));
        assert!(!is_one_line("two\nlines"));
        assert!(!is_one_line("  "));
        assert_eq!(terminal_safe("a\tb\nc"), "a\tb\nc");
        assert_eq!(
            terminal_safe("\u{1b}[2J\rx\u{9b}1m\u{202e}"),
            "\\u001b[2J\\u000dx\\u009b1m\\u202e"
        );
        assert_eq!(one_line("a\u{202e}b"), "a\\u{202e}b");
        // Inside JSON the escape is JSON's: the text reads back unchanged.
        let json = serde_json::to_string(&"n\u{9b}\u{202e}\u{1b}").unwrap();
        let back: String = serde_json::from_str(&terminal_safe(&json)).unwrap();
        assert_eq!(back, "n\u{9b}\u{202e}\u{1b}");
    }
}
