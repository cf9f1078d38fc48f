//! The part of a report's run that `view` and `export` draw: the whole run
//! up to [`DRAWN_DEFAULT`] events; past that, a window of that many ending
//! just after the verdict's last evidence event (or at the run's end), or
//! the range a user asks for. What these commands hold follows the window,
//! not the run: a compact report's run is regenerated holding only the
//! window's events (its hash still covers every event, so the window is
//! checked as the whole trace is), a full report's trace is cut to it.

use crate::{one_line, report_scenario, run_guarded, Overrides, Registry};
use sim::report::Report;
use sim::trace::Keep;

/// Events drawn when no range is asked for. Every built-in scenario's run
/// fits whole (the longest about 60,000 events); a page of this many is
/// about 10 MB and opens in a browser in a few seconds.
pub const DRAWN_DEFAULT: u64 = 100_000;

/// Events drawn after the last evidence event, so a reader sees what
/// followed it.
const AFTER_EVIDENCE: u64 = 1_000;

/// The events drawn, as positions `from..to` of a run of `of` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Drawn {
    /// The first position drawn.
    pub from: u64,
    /// One past the last position drawn.
    pub to: u64,
    /// Events in the run.
    pub of: u64,
}

impl Drawn {
    /// Every event of a run of `of` events.
    pub fn whole(of: u64) -> Drawn {
        Drawn { from: 0, to: of, of }
    }

    /// Whether every event of the run is drawn.
    pub fn is_whole(&self) -> bool {
        self.from == 0 && self.to == self.of
    }

    /// What is drawn of a run of `of` events whose verdict names
    /// `evidence`, when no range is asked for.
    pub fn by_default(of: u64, evidence: &[u64]) -> Drawn {
        if of <= DRAWN_DEFAULT {
            return Drawn::whole(of);
        }
        let anchor = evidence.iter().copied().filter(|&i| i < of).max();
        let to = anchor.map_or(of, |i| i.saturating_add(1 + AFTER_EVIDENCE).min(of));
        let to = to.max(DRAWN_DEFAULT);
        Drawn {
            from: to - DRAWN_DEFAULT,
            to,
            of,
        }
    }

    /// The range `from..to` asked for, within a run of `of` events (an
    /// end past the run is taken as the run's end).
    pub fn asked(from: u64, to: u64, of: u64) -> Result<Drawn, String> {
        if from >= of {
            return Err(format!("--events {from}..{to}: the run has {of} events (0..{of})"));
        }
        Ok(Drawn {
            from,
            to: to.min(of),
            of,
        })
    }

    /// The line a reader is shown when the window is not the whole run.
    pub fn note(&self) -> Option<String> {
        (!self.is_whole()).then(|| {
            format!(
                "events {}..{} of {}; --events A..B draws others",
                self.from, self.to, self.of
            )
        })
    }
}

/// `A..B` (B exclusive) as a range of event positions; the error is one line.
pub fn parse_events(s: &str) -> Result<(u64, u64), String> {
    crate::fuzz::parse_range(s, "event range")
}

/// The report at `path` holding the events to draw (`asked`, or
/// [`Drawn::by_default`]), and which they are. A compact report's run is
/// regenerated from its seed (its scenario must be one `registry` knows)
/// and must hash to its trace hash and run the events it claims; the error
/// is one line.
pub fn read_drawn(
    registry: &Registry,
    path: &std::path::Path,
    asked: Option<(u64, u64)>,
) -> Result<(Report, Drawn), String> {
    let shown = sim::host::files::shown(path);
    let mine = |e: String| one_line(&format!("{shown}: {e}"));
    // Read once holding no event of a full trace (all of it checked), to
    // learn its length and evidence; then again holding what is drawn.
    let mut r = Report::read_keeping(path, &|_| false)?;
    r.replay = crate::hint::replay(path);
    // Checked against the trace as it was read, for either kind of report.
    let of = r.stats.events;
    let drawn = match asked {
        Some((a, b)) => Drawn::asked(a, b, of).map_err(mine)?,
        None => Drawn::by_default(of, &r.verdict.evidence),
    };
    if r.is_compact() {
        r.trace = report_scenario(registry, &r)
            .and_then(|s| regenerate(registry, &s, &r, &drawn))
            .map_err(mine)?;
        r.window = None;
    } else {
        let keep = |e: &sim::Event| (drawn.from..drawn.to).contains(&e.i);
        r.trace = Report::read_keeping(path, &keep)?.trace;
    }
    Ok((r, drawn))
}

/// The events `drawn` of a compact report's run of `scenario` (the
/// report's, see [`report_scenario`]), from its seed, plan and calm
/// messages: the run must hash to the report's trace hash and run as many
/// events as it claims.
pub(crate) fn regenerate(
    registry: &Registry,
    scenario: &sim::Scenario,
    r: &Report,
    drawn: &Drawn,
) -> Result<Vec<sim::Event>, String> {
    let keep = if drawn.is_whole() {
        Keep::All
    } else {
        Keep::Ranges(vec![(drawn.from, drawn.to - 1)])
    };
    regenerate_keeping(registry, scenario, r, keep)
}

/// [`regenerate`], holding the events `keep` holds.
pub(crate) fn regenerate_keeping(
    registry: &Registry,
    scenario: &sim::Scenario,
    r: &Report,
    keep: Keep,
) -> Result<Vec<sim::Event>, String> {
    let fixed = Overrides {
        keep,
        ..Overrides::of_report(r)
    };
    let out = run_guarded(registry, scenario, r.seed, &r.bugs, fixed)?;
    let now = out.trace.hash_hex();
    if now != r.trace_hash {
        return Err(format!(
            "the compact report's trace cannot be regenerated: its seed now runs to trace {now}, not {} (written by dst {}; this is dst {}); a report written with --full-trace keeps every event",
            r.trace_hash,
            r.dst_version,
            env!("CARGO_PKG_VERSION")
        ));
    }
    let ran = out.trace.len() as u64;
    if ran != r.stats.events {
        return Err(format!(
            "the report claims {} events, but its seed runs {ran}: the file was edited",
            r.stats.events
        ));
    }
    Ok(out.trace.into_events())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_is_drawn_up_to_just_after_its_evidence() {
        let n = DRAWN_DEFAULT;
        assert!(Drawn::by_default(n, &[5]).is_whole());
        let d = Drawn::by_default(10 * n, &[3 * n]);
        assert_eq!((d.from, d.to), (2 * n + 1 + AFTER_EVIDENCE, 3 * n + 1 + AFTER_EVIDENCE));
        let d = Drawn::by_default(10 * n, &[]);
        assert_eq!((d.from, d.to), (9 * n, 10 * n));
        // Evidence near the start still draws a full window.
        let d = Drawn::by_default(10 * n, &[2]);
        assert_eq!((d.from, d.to), (0, n));
        // Evidence past the run (an edited report) is not an anchor.
        let d = Drawn::by_default(2 * n, &[u64::MAX]);
        assert_eq!((d.from, d.to), (n, 2 * n));
    }

    #[test]
    fn a_range_is_checked_against_the_run() {
        assert_eq!(
            Drawn::asked(5, 10, 100),
            Ok(Drawn {
                from: 5,
                to: 10,
                of: 100
            })
        );
        assert_eq!(Drawn::asked(5, 1000, 100).map(|d| d.to), Ok(100));
        assert!(Drawn::asked(100, 200, 100).is_err());
        assert_eq!(parse_events("3..9"), Ok((3, 9)));
        for bad in ["9..3", "3", "a..b", "3..3", "-1..4"] {
            assert!(parse_events(bad).is_err(), "{bad}");
        }
    }
}
