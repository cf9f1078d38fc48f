use super::{Invariant, Violation};
use crate::event::{Event, EventKind, ModelEvent};

const MS: u64 = 1_000_000;

/// A follower read declared fresh within d reflects every write committed d
/// before it: served at true time t, it was served from an applied index at
/// least as high as the highest commit index any node had reached by t - d.
///
/// Commit events of every node make the timeline. A follower only learns a
/// commit index from a leader that reached it earlier, so the highest index
/// seen anywhere by a time is the highest any leader had reached by then.
#[derive(Default)]
pub(crate) struct BoundedStaleness {
    /// (true time, highest commit index by then, event index), one entry per
    /// increase, in time order.
    commits: Vec<(u64, u64, u64)>,
    reads: u64,
}

impl BoundedStaleness {
    /// The highest commit index reached at or before `t_ns`, with its event.
    fn committed_by(&self, t_ns: u64) -> Option<(u64, u64)> {
        let n = self.commits.partition_point(|(t, _, _)| *t <= t_ns);
        n.checked_sub(1).map(|k| (self.commits[k].1, self.commits[k].2))
    }
}

impl Invariant for BoundedStaleness {
    fn id(&self) -> &'static str {
        "bounded-staleness"
    }

    fn observe(&mut self, e: &Event) -> Result<(), Violation> {
        let EventKind::Model(m) = &e.kind else { return Ok(()) };
        match m {
            ModelEvent::Commit { index } if self.commits.last().is_none_or(|(_, top, _)| index > top) => {
                self.commits.push((e.t_ns, *index, e.i));
            }
            ModelEvent::FollowerRead {
                key,
                served_index,
                staleness_ms,
            } => {
                self.reads += 1;
                let Some(since) = e.t_ns.checked_sub(staleness_ms * MS) else {
                    return Ok(());
                };
                if let Some((required, at)) = self.committed_by(since) {
                    if *served_index < required {
                        let node = e.node.map_or("?".to_string(), |n| n.to_string());
                        return Err(Violation::new(
                            self.id(),
                            format!(
                                "node {node} served a follower read of key {key} at {} ms from index {served_index}, \
                                 declared fresh within {staleness_ms} ms, but index {required} was committed by {} ms",
                                e.t_ns / MS,
                                since / MS
                            ),
                            vec![at, e.i],
                        ));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("follower-reads", self.reads)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(i: u64, ms: u64, node: usize, m: ModelEvent) -> Event {
        Event {
            i,
            t_ns: ms * MS,
            node: Some(node),
            kind: EventKind::Model(m),
        }
    }

    fn commit(i: u64, ms: u64, index: u64) -> Event {
        at(i, ms, 0, ModelEvent::Commit { index })
    }

    fn read(i: u64, ms: u64, node: usize, served_index: u64) -> Event {
        at(
            i,
            ms,
            node,
            ModelEvent::FollowerRead {
                key: 1,
                served_index,
                staleness_ms: 100,
            },
        )
    }

    #[test]
    fn a_read_that_holds_everything_committed_d_before_passes() {
        let mut c = BoundedStaleness::default();
        c.observe(&commit(0, 10, 3)).unwrap();
        c.observe(&commit(1, 150, 7)).unwrap();
        // At 200 ms with d = 100 ms, only index 3 (committed at 10 ms) is due.
        c.observe(&read(2, 200, 2, 3)).unwrap();
        // At 250 ms index 7 (committed at 150 ms) is due as well.
        c.observe(&read(3, 250, 2, 7)).unwrap();
        assert_eq!(c.counters(), vec![("follower-reads", 2)]);
    }

    #[test]
    fn a_read_missing_a_write_committed_d_before_fails() {
        let mut c = BoundedStaleness::default();
        c.observe(&commit(0, 10, 3)).unwrap();
        c.observe(&commit(1, 150, 7)).unwrap();
        let v = c.observe(&read(2, 260, 2, 5)).unwrap_err();
        assert_eq!(v.invariant, "bounded-staleness");
        assert_eq!(v.evidence, vec![1, 2]);
        assert!(v.message.contains("index 7 was committed by 160 ms"), "{}", v.message);
    }

    #[test]
    fn early_reads_and_lower_commit_reports_change_nothing() {
        let mut c = BoundedStaleness::default();
        // Before d has passed since the start, nothing is due yet.
        c.observe(&read(0, 50, 1, 0)).unwrap();
        c.observe(&commit(1, 10, 4)).unwrap();
        // A follower reporting a lower commit index later does not lower the bar.
        c.observe(&at(2, 20, 1, ModelEvent::Commit { index: 2 })).unwrap();
        assert!(c.observe(&read(3, 300, 1, 3)).is_err());
    }

    #[test]
    fn the_bound_is_each_read_s_own() {
        let mut c = BoundedStaleness::default();
        c.observe(&commit(0, 100, 5)).unwrap();
        let loose = at(
            1,
            150,
            1,
            ModelEvent::FollowerRead {
                key: 0,
                served_index: 0,
                staleness_ms: 60,
            },
        );
        c.observe(&loose).unwrap();
        let tight = at(
            2,
            150,
            1,
            ModelEvent::FollowerRead {
                key: 0,
                served_index: 0,
                staleness_ms: 40,
            },
        );
        assert!(c.observe(&tight).is_err());
    }
}
