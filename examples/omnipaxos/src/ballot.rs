//! A ballot of either release, and how it names a leadership epoch in the
//! events the checkers read.

use serde::Serialize;
use sim::Ballot;

/// The crate's `Ballot`, the same four fields in both releases. Ordered as
/// the crate orders it: by round, then priority, then pid; the
/// configuration id does not take part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BallotRec {
    pub config_id: u32,
    pub n: u32,
    pub priority: u32,
    pub pid: u64,
}

impl Ord for BallotRec {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.n, self.priority, self.pid).cmp(&(other.n, other.priority, other.pid))
    }
}

impl PartialOrd for BallotRec {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl BallotRec {
    /// The epoch a role event names: the ballot as the checkers' tuple, and
    /// as one number that orders ballots the same way and tells distinct
    /// ones apart (priority and pid each fit 16 bits in any cluster dst
    /// runs). The only place a ballot becomes an epoch.
    pub fn epoch(&self) -> (u64, Ballot) {
        let term = ((self.n as u64) << 32) | ((self.priority.min(0xffff) as u64) << 16) | self.pid.min(0xffff);
        (term, Ballot(vec![self.n as u64, self.priority as u64, self.pid]))
    }

    /// [`BallotRec::epoch`]'s number alone.
    pub fn term(&self) -> u64 {
        self.epoch().0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: u32, priority: u32, pid: u64) -> BallotRec {
        BallotRec {
            config_id: 1,
            n,
            priority,
            pid,
        }
    }

    #[test]
    fn terms_order_and_separate_ballots_as_the_crate_does() {
        let ballots = [b(0, 0, 0), b(1, 0, 1), b(1, 0, 3), b(1, 2, 1), b(2, 0, 1), b(7, 0, 2)];
        for w in ballots.windows(2) {
            assert!(w[0] < w[1]);
            assert!(w[0].term() < w[1].term(), "{:?} {:?}", w[0], w[1]);
            assert!(w[0].epoch().1 < w[1].epoch().1);
        }
    }
}
