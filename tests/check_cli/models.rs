//! Jepsen EDN histories of Knossos' other models: a mutex, a set and the
//! two queues, from the hand-written files in tests/data/, and what a
//! history that fits no model, or not the one asked for, is told.

use crate::{assert_malformed, check, fixture};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Exit code and stdout of `dst check` on a file of tests/data/.
fn verdict(name: &str, extra: &[&str]) -> (Option<i32>, String) {
    let (code, out, err) = check(&data(name), extra);
    assert!(err.is_empty(), "{name}: {err}");
    (code, out)
}

#[test]
fn a_mutex_released_by_an_op_that_timed_out_may_be_acquired_again() {
    let (code, out) = verdict("jepsen-mutex.edn", &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("linearizable (3 ops on 1 key"), "{out}");
    let (code, out) = verdict("jepsen-mutex.edn", &["--model", "mutex", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, v["model"].as_str()), (Some(0), Some("mutex")));
}

#[test]
fn a_mutex_granted_twice_is_not_linearizable() {
    let (code, out) = verdict("jepsen-mutex-double-grant.edn", &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("NOT linearizable on key mutex"), "{out}");
    assert!(out.contains("cannot place: acquire by client 1 (lines 3..4)"), "{out}");
    assert!(out.contains("state there: held"), "{out}");
}

#[test]
fn a_set_read_as_a_set_literal_or_a_vector() {
    let (code, out) = verdict("jepsen-set.edn", &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("linearizable (4 ops on 1 key"), "{out}");
}

#[test]
fn a_set_that_loses_an_element_is_not_linearizable() {
    let (code, out) = verdict("jepsen-set-lost-add.edn", &["--json"]);
    assert_eq!(code, Some(1), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"], "set");
    assert_eq!(v["unplaced"]["op"], "read -> #{1}");
    assert_eq!(v["state"], "#{1 2}");
}

#[test]
fn queue_ops_are_checked_against_the_queue_asked_for() {
    // Dequeued newest first: an unordered queue may, a fifo queue may not.
    let (code, out) = verdict("jepsen-queue.edn", &["--model", "unordered-queue"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = verdict("jepsen-queue.edn", &["--model", "fifo-queue"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("cannot place: dequeue -> 2 by client 2 (lines 5..6)"),
        "{out}"
    );
    assert!(out.contains("state there: [1 2], oldest first"), "{out}");
    assert_malformed(
        &data("jepsen-queue.edn"),
        &[],
        "jepsen-queue.edn:1: queue ops: --model fifo-queue or --model unordered-queue says which",
    );
}

#[test]
fn a_dequeue_that_timed_out_may_have_taken_the_oldest_element() {
    let (code, out) = verdict("jepsen-queue-lost-dequeue.edn", &["--model", "fifo-queue"]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn an_element_dequeued_twice_is_not_linearizable() {
    for model in ["fifo-queue", "unordered-queue"] {
        let (code, out) = verdict("jepsen-queue-duplicate.edn", &["--model", model]);
        assert_eq!(code, Some(1), "{model}: {out}");
        assert!(
            out.contains("cannot place: dequeue -> \"x\" by client 2 (lines 5..6)"),
            "{out}"
        );
    }
}

#[test]
fn the_page_names_each_op_as_its_model_does() {
    let page = std::env::temp_dir().join(format!("dst-check-models-{}.html", std::process::id()));
    let (code, out) = verdict(
        "jepsen-queue.edn",
        &["--model", "fifo-queue", "--html", page.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    // The page's data escapes '>' so that no text can close its script.
    for op in ["\"enqueue 1\"", "\"dequeue -\\u003e 2\"", "\"dequeue -\\u003e 1\""] {
        assert!(html.contains(op), "{op} not on the page");
    }
}

#[test]
fn ops_the_model_does_not_have_are_refused_with_their_line() {
    assert_malformed(
        &data("jepsen-set.edn"),
        &["--model", "mutex"],
        "jepsen-set.edn:1: an :add op, but the mutex model has only :acquire and :release (--model set has :add)",
    );
    assert_malformed(
        &data("jepsen-mutex.edn"),
        &["--model", "cas-register"],
        "jepsen-mutex.edn:1: an :acquire op, but the cas-register model has only :read, :write and :cas",
    );
    let mixed = std::fs::read_to_string(data("jepsen-set.edn")).unwrap().replacen(
        ":f :add, :value 2",
        ":f :enqueue, :value 2",
        2,
    );
    assert_malformed(
        &fixture("mixed.edn", &mixed),
        &[],
        "mixed.edn:2: an :enqueue op, but no model has both it and the :add of line 1",
    );
    let drain = "{:process 0, :type :invoke, :f :enqueue, :value 1}\n{:process 1, :type :invoke, :f :drain}\n";
    assert_malformed(
        &fixture("drain.edn", drain),
        &["--model", "unordered-queue"],
        "drain.edn:2: a :drain op, but the unordered-queue model has only :enqueue and :dequeue",
    );
    assert_malformed(
        &data("jepsen-mutex.edn"),
        &["--initial", "0"],
        "--initial is for register histories, and",
    );
    assert_malformed(&data("jepsen-mutex.edn"), &["--model", "lock"], "invalid value 'lock'");
}

#[test]
fn a_malformed_value_is_refused_with_its_line() {
    let set = std::fs::read_to_string(data("jepsen-set.edn")).unwrap();
    assert_malformed(
        &fixture("set-read.edn", &set.replace(":value #{1 2}", ":value 3")),
        &[],
        "set-read.edn:5: expected a set :read's :value like #{1 2} or [1 2], found 3",
    );
    assert_malformed(
        &fixture("set-open.edn", &set.replace(":value #{1 2}", ":value #{1 2]")),
        &[],
        "set-open.edn:5: expected a value, found a closing bracket ']'",
    );
    let queue = std::fs::read_to_string(data("jepsen-queue.edn")).unwrap();
    assert_malformed(
        &fixture(
            "queue-f.edn",
            &queue.replacen(":ok, :f :dequeue", ":ok, :f :enqueue", 1),
        ),
        &["--model", "fifo-queue"],
        "queue-f.edn:6: process 2 completes :enqueue but invoked :dequeue at line 5",
    );
}
