//! `dst view`: a report (or a checked history) as one self-contained HTML
//! page: lanes per node over simulated time, faults, messages on demand,
//! client operations, and the violation in the middle of the screen.
//!
//! The page is a fixed program (`page.html`, `view.css`, `view.js`) plus
//! the run as JSON in a `<script type="application/json">` element. Every
//! string of the run reaches the page only through that JSON and is drawn
//! as text (`textContent`, canvas `fillText`), never parsed as HTML.

mod data;

pub use data::{history_data, ViewOp};

use dst_runner::Drawn;
use sim::report::Report;
use std::io::Write;

const PAGE: &str = include_str!("page.html");
const CSS: &str = include_str!("view.css");
const JS: &str = include_str!("view.js");

/// Writes the page of the report at `report` to `out` (default: beside
/// it, `REPORT.html`) and returns where, with which events it draws
/// (`events`, or [`dst_runner::Drawn::by_default`]); the error is one line.
/// A compact report's run is regenerated from its seed first, holding only
/// the events drawn (so its scenario must be one `registry` knows); a full
/// one is drawn as it is.
pub fn write_page(
    registry: &sim::Registry,
    report: &std::path::Path,
    out: Option<&std::path::Path>,
    events: Option<(u64, u64)>,
) -> Result<(std::path::PathBuf, Drawn), String> {
    let dest = out
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| sim::report::beside(report, "html"));
    sim::host::files::refuse_special(&dest)?;
    let (r, drawn) = dst_runner::read_drawn(registry, report, events)?;
    write_drawn(&r, &drawn, &dest)?;
    Ok((dest, drawn))
}

/// Writes the page of `r` (with its whole trace) to `dest`.
pub fn write_report_page(r: &Report, dest: &std::path::Path) -> Result<(), String> {
    write_drawn(r, &Drawn::whole(r.trace.len() as u64), dest)
}

fn write_drawn(r: &Report, drawn: &Drawn, dest: &std::path::Path) -> Result<(), String> {
    sim::host::files::refuse_special(dest)?;
    sim::host::files::write_atomic_with(dest, |w| write_report(r, drawn, w))
}

/// The page of `r`, whose trace holds the events `drawn`, written a piece
/// at a time: the data of a long run is never held as one text.
fn write_report(r: &Report, drawn: &Drawn, w: &mut dyn Write) -> std::io::Result<()> {
    let title = format!("dst: {} seed {}", r.scenario, r.seed);
    let (head, tail) = shell(&title);
    w.write_all(head.as_bytes())?;
    w.write_all(b"{")?;
    for (key, value) in data::report_fields(r, drawn) {
        write!(w, "{}:{},", script_json(&key.into()), script_json(&value))?;
    }
    w.write_all(b"\"events\":[")?;
    for (k, e) in r.trace.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        w.write_all(script_json(&data::event_json(e)).as_bytes())?;
    }
    w.write_all(b"]}")?;
    w.write_all(tail.as_bytes())
}

/// The page's text before and after its data.
fn shell(title: &str) -> (String, String) {
    let fill = |part: &str| {
        part.replace("{{TITLE}}", &html_text(title))
            .replace("{{CSS}}", CSS)
            .replace("{{JS}}", JS)
    };
    let (head, tail) = PAGE.split_once("{{DATA}}").unwrap_or((PAGE, ""));
    (fill(head), fill(tail))
}

/// The page of any view data (see `data`).
pub fn page(title: &str, data: &serde_json::Value) -> String {
    let (head, tail) = shell(title);
    head + &script_json(data) + &tail
}

/// JSON that cannot end the script element it sits in, nor open a comment
/// or markup inside it: every `<`, `>` and `&` (and the two line separators
/// old parsers stumble on) is written as its `\u` escape, which JSON.parse
/// reads back as the same character.
pub fn script_json(v: &serde_json::Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text for an HTML element's content.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_string_can_close_the_data_script() {
        let v = serde_json::json!({"s": "</script><script>alert(1)</script><!-- &amp; \u{2028}"});
        let j = script_json(&v);
        assert!(!j.contains('<') && !j.contains('>') && !j.contains('&'), "{j}");
        let back: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn the_title_is_text() {
        let p = page("<img src=x onerror=alert(1)>", &serde_json::json!({}));
        assert!(p.contains("<title>dst view: &lt;img src=x onerror=alert(1)&gt;</title>") || p.contains("&lt;img"));
        assert!(!p.contains("<img"));
    }
}
