//! The HTML view in a real browser: headless Chromium loads each page from
//! disk, runs its script, and the page's own status element (read back
//! from the DOM Chromium dumps) says what it drew and whether anything
//! failed; the browser's own console log must stay empty. Chromium is required where DST_REQUIRE_CHROMIUM is set (CI);
//! elsewhere these tests say they were skipped.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod support;
use support::dst_here as dst;

fn scratch(name: &str) -> PathBuf {
    support::scratch("view", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn chromium() -> Option<String> {
    let names = ["chromium", "chromium-browser", "google-chrome"];
    let found = std::env::var("DST_CHROMIUM")
        .ok()
        .into_iter()
        .chain(names.iter().map(|s| s.to_string()))
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("DST_REQUIRE_CHROMIUM").is_none(),
            "headless Chromium is required here (apt-get install chromium)"
        );
        eprintln!("skipped: no chromium on PATH");
    }
    found
}

/// Loads `page` (with `hash` after '#') and returns the page's status and
/// the whole DOM after its script ran, and the wall time of the browser.
fn load(browser: &str, page: &Path, hash: &str) -> (Value, String, f64) {
    let profile = page.with_extension("profile");
    let url = format!(
        "file://{}{}",
        s(page),
        if hash.is_empty() {
            String::new()
        } else {
            format!("#{hash}")
        }
    );
    let started = Instant::now();
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            // Console messages of the page go to stderr as INFO:CONSOLE lines.
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=30000",
            &format!("--user-data-dir={}", s(&profile)),
            "--window-size=1400,900",
            "--dump-dom",
            &url,
        ])
        .output()
        .expect("chromium runs");
    let took = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&profile);
    let dom = String::from_utf8_lossy(&o.stdout).to_string();
    let console: Vec<String> = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    assert!(console.is_empty(), "the page wrote to the console: {console:?}");
    let start = dom
        .find("id=\"dst-status\"")
        .unwrap_or_else(|| panic!("no status element in the DOM: {}", &dom[..dom.len().min(2000)]));
    let text = &dom[start..];
    let text = &text[text.find('>').unwrap() + 1..text.find("</pre>").unwrap()];
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let status: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("status {text:?}: {e}"));
    assert_eq!(status["errors"], serde_json::json!([]), "the page reported errors");
    assert_eq!(status["ready"], true, "{status}");
    (status, dom, took)
}

fn report(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    let mut a = vec!["run"];
    a.extend(args);
    // Whole traces: these tests read the events the page draws.
    a.extend(["--report", s(&path), "--html", "--full-trace"]);
    let o = dst(&a);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("view: "),
        "run --html names its page"
    );
    path
}

#[test]
fn a_failing_raft_report_shows_one_lane_per_node_and_its_evidence() {
    let Some(b) = chromium() else { return };
    let dir = scratch("raft");
    let r = report(
        &dir,
        "raft",
        &["raft-crash-restart", "--seed", "0", "--bug", "reply-before-durable"],
    );
    let (st, _, took) = load(&b, &r.with_extension("html"), "");
    let rep: Value = serde_json::from_str(&std::fs::read_to_string(&r).unwrap()).unwrap();
    let evidence = rep["verdict"]["evidence"].as_array().unwrap().len() as u64;
    assert!(evidence > 0);
    assert_eq!(st["node_lanes"], 3);
    assert_eq!(st["events"], rep["trace"].as_array().unwrap().len());
    assert_eq!(st["evidence"], evidence);
    assert_eq!(st["evidence_drawn"], evidence, "every evidence event in view: {st}");
    assert_eq!(st["focused"], true);
    eprintln!(
        "raft report: {} events, browser {took:.2} s, script {} ms",
        st["events"], st["load_ms"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_snapshot_store_report_renders() {
    let Some(b) = chromium() else { return };
    let dir = scratch("snapshot");
    let r = report(
        &dir,
        "snap",
        &["snapshot-handover", "--seed", "0", "--bug", "delete-removes-row"],
    );
    let (st, _, _) = load(&b, &r.with_extension("html"), "arrows");
    assert_eq!(st["node_lanes"], 5);
    assert_eq!(st["client_lanes"], 0, "the store model has no clients");
    assert!(st["faults"].as_u64().unwrap() > 0, "{st}");
    assert!(st["evidence_drawn"].as_u64().unwrap() > 0, "{st}");
    assert!(
        st["arrows_drawn"].as_u64().unwrap() > 0,
        "messages drawn on demand: {st}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_linearizability_failure_is_drawn_on_the_client_bars() {
    let Some(b) = chromium() else { return };
    let dir = scratch("lin");
    let reports = dir.join("reports");
    let o = dst(&[
        "fuzz",
        "raft-read-index",
        "--bug",
        "read-without-quorum",
        "--seeds",
        "0..30",
        "--jobs",
        "2",
        "--report-dir",
        s(&reports),
        "--html",
    ]);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lin = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\"invariant\":\"linearizable\"")
        })
        .expect("a linearizable violation in 30 seeds");
    let (st, _, _) = load(&b, &lin.with_extension("html"), "");
    assert_eq!(st["lin"], true);
    assert_eq!(st["lin_drawn"], true, "the op that could not be placed is drawn: {st}");
    assert!(st["client_lanes"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_external_jepsen_history_is_drawn_with_its_partial_linearization() {
    let Some(b) = chromium() else { return };
    let dir = scratch("jepsen");
    let page = dir.join("history.html");
    let history = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jepsen-stale-read.log");
    let o = dst(&["check", history, "--html", s(&page)]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let (st, _, _) = load(&b, &page, "");
    assert_eq!(st["kind"], "history");
    assert_eq!(st["client_lanes"], 4);
    assert_eq!(st["node_lanes"], 0);
    assert_eq!(
        (st["lin"].as_bool(), st["lin_drawn"].as_bool()),
        (Some(true), Some(true)),
        "{st}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Appends markup to every free-text string of a report.
fn poison(v: &mut Value, key: &str) {
    const FREE: [&str; 9] = [
        "scenario",
        "message",
        "replay",
        "msg",
        "why",
        "goal",
        "description",
        "name",
        "trace_hash",
    ];
    match v {
        Value::String(s) if FREE.contains(&key) => {
            s.push_str("<script>document.title='pwned'</script>\"><img src=x onerror=\"document.title='pwned'\">")
        }
        Value::Array(a) => a.iter_mut().for_each(|x| poison(x, key)),
        Value::Object(o) => o.iter_mut().for_each(|(k, x)| poison(x, k)),
        _ => {}
    }
}

#[test]
fn markup_in_a_report_is_shown_as_text_and_runs_nothing() {
    let Some(b) = chromium() else { return };
    let dir = scratch("hostile");
    let r = report(
        &dir,
        "plain",
        &["raft-crash-restart", "--seed", "0", "--bug", "reply-before-durable"],
    );
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&r).unwrap()).unwrap();
    poison(&mut v, "");
    // A report is read only if its trace matches its hash: the poisoned trace gets its own.
    let trace: Vec<sim::Event> = serde_json::from_value(v["trace"].clone()).unwrap();
    v["trace_hash"] = sim::trace::Trace::hash_of(&trace, sim::trace::TraceHash::Words).into();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, v.to_string()).unwrap();
    let page = dir.join("bad.html");
    let o = dst(&["view", s(&bad), "-o", s(&page)]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("<script").count(),
        2,
        "only the page's own two script elements"
    );
    assert!(!html.contains("<img"));
    let (st, dom, _) = load(&b, &page, "");
    assert!(!dom.contains("<title>pwned"), "an injected script ran");
    assert!(!dom.contains("<img"), "an injected element was parsed");
    assert!(
        dom.contains("&lt;script&gt;document.title='pwned'"),
        "the markup is shown as text"
    );
    assert_eq!(st["evidence_drawn"], 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_100k_event_report_loads_and_stays_drawable() {
    let Some(b) = chromium() else { return };
    let dir = scratch("large");
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sc: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{root}/scenarios/raft-partitions.json")).unwrap())
            .unwrap();
    sc["name"] = "raft-partitions-long".into();
    sc["safety_ms"] = (sc["safety_ms"].as_u64().unwrap() * 3).into();
    let file = dir.join("long-scenario.json");
    std::fs::write(&file, sc.to_string()).unwrap();
    let r = report(&dir, "long", &[s(&file), "--seed", "0"]);
    let events = serde_json::from_str::<Value>(&std::fs::read_to_string(&r).unwrap()).unwrap()["trace"]
        .as_array()
        .unwrap()
        .len();
    assert!(events >= 100_000, "only {events} events");
    let page = r.with_extension("html");
    let (whole, _, took_whole) = load(&b, &page, "whole");
    assert_eq!(whole["events"], events);
    let (arrows, _, took_arrows) = load(&b, &page, "whole,arrows");
    assert!(
        arrows["arrows_drawn"].as_u64().unwrap() <= 4000,
        "arrows drawn are bounded: {arrows}"
    );
    eprintln!(
        "{events} events, page {} bytes: whole run {took_whole:.2} s in the browser (script {} ms: parse {} ms, lanes {} ms, draw {} ms); with messages {took_arrows:.2} s (draw {} ms)",
        std::fs::metadata(&page).unwrap().len(),
        whole["load_ms"],
        whole["parse_ms"],
        whole["derive_ms"],
        whole["render_ms"],
        arrows["render_ms"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
