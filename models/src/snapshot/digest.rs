//! The model's digests relative to the clocks, for `dst explore` to fold
//! states that differ only by when they happen (see
//! `sim::Machine::digest_at`). Each role, the messages and the
//! store's commit-log records turn their instants into what behaviour can
//! depend on, next to the state that holds them:
//!
//! - an owner's due times and deadlines fire once the clock reaches them:
//!   the time left, 0 once passed;
//! - the coordinator only asks whether an owner was heard within the
//!   session: the age, capped at `session_ms`;
//! - producers and rebalances stop once the journal's clock reaches
//!   `produce_ms`: the time left, while either may still run;
//! - a table cell expires once the store's wall clock reaches its expiry,
//!   and a commit-log record replays at the wall time it ran at: exact
//!   signed offsets, since a wall clock set back revives a cell that
//!   expired and was not purged yet;
//! - request ids are instants (see [`req_at`]).

use super::msg::SnapMsg;
use sim::Now;

/// A request id as the digests hold it.
///
/// An id is an instant: the one at which its request leaves, on the
/// owner's monotonic clock (one past the last id when several leave at
/// one instant). Every holder of one (the owner, a message in flight, a
/// reply the store holds until its fsync) digests it as its exact offset
/// from its own clock, or from true time for a message, and the world
/// relates each node's clocks to true time. Ids are only ever compared
/// for equality, so exact offsets keep which reply answers which request,
/// a stale one from an earlier incarnation included. An offset from the
/// owner's next id could not be taken where a message or the store holds
/// the id. An id that is its send instant ages as the request's deadline
/// does, so a state reached later with the same requests out digests
/// alike; ids counted up from the boot instant would keep apart states
/// that differ only by when the owner booted.
pub(super) fn req_at(now: &Now, req: u64) -> u64 {
    now.mono_offset(req) as u64
}

impl SnapMsg {
    /// The message with its request id relative to `now`; every variant
    /// is named, so that one added later is placed.
    pub(super) fn relative(&self, now: &Now) -> SnapMsg {
        let mut m = self.clone();
        match &mut m {
            SnapMsg::Write { req, .. }
            | SnapMsg::WriteResp { req, .. }
            | SnapMsg::Read { req, .. }
            | SnapMsg::ReadResp { req, .. }
            | SnapMsg::AppendRows { req, .. }
            | SnapMsg::AppendRowsResp { req } => *req = req_at(now, *req),
            SnapMsg::ClearRows { .. }
            | SnapMsg::Heartbeat
            | SnapMsg::Join { .. }
            | SnapMsg::Joined { .. }
            | SnapMsg::Fenced { .. }
            | SnapMsg::Fetch { .. }
            | SnapMsg::Records { .. }
            | SnapMsg::Commit { .. }
            | SnapMsg::CommitResp { .. }
            | SnapMsg::Assign { .. }
            | SnapMsg::Revoke { .. } => {}
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::MsgInfo;

    const MS: u64 = super::super::MS;

    fn at(ns: u64) -> Now {
        Now {
            mono_ns: ns,
            wall_ns: ns,
        }
    }

    fn resp(req: u64) -> SnapMsg {
        SnapMsg::WriteResp {
            req,
            applied: true,
            exists: false,
            offset: None,
        }
    }

    #[test]
    fn a_request_id_moves_with_the_clock() {
        let (t, d) = (1_000 * MS, 2_345 * MS + 1);
        let a = resp(t - 3 * MS).digest_at(&at(t));
        assert_eq!(a, resp(t + d - 3 * MS).digest_at(&at(t + d)));
        assert_ne!(a, resp(t - 3 * MS + 1).digest_at(&at(t)));
        assert_eq!(
            SnapMsg::Heartbeat.digest_at(&at(t)),
            SnapMsg::Heartbeat.digest_at(&at(t + d))
        );
    }
}
