//! The commands dst prints for a user to paste (replay a report, run a
//! seed again): named for the binary that is running, which is a user's own
//! binary built on dst as often as `dst` itself, and with every word quoted
//! for a POSIX shell, so that a hint runs as printed.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::OnceLock;

static PROGRAM: OnceLock<String> = OnceLock::new();

/// Names hints for the program started as `argv0` (its file name), once per
/// process; a name that is not plain text leaves hints saying `dst`.
pub fn set_program(argv0: &OsStr) {
    let name = Path::new(argv0).file_name().and_then(OsStr::to_str).unwrap_or("");
    if !name.is_empty() && shell_word(name) == name {
        let _ = PROGRAM.set(name.to_string());
    }
}

/// The program hints name: `dst` unless [`set_program`] said otherwise.
pub fn program() -> &'static str {
    PROGRAM.get().map_or("dst", String::as_str)
}

/// `s` as one word for a POSIX shell: as it is if nothing in it is special,
/// else in single quotes; a word holding a character a terminal obeys (a
/// line break that would print a forged line, an escape) in `$'...'`, the
/// quoting in which such characters are written as escapes (POSIX.1-2024,
/// bash, zsh, ksh).
pub(crate) fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c));
    if plain {
        s.to_string()
    } else if linearizability::one_line::one_line(s) != s {
        let mut w = String::from("$'");
        for c in s.chars() {
            match c {
                '\\' => w.push_str("\\\\"),
                '\'' => w.push_str("\\'"),
                '\n' => w.push_str("\\n"),
                '\r' => w.push_str("\\r"),
                '\t' => w.push_str("\\t"),
                c if (c as u32) < 0x80 && c.is_control() => w.push_str(&format!("\\x{:02x}", c as u32)),
                c if linearizability::one_line::one_line(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8() => {
                    w.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => w.push(c),
            }
        }
        w.push('\'');
        w
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A path as one word that no program reads as a flag: `./` before a
/// leading dash (quoting would not help: the program sees the dash).
fn path_word(p: &str) -> String {
    match p.starts_with('-') {
        true => shell_word(&format!("./{p}")),
        false => shell_word(p),
    }
}

/// The command that replays the report at `path`.
pub fn replay(path: &Path) -> String {
    format!("{} replay {}", program(), path_word(&path.to_string_lossy()))
}

/// The command that runs `seed` of `scenario` (a built-in name or a file)
/// with `bugs` switched on.
pub fn run(scenario: &str, seed: u64, bugs: &[String]) -> String {
    let bugs: String = bugs.iter().map(|b| format!(" --bug {}", shell_word(b))).collect();
    format!("{} run {} --seed {seed}{bugs}", program(), path_word(scenario))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_a_shell_would_read_them_otherwise() {
        assert_eq!(shell_word("reports/raft-1.json"), "reports/raft-1.json");
        assert_eq!(shell_word("my reports/a'b.json"), "'my reports/a'\\''b.json'");
        assert_eq!(
            shell_word("a\n\nF'\\\u{1b}\u{202e}.json"),
            "$'a\\n\\nF\\'\\\\\\x1b\\u202e.json'"
        );
        assert_eq!(
            replay(Path::new("-r/a b.json")),
            format!("{} replay './-r/a b.json'", program())
        );
        assert_eq!(shell_word(""), "''");
        assert_eq!(
            run("s.json", 3, &["a b".into()]),
            format!("{} run s.json --seed 3 --bug 'a b'", program())
        );
    }
}
