//! Valid inputs to start every mutation from: histories in each format, a
//! real report of a short run, and every built-in scenario file.

use serde_json::Value as Json;
use std::path::Path;
use std::sync::OnceLock;

pub const JEPSEN: &[&str] = &[
    "INFO  jepsen.core - Worker 0 starting\n\
     INFO  jepsen.util - 0\t:invoke\t:write\t4\n\
     INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n\
     INFO  jepsen.util - 1\t:invoke\t:read\tnil\n\
     INFO  jepsen.util - 0\t:ok\t:write\t4\n\
     INFO  jepsen.util - 1\t:ok\t:read\t4\n\
     INFO  jepsen.util - 2\t:invoke\t:cas\t[4 5]\n\
     INFO  jepsen.util - 2\t:fail\t:cas\t[4 5]\n\
     INFO  jepsen.util - 3\t:invoke\t:cas\t[4 6]\n\
     INFO  jepsen.util - 3\t:info\t:cas\t:timed-out\n",
    "0 :invoke :write 1\n1 :invoke :read nil\n0 :ok :write 1\n1 :ok :read 1\n\
     1 :invoke :cas [1 2]\n1 :ok :cas [1 2]\n0 :invoke :read nil\n0 :ok :read 1\n",
];

pub const EDN: &[&str] = &[
    "{:process 0, :type :invoke, :f :append, :key \"3\", :value \"x 0 1 y\"}\n\
     {:process 1, :type :invoke, :f :get, :key \"3\", :value nil, :time 12, :error [:a {:b \"c}\"}]}\n\
     {:process 0, :type :ok, :f :append, :key \"3\", :value \"x 0 1 y\"}\n\
     ; a comment\n\
     \n\
     {:process 1, :type :ok, :f :get, :key \"3\", :value \"x 0 1 y\"}\n\
     {:process 2 :type :invoke :f :put :key 4 :value \"a\\\"b\"}\n\
     {:process 2, :type :fail, :f :put, :key \"4\", :value \"a\\\"b\"}\n\
     {:process 3, :type :invoke, :f :put, :key \"4\", :value \"z\"}\n\
     {:process 3, :type :info, :f :put, :key \"4\", :value :timed-out}\n",
    "{:process 0, :type :invoke, :f :put, :key \"k\", :value \"1\"}\n\
     {:process 0, :type :ok, :f :put, :key \"k\", :value \"1\"}\n\
     {:process 1, :type :invoke, :f :get, :key \"k\", :value nil}\n\
     {:process 1, :type :ok, :f :get, :key \"k\", :value \"2\"}\n",
];

pub const JEPSEN_EDN: &[&str] = &[
    "{:type :invoke, :f :write, :value 3, :process 0, :time 10, :index 0}\n\
     #jepsen.history.Op{:index 1, :time 12, :type :ok, :process 0, :f :write, :value 3N}\n\
     {:process :nemesis, :type :info, :f :start, :value [:isolated {\"n1\" #{\"n2\"}}]}\n\
     {:process 1, :type :invoke, :f :cas, :value [3 4]}\n\
     {:process 2 :type :invoke :f :read :value nil}\n\
     {:process 1, :type :fail, :f :cas, :value [3 4], :error [:mismatch \"x\\u00e9\"]}\n\
     {:process 2, :type :ok, :f :read, :value 3, :time #inst \"2024-01-01\"}\n\
     {:process 3, :type :invoke, :f :write, :value :a} ; a comment\n\
     {:process 3, :type :info, :f :write, :value :a, :error #error {:cause \"t\"}}\n\
     #_ {:process 9} {:process 3, :type :invoke, :f :read, :value nil}\n",
    "[{:process 0, :type :invoke, :f :cas, :value (nil \\a)}\n \
     {:process 0, :type :ok, :f :cas, :value (nil \\a)}\n \
     ^{:meta 1} {:process 1, :type :invoke, :f :read, :value nil}\n \
     {:process 1, :type :ok, :f :read, :value \\a, :x 1/3, :y 2.5M, :z ##Inf}]\n",
    "{:process 0, :type :invoke, :f :acquire, :value nil}\n\
     {:process 1, :type :invoke, :f :acquire, :value nil}\n\
     {:process 0, :type :ok, :f :acquire, :value nil}\n\
     {:process 1, :type :fail, :f :acquire, :value nil, :error :held}\n\
     {:process 0, :type :invoke, :f :release, :value nil}\n\
     {:process 0, :type :info, :f :release, :value nil}\n",
    "[{:process 0, :type :invoke, :f :add, :value 1}\n \
     {:process 1, :type :invoke, :f :add, :value :b}\n \
     {:process 0, :type :ok, :f :add, :value 1}\n \
     {:process 2, :type :invoke, :f :read, :value nil}\n \
     {:process 2, :type :ok, :f :read, :value #{1 :b}}\n \
     {:process 2, :type :invoke, :f :read, :value nil}\n \
     {:process 2, :type :ok, :f :read, :value [1 :b]}]\n",
    "{:process 0, :type :invoke, :f :enqueue, :value 1}\n\
     {:process 0, :type :ok, :f :enqueue, :value 1}\n\
     {:process 1, :type :invoke, :f :enqueue, :value \"x\"}\n\
     {:process 2, :type :invoke, :f :dequeue, :value nil}\n\
     {:process 2, :type :ok, :f :dequeue, :value 1}\n\
     {:process 2, :type :invoke, :f :dequeue, :value nil}\n\
     {:process 2, :type :fail, :f :dequeue, :value nil, :error :empty}\n",
];

/// The report of a short run of a built-in scenario, as `dst run --report
/// --full-trace` writes it.
pub fn report() -> &'static str {
    static REPORT: OnceLock<String> = OnceLock::new();
    REPORT.get_or_init(|| short_report(true))
}

/// The same run's compact report, as `dst run --report` writes it.
pub fn compact_report() -> &'static str {
    static REPORT: OnceLock<String> = OnceLock::new();
    REPORT.get_or_init(|| short_report(false))
}

pub fn compact_report_json() -> Json {
    serde_json::from_str(compact_report()).expect("a report is JSON")
}

fn short_report(full_trace: bool) -> String {
    {
        let reg = dst::registry();
        // Short, so that thousands of cases parse it quickly: faults for
        // 400 ms, then 600 ms to converge (failing liveness makes a report too).
        let mut sc = reg.load("raft-crash-restart").expect("built-in");
        sc.safety_ms = 400;
        sc.liveness_ms = 600;
        sc.liveness.tail_ms = 100;
        let (out, wall_ms) = dst_runner::run_seed(&reg, &sc, 2, &[], None).expect("runs");
        let class = reg.classify(&out, &sc, &[]);
        let style = sim::report::Style {
            full_trace,
            gzip: false,
        };
        let r =
            dst_runner::report(&reg, &out, class, &sc, 2, &[], wall_ms, Path::new("r.json"), style).expect("reports");
        serde_json::to_string(&r).expect("encodes")
    }
}

pub fn report_json() -> Json {
    static JSON: OnceLock<Json> = OnceLock::new();
    JSON.get_or_init(|| serde_json::from_str(report()).expect("a report is JSON"))
        .clone()
}

/// The report's trace as JSON Lines, the other dst history `check` reads.
pub fn event_lines() -> String {
    let v = report_json();
    let events = v["trace"].as_array().expect("a trace");
    events.iter().take(400).map(|e| format!("{e}\n")).collect()
}

/// Every built-in scenario file.
pub fn scenarios() -> &'static [String] {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("scenarios/")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|p| std::fs::read_to_string(p).expect("readable"))
            .collect()
    })
}

pub fn bytes(texts: &[&str]) -> Vec<Vec<u8>> {
    texts.iter().map(|t| t.as_bytes().to_vec()).collect()
}
