//! The command line's arguments.

use crate::lin::JepsenModel;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "dst",
    version,
    about = "Deterministic simulation testing for distributed systems"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// List scenarios, bug switches and invariants.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Run one seed of a scenario; writes a report on failure (or always with --report).
    Run {
        /// A built-in scenario name or a path to a scenario JSON file.
        scenario: String,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Switch on a catalogued bug (repeatable).
        #[arg(long = "bug")]
        bugs: Vec<String>,
        /// Where to write the report (default: reports/ on failure only).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also write the report's HTML view beside it (REPORT.html).
        #[arg(long)]
        html: bool,
        #[arg(long)]
        json: bool,
    },
    /// Run many seeds of one scenario, or of all built-in scenarios.
    Fuzz(FuzzArgs),
    /// One verdict over the shards of a fuzz campaign: coverage goals and
    /// declared violations judged on the union, exit code as for fuzz.
    Merge(MergeArgs),
    /// Coverage-guided search: mutate the fault plans, seeds and drawn
    /// configurations of runs that reached something new.
    Search(SearchArgs),
    /// Re-run a report: exit 0 if verdict and trace hash match, 1 if not.
    Replay {
        report: PathBuf,
        /// Also write the report's HTML view beside it (REPORT.html).
        #[arg(long)]
        html: bool,
        #[arg(long)]
        json: bool,
    },
    /// A report as one self-contained HTML page: lanes per node, faults,
    /// messages, client operations and the violation (opens from disk).
    View {
        report: PathBuf,
        /// Where to write the page (default: REPORT.html beside the report).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// A smaller counterexample that fails the same way: fewer faults, calmer messages, a shorter run.
    Shrink {
        report: PathBuf,
        /// Where to write the shrunk report (default: REPORT.shrunk.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Most runs to spend.
        #[arg(long, default_value_t = 400)]
        max_runs: u64,
        #[arg(long)]
        json: bool,
    },
    /// A report's trace for a trace viewer: Perfetto (ui.perfetto.dev) or chrome://tracing.
    Export {
        report: PathBuf,
        /// perfetto: the Chrome Trace Event JSON format.
        #[arg(long, default_value = "perfetto")]
        format: String,
        /// Where to write it (default: stdout).
        #[arg(short = 'o', long)]
        out: Option<PathBuf>,
    },
    /// Every catalogued bug against its scenario: found? after how many seeds?
    Mutants {
        #[arg(long, default_value_t = 2_000)]
        max_seeds: u64,
        /// Hunt each bug also by coverage-guided search (as many runs), side by side.
        #[arg(long)]
        guided: bool,
        /// Shrink each find (within this many runs) and show its trace length before and after.
        #[arg(long, value_name = "RUNS", num_args = 0..=1, default_missing_value = "400")]
        shrink: Option<u64>,
        /// Only these bugs (repeatable).
        #[arg(long = "bug")]
        bugs: Vec<String>,
        #[arg(long)]
        jobs: Option<usize>,
        #[arg(long, default_value = "reports")]
        report_dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Is a recorded history linearizable? Exit 0 yes, 1 no, 3 unknown, 2 malformed.
    Check(CheckArgs),
    /// Seeds/s and events/s per scenario, beside a bare madsim message loop.
    Bench {
        /// Seeds per scenario.
        #[arg(long, default_value_t = 40)]
        seeds: u64,
        /// Only these scenarios (repeatable), measured side by side.
        #[arg(long)]
        scenario: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args, Debug)]
pub struct FuzzArgs {
    /// A built-in scenario, a scenario file, or "all".
    #[arg(default_value = "all")]
    pub scenario: String,
    /// Seed range A..B (B exclusive).
    #[arg(long)]
    pub seeds: Option<String>,
    /// Stop taking new seeds after this long (e.g. 90s, 10m, 1h).
    #[arg(long)]
    pub budget: Option<String>,
    /// Worker threads, each with its own runtime (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run only seeds s with s % N == I; also read from DST_SHARD and
    /// DST_SHARDS, or JOB_COMPLETION_INDEX and DST_SHARDS. One shard of
    /// several leaves coverage and declared violations to `dst merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// With --shard: judge coverage and declared violations on this shard's
    /// seeds alone instead of leaving them to `dst merge`.
    #[arg(long)]
    pub judge_slice: bool,
    #[arg(long = "bug")]
    pub bugs: Vec<String>,
    #[arg(long, default_value = "reports")]
    pub report_dir: PathBuf,
    /// Run every seed twice and fail on any difference in trace hash.
    #[arg(long)]
    pub determinism: bool,
    /// Also write each report's HTML view beside it (REPORT.html).
    #[arg(long)]
    pub html: bool,
    /// Reports per kind of failure (scenario, cause, bug switches, evidence
    /// kinds); every failing seed is still listed with its replay command.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub max_reports: u64,
    /// Reports over the whole campaign.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub max_reports_total: u64,
    /// Write no reports at all: count and list only.
    #[arg(long)]
    pub no_reports: bool,
    /// Continue where the last run with this file stopped, and record where
    /// this one stops: time-boxed runs (--budget) that never repeat a seed.
    #[arg(long)]
    pub cursor: Option<PathBuf>,
    #[command(flatten)]
    pub out: VerdictOut,
    #[command(flatten)]
    pub corpus: CorpusOut,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Summary files of the shards (`fuzz --summary`).
    #[arg(required = true)]
    pub summaries: Vec<PathBuf>,
    #[command(flatten)]
    pub out: VerdictOut,
    #[command(flatten)]
    pub corpus: CorpusOut,
}

/// Where a campaign's new kinds of failure go.
#[derive(clap::Args, Debug)]
pub struct CorpusOut {
    /// Append each unexpected failure of a kind this corpus file lacks
    /// (its signature: scenario, cause, bug switches, evidence kinds),
    /// shrunk, as a line `cargo test` can replay.
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,
    /// Most runs to spend shrinking each new line.
    #[arg(long, default_value_t = 400, value_name = "RUNS")]
    pub corpus_shrink_runs: u64,
}

/// Where a fuzz verdict goes besides the terminal.
#[derive(clap::Args, Debug)]
pub struct VerdictOut {
    /// Also write the summary (as --json prints it) to this file; written
    /// when interrupted too, marked so. `dst merge` reads it.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Also write the verdict as JUnit XML.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// A built-in scenario or a scenario file.
    pub scenario: String,
    /// Guided runs to make.
    #[arg(long, default_value_t = 1_000)]
    pub runs: u64,
    /// Stop starting batches after this long (e.g. 90s, 10m).
    #[arg(long)]
    pub budget: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The campaign's seed: the same seed, the same campaign.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long = "bug")]
    pub bugs: Vec<String>,
    /// Also run as many plain seeds in the same batches and compare coverage.
    #[arg(long)]
    pub compare: bool,
    /// Stop at the first violation.
    #[arg(long)]
    pub stop: bool,
    #[arg(long, default_value = "reports")]
    pub report_dir: PathBuf,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The history file.
    pub history: PathBuf,
    /// jepsen (single-register log), jepsen-edn (Jepsen's history.edn of a
    /// register, mutex, set or queue), edn (kv maps) or json (a dst report
    /// or JSON Lines of dst events); guessed from the first line if left out.
    #[arg(long, value_enum)]
    pub format: Option<HistoryFormat>,
    /// For jepsen-edn, Knossos' model to check against: register (:read,
    /// :write), cas-register (and :cas), mutex (:acquire, :release), set
    /// (:add, :read), fifo-queue or unordered-queue (:enqueue, :dequeue).
    /// Left out, the history's ops pick it (a queue's must be named).
    #[arg(long, value_enum)]
    pub model: Option<JepsenModel>,
    /// For jepsen and jepsen-edn: what the register holds before the first
    /// op, as EDN (default nil).
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    pub initial: Option<String>,
    /// Search steps allowed per key before the verdict is "unknown".
    #[arg(long, default_value_t = crate::lin::DEFAULT_BUDGET_PER_KEY)]
    pub budget: u64,
    /// Also draw the history (client operations, and the longest partial
    /// linearization if it fails) as a self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryFormat {
    Jepsen,
    JepsenEdn,
    Edn,
    Json,
}

impl clap::ValueEnum for JepsenModel {
    fn value_variants<'a>() -> &'a [Self] {
        &JepsenModel::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}
