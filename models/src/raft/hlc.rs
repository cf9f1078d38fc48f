//! A hybrid logical clock on every node, merged from every message.
//!
//! Every message leaves stamped with a send-event tick of the sender's HLC
//! and the receiver merges the stamp. The checked merge refuses a timestamp
//! more than MAX_CLOCK_SKEW ahead of the local wall clock and leaves the
//! clock unchanged: otherwise one node with a far-future clock would drag
//! every HLC forward for good.

use super::{Raft, RaftIo, RaftMsg};
use serde::Serialize;
use sim::{ModelEvent, NodeId};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Timestamp {
    pub wall_ns: u64,
    pub logical: u32,
}

/// What merging a remote timestamp did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// The clock did not move past its own or the local wall clock's time
    /// (it may have ticked its logical part).
    Kept,
    /// The remote timestamp moved the clock past both.
    Moved,
    /// Too far ahead of the local wall clock; the clock is unchanged.
    Refused,
}

#[derive(Clone, Debug, Default, Hash)]
pub struct Hlc {
    last: Timestamp,
}

impl Hlc {
    /// The clock with its last stamp as an offset from `now`'s wall
    /// clock: where it stands against the clock and against remote
    /// stamps decides every tick and merge.
    pub(super) fn relative(&self, now: &sim::Now) -> Hlc {
        Hlc {
            last: Timestamp {
                wall_ns: now.wall_offset(self.last.wall_ns) as u64,
                logical: self.last.logical,
            },
        }
    }

    pub fn now(&self) -> Timestamp {
        self.last
    }

    /// A send event: never behind the local wall clock, always after every
    /// timestamp issued or merged before.
    pub fn tick(&mut self, local_wall_ns: u64) -> Timestamp {
        if local_wall_ns > self.last.wall_ns {
            self.last = Timestamp {
                wall_ns: local_wall_ns,
                logical: 0,
            };
        } else {
            self.last.logical += 1;
        }
        self.last
    }

    /// A receive event. With `max_ahead_ns`, a remote timestamp further
    /// than that ahead of the local wall clock is refused.
    pub fn merge(&mut self, remote: Timestamp, local_wall_ns: u64, max_ahead_ns: Option<u64>) -> Merge {
        if max_ahead_ns.is_some_and(|m| remote.wall_ns > local_wall_ns.saturating_add(m)) {
            return Merge::Refused;
        }
        let before = self.last;
        let wall_ns = local_wall_ns.max(before.wall_ns).max(remote.wall_ns);
        let logical = match (wall_ns == before.wall_ns, wall_ns == remote.wall_ns) {
            (true, true) => before.logical.max(remote.logical) + 1,
            (true, false) => before.logical + 1,
            (false, true) => remote.logical + 1,
            (false, false) => 0,
        };
        self.last = Timestamp { wall_ns, logical };
        if remote.wall_ns > before.wall_ns.max(local_wall_ns) {
            Merge::Moved
        } else {
            Merge::Kept
        }
    }
}

/// Per-node HLC state beside the clock itself.
#[derive(Clone, Debug, Default, Hash)]
pub(super) struct HlcState {
    pub(super) clock: Hlc,
    /// Peers whose timestamps are being refused; a refusal is reported when
    /// a peer enters this set, to keep traces small.
    refusing: BTreeSet<NodeId>,
}

impl HlcState {
    /// The state relative to `now`, each node named `r(node)`.
    pub(super) fn relative(&self, now: &sim::Now, r: &dyn Fn(NodeId) -> NodeId) -> HlcState {
        HlcState {
            clock: self.clock.relative(now),
            refusing: self.refusing.iter().map(|x| r(*x)).collect(),
        }
    }
}

impl Raft {
    /// Stamps every message this step sent with one send-event tick.
    pub(super) fn stamp_sent(&mut self, io: &mut RaftIo) {
        let wall = io.now_wall_ns();
        let mut stamp = None;
        for m in io.sent_mut() {
            if matches!(m, RaftMsg::Stamped { .. }) {
                continue;
            }
            let hlc = *stamp.get_or_insert_with(|| self.hlc.clock.tick(wall));
            let inner = std::mem::replace(m, RaftMsg::placeholder());
            *m = RaftMsg::Stamped {
                hlc,
                msg: Box::new(inner),
            };
        }
    }

    pub(super) fn merge_clock(&mut self, io: &mut RaftIo, from: NodeId, remote: Timestamp) {
        // BUG(hlc-unchecked-update): adopt any remote timestamp, however far
        // ahead of our own clock it lies.
        let max_ahead_ns = if self.cfg.bugs.hlc_unchecked_update {
            None
        } else {
            Some(self.cfg.max_clock_skew_ms * super::NS_PER_MS)
        };
        match self.hlc.clock.merge(remote, io.now_wall_ns(), max_ahead_ns) {
            Merge::Refused => {
                if self.hlc.refusing.insert(from) {
                    io.event(ModelEvent::HlcRefused {
                        remote_wall_ns: remote.wall_ns,
                        from,
                    });
                }
                io.reached("hlc-refused");
            }
            merged => {
                self.hlc.refusing.remove(&from);
                if merged == Merge::Moved {
                    let now = self.hlc.clock.now();
                    io.event(ModelEvent::Hlc {
                        wall_ns: now.wall_ns,
                        logical: now.logical,
                        from,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn ts(wall_ns: u64, logical: u32) -> Timestamp {
        Timestamp { wall_ns, logical }
    }

    #[test]
    fn ticks_follow_the_wall_clock_and_never_go_back() {
        let mut h = Hlc::default();
        assert_eq!(h.tick(10), ts(10, 0));
        assert_eq!(h.tick(10), ts(10, 1));
        // The wall clock stepped back: the HLC keeps its time, counts on.
        assert_eq!(h.tick(4), ts(10, 2));
        assert_eq!(h.tick(11), ts(11, 0));
    }

    #[test]
    fn a_remote_timestamp_ahead_moves_the_clock_past_it() {
        let mut h = Hlc::default();
        h.tick(100);
        assert_eq!(h.merge(ts(200, 3), 150, Some(S)), Merge::Moved);
        assert_eq!(h.now(), ts(200, 4));
        // Behind us: counted, but the clock keeps its own time.
        assert_eq!(h.merge(ts(190, 9), 160, Some(S)), Merge::Kept);
        assert_eq!(h.now(), ts(200, 5));
        // Equal walls: past both logical parts.
        assert_eq!(h.merge(ts(200, 9), 160, Some(S)), Merge::Kept);
        assert_eq!(h.now(), ts(200, 10));
        // The local wall clock overtook everything.
        assert_eq!(h.merge(ts(250, 0), 300, Some(S)), Merge::Kept);
        assert_eq!(h.now(), ts(300, 0));
    }

    #[test]
    fn the_checked_merge_refuses_a_timestamp_beyond_the_bound_and_stays_put() {
        let mut h = Hlc::default();
        h.tick(10 * S);
        assert_eq!(h.merge(ts(15 * S + 1, 0), 10 * S, Some(5 * S)), Merge::Refused);
        assert_eq!(h.now(), ts(10 * S, 0));
        // Exactly at the bound is still accepted.
        assert_eq!(h.merge(ts(15 * S, 0), 10 * S, Some(5 * S)), Merge::Moved);
        assert_eq!(h.now(), ts(15 * S, 1));
    }

    #[test]
    fn the_unchecked_merge_adopts_any_timestamp() {
        let mut h = Hlc::default();
        h.tick(10 * S);
        assert_eq!(h.merge(ts(100 * S, 0), 10 * S, None), Merge::Moved);
        assert_eq!(h.now().wall_ns, 100 * S);
    }
}
