//! Error messages are one line on stderr. A message that quotes what the
//! user gave (a field of a history line, a string in a JSON file, a command
//! line value) would otherwise carry that text's line breaks and control
//! characters with it, so they are written as escapes instead.

/// `s` with every control character and line separator escaped (`\n`,
/// `\r`, `\u{b}`, ..); everything else as it was.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// `s` as a terminal shows it without obeying it: line breaks and tabs as
/// they are, every other control character (escape sequences that move the
/// cursor, recolour or retitle the terminal, a carriage return that hides
/// what came before) as an escape. Output quotes data (scenario names,
/// failure lines, paths from files), and data must not drive the terminal.
pub fn terminal_safe(s: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}');
    if !s.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_debug());
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
        assert_eq!(terminal_safe("\u{1b}[2J\rx\u{9b}1m"), "\\u{1b}[2J\\rx\\u{9b}1m");
    }
}
