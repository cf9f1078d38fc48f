//! `dst view`: a report (or a checked history) as one self-contained HTML
//! page: lanes per node over simulated time, faults, messages on demand,
//! client operations, and the violation in the middle of the screen.
//!
//! The page is a fixed program (`page.html`, `view.css`, `view.js`) plus
//! the run as JSON in a `<script type="application/json">` element. Every
//! string of the run reaches the page only through that JSON and is drawn
//! as text (`textContent`, canvas `fillText`), never parsed as HTML.

mod data;

pub use data::{history_data, report_data, ViewOp};

use sim::report::Report;

const PAGE: &str = include_str!("page.html");
const CSS: &str = include_str!("view.css");
const JS: &str = include_str!("view.js");

/// The page of a report.
pub fn report_page(r: &Report) -> String {
    let title = format!("dst: {} seed {}", r.scenario, r.seed);
    page(&title, &report_data(r))
}

/// Writes the page of the report at `report` to `out` (default: beside
/// it, `REPORT.html`) and returns where; the error is one line. A compact
/// report's trace is regenerated from its seed first (so its scenario must
/// be one `registry` knows); a full one is drawn as it is.
pub fn write_page(
    registry: &sim::Registry,
    report: &std::path::Path,
    out: Option<&std::path::Path>,
) -> Result<std::path::PathBuf, String> {
    let dest = out
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| sim::report::beside(report, "html"));
    sim::host::files::refuse_special(&dest)?;
    let r = dst_runner::read_full_report(registry, report)?;
    write_report_page(&r, &dest)?;
    Ok(dest)
}

/// Writes the page of `r` (with its whole trace) to `dest`.
pub fn write_report_page(r: &Report, dest: &std::path::Path) -> Result<(), String> {
    sim::host::files::refuse_special(dest)?;
    sim::host::files::write_atomic(dest, report_page(r).as_bytes())
}

/// The page of any view data (see `data`).
pub fn page(title: &str, data: &serde_json::Value) -> String {
    PAGE.replace("{{TITLE}}", &html_text(title))
        .replace("{{CSS}}", CSS)
        .replace("{{JS}}", JS)
        .replacen("{{DATA}}", &script_json(data), 1)
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
