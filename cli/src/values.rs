//! Command-line values checked beyond their type: a zero that would mean
//! "do nothing" or "run forever" is refused rather than guessed at.

use super::progress::parse_duration;
use dst_runner::pool;
use std::time::Duration;

/// `--jobs`: at least one worker, at most [`JOBS_MAX`]; all cores when
/// left out.
pub fn jobs(requested: Option<usize>) -> Result<usize, String> {
    match requested {
        Some(0) => Err("--jobs must be at least 1".into()),
        Some(n) if n > JOBS_MAX => Err(format!(
            "--jobs {n} is more than {JOBS_MAX}: each job is an OS thread running its own simulation, and this machine has {} cores",
            pool::jobs(None)
        )),
        r => Ok(pool::jobs(r)),
    }
}

/// The most worker threads a command starts. The type allows far more;
/// the machine does not: past this, threads cost memory and scheduling
/// without running a seed sooner, and a mistyped number would spin the
/// machine where a line can say so.
pub const JOBS_MAX: usize = 1024;

/// `--budget`: a duration above zero.
pub fn budget(arg: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(text) = arg else { return Ok(None) };
    let d = parse_duration(text)?;
    if d.is_zero() {
        return Err(format!("--budget must be above zero (got '{}')", text.trim()));
    }
    Ok(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_are_refused_and_the_rest_kept() {
        assert!(jobs(Some(0)).is_err());
        assert!(jobs(Some(usize::MAX)).unwrap_err().contains("more than 1024"));
        assert_eq!(jobs(Some(JOBS_MAX)), Ok(JOBS_MAX));
        assert_eq!(jobs(Some(3)), Ok(3));
        assert!(jobs(None).unwrap() >= 1);
        assert!(budget(Some("0s")).unwrap_err().contains("above zero"));
        assert!(budget(Some("0")).is_err());
        assert_eq!(budget(Some("90s")), Ok(Some(Duration::from_secs(90))));
        assert_eq!(budget(None), Ok(None));
    }
}
