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
type Outs = Vec<(&'static str, Out)>;

/// Refuses a command whose outputs clash, or that could not write one of
/// them now (a folder where a file goes, a file where a folder goes, no
/// permission): one line, for exit 2, before a campaign or walk whose
/// verdict and finds would otherwise be lost at its end.
pub(super) fn check(reg: &Registry, cmd: &Cmd) -> Result<(), String> {
    let (ins, outs) = paths(reg, cmd);
    let ins: Vec<(&str, &Path)> = ins.iter().map(|(w, p)| (*w, p.as_path())).collect();
    let files: Vec<(&str, &Path)> = outs
        .iter()
        .filter(|(_, o)| matches!(o, Out::File(_)))
        .map(|(w, o)| (*w, o.path()))
        .collect();
    sim::host::files::distinct(&ins, &files)?;
    for (what, o) in &outs {
        match o {
            Out::File(p) => sim::host::files::check_writable(p),
            Out::Dir(d) => sim::host::files::check_dir_writable(d),
        }
        .map_err(|e| format!("{what}: {e}"))?;
    }
    Ok(())
}

/// Something a command writes: a file, or a folder it writes reports into.
enum Out {
    File(PathBuf),
    Dir(PathBuf),
}

impl Out {
    fn path(&self) -> &Path {
        match self {
            Out::File(p) | Out::Dir(p) => p,
        }
    }
}

impl From<PathBuf> for Out {
    fn from(p: PathBuf) -> Self {
        Out::File(p)
    }
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

fn paths(reg: &Registry, cmd: &Cmd) -> (Named, Outs) {
    let (ins, outs, dirs) = files(reg, cmd);
    let mut all: Outs = outs.into_iter().map(|(w, p)| (w, p.into())).collect();
    all.extend(dirs.into_iter().map(|(w, d)| (w, Out::Dir(d))));
    (ins, all)
}

/// What a command reads, the files it writes, and the folders it writes
/// reports into.
fn files(reg: &Registry, cmd: &Cmd) -> (Named, Named, Named) {
    let (mut ins, mut outs, mut dirs): (Named, Named, Named) = (Vec::new(), Vec::new(), Vec::new());
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
        Cmd::View { report, out, .. } => {
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
            if !a.no_reports {
                dirs.push(("--report-dir", a.report_dir.clone()));
            }
        }
        Cmd::Merge(a) => {
            ins.extend(a.summaries.iter().map(|p| ("shard summary", p.clone())));
            verdict_outs(&a.out, &a.corpus, &mut outs);
        }
        Cmd::Search(a) => {
            ins.extend(scenario_file(reg, &a.scenario).map(|p| ("scenario file", p)));
            dirs.push(("--report-dir", a.report_dir.clone()));
        }
        Cmd::Explore(a) => {
            ins.extend(scenario_file(reg, &a.scenario).map(|p| ("scenario file", p)));
            dirs.push(("--report-dir", a.report_dir.clone()));
        }
        Cmd::Mutants { report_dir, .. } => dirs.push(("--report-dir", report_dir.clone())),
        Cmd::Check(a) => {
            ins.push(("history", a.history.clone()));
            outs.extend(a.html.clone().map(|p| ("--html", p)));
        }
        _ => {}
    }
    (ins, outs, dirs)
}
