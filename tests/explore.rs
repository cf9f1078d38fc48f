//! `dst explore` as a user meets it: a bounded space walked to the end, a
//! bug switch found with a report that replays and renders, the same walk
//! twice alike, and bad input refused in one line.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

fn dst(args: &[&str]) -> Output {
    support::dst(&std::env::temp_dir(), args)
}

/// Explores for the flush bug (on the natural path) and returns the
/// walk's JSON and the report it wrote into `dir`.
fn find_flush_bug(dir: &Path) -> (serde_json::Value, PathBuf) {
    let o = dst(&[
        "explore",
        "snapshot-handover",
        "--bug",
        "flushcell-unserialized",
        "--deviations",
        "1",
        "--ops",
        "3",
        "--json",
        "--report-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let report = PathBuf::from(
        v["found"]["report"]
            .as_str()
            .unwrap_or_else(|| panic!("found nothing: {v}")),
    );
    (v, report)
}

fn json(o: &Output) -> serde_json::Value {
    let out = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn the_correct_model_passes_every_state_within_small_bounds_alike_twice() {
    let args = [
        "explore",
        "raft-crash-restart",
        "--deviations",
        "1",
        "--depth",
        "40",
        "--json",
    ];
    let a = dst(&args);
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stderr));
    let v = json(&a);
    assert_eq!(v["complete"], true, "{v}");
    assert!(v["found"].is_null());
    assert!(v["states"].as_u64().unwrap() > 100, "{v}");
    assert_eq!(v["deepest"], 40);
    let w = json(&dst(&args));
    for k in ["states", "runs", "revisits", "at_bound", "ended"] {
        assert_eq!(v[k], w[k], "{k} differs between two walks");
    }
}

#[test]
fn a_bug_switch_is_found_and_its_report_replays_and_renders() {
    let dir = support::scratch("explore", "found");
    let (v, report) = find_flush_bug(&dir);
    let found = &v["found"];
    assert_eq!(found["verdict"]["invariant"], "no-lost-write", "{v}");
    assert_eq!(found["expected"], true);
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let report = report.to_str().unwrap();
    assert_eq!(
        r["explore"]["bounds"]["ops"], 3,
        "the report carries its tape: {}",
        r["explore"]
    );
    let replay = dst(&["replay", report]);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
    let page = dir.join("found.html");
    let view = dst(&["view", report, "-o", page.to_str().unwrap()]);
    assert_eq!(view.status.code(), Some(0), "{}", String::from_utf8_lossy(&view.stderr));
    assert!(std::fs::read_to_string(&page).unwrap().contains("no-lost-write"));
}

#[test]
fn a_bug_not_found_within_the_bounds_exits_1() {
    let o = dst(&[
        "explore",
        "raft-crash-restart",
        "--bug",
        "hardstate-not-persisted",
        "--deviations",
        "0",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert!(v["found"].is_null());
    assert_eq!(v["complete"], true);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for (args, needle) in [
        (vec!["explore", "no-such-scenario"], "unknown scenario"),
        (
            vec!["explore", "raft-crash-restart", "--max-states", "0"],
            "--max-states",
        ),
        (vec!["explore", "raft-crash-restart", "--max-mib", "0"], "--max-mib"),
        (
            vec!["explore", "raft-crash-restart", "--invariant", "no-such-invariant"],
            "--invariant no-such-invariant",
        ),
        (vec!["explore", "raft-crash-restart", "--bug", "nope"], "nope"),
        (
            vec!["explore", "raft-crash-restart", "--clients", "101"],
            "--clients 101",
        ),
    ] {
        let o = dst(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle} not in {err}");
    }
}

/// A budget ends the walk with what it explored and why it stopped: the
/// state bound once that many states are known, the memory bound once the
/// walk's tables pass it, both exit 3 (undecided: states within the
/// bounds were left unwalked) with no violation and tapes left.
/// (Each is checked between runs, so the last run may go past it.)
#[test]
fn a_state_or_memory_budget_ends_the_walk_with_a_clear_line() {
    let walk = |budget: &[&str]| {
        let mut a = vec!["explore", "raft-crash-restart", "--deviations", "2"];
        a.extend(budget);
        let o = dst(&a);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(o.status.code(), Some(3), "{out}{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let out = walk(&["--max-states", "3000"]);
    assert!(out.contains("state bound of 3000 reached"), "{out}");
    let out = walk(&["--max-mib", "1"]);
    assert!(out.contains("memory bound of 1 MiB reached"), "{out}");
    let o = dst(&[
        "explore",
        "raft-crash-restart",
        "--deviations",
        "2",
        "--max-mib",
        "1",
        "--json",
    ]);
    let v = json(&o);
    assert_eq!(v["complete"], false, "{v}");
    assert!(v["frontier"].as_u64().unwrap() > 0, "{v}");
    assert!(v["table_bytes"].as_u64().unwrap() >= 1 << 20, "{v}");
}

#[test]
fn a_tape_edited_out_of_range_replays_as_an_error_not_a_panic() {
    let dir = support::scratch("explore", "edited");
    let (_, report) = find_flush_bug(&dir);
    let mut r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    r["explore"]["choices"] = serde_json::json!([999]);
    let edited = dir.join("edited.json");
    std::fs::write(&edited, serde_json::to_string(&r).unwrap()).unwrap();
    let replay = dst(&["replay", edited.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&replay.stdout).to_string() + &String::from_utf8_lossy(&replay.stderr);
    assert_eq!(replay.status.code(), Some(1), "{out}");
    assert!(out.contains("the tape was not made by this scenario"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

/// `dst mutants` on one bug, fuzz within `seeds` and exploration within
/// `states`: the exploration's part of its JSON, after checking it exited 0.
fn explored_hunt(name: &str, bug: &str, seeds: &str, states: &str) -> serde_json::Value {
    let dir = support::scratch("explore", name);
    let args = [
        "mutants",
        "--bug",
        bug,
        "--max-seeds",
        seeds,
        "--explore",
        states,
        "--json",
    ];
    let o = support::dst(&dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    json(&o)["bugs"][0]["explored"].clone()
}

#[test]
fn mutants_hunts_a_bug_by_exploration_beside_fuzz() {
    let x = &explored_hunt("mutants", "flushcell-unserialized", "50", "20000");
    assert_eq!(x["found_by"], "no-lost-write", "{x}");
    assert_eq!(x["deviations"], 0, "{x}");
    assert!(x["states"].as_u64().unwrap() > 0);
}

/// A bug that needs the run to go on rather than more turns (a log grown
/// past its compaction point while a follower is down) is out of reach of
/// the short walks, whose runs end before 8 entries are applied, and found
/// by the walk of long runs once the others have spent their shares.
#[test]
fn mutants_long_walk_reaches_a_compaction_the_short_walks_do_not() {
    let x = &explored_hunt("mutants-long", "snapshot-without-data", "5", "40000");
    assert_eq!(x["found_by"], "state-machine-safety", "{x}");
    assert_eq!(x["faults"], "all, long", "{x}");
    assert_eq!(x["deviations"], 1, "{x}");
    // Every shorter walk spent its share first.
    assert!(x["states"].as_u64().unwrap() > 20_000, "{x}");
}

/// States meet again across time: with a relative digest (the Raft
/// model's) and draws keyed by state, the natural run of a steady cluster
/// reaches a state it passed one heartbeat before and stops there, far
/// short of the depth bound, where an absolute digest would tell every
/// round apart and walk on to the bound.
#[test]
fn a_steady_cluster_meets_its_own_earlier_state_and_stops() {
    let o = dst(&[
        "explore",
        "raft-crash-restart",
        "--deviations",
        "0",
        "--crashes",
        "0",
        "--drops",
        "0",
        "--ops",
        "0",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    assert_eq!(v["complete"], true, "{v}");
    assert_eq!(v["runs"], 1, "{v}");
    assert_eq!(v["revisits"], 1, "the run met a state again: {v}");
    assert_eq!(v["at_bound"], 0, "{v}");
    assert!(v["deepest"].as_u64().unwrap() < 100, "{v}");
}

/// A walk of `args` (after `explore`) with `bug` switched on, its
/// reports in `dir`: its JSON summary, after checking it exited 0.
fn walk(dir: &Path, bug: Option<&str>, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["explore", "--json", "--report-dir", dir.to_str().unwrap()];
    a.extend(args);
    if let Some(b) = bug {
        a.extend(["--bug", b]);
    }
    let o = dst(&a);
    let v = json(&o);
    // A find the bug asked for is 0; nothing found is 0 once every state
    // within the bounds was walked, 3 when a budget cut the walk.
    let code = if v["found"].is_null() && v["complete"] == false {
        3
    } else {
        0
    };
    assert_eq!(
        o.status.code(),
        Some(code),
        "{v} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    v
}

/// The report of a walk's find replays as recorded.
fn replays(v: &serde_json::Value) {
    let report = v["found"]["report"]
        .as_str()
        .unwrap_or_else(|| panic!("found nothing: {v}"));
    let replay = dst(&["replay", report]);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// Where an explored run's choices end it goes on as a sampled run does,
/// to the heal and the liveness deadline: a bug that only stalls progress
/// is found, its report replays, and the correct model on the same
/// scenario and bounds passes.
#[test]
fn a_liveness_bug_is_found_where_the_correct_model_converges() {
    let dir = support::scratch("explore", "liveness");
    let args = ["snapshot-guard-expired", "--deviations", "1", "--max-states", "20000"];
    let v = walk(&dir, Some("guard-expired-naive"), &args);
    assert_eq!(v["found"]["verdict"]["invariant"], "snapshot-liveness", "{v}");
    replays(&v);
    let v = walk(&dir, None, &args);
    assert!(v["found"].is_null(), "{v}");
}

/// Raft's Figure 8 at 3 nodes: a leader commits an entry of an earlier
/// term by counting the replicas that hold it. Three exact turns find it
/// (cut off the new leader before a client's entry reaches it, cut off the
/// next leader as its own entry arrives, cut off the first once it has
/// committed the old one), each taken where the protocol just did
/// something new, so the guided walk reaches them long before it has tried
/// every turn at every heartbeat. Its report replays, and the correct
/// model passes the same walk.
#[test]
fn figure_8_is_found_by_the_guided_walk_and_the_correct_model_passes_it() {
    let dir = support::scratch("explore", "figure8");
    let args = |states| {
        [
            "raft-figure8",
            "--guided",
            "--safety-only",
            "--deviations",
            "3",
            "--crashes",
            "0",
            "--drops",
            "0",
            "--partitions",
            "3",
            "--ops",
            "4",
            "--max-states",
            states,
        ]
    };
    let v = walk(&dir, Some("commit-old-term-by-count"), &args("3000000"));
    assert_eq!(v["found"]["verdict"]["invariant"], "state-machine-safety", "{v}");
    assert_eq!(v["found"]["deviations"], 3, "{v}");
    assert_eq!(v["order"], "guided");
    replays(&v);
    let v = walk(&dir, None, &args("300000"));
    assert!(v["found"].is_null(), "{v}");
    assert!(v["states"].as_u64().unwrap() >= 300_000, "{v}");
}

/// The guided walk of runs long enough for a leader change, whose clients
/// never run out of operations, with link cuts the only fault: the bounds
/// of a read-path bug (a write at the new leader, a read at the old one).
fn through_a_leader_change<'a>(
    scenario: &[&'a str],
    partitions: &'a str,
    deviations: &'a str,
    states: &'a str,
) -> Vec<&'a str> {
    let mut a = scenario.to_vec();
    a.extend([
        "--guided",
        "--depth",
        "1000",
        "--ops",
        "1000",
        "--crashes",
        "0",
        "--drops",
        "0",
    ]);
    a.extend([
        "--partitions",
        partitions,
        "--deviations",
        deviations,
        "--max-states",
        states,
    ]);
    a
}

/// A read-path bug needs a write committed by a new leader and a read at
/// the deposed one, both after the leader change: found at one deviation
/// (the leader cut off) once the clients never run out of operations in
/// runs long enough for an election (`--ops 1000` at `--depth 1000`;
/// with `--ops 3` the whole space of these bounds has no violation, see
/// the book's explore chapter). The stale read comes where the run settles and the cut heals.
/// Its report replays, and the correct model passes as many states.
#[test]
fn a_read_path_bug_is_found_when_clients_work_through_a_leader_change() {
    let dir = support::scratch("explore", "read-path");
    let args = |states| through_a_leader_change(&["raft-read-index"], "1", "1", states);
    let v = walk(&dir, Some("read-without-quorum"), &args("300000"));
    assert_eq!(v["found"]["verdict"]["invariant"], "linearizable", "{v}");
    assert_eq!(v["found"]["deviations"], 1, "{v}");
    replays(&v);
    let v = walk(&dir, None, &args("120000"));
    assert!(v["found"].is_null(), "{v}");
    assert!(v["states"].as_u64().unwrap() >= 120_000, "{v}");
}

/// A read error is met at the node's next boot: it comes with a crash and
/// a restart soon after, as fuzz's plans pair them, so one deviation
/// takes a node through a boot from a disk it cannot read. A store that
/// takes such a disk for an empty one is found at that one deviation, its
/// report replays, and the correct store passes as many states of the
/// same bounds. A Raft node that does the same forgets its vote: with one
/// append lost it wins its old term again (two leaders in one term).
#[test]
fn a_read_error_comes_with_its_crash_and_restart() {
    let dir = support::scratch("explore", "read-error");
    fn args<'a>(scenario: &'a str, drops: &'a str, states: &'a str) -> Vec<&'a str> {
        let bounds = ["--disks", "1", "--crashes", "1", "--deviations", "3"];
        let mut a = vec![scenario, "--drops", drops, "--max-states", states];
        a.extend(bounds);
        a
    }
    let v = walk(
        &dir,
        Some("store-read-error-as-empty"),
        &args("snapshot-storage-faults", "0", "200000"),
    );
    assert_eq!(v["found"]["verdict"]["invariant"], "offset-monotonic", "{v}");
    assert_eq!(v["found"]["deviations"], 1, "{v}");
    replays(&v);
    let states = v["states"].as_u64().unwrap().to_string();
    let v = walk(&dir, None, &args("snapshot-storage-faults", "0", &states));
    assert!(v["found"].is_null(), "{v}");
    assert!(v["states"].as_u64().unwrap() >= states.parse().unwrap(), "{v}");
    let mut a = args("raft-storage-faults", "1", "800000");
    a.push("--guided");
    let v = walk(&dir, Some("read-error-as-empty"), &a);
    assert_eq!(v["found"]["verdict"]["invariant"], "no-dual-leaders", "{v}");
    replays(&v);
}

/// A failed fsync is the other outcome of an fsync's completion, and a
/// crash may reboot the node at once: a Raft node that takes a failed
/// fsync of its vote for a durable one, crashes and comes straight back
/// has forgotten that vote, and with one append lost it wins its old term
/// again, three moves in all. The correct node halts on the failed fsync
/// and passes more states of the same bounds.
#[test]
fn a_failed_fsync_taken_for_durable_is_found_in_three_moves() {
    let dir = support::scratch("explore", "fsync-error");
    fn args(states: &str) -> Vec<&str> {
        let mut a = vec![
            "raft-storage-faults",
            "--guided",
            "--safety-only",
            "--max-states",
            states,
        ];
        a.extend(["--disks", "1", "--crashes", "1", "--drops", "1", "--deviations", "3"]);
        a
    }
    let v = walk(&dir, Some("fsync-error-ignored"), &args("1000000"));
    assert_eq!(v["found"]["verdict"]["invariant"], "no-dual-leaders", "{v}");
    assert_eq!(v["found"]["deviations"], 3, "{v}");
    replays(&v);
    let states = (v["states"].as_u64().unwrap() * 3 / 2).to_string();
    let v = walk(&dir, None, &args(&states));
    assert!(v["found"].is_null(), "{v}");
    assert!(v["states"].as_u64().unwrap() >= states.parse().unwrap(), "{v}");
}

/// With pre-vote off, a follower that still hears its leader must refuse
/// its vote to one that lost it while the leader's lease may hold;
/// `lease-no-vote-refusal` grants it. Three one-way cuts show it: the
/// leader's appends to one follower lost in a read-only spell (so that
/// follower's log stays as long as the other's), then, as that follower
/// campaigns, its own messages to the leader and the leader's to the
/// other follower; the new leader commits a write while the old one
/// serves a read from its lease. Three clients let 1,000 choices reach
/// the spell; each later turn comes where the protocol just did
/// something new (a candidate ahead of the leader, a second leader).
/// The report replays with its three clients, and the correct model
/// passes a million states of the same bounds.
#[test]
fn a_vote_granted_under_a_live_lease_is_found_by_three_one_way_cuts() {
    let dir = support::scratch("explore", "lease-votes");
    let args = |states| through_a_leader_change(&["raft-lease-votes", "--clients", "3"], "3", "3", states);
    let v = walk(&dir, Some("lease-no-vote-refusal"), &args("8000000"));
    assert_eq!(v["found"]["verdict"]["invariant"], "linearizable", "{v}");
    assert_eq!(v["found"]["deviations"], 3, "{v}");
    assert_eq!(v["clients"], 3, "{v}");
    replays(&v);
    let v = walk(&dir, None, &args("1000000"));
    assert!(v["found"].is_null(), "{v}");
    assert!(v["states"].as_u64().unwrap() >= 1_000_000, "{v}");
}

/// The walk of kafka-flow's TLC table (`scenarios/tlc/`), a switch and the
/// bounds of a row: its JSON summary and exit code.
fn tlc(dir: &Path, scenario: &str, deviations: &str, args: &[&str]) -> (serde_json::Value, Option<i32>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/tlc")
        .join(format!("{scenario}.json"));
    let mut a = vec![
        "explore",
        path.to_str().unwrap(),
        "--json",
        "--report-dir",
        dir.to_str().unwrap(),
        "--deviations",
        deviations,
        "--partitions",
        "1",
        "--pauses",
        "1",
        "--crashes",
        "1",
        "--drops",
        "0",
        "--depth",
        "400",
        "--max-states",
        "2000000",
    ];
    a.extend(args);
    let o = dst(&a);
    (json(&o), o.status.code())
}

/// kafka-flow's TLA+ configurations of its Cassandra snapshot store, at
/// their scope on the snapshot model's own code: the correct model and the
/// safe half of the fix-off configuration hold, every other configuration
/// fails the way TLC says, by the invariant that stands for TLC's, and its
/// report replays.
#[test]
fn kafka_flow_tlc_verdicts_are_reproduced() {
    let dir = support::scratch("explore", "tlc");
    let (v, code) = tlc(&dir, "snapshot-tlc", "1", &[]);
    assert!(v["found"].is_null() && v["complete"] == true, "refines: {v}");
    assert_eq!(code, Some(0), "{v}");
    let (v, code) = tlc(
        &dir,
        "snapshot-tlc",
        "1",
        &["--bug", "no-monotone-buffer", "--safety-only"],
    );
    assert!(v["found"].is_null() && v["complete"] == true, "replay_fixoff_safe: {v}");
    assert_eq!(code, Some(1), "a switch not found exits 1: {v}");
    let fails = [
        (
            "replay_fixoff",
            "snapshot-tlc",
            "no-monotone-buffer",
            "--invariant",
            "snapshot-liveness",
        ),
        (
            "tombstone_replay",
            "snapshot-tlc",
            "tombstone-recovers-as-none",
            "--invariant",
            "snapshot-liveness",
        ),
        (
            "init_clobber",
            "snapshot-tlc-events",
            "init-persisted-bypass",
            "--invariant",
            "snapshot-liveness",
        ),
        (
            "unguarded",
            "snapshot-tlc",
            "unguarded-persist",
            "--safety-only",
            "offset-monotonic",
        ),
        (
            "notomb",
            "snapshot-tlc",
            "delete-removes-row",
            "--safety-only",
            "no-tombstone-revival",
        ),
        (
            "events_journal_revive",
            "snapshot-tlc-events",
            "unguarded-journal-fold",
            "--safety-only",
            "no-tombstone-revival",
        ),
        (
            "skiptomb",
            "snapshot-tlc-deferred",
            "skip-tombstone-unpersisted",
            "--safety-only",
            "no-tombstone-revival",
        ),
    ];
    for (row, scenario, bug, mode, invariant) in fails {
        let mut args = vec!["--bug", bug, mode];
        if mode == "--invariant" {
            args.push(invariant);
        }
        let (v, code) = tlc(&dir, scenario, "2", &args);
        assert_eq!(code, Some(0), "{row}: {v}");
        assert_eq!(v["found"]["verdict"]["invariant"], invariant, "{row}: {v}");
        replays(&v);
    }
    // Reaping a tombstone by TTL while a stale owner may still write: the
    // scenario itself fails, with no switch, as it expects to.
    let (v, code) = tlc(&dir, "snapshot-tlc-reap", "2", &["--safety-only"]);
    assert_eq!(code, Some(0), "an expected violation exits 0: {v}");
    assert_eq!(v["found"]["expected"], true, "reap: {v}");
    assert_eq!(v["found"]["verdict"]["invariant"], "no-tombstone-revival", "reap: {v}");
    replays(&v);
}

#[test]
fn an_explored_report_shrinks_and_its_shrunk_report_replays() {
    let dir = support::scratch("explore", "shrink");
    let o = dst(&[
        "explore",
        "raft-crash-restart",
        "--bug",
        "hardstate-not-persisted",
        "--json",
        "--report-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json(&o);
    let report = v["found"]["report"]
        .as_str()
        .unwrap_or_else(|| panic!("found nothing: {v}"));
    let shrunk = dir.join("shrunk.json");
    let s = dst(&["shrink", report, "--out", shrunk.to_str().unwrap(), "--json"]);
    // Before, shrinking ran the report's seed without its tape: a pass,
    // "nothing to shrink", although replay reproduced it.
    assert_eq!(s.status.code(), Some(0), "{}", String::from_utf8_lossy(&s.stderr));
    let s = json(&s);
    assert_eq!(s["verdict"]["invariant"], "no-dual-leaders", "{s}");
    assert!(s["deviations"]["before"].as_u64().unwrap() >= 1, "{s}");
    assert!(
        s["deviations"]["after"].as_u64() <= s["deviations"]["before"].as_u64(),
        "{s}"
    );
    assert!(s["events"]["after"].as_u64() <= s["events"]["before"].as_u64(), "{s}");
    let r = dst(&["replay", shrunk.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
    assert!(String::from_utf8_lossy(&r.stdout).starts_with("reproduced"));
}
