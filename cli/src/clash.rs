//! Before a command does any work: what it will read and what it will
//! write, each with the flag that named it, so that no output replaces an
//! input (`view R -o R`, a run's `--report` over its scenario file) and no
//! two outputs are one file (`--summary F --junit F`). Defaults count:
//! `view R` writes `R.html` beside the report.

use super::args::{Cmd, CorpusOut, VerdictOut};
use sim::report::beside;
use sim::Registry;
use std::path::{Path, PathBuf};

type Named = Vec<(&'static str, PathBuf)>;

/// Refuses a command whose outputs clash; one line, for exit 2.
pub(super) fn check(reg: &Registry, cmd: &Cmd) -> Result<(), String> {
    let (ins, outs) = paths(reg, cmd);
    let ins: Vec<(&str, &Path)> = ins.iter().map(|(w, p)| (*w, p.as_path())).collect();
    let outs: Vec<(&str, &Path)> = outs.iter().map(|(w, p)| (*w, p.as_path())).collect();
    sim::host::files::distinct(&ins, &outs)
}

/// A scenario argument read from a file: a built-in name reads nothing,
/// even where a file of that name exists.
fn scenario_file(reg: &Registry, s: &str) -> Option<PathBuf> {
    let p = Path::new(s);
    (reg.builtin(s).is_none() && p.is_file()).then(|| p.to_path_buf())
}

fn verdict_outs(out: &VerdictOut, corpus: &CorpusOut, outs: &mut Named) {
    outs.extend(out.summary.clone().map(|p| ("--summary", p)));
    outs.extend(out.junit.clone().map(|p| ("--junit", p)));
    outs.extend(corpus.corpus.clone().map(|p| ("--corpus", p)));
}

fn paths(reg: &Registry, cmd: &Cmd) -> (Named, Named) {
    let (mut ins, mut outs): (Named, Named) = (Vec::new(), Vec::new());
    match cmd {
        Cmd::Run {
            scenario, report, html, ..
        } => {
            ins.extend(scenario_file(reg, scenario).map(|p| ("scenario file", p)));
            if let Some(r) = report {
                outs.push(("--report", r.clone()));
                if *html {
                    outs.push(("--html page", beside(r, "html")));
                }
            }
        }
        Cmd::Replay {
            report,
            full,
            out,
            html,
            ..
        } => {
            ins.push(("report", report.clone()));
            if *full {
                let dest = out.clone().unwrap_or_else(|| super::commands::full_path(report));
                outs.push(("--full report", dest));
            }
            if *html {
                outs.push(("--html page", beside(report, "html")));
            }
        }
        Cmd::View { report, out } => {
            ins.push(("report", report.clone()));
            outs.push(("page", out.clone().unwrap_or_else(|| beside(report, "html"))));
        }
        Cmd::Shrink { report, out, .. } => {
            ins.push(("report", report.clone()));
            let dest = out.clone().unwrap_or_else(|| dst_runner::shrink::shrunk_path(report));
            outs.push(("shrunk report", dest));
        }
        Cmd::Export { report, out, .. } => {
            ins.push(("report", report.clone()));
            outs.extend(out.clone().map(|p| ("--out", p)));
        }
        Cmd::Fuzz(a) => {
            ins.extend(scenario_file(reg, &a.scenario).map(|p| ("scenario file", p)));
            verdict_outs(&a.out, &a.corpus, &mut outs);
            outs.extend(a.cursor.clone().map(|p| ("--cursor", p)));
        }
        Cmd::Merge(a) => {
            ins.extend(a.summaries.iter().map(|p| ("shard summary", p.clone())));
            verdict_outs(&a.out, &a.corpus, &mut outs);
        }
        Cmd::Search(a) => {
            ins.extend(scenario_file(reg, &a.scenario).map(|p| ("scenario file", p)));
        }
        Cmd::Check(a) => {
            ins.push(("history", a.history.clone()));
            outs.extend(a.html.clone().map(|p| ("--html", p)));
        }
        _ => {}
    }
    (ins, outs)
}
