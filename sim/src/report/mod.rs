//! The JSON report of a run: what a user reads and what `dst replay` re-runs.
//! Written atomically (a temporary file, then a rename), gzipped when its
//! name ends in `.gz`, read back (either way) with one clear error line for
//! anything malformed, truncated or from another schema.
//!
//! A report is compact by default: it keeps a window of its trace around
//! the evidence (`window`); the rest is the seed's to regenerate.

mod window;

pub use crate::trace::event_at;
pub use window::{cut, kept, Window, AFTER, BEFORE, KEPT_MAX};

use crate::calm::Calm;
use crate::event::Event;
use crate::nemesis::{PlanEntry, SwarmDraw};
use crate::one_line::one_line;
use crate::world::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// 2: model events outside the generic vocabulary are custom events, hashed
/// by their JSON text. 3: a report may keep messages calm (`calm`), which
/// a reader of schema 2 would ignore and so replay a different run. 4: a
/// report may keep only a window of its trace (`window`), which a reader
/// of schema 3 would take for a cut file. 5: traces are hashed a word at a
/// time ([`crate::trace::TraceHash::Words`]), not byte by byte with FNV-1a.
/// 6: a report may carry an explored run's tape (`explore`), without which
/// a reader of schema 5 would draw the run from its seed instead.
pub const SCHEMA: u32 = 6;

/// The newest schema whose traces are hashed the way `hash` hashes them.
pub fn schema_for(hash: crate::trace::TraceHash) -> u32 {
    match hash {
        crate::trace::TraceHash::Fnv1a => 4,
        crate::trace::TraceHash::Words | crate::trace::TraceHash::Off => SCHEMA,
    }
}

/// The oldest schema still read: a schema 2 report keeps no message calm.
pub const SCHEMA_MIN: u32 = 2;

/// Totals of a run, kept in its report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Events the run recorded, whether or not the report keeps them.
    pub events: u64,
    /// Messages the nodes sent one another.
    pub messages: u64,
    /// Simulated time the run reached, in ns.
    pub sim_ns: u64,
    /// Wall-clock time of the run; the only field that differs between replays.
    pub wall_ms: u64,
    /// Named counts kept by the checkers and the targeted faults (a
    /// `*_unknown` one counts checks that ran out of budget).
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
}

/// The report of one run, as written to its JSON file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The format of the file (see [`SCHEMA`]).
    pub schema: u32,
    /// The version of dst that wrote it.
    pub dst_version: String,
    /// The name of the scenario run.
    pub scenario: String,
    /// The seed that fixes the run.
    pub seed: u64,
    /// The bug switches the run had on, by name.
    pub bugs: Vec<String>,
    /// The scenario as it ran, so a report replays even if the file changed.
    pub config: serde_json::Value,
    /// The fault kinds and message chaos the swarm drew for this seed.
    pub swarm: SwarmDraw,
    /// The fault plan: each fault and the simulated time it is due; a replay
    /// follows it rather than drawing one.
    pub plan: Vec<PlanEntry>,
    /// Messages whose chaos is off, as sorted inclusive ranges of ids
    /// (a shrunk report's); none if absent.
    #[serde(default, skip_serializing_if = "Calm::is_empty")]
    pub calm: Calm,
    /// Pass, violation or error, with the invariant and evidence of a violation.
    pub verdict: Verdict,
    /// Whether the verdict is what the scenario and bug switches expect.
    pub expected: bool,
    /// The `sometimes` coverage goals the model reached.
    pub coverage: BTreeSet<String>,
    /// Totals of the run.
    pub stats: Stats,
    /// The hash of every event of the run, as 16 hex digits; a replay must match it.
    pub trace_hash: String,
    /// The command that replays this report.
    pub replay: String,
    /// Set when an interruption cut the run short: how many events it had
    /// taken from its queue, where a replay cuts it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<u64>,
    /// Set when `trace` keeps only the events around the evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// Set for an explored run: the moves it made (see [`crate::explore`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explore: Option<crate::explore::Tape>,
    /// The events kept, in order: all of them, or the window of `window`.
    pub trace: Vec<Event>,
}

/// How reports are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Keep every event instead of the window around the evidence.
    pub full_trace: bool,
    /// Gzip the file (its name gains `.gz`).
    pub gzip: bool,
}

impl Style {
    /// Where a report meant for `path` (a `.json` name) goes in this style.
    pub fn path(&self, path: std::path::PathBuf) -> std::path::PathBuf {
        if !self.gzip {
            return path;
        }
        let mut name = path.into_os_string();
        name.push(".gz");
        name.into()
    }

    /// The trace a report of `trace` keeps in this style, and what it is a
    /// window of (none: all of it); `None` if `trace` does not hold those
    /// events (the run must be repeated holding them, see [`Style::keep`]).
    pub fn trace(&self, trace: &crate::trace::Trace, evidence: &[u64]) -> Option<(Vec<Event>, Option<Window>)> {
        if self.full_trace {
            trace.is_whole().then(|| (trace.events().to_vec(), None))
        } else {
            cut(trace, evidence).map(|(kept, w)| (kept, Some(w)))
        }
    }

    /// What a run must hold for a report of it in this style, given how
    /// many events it had and its evidence.
    pub fn keep(&self, events: u64, evidence: &[u64]) -> crate::trace::Keep {
        if self.full_trace {
            crate::trace::Keep::All
        } else {
            crate::trace::Keep::Ranges(kept(events, evidence))
        }
    }
}

/// A file named for the report at `path`: `X.json` or `X.json.gz` (or any
/// other name, taken whole) becomes `X.{ext}` beside it.
pub fn beside(path: &Path, ext: &str) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".json.gz")
        .or_else(|| name.strip_suffix(".json"))
        .or_else(|| name.strip_suffix(".gz"))
        .unwrap_or(&name);
    path.with_file_name(format!("{stem}.{ext}"))
}

/// Bytes a gzipped report may decompress to: past this it is not one this
/// dst wrote (those stay under [`REPORT_BYTES_MAX`]), and reading on would
/// let a small hostile file take all the memory.
pub const GUNZIP_BYTES_MAX: u64 = REPORT_BYTES_MAX as u64;

/// The largest report written: about 2.8 million events. The default event
/// budget (2 million) stays below it; a scenario that raises the budget past
/// it gets a line saying so instead of a file of gigabytes.
pub const REPORT_BYTES_MAX: usize = 256 << 20;

impl Report {
    /// Nodes in the run: as configured, or as many as the trace names if
    /// it names more.
    pub fn nodes(&self) -> usize {
        let configured = self
            .config
            .get("nodes")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0) as usize;
        let seen = self
            .trace
            .iter()
            .filter_map(|e| e.node)
            .map(|n| n + 1)
            .max()
            .unwrap_or(0);
        configured.max(seen)
    }

    /// Where the run ended: its last event, or the simulated time it ran.
    pub fn end_ns(&self) -> u64 {
        self.trace.iter().map(|e| e.t_ns).fold(self.stats.sim_ns, u64::max)
    }

    /// Write to `path` atomically, gzipped if its name ends in `.gz`;
    /// creates the parent folder. See [`crate::host::files::write_atomic`] for
    /// what is refused.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = self.encode(REPORT_BYTES_MAX)?;
        if path.extension().is_some_and(|e| e == "gz") {
            crate::host::files::write_atomic(path, &crate::host::files::gzip(&text)?)
        } else {
            crate::host::files::write_atomic(path, &text)
        }
    }

    /// The report as JSON, if it is no larger than `limit` bytes; else a
    /// line saying how large it would be.
    pub fn encode(&self, limit: usize) -> Result<Vec<u8>, String> {
        let text = serde_json::to_vec(self).map_err(|e| format!("cannot encode report: {e}"))?;
        if text.len() > limit {
            return Err(format!(
                "the report of {} seed {} would be {} MB ({} bytes, {} events), over the {} MB limit, and is not written; a smaller event_budget keeps runs shorter, and dst run replays the seed",
                self.scenario,
                self.seed,
                text.len() >> 20,
                text.len(),
                self.trace.len(),
                limit >> 20
            ));
        }
        Ok(text)
    }

    /// Read and validate a report; the error is one line.
    pub fn read(path: &Path) -> Result<Report, String> {
        Self::read_keeping(path, &|_: &Event| true)
    }

    /// [`Report::read`], holding of a full report's trace only the events
    /// `keep` takes, as [`Report::parse_keeping`] does. The file is read as
    /// a stream, never held as text; a fault of the file itself (its size,
    /// its gzip, its UTF-8) is named before anything its text says, as
    /// when the text was read whole first.
    pub fn read_keeping(path: &Path, keep: &dyn Fn(&Event) -> bool) -> Result<Report, String> {
        Self::keeping(Source::File(path), keep).map_err(|f| match f {
            Fail::File(e) => one_line(&e),
            Fail::Report(e) => one_line(&format!("{}: {e}", crate::host::files::shown(path))),
        })
    }

    /// Parse and validate a report's text; the error is one line, even
    /// where serde quotes a string from the file.
    pub fn parse(text: &str) -> Result<Report, String> {
        Self::parse_keeping(text, &|_: &Event| true)
    }

    /// [`Report::parse`], holding of a full report's trace only the events
    /// `keep` takes (a compact report's window is held whole). Every event
    /// is still read, checked and hashed one at a time, so that a long
    /// trace is never held whole to be validated: its hash, count and
    /// numbering are checked as they are for the whole trace.
    pub fn parse_keeping(text: &str, keep: &dyn Fn(&Event) -> bool) -> Result<Report, String> {
        Self::keeping(Source::Text(text), keep).map_err(|f| match f {
            Fail::File(e) | Fail::Report(e) => one_line(&e),
        })
    }

    fn keeping(source: Source, keep: &dyn Fn(&Event) -> bool) -> Result<Report, Fail> {
        match Self::parse_checked(source, keep)? {
            // A compact report's window is read again whole, to check it.
            (r, false) => Self::parse_checked(source, &|_: &Event| true).map(|(whole, _)| Report {
                trace: whole.trace,
                ..r
            }),
            (r, true) => Ok(r),
        }
    }

    /// The report, and whether it is whole: false for a compact report some
    /// of whose window `keep` left out, whose window is then unchecked.
    fn parse_checked(source: Source, keep: &dyn Fn(&Event) -> bool) -> Result<(Report, bool), Fail> {
        let mut read = Read::new();
        let v = Self::stream(source, &mut |n, e| read.event(n, e, keep))?;
        Self::checked(v, read).map_err(Fail::Report)
    }

    /// The report's JSON, its trace handed to `each` an event at a time.
    fn stream(
        source: Source,
        each: &mut dyn FnMut(u64, serde_json::Value) -> Result<(), String>,
    ) -> Result<serde_json::Value, Fail> {
        let parsed = match source {
            Source::Text(text) => crate::host::strict::parse_streaming(text, "trace", each),
            Source::File(path) => {
                use std::io::BufRead;
                let mut input = crate::host::TextInput::open(path, GUNZIP_BYTES_MAX).map_err(Fail::File)?;
                if input.fill_buf().is_ok_and(|b| b.starts_with("\u{feff}".as_bytes())) {
                    input.consume(3);
                }
                let parsed = crate::host::strict::parse_streaming_from(&mut input, "trace", each);
                input.finish().map_err(Fail::File)?;
                parsed
            }
        };
        parsed.map_err(|e| {
            Fail::Report(match e {
                Ok(e) => format!("invalid report: {e}"),
                Err(e) if e.is_eof() => format!("truncated report ({e})"),
                Err(e) => format!("malformed report JSON ({e})"),
            })
        })
    }

    fn checked(v: serde_json::Value, read: Read) -> Result<(Report, bool), String> {
        match v.get("schema") {
            Some(s)
                if s.as_u64()
                    .is_some_and(|s| (SCHEMA_MIN as u64..=SCHEMA as u64).contains(&s)) => {}
            // A number is short to quote; anything else is named by its type.
            Some(s @ serde_json::Value::Number(_)) => {
                return Err(format!(
                    "report schema {s} is not supported (this dst reads schemas {SCHEMA_MIN} to {SCHEMA})"
                ))
            }
            Some(s) => {
                let what = match s {
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::Object(_) => "an object",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                };
                return Err(format!("report schema must be a number, not {what}"));
            }
            None => return Err("not a dst report (no schema field)".into()),
        }
        let mut r: Report = crate::host::strict::from_value(&v).map_err(|e| format!("invalid report: {e}"))?;
        if !crate::hash::is_hex_hash(&r.trace_hash) {
            return Err(format!(
                "trace_hash {:?} is not a trace hash (16 hex digits)",
                one_line(&r.trace_hash)
            ));
        }
        let held = read.held.len() as u64;
        r.trace = read.held;
        match &r.window {
            Some(w) if held == read.count => r.check_window(w)?,
            // Read again whole (see parse_keeping).
            Some(_) => return Ok((r, false)),
            None => {
                let h = match crate::trace::TraceHash::of_schema(r.schema) {
                    crate::trace::TraceHash::Fnv1a => read.fnv.hex(),
                    _ => read.words.hex(),
                };
                if h != r.trace_hash {
                    return Err(format!(
                        "trace does not match its hash (stored {}, computed {h}): the file was edited or cut",
                        r.trace_hash
                    ));
                }
                if let Some((n, i)) = read.misnumbered {
                    return Err(format!("trace event {n} is numbered {i}"));
                }
            }
        }
        r.check_verdict(read.count)?;
        Ok((r, true))
    }
}

/// Where a report's text comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    Text(&'a str),
    File(&'a Path),
}

/// Why a report could not be read: its file (the error names it), or what
/// its text says.
enum Fail {
    File(String),
    Report(String),
}

/// A report's trace as it is read, an event at a time.
struct Read {
    held: Vec<Event>,
    count: u64,
    words: crate::trace::EventHash,
    fnv: crate::trace::EventHash,
    /// The first event whose number is not its position.
    misnumbered: Option<(u64, u64)>,
}

impl Read {
    fn new() -> Read {
        Read {
            held: Vec::new(),
            count: 0,
            words: crate::trace::EventHash::new(crate::trace::TraceHash::Words),
            fnv: crate::trace::EventHash::new(crate::trace::TraceHash::Fnv1a),
            misnumbered: None,
        }
    }

    fn event(&mut self, n: u64, v: serde_json::Value, keep: &dyn Fn(&Event) -> bool) -> Result<(), String> {
        let e: Event = crate::host::strict::from_value(&v).map_err(|e| match e.strip_prefix("unknown field ") {
            Some(path) => format!("unknown field \"trace\"[{n}].{path}"),
            None => format!("trace[{n}]: {e}"),
        })?;
        self.words.add(&e);
        self.fnv.add(&e);
        self.count += 1;
        if e.i != n && self.misnumbered.is_none() {
            self.misnumbered = Some((n, e.i));
        }
        if keep(&e) {
            self.held.push(e);
        }
        Ok(())
    }
}

// The overrides of a run are the world's; what a report fixes of them is
// the report's to say, so the world need not know reports.
impl crate::world::Overrides {
    /// Everything a report fixes beyond its seed and scenario.
    pub fn of_report(r: &Report) -> crate::world::Overrides {
        crate::world::Overrides {
            plan: Some(r.plan.clone()),
            calm: r.calm.clone(),
            keep: crate::trace::Keep::default(),
            hash: crate::trace::TraceHash::of_schema(r.schema),
            cut_at: r.interrupted,
            explore: r.explore.clone(),
            explore_known: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_of_the_wrong_kind_is_named() {
        let err = |text: &str| Report::parse(text).unwrap_err();
        assert_eq!(
            err(r#"{"schema": "3"}"#),
            "report schema must be a number, not a string"
        );
        assert_eq!(
            err(r#"{"schema": 3.5}"#),
            format!("report schema 3.5 is not supported (this dst reads schemas {SCHEMA_MIN} to {SCHEMA})")
        );
        assert_eq!(err("[1]"), "not a dst report (no schema field)");
    }
}
