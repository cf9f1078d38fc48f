//! A gzip input is read to a bound: a small file that gunzips to gigabytes
//! (many gzip members, as `cat a.gz b.gz` makes, of zeros or of a real
//! report followed by gigabytes of JSON whitespace) is refused with one
//! line by every command that reads reports or histories, within an
//! address-space limit far below what reading it whole would take.

use crate::fixtures::folder;
use crate::mutate::config;
use proptest::prelude::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// `head` then `members` gzip members of `chunk` bytes each.
fn bomb(head: &[u8], chunk: u8, members: usize) -> Vec<u8> {
    let mut out = sim::host::files::gzip(head).expect("gzip");
    let member = sim::host::files::gzip(&vec![chunk; 1 << 20]).expect("gzip");
    for _ in 0..members {
        out.extend_from_slice(&member);
    }
    out
}

fn dir() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = folder("memory");
        let o = Command::new(env!("CARGO_BIN_EXE_dst"))
            .env("DST_MIN_FREE", "0")
            .args(["run", "raft-crash-restart", "--seed", "2", "--report", "good.json"])
            .current_dir(&d)
            .output()
            .expect("dst runs");
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let report = std::fs::read(d.join("good.json")).expect("report");
        // 4 GiB gunzipped, a few MB on disk.
        std::fs::write(d.join("zeros.gz"), bomb(b"", 0, 4096)).expect("bomb");
        std::fs::write(d.join("padded.json.gz"), bomb(&report, b' ', 4096)).expect("bomb");
        std::fs::write(d.join("good.json.gz"), sim::host::files::gzip(&report).expect("gzip")).expect("gz");
        d
    })
}

proptest! {
    #![proptest_config(config(12))]

    #[test]
    fn a_gzip_bomb_is_refused_within_a_small_address_space(
        cmd in prop::sample::select(vec!["replay", "check", "view", "export", "shrink"]),
        file in prop::sample::select(vec!["zeros.gz", "padded.json.gz", "good.json.gz"]),
    ) {
        let d = dir();
        // About 1.5 GB of address space: enough for dst and its 256 MB bound, not for 4 GiB.
        let o = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1500000 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_dst"))
            .args([cmd, file])
            .args(if cmd == "view" || cmd == "export" { vec!["-o", "/dev/null"] } else { vec![] })
            .args(if cmd == "shrink" { vec!["--max-runs", "2", "--out", "/dev/null"] } else { vec![] })
            .current_dir(d)
            .stdin(Stdio::null())
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .expect("sh runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if file == "good.json.gz" && cmd == "shrink" {
            prop_assert!(err.contains("only a report with a violation"), "{}", err);
        } else if file == "good.json.gz" {
            prop_assert!(matches!(o.status.code(), Some(0 | 1)), "{} {}: {:?} {}", cmd, file, o.status, err);
        } else {
            prop_assert_eq!(o.status.code(), Some(2), "{} {}: {}", cmd, file, err);
            prop_assert!(err.lines().count() == 1 && err.contains("gunzips to more than 256 MB"), "{} {}: {}", cmd, file, err);
        }
    }
}

/// A history whose one line (or one form) is `bytes` long: a value of
/// two-byte elements, the shape that takes the most memory per byte parsed.
fn one_long_line(shape: usize, bytes: usize) -> Vec<u8> {
    let body = "0 ".repeat(bytes / 2);
    match shape % 4 {
        0 => format!("INFO  jepsen.util - 0\t:invoke\t:write\t{}\n", "1".repeat(bytes)),
        1 => format!("{{:type :invoke, :f :txn, :value [{body}], :process 0, :index 0}}\n"),
        2 => format!("{{:process 0, :type :invoke, :f :write, :key \"a\", :value [{body}]}}\n"),
        _ => format!("[{{:type :invoke, :f :txn, :value [{body}], :process 0}}]\n"),
    }
    .into_bytes()
}

proptest! {
    #![proptest_config(config(16))]

    /// `check --max-mib` holds on one long line or form as on many short
    /// ones: the heap the command takes (as dst's counting allocator
    /// measures it, the same on every machine) stays within the cap and a
    /// few tens of MB, and the verdict is unknown for the memory, exit 3.
    #[test]
    fn one_long_line_stays_within_the_check_memory_cap(shape in 0usize..4, mib in 4u64..48, gz in any::<bool>()) {
        let d = folder(&format!("memory-line-{shape}-{mib}-{gz}"));
        let text = one_long_line(shape, 40 << 20);
        let (name, bytes) = match gz {
            true => ("h.gz", sim::host::files::gzip(&text).expect("gzip")),
            false => ("h.log", text),
        };
        std::fs::write(d.join(name), bytes).expect("history");
        let o = Command::new(env!("CARGO_BIN_EXE_dst")).env("DST_MIN_FREE", "0")
            .args(["check", name, "--json", "--max-mib", &mib.to_string()])
            .current_dir(&d)
            .output()
            .expect("dst runs");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        prop_assert_eq!(o.status.code(), Some(3), "{} {}", v, String::from_utf8_lossy(&o.stderr));
        prop_assert_eq!(&v["limit"], "memory", "{}", v);
        let peak = v["peak_heap_bytes"].as_u64().expect("dst counts its heap");
        prop_assert!(peak <= (mib + 48) << 20, "{} MiB at a {} MiB cap", peak >> 20, mib);
        let _ = std::fs::remove_dir_all(&d);
    }
}

/// A compact and a full report of a run of about 1.5 million events (the
/// full one 148 MB), made once.
fn long_run() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = folder("memory-long");
        crate::fixtures::scenario_file(
            "raft-partitions",
            &[("name", "raft-long".into()), ("safety_ms", 800_000.into())],
            &d.join("long.json"),
        );
        for (report, style) in [("compact.json", None), ("full.json", Some("--full-trace"))] {
            let o = Command::new(env!("CARGO_BIN_EXE_dst"))
                .env("DST_MIN_FREE", "0")
                .args(["run", "long.json", "--seed", "3", "--report", report])
                .args(style)
                .current_dir(&d)
                .output()
                .expect("dst runs");
            assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        }
        d
    })
}

/// The data of a page `dst view` wrote.
fn page_data(page: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"dst-data\">";
    let start = page.find(open).expect("the page has its data") + open.len();
    let end = start + page[start..].find("</script>").expect("closed");
    serde_json::from_str(&page[start..end]).expect("the data is JSON")
}

proptest! {
    #![proptest_config(config(8))]

    /// `view` and `export` of a run of any length hold the events they
    /// draw, not the run: a window of it by default, or the range asked for,
    /// within an address space of 600 MB (reading either report whole took
    /// over 3 GB). What they draw is exactly that window.
    #[test]
    fn a_long_run_is_drawn_a_window_at_a_time(
        export in any::<bool>(),
        full in any::<bool>(),
        range in prop::option::of((0u64..1_400_000, 1u64..60_000)),
    ) {
        let d = long_run();
        let report = if full { "full.json" } else { "compact.json" };
        let out = format!("out-{export}-{full}-{range:?}");
        let events = range.map(|(a, n)| format!("{a}..{}", a + n));
        let o = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 600000 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_dst"))
            .args([if export { "export" } else { "view" }, report, "-o", &out])
            .args(events.iter().flat_map(|e| ["--events", e.as_str()]))
            .current_dir(d)
            .env("DST_MIN_FREE", "0")
            .output()
            .expect("sh runs");
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        prop_assert_eq!(o.status.code(), Some(0), "{} {}", said, String::from_utf8_lossy(&o.stderr));
        let (from, to) = range.map_or((1_376_222, 1_476_222), |(a, n)| (a, a + n));
        prop_assert!(said.contains(&format!("events {from}..{to} of 1476222")), "{}", said);
        let text = std::fs::read_to_string(d.join(&out)).expect("written");
        let _ = std::fs::remove_file(d.join(&out));
        if export {
            let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            prop_assert_eq!(&v["metadata"]["drawn"], &serde_json::json!({"from": from, "to": to}));
            prop_assert_eq!(&v["metadata"]["events"], 1_476_222);
        } else {
            let v = page_data(&text);
            let i: Vec<u64> = v["events"].as_array().expect("events").iter().map(|e| e["i"].as_u64().expect("i")).collect();
            prop_assert_eq!(i, (from..to).collect::<Vec<_>>());
        }
    }
}
