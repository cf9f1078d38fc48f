//! The ranges every knob of a scenario or a model config must lie in, and
//! the one-line errors that name a knob out of them:
//! `faults.drop_probability_max = 1.5 is out of range 0..=1`.
//!
//! Upper bounds exist so that simulated time and counts stay far from
//! overflow: every duration is at most [`TIME_MS_MAX`], so a phase, a timer
//! or a fault in nanoseconds, and the sum of the two phases, fit in a `u64`
//! many times over, and no knob can make a run skip a phase or wrap around.
//! Models use the same helpers for their own configs.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// The longest duration any knob may name, in ms: one simulated hour. A
/// run is at most two of them (safety and liveness phases).
pub const TIME_MS_MAX: u64 = 3_600_000;

/// The largest trace a run may record (`event_budget`): at roughly 100
/// bytes an event, a report of about a gigabyte.
pub const EVENT_BUDGET_MAX: u64 = 10_000_000;

/// `field` must lie in `range`.
pub fn within<T: PartialOrd + Display>(field: &str, value: T, range: RangeInclusive<T>) -> Result<(), String> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{field} = {value} is out of range {}..={}",
            range.start(),
            range.end()
        ))
    }
}

/// `field` must lie in `range`; `why` says what sets the range when another
/// knob does ("below config.election_timeout_ms_min").
pub fn within_because<T: PartialOrd + Display>(
    field: &str,
    value: T,
    range: RangeInclusive<T>,
    why: &str,
) -> Result<(), String> {
    within(field, value, range).map_err(|e| format!("{e} ({why})"))
}

/// A duration in ms: `min..=TIME_MS_MAX`.
pub fn ms(field: &str, value: u64, min: u64) -> Result<(), String> {
    within(field, value, min..=TIME_MS_MAX)
}

/// A probability: `0..=1` (NaN is out of it too).
pub fn probability(field: &str, value: f64) -> Result<(), String> {
    within(field, value, 0.0..=1.0)
}

/// The lower end of a pair may not exceed its upper end.
pub fn ordered<T: PartialOrd + Display>(min_field: &str, min: T, max_field: &str, max: T) -> Result<(), String> {
    if min <= max {
        Ok(())
    } else {
        Err(format!("{min_field} = {min} exceeds {max_field} = {max}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field_the_value_and_the_range() {
        assert_eq!(
            probability("faults.drop_probability_max", 1.5).unwrap_err(),
            "faults.drop_probability_max = 1.5 is out of range 0..=1"
        );
        assert!(probability("p", f64::NAN).is_err());
        assert!(probability("p", 0.0).is_ok() && probability("p", 1.0).is_ok());
        assert_eq!(
            ms("liveness_ms", u64::MAX, 1).unwrap_err(),
            format!("liveness_ms = {} is out of range 1..=3600000", u64::MAX)
        );
        assert_eq!(
            ordered("a_min", 3, "a_max", 2).unwrap_err(),
            "a_min = 3 exceeds a_max = 2"
        );
        assert!(ordered("a_min", 2, "a_max", 2).is_ok());
        assert_eq!(
            within_because("hb", 0u64, 1..=149, "below e").unwrap_err(),
            "hb = 0 is out of range 1..=149 (below e)"
        );
    }

    #[test]
    fn the_longest_run_fits_in_nanoseconds_many_times_over() {
        let run_ns = 2 * TIME_MS_MAX * 1_000_000;
        assert!(run_ns.checked_mul(1_000).is_some());
    }
}
