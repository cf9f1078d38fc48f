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
