//! Knobs of the Raft model and its catalogued bug switches.

use serde::Deserialize;
use sim::bounds::{ms, ordered, within, within_because};

/// Cluster and timing options; times are on each node's own monotonic clock.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RaftConfig {
    /// Cluster size; node ids are `0..nodes`.
    pub nodes: usize,
    /// A follower that hears no leader for a random time in
    /// `[election_timeout_ms_min, election_timeout_ms_max]` starts a pre-vote.
    /// The minimum is also how long a heard leader protects it from pre-votes.
    pub election_timeout_ms_min: u64,
    /// Also the check-quorum window: a leader without a quorum of answers
    /// for this long steps down.
    pub election_timeout_ms_max: u64,
    /// Interval between a leader's appends to each follower.
    pub heartbeat_ms: u64,
    /// Most entries in one append message.
    pub max_entries_per_append: usize,
    /// Snapshot and compact once this many applied entries follow the last
    /// snapshot.
    pub compact_every_entries: u64,
    /// How long committed entries wait in the apply queue before a batch runs.
    pub apply_batch_ms: u64,
    /// A follower whose election timer fires first asks for pre-votes and
    /// campaigns only if a quorum would vote for it. Off, it campaigns at
    /// once, and only the lease's vote refusal keeps it from deposing a
    /// leader whose lease still holds.
    pub pre_vote: bool,
    /// How a linearizable read (`get`) is served.
    pub read_mode: ReadMode,
    /// A `follower-get` is served by any node whose state is known to hold
    /// every write committed this long ago; others redirect to the leader.
    pub follower_read_staleness_ms: u64,
    /// The largest clock rate error the node allows for, in parts per
    /// million: the lease and the follower staleness bound shrink by it.
    pub clock_drift_ppm_max: u64,
    /// How many descriptor leases the nodes contend for (0: none). Lease
    /// times are on each node's wall clock.
    pub leases: u32,
    /// How long a lease grant lasts from the proposer's clock reading.
    pub lease_ms: u64,
    /// A holder that hears no leader for this long stops using its leases.
    pub lease_self_fence_ms: u64,
    /// Membership probe interval (0: no membership layer); a probe not
    /// answered by the next one makes its peer suspect.
    pub swim_probe_ms: u64,
    /// How long a peer stays suspect before it is declared dead.
    pub swim_suspect_ms: u64,
    /// Set by the caller from the scenario's MAX_CLOCK_SKEW, never from
    /// the model's own config.
    #[serde(skip)]
    pub max_clock_skew_ms: u64,
    /// Set by the caller from `--bug` ids, never from a scenario file.
    #[serde(skip)]
    pub bugs: RaftBugs,
}

impl Default for RaftConfig {
    fn default() -> Self {
        RaftConfig {
            nodes: 3,
            election_timeout_ms_min: 150,
            election_timeout_ms_max: 300,
            heartbeat_ms: 50,
            max_entries_per_append: 64,
            compact_every_entries: 40,
            apply_batch_ms: 5,
            pre_vote: true,
            read_mode: ReadMode::Log,
            follower_read_staleness_ms: 250,
            clock_drift_ppm_max: 1_000,
            leases: 0,
            lease_ms: 1_000,
            lease_self_fence_ms: 600,
            swim_probe_ms: 0,
            swim_suspect_ms: 500,
            max_clock_skew_ms: 5_000,
            bugs: RaftBugs::default(),
        }
    }
}

impl RaftConfig {
    /// Rejects options the model cannot run with: one line naming the
    /// knob, its value and its range (the book's "Scenarios and every knob", model configs).
    pub fn validate(&self) -> Result<(), String> {
        within("nodes", self.nodes, 1..=sim::NODES_MAX)?;
        let (min, max) = (self.election_timeout_ms_min, self.election_timeout_ms_max);
        ms("config.election_timeout_ms_min", min, 1)?;
        ms("config.election_timeout_ms_max", max, 1)?;
        ordered(
            "config.election_timeout_ms_min",
            min,
            "config.election_timeout_ms_max",
            max,
        )?;
        // A heartbeat no shorter than the election timeout deposes every
        // leader; a zero one re-arms forever without time moving on.
        within_because(
            "config.heartbeat_ms",
            self.heartbeat_ms,
            1..=min - 1,
            "below config.election_timeout_ms_min",
        )?;
        within(
            "config.max_entries_per_append",
            self.max_entries_per_append,
            1..=ENTRIES_MAX as usize,
        )?;
        within(
            "config.compact_every_entries",
            self.compact_every_entries,
            1..=ENTRIES_MAX,
        )?;
        ms("config.apply_batch_ms", self.apply_batch_ms, 1)?;
        ms("config.follower_read_staleness_ms", self.follower_read_staleness_ms, 0)?;
        within("config.clock_drift_ppm_max", self.clock_drift_ppm_max, 0..=999_999)?;
        within("config.leases", self.leases, 0..=LEASES_MAX)?;
        ms("config.lease_ms", self.lease_ms, u64::from(self.leases > 0))?;
        ms("config.lease_self_fence_ms", self.lease_self_fence_ms, 0)?;
        ms("config.swim_probe_ms", self.swim_probe_ms, 0)?;
        ms(
            "config.swim_suspect_ms",
            self.swim_suspect_ms,
            u64::from(self.swim_probe_ms > 0),
        )
    }
}

/// The largest entry count a knob may name (entries per append, entries
/// between snapshots).
pub const ENTRIES_MAX: u64 = 1_000_000;
/// The most descriptor leases the nodes may contend for.
pub const LEASES_MAX: u32 = 1_000;

/// The path of a linearizable read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadMode {
    /// Through the log: the read is an entry, linearized by its index.
    #[default]
    Log,
    /// ReadIndex: the commit index, confirmed by a quorum heartbeat round.
    ReadIndex,
    /// From the leader's state while its lease holds, else as ReadIndex.
    Lease,
    /// From the leader's state for as long as it leads, once a round of its
    /// term is confirmed: check-quorum steps the leader down the moment its
    /// lease runs out, so leading implies holding the lease (etcd's
    /// lease-based reads).
    CheckQuorumLease,
}

impl ReadMode {
    /// Whether reads rest on a lease, so that voters must refuse votes for
    /// the minimum election timeout after hearing the leader.
    pub fn leased(self) -> bool {
        matches!(self, ReadMode::Lease | ReadMode::CheckQuorumLease)
    }
}

sim::bug_switches! {
    /// One switch per catalogued bug; all off is the correct model.
    pub struct RaftBugs for "raft" {
        hardstate_not_persisted: "hardstate-not-persisted",
        reply_before_durable: "reply-before-durable",
        snapshot_without_data: "snapshot-without-data",
        apply_requeue: "apply-requeue",
        skip_compacted_range: "skip-compacted-range",
        no_check_quorum: "no-check-quorum",
        no_prevote: "no-prevote",
        read_without_quorum: "read-without-quorum",
        read_index_no_term_floor: "read-index-no-term-floor",
        lease_anchor_on_receive: "lease-anchor-on-receive",
        lease_no_drift_margin: "lease-no-drift-margin",
        lease_no_vote_refusal: "lease-no-vote-refusal",
        staleness_by_apply_time: "staleness-by-apply-time",
        hlc_unchecked_update: "hlc-unchecked-update",
        lease_expiry_no_skew_margin: "lease-expiry-no-skew-margin",
        swim_incarnation_reset: "swim-incarnation-reset",
        read_error_as_empty: "read-error-as-empty",
        fsync_error_ignored: "fsync-error-ignored",
        commit_old_term_by_count: "commit-old-term-by-count",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogued_bug_has_a_switch_and_every_switch_an_entry() {
        sim::catalogue_matches(crate::raft::register::BUGS, RaftBugs::IDS).unwrap();
    }

    #[test]
    fn config_defaults_fill_missing_fields_and_unknown_fields_fail() {
        let c: RaftConfig = serde_json::from_str(r#"{"nodes": 5}"#).unwrap();
        assert_eq!(c.nodes, 5);
        assert_eq!(c.heartbeat_ms, 50);
        assert!(c.validate().is_ok());
        assert!(serde_json::from_str::<RaftConfig>(r#"{"bugs": {}}"#).is_err());
        assert!(serde_json::from_str::<RaftConfig>(r#"{"heartbeat": 1}"#).is_err());
    }

    #[test]
    fn read_mode_parses_by_name() {
        let c: RaftConfig = serde_json::from_str(r#"{"read_mode": "read-index"}"#).unwrap();
        assert_eq!(c.read_mode, ReadMode::ReadIndex);
        assert_eq!(RaftConfig::default().read_mode, ReadMode::Log);
        assert!(serde_json::from_str::<RaftConfig>(r#"{"read_mode": "quorum"}"#).is_err());
    }
}
