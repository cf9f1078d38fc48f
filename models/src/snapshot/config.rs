//! Knobs of the snapshot-store model and its catalogued bug switches.

use serde::Deserialize;
use sim::bounds::{ms, probability, within, within_because, TIME_MS_MAX};

/// Times are on the acting node's own monotonic clock, except TTLs, which
/// run on the store's wall clock (skew and jumps included).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SnapConfig {
    /// Cluster size: node 0 is the store, node 1 the journal and its
    /// coordinator, nodes 2.. the partition owners.
    #[serde(skip)]
    pub nodes: usize,
    /// Journal partitions; key k lives in partition `k % partitions`.
    pub partitions: u32,
    /// How many keys each partition keeps in play at once.
    pub keys_per_partition: u32,
    /// A deleted key's id is retired and a new one takes its place (true),
    /// or the same key is written again later (false).
    pub fresh_keys: bool,
    /// Mean gap between two records the producers append, in ms.
    pub produce_every_ms: u64,
    /// Producers and rebalances stop after this much of the journal's clock.
    pub produce_ms: u64,
    /// Producers stop after appending this many records in all partitions
    /// together, sooner than `produce_ms` if they get there first; 0 no
    /// limit. Small scopes for `dst explore` ("offsets up to 4").
    pub records_max: u64,
    /// Chance that a record on a live key deletes it.
    pub delete_probability: f64,
    /// Largest batch one fetch returns.
    pub fetch_records_max: u32,
    /// Each partition an owner holds is fetched from the journal this often.
    pub fetch_every_ms: u64,
    /// Snapshots of changed keys are written this often (deletes included).
    pub flush_every_ms: u64,
    /// The committed offset is advanced this often; kept longer than the
    /// flush interval so stored snapshots run ahead of it (the replay window).
    pub commit_every_ms: u64,
    /// An owner looks at its partitions (fetch, flush, commit due) this often.
    pub tick_ms: u64,
    /// Owners tell the journal they are alive this often; the journal
    /// checks on its owners at the same period.
    pub heartbeat_ms: u64,
    /// An owner not heard from for this long loses its partitions.
    pub session_ms: u64,
    /// Mean time between forced partition moves; 0 never.
    pub rebalance_every_ms: u64,
    /// A moved partition's previous owner learns of it after up to this
    /// long: meanwhile it keeps fetching and flushing (the stale writer).
    pub revoke_delay_ms_max: u64,
    /// A store request unanswered for this long has an unknown outcome.
    pub store_timeout_ms: u64,
    /// Chance that the store applies a request and the reply is lost.
    pub reply_drop_probability: f64,
    /// TTL of a persisted snapshot's cells; 0 none.
    pub persist_ttl_ms: u64,
    /// TTL of a tombstone's cells; 0 none.
    pub delete_ttl_ms: u64,
    /// How often the store purges expired cells.
    pub reap_every_ms: u64,
    /// Events recovery: owners also append each record to a journal table in
    /// the store and recover a key from its snapshot plus those rows.
    pub events: bool,
    /// How often an owner appends its pending journal rows (events mode).
    pub rows_every_ms: u64,
    /// The store keeps its table as a commit log on its disk and answers a
    /// statement only once the fsync covering it completed (Cassandra's
    /// `commitlog_sync: batch`); off, the store is a service that outlives
    /// every fault and its disk stays empty.
    pub store_durable: bool,
    /// Set by the caller from `--bug` ids, never from a scenario file.
    #[serde(skip)]
    pub bugs: SnapBugs,
}

impl Default for SnapConfig {
    fn default() -> Self {
        SnapConfig {
            nodes: 4,
            partitions: 2,
            keys_per_partition: 3,
            fresh_keys: true,
            produce_every_ms: 10,
            produce_ms: 8_000,
            records_max: 0,
            delete_probability: 0.25,
            fetch_records_max: 6,
            fetch_every_ms: 15,
            flush_every_ms: 40,
            commit_every_ms: 300,
            tick_ms: 5,
            heartbeat_ms: 50,
            session_ms: 400,
            rebalance_every_ms: 1_500,
            revoke_delay_ms_max: 300,
            store_timeout_ms: 100,
            reply_drop_probability: 0.01,
            persist_ttl_ms: 0,
            delete_ttl_ms: 0,
            reap_every_ms: 20,
            events: false,
            rows_every_ms: 120,
            store_durable: false,
            bugs: SnapBugs::default(),
        }
    }
}

impl SnapConfig {
    /// The store's node id.
    pub const STORE: usize = 0;
    /// The journal's node id.
    pub const JOURNAL: usize = 1;

    /// The partition owners' node ids.
    pub fn owners(&self) -> std::ops::Range<usize> {
        2..self.nodes
    }

    /// Rejects options the model cannot run with: one line naming the
    /// knob, its value and its range (the book's "Scenarios and every knob", model configs).
    pub fn validate(&self) -> Result<(), String> {
        within_because(
            "nodes",
            self.nodes,
            3..=sim::NODES_MAX,
            "the store, the journal and at least one owner",
        )?;
        within("config.partitions", self.partitions, 1..=PARTITIONS_MAX)?;
        within(
            "config.keys_per_partition",
            self.keys_per_partition,
            1..=KEYS_PER_PARTITION_MAX,
        )?;
        within(
            "config.fetch_records_max",
            self.fetch_records_max,
            1..=FETCH_RECORDS_MAX,
        )?;
        within("config.records_max", self.records_max, 0..=RECORDS_MAX)?;
        // Zero periods re-arm their timers forever without time moving on.
        for (field, v) in [
            ("config.produce_every_ms", self.produce_every_ms),
            ("config.fetch_every_ms", self.fetch_every_ms),
            ("config.flush_every_ms", self.flush_every_ms),
            ("config.commit_every_ms", self.commit_every_ms),
            ("config.tick_ms", self.tick_ms),
            ("config.heartbeat_ms", self.heartbeat_ms),
            ("config.store_timeout_ms", self.store_timeout_ms),
            ("config.reap_every_ms", self.reap_every_ms),
            ("config.rows_every_ms", self.rows_every_ms),
        ] {
            ms(field, v, 1)?;
        }
        for (field, v) in [
            ("config.produce_ms", self.produce_ms),
            ("config.rebalance_every_ms", self.rebalance_every_ms),
            ("config.revoke_delay_ms_max", self.revoke_delay_ms_max),
            ("config.persist_ttl_ms", self.persist_ttl_ms),
            ("config.delete_ttl_ms", self.delete_ttl_ms),
        ] {
            ms(field, v, 0)?;
        }
        within_because(
            "config.session_ms",
            self.session_ms,
            self.heartbeat_ms + 1..=TIME_MS_MAX,
            "above config.heartbeat_ms",
        )?;
        probability("config.delete_probability", self.delete_probability)?;
        probability("config.reply_drop_probability", self.reply_drop_probability)
    }
}

/// The most journal partitions, keys per partition and records per fetch.
pub const PARTITIONS_MAX: u32 = 1_000;
pub const KEYS_PER_PARTITION_MAX: u32 = 10_000;
pub const FETCH_RECORDS_MAX: u32 = 100_000;
/// The most records `records_max` may ask the producers for.
pub const RECORDS_MAX: u64 = 1_000_000_000;

sim::bug_switches! {
    /// One switch per catalogued bug; all off is the correct model.
    pub struct SnapBugs for "snapshot" {
        unguarded_persist: "unguarded-persist",
        delete_removes_row: "delete-removes-row",
        skip_tombstone_unpersisted: "skip-tombstone-unpersisted",
        unguarded_journal_fold: "unguarded-journal-fold",
        flushcell_unserialized: "flushcell-unserialized",
        tombstone_recovers_as_none: "tombstone-recovers-as-none",
        no_monotone_buffer: "no-monotone-buffer",
        init_persisted_bypass: "init-persisted-bypass",
        strict_fence: "strict-fence",
        guard_expired_naive: "guard-expired-naive",
        store_fsync_error_ignored: "store-fsync-error-ignored",
        store_read_error_as_empty: "store-read-error-as-empty",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogued_bug_has_a_switch_and_every_switch_an_entry() {
        sim::catalogue_matches(crate::snapshot::register::BUGS, SnapBugs::IDS).unwrap();
    }

    #[test]
    fn defaults_validate_and_unknown_fields_fail() {
        let c: SnapConfig = serde_json::from_str(r#"{"partitions": 3}"#).unwrap();
        assert_eq!(c.partitions, 3);
        assert!(c.validate().is_ok());
        assert!(serde_json::from_str::<SnapConfig>(r#"{"partition": 3}"#).is_err());
        assert!(serde_json::from_str::<SnapConfig>(r#"{"nodes": 3}"#).is_err());
    }
}
