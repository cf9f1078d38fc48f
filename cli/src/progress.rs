//! Progress for long work: an indicatif bar on a terminal, plain lines
//! (at most one every few seconds) otherwise, so CI logs stay readable.

use indicatif::{ProgressBar, ProgressStyle};
use linearizability::one_line::one_line;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    /// `total`: seeds to do, if known. `quiet`: print nothing (machine output).
    pub fn new(total: Option<u64>, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = match total {
                Some(n) => ProgressBar::new(n),
                None => ProgressBar::new_spinner(),
            };
            let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} seeds {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ");
            b.set_style(style);
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let now = Instant::now();
        Progress {
            bar,
            started: now,
            last_line: now,
            quiet,
        }
    }

    pub fn update(&mut self, done: u64, failures: u64) {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let msg = format!("{:.1} seeds/s, {failures} unexpected", done as f64 / secs);
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(msg);
        } else if !self.quiet && self.last_line.elapsed() >= Duration::from_secs(5) {
            self.last_line = Instant::now();
            sim::errln!("[{:>5.0}s] {done} seeds, {msg}", secs);
        }
    }

    /// A line that must not be lost under the bar.
    pub fn line(&self, s: &str) {
        match &self.bar {
            Some(b) => b.println(s),
            None => sim::errln!("{s}"),
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// "90s", "10m", "1h", "500ms" or plain seconds; the error is one line.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let bad = || format!("invalid duration '{}' (use e.g. 90s, 10m, 1h)", one_line(s));
    let (num, unit) = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((s, "s"), |i| s.split_at(i));
    let n: f64 = num.parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(bad()),
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(bad());
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("duration '{s}' is too long to count"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5d").is_err());
        assert_eq!(
            parse_duration("99999999999999999h").unwrap_err(),
            "duration '99999999999999999h' is too long to count"
        );
        assert!(parse_duration("1\n2").unwrap_err().contains("'1\\n2'"));
    }
}
