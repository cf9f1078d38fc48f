//! Per-node clocks. True time is the simulator's; a node reads only its own
//! wall clock (offset, drift, jumps) and monotonic clock (drift only).

use serde::Serialize;

/// Where every wall clock starts, so that negative offsets stay positive.
pub const WALL_EPOCH_NS: u64 = 1_000_000_000_000_000_000;

/// The fastest or slowest a clock may run, in parts per million.
const DRIFT_PPM_MAX: i64 = 500_000;

/// One node's wall and monotonic clocks, as functions of true time.
#[derive(Clone, Debug, Serialize)]
pub struct Clock {
    /// True time of the last rebase.
    base_true_ns: u64,
    base_wall_ns: i128,
    base_mono_ns: i128,
    /// Rate error in parts per million: +100 runs 100 µs/s fast.
    drift_ppm: i64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            base_true_ns: 0,
            base_wall_ns: WALL_EPOCH_NS as i128,
            base_mono_ns: 0,
            drift_ppm: 0,
        }
    }
}

impl Clock {
    fn elapsed_local(&self, true_ns: u64) -> i128 {
        let d = true_ns.saturating_sub(self.base_true_ns);
        // Every step reads two clocks: spare it a 128-bit division where
        // 64 bits give the same quotient (both truncate toward zero).
        if self.drift_ppm == 0 {
            return d as i128;
        }
        if d <= (i64::MAX / DRIFT_PPM_MAX) as u64 {
            let d = d as i64;
            return (d + d * self.drift_ppm / 1_000_000) as i128;
        }
        let d = d as i128;
        d + d * self.drift_ppm as i128 / 1_000_000
    }

    /// The wall clock's reading at true time `true_ns`, in ns: [`WALL_EPOCH_NS`]
    /// plus true time on a clock without skew.
    pub fn wall_ns(&self, true_ns: u64) -> u64 {
        (self.base_wall_ns + self.elapsed_local(true_ns)).max(0) as u64
    }

    /// The monotonic clock's reading at true time `true_ns`, in ns from 0.
    pub fn mono_ns(&self, true_ns: u64) -> u64 {
        (self.base_mono_ns + self.elapsed_local(true_ns)).max(0) as u64
    }

    /// What a drifting clock's future readings depend on beyond where it
    /// stands now: its rate, and (as its readings truncate) the true time
    /// since it was last set. Nothing for a clock without drift.
    pub fn drift_since(&self, true_ns: u64) -> Option<(i64, u64)> {
        (self.drift_ppm != 0).then(|| (self.drift_ppm, true_ns.saturating_sub(self.base_true_ns)))
    }

    /// How far this wall clock is ahead of true time (negative: behind).
    pub fn skew_ns(&self, true_ns: u64) -> i64 {
        self.wall_ns(true_ns) as i64 - (WALL_EPOCH_NS + true_ns) as i64
    }

    fn rebase(&mut self, true_ns: u64) {
        self.base_wall_ns = self.wall_ns(true_ns) as i128;
        self.base_mono_ns = self.mono_ns(true_ns) as i128;
        self.base_true_ns = true_ns;
    }

    /// Set the wall clock to true time plus `offset_ns`.
    pub fn set_offset(&mut self, true_ns: u64, offset_ns: i64) {
        self.rebase(true_ns);
        self.base_wall_ns = (WALL_EPOCH_NS + true_ns) as i128 + offset_ns as i128;
    }

    /// Make both clocks run `ppm` parts per million fast (negative: slow),
    /// within ±500,000, from true time `true_ns`.
    pub fn set_drift(&mut self, true_ns: u64, ppm: i64) {
        self.rebase(true_ns);
        self.drift_ppm = ppm.clamp(-DRIFT_PPM_MAX, DRIFT_PPM_MAX);
    }

    /// Step the wall clock (an NTP correction); the monotonic clock does not move.
    pub fn jump(&mut self, true_ns: u64, by_ns: i64) {
        self.rebase(true_ns);
        self.base_wall_ns += by_ns as i128;
    }

    /// True time at which this node's monotonic clock will have advanced by `local_ns`.
    pub fn true_after(&self, true_now_ns: u64, local_ns: u64) -> u64 {
        if self.drift_ppm == 0 {
            // What the division below gives at rate 1, without it.
            return true_now_ns.saturating_add(local_ns);
        }
        let rate = 1_000_000 + self.drift_ppm as i128;
        let d = (local_ns as i128 * 1_000_000 + rate - 1) / rate;
        // A timer beyond the end of any run never fires: saturate, never wrap.
        true_now_ns.saturating_add(u64::try_from(d.max(0)).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_speeds_local_time_and_timers_agree() {
        let mut c = Clock::default();
        c.set_drift(0, 100_000); // 10% fast
        assert_eq!(c.mono_ns(1_000_000_000), 1_100_000_000);
        let t = c.true_after(0, 1_100_000_000);
        assert!(c.mono_ns(t) >= 1_100_000_000);
        assert!(t <= 1_000_000_001);
    }

    #[test]
    fn fast_paths_agree_with_128_bit_arithmetic() {
        let wide = |c: &Clock, t: u64| {
            let d = t.saturating_sub(c.base_true_ns) as i128;
            d + d * c.drift_ppm as i128 / 1_000_000
        };
        let wide_after = |c: &Clock, now: u64, local: u64| {
            let rate = 1_000_000 + c.drift_ppm as i128;
            let d = (local as i128 * 1_000_000 + rate - 1) / rate;
            now.saturating_add(u64::try_from(d.max(0)).unwrap_or(u64::MAX))
        };
        let times = [
            0,
            1,
            999_999,
            1_000_001,
            123_456_789_012,
            i64::MAX as u64 / 500_000,
            1 << 62,
            u64::MAX,
        ];
        for ppm in [0, 1, -1, 37, -499_999, 500_000, -500_000] {
            let mut c = Clock::default();
            c.set_drift(3, ppm);
            for t in times {
                assert_eq!(c.elapsed_local(t), wide(&c, t), "ppm {ppm} t {t}");
                for now in [0, 5, u64::MAX - 10] {
                    assert_eq!(c.true_after(now, t), wide_after(&c, now, t), "ppm {ppm} local {t}");
                }
            }
        }
    }

    #[test]
    fn jump_moves_wall_not_mono() {
        let mut c = Clock::default();
        c.jump(5, -3_000);
        assert_eq!(c.mono_ns(10), 10);
        assert_eq!(c.skew_ns(10), -3_000);
    }

    #[test]
    fn offset_is_relative_to_true_time() {
        let mut c = Clock::default();
        c.set_drift(0, 50_000);
        c.set_offset(1_000, 2_000);
        assert_eq!(c.skew_ns(1_000), 2_000);
    }
}
