//! Calm messages: the ids of messages (the per-run counter of
//! [`crate::EventKind::Send`]) whose message chaos is switched off.
//! The network still draws each one's fate, so the stream stays aligned
//! and every other message meets the fate it would have met; a calm one
//! just arrives once, without the extra delay. This makes message chaos
//! data that shrinking can take away, the way it takes away plan entries.
//!
//! Stored as sorted, non-overlapping inclusive ranges, `[[1, 200], [260,
//! 18446744073709551615]]`: a shrunk run calms everything but the few
//! messages its failure needs, which is a handful of ranges.

use serde::{Deserialize, Serialize};

/// The first id a run gives a message.
pub(crate) const FIRST_ID: u64 = 1;

/// The set of calm message ids of a run; empty: every message meets its chaos.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<[u64; 2]>", into = "Vec<[u64; 2]>")]
pub struct Calm {
    ranges: Vec<[u64; 2]>,
}

impl Calm {
    /// Ranges as a user wrote them; the error is one line.
    pub fn from_ranges(ranges: Vec<[u64; 2]>) -> Result<Calm, String> {
        for r in &ranges {
            if r[0] > r[1] {
                return Err(format!("calm: range [{}, {}] is empty (lo above hi)", r[0], r[1]));
            }
        }
        for w in ranges.windows(2) {
            if w[1][0] <= w[0][1] {
                return Err(format!(
                    "calm: ranges must be sorted and apart, but [{}, {}] comes before [{}, {}]",
                    w[0][0], w[0][1], w[1][0], w[1][1]
                ));
            }
        }
        Ok(Calm { ranges })
    }

    /// Every id but `kept`: all chaos off except on these messages.
    pub fn all_but(kept: &[u64]) -> Calm {
        let mut kept = kept.to_vec();
        kept.sort_unstable();
        kept.dedup();
        let mut ranges = Vec::with_capacity(kept.len() + 1);
        let mut lo = FIRST_ID;
        for k in kept {
            if k > lo {
                ranges.push([lo, k - 1]);
            }
            match k.checked_add(1) {
                Some(next) => lo = lo.max(next),
                None => return Calm { ranges },
            }
        }
        ranges.push([lo, u64::MAX]);
        Calm { ranges }
    }

    /// Whether the message numbered `id` is calm.
    pub fn contains(&self, id: u64) -> bool {
        // The first range ending at or after `id` is the only one that can hold it.
        let i = self.ranges.partition_point(|r| r[1] < id);
        self.ranges.get(i).is_some_and(|r| r[0] <= id)
    }

    /// Whether no message is calm.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The calm ids as sorted, non-overlapping inclusive ranges `[lo, hi]`.
    pub fn ranges(&self) -> &[[u64; 2]] {
        &self.ranges
    }
}

impl TryFrom<Vec<[u64; 2]>> for Calm {
    type Error = String;
    fn try_from(ranges: Vec<[u64; 2]>) -> Result<Calm, String> {
        Calm::from_ranges(ranges)
    }
}

impl From<Calm> for Vec<[u64; 2]> {
    fn from(c: Calm) -> Self {
        c.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_but_leaves_exactly_the_kept_ids_uncalm() {
        let c = Calm::all_but(&[5, 3, 9, 4, 9]);
        assert_eq!(c.ranges(), &[[1, 2], [6, 8], [10, u64::MAX]]);
        for id in 1..40 {
            assert_eq!(c.contains(id), ![3, 4, 5, 9].contains(&id), "id {id}");
        }
        assert!(c.contains(u64::MAX));
        assert!(!c.contains(0));
    }

    #[test]
    fn all_but_nothing_is_everything_and_edges_hold() {
        assert_eq!(Calm::all_but(&[]).ranges(), &[[1, u64::MAX]]);
        assert_eq!(Calm::all_but(&[1]).ranges(), &[[2, u64::MAX]]);
        let top = Calm::all_but(&[u64::MAX]);
        assert_eq!(top.ranges(), &[[1, u64::MAX - 1]]);
        assert!(!top.contains(u64::MAX));
    }

    #[test]
    fn no_calm_holds_nothing() {
        let c = Calm::default();
        assert!(c.is_empty());
        assert!(!c.contains(1));
    }

    #[test]
    fn ranges_are_checked_when_read() {
        let ok: Calm = serde_json::from_str("[[1, 200], [260, 999999]]").unwrap();
        assert!(ok.contains(200) && !ok.contains(201) && ok.contains(260));
        assert_eq!(serde_json::to_string(&ok).unwrap(), "[[1,200],[260,999999]]");
        let empty = serde_json::from_str::<Calm>("[[7, 3]]").unwrap_err().to_string();
        assert!(empty.contains("[7, 3] is empty"), "{empty}");
        let overlap = serde_json::from_str::<Calm>("[[1, 10], [5, 20]]")
            .unwrap_err()
            .to_string();
        assert!(overlap.contains("sorted and apart"), "{overlap}");
        let unsorted = serde_json::from_str::<Calm>("[[30, 40], [1, 2]]")
            .unwrap_err()
            .to_string();
        assert!(unsorted.contains("sorted and apart"), "{unsorted}");
        assert!(serde_json::from_str::<Calm>("[[1, 2, 3]]").is_err());
        assert!(serde_json::from_str::<Calm>("[[-1, 2]]").is_err());
    }
}
