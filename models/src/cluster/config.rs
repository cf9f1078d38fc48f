//! Knobs of the cluster-layer model and its catalogued bug switches.

use serde::Deserialize;
use sim::bounds::{ms, within, within_because};

/// Times are on the acting node's own monotonic clock.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// Cluster size: node 0 is the catalog, nodes 1.. are workers, each a
    /// plan coordinator and the owner of one shard.
    #[serde(skip)]
    pub nodes: usize,
    /// Mean gap between two DDL statements at the catalog.
    pub ddl_every_ms: u64,
    /// Mean gap between a worker's plans.
    pub plan_every_ms: u64,
    /// An interactive transaction stays open up to this long between its
    /// BEGIN (where its plan is stamped) and its COMMIT (where it takes
    /// its lease and dispatches).
    pub hold_ms_max: u64,
    /// How long a descriptor lease lasts from its grant.
    pub lease_ms: u64,
    /// A holder stops using its lease this much before it runs out, so a
    /// little clock drift cannot stretch it past the catalog's view.
    pub lease_margin_ms: u64,
    /// Shards one plan writes to, one dispatch each.
    pub shards_per_plan: u32,
    /// The largest gap between two dispatches of one plan.
    pub dispatch_gap_ms: u64,
    /// An unanswered lease request is given up after this long.
    pub rpc_timeout_ms: u64,
    /// How often the catalog re-checks leases a DDL waits on, and how long
    /// a worker waits before asking again for a lease the catalog was busy for.
    pub tick_ms: u64,
    /// Mean gap between a worker's scatter-gather queries; 0 none.
    pub query_every_ms: u64,
    /// A query is answered within this long of its fan-out.
    pub gather_deadline_ms: u64,
    /// Entries a joining worker's group catches up from the catalog
    /// before it is ready; 0 ready at once.
    pub catchup_entries: u64,
    /// Entries per catch-up reply.
    pub catchup_batch: u64,
    /// Readiness fails a group whose applied index has not advanced for this long.
    pub readiness_stall_ms: u64,
    /// Deferred triggers on each shard's source collection; 0 none.
    pub triggers: u32,
    /// Trigger 0's action writes back to the collection it watches.
    pub cascade: bool,
    /// A write that deep in a cascade fires no trigger.
    pub cascade_depth_max: u32,
    /// Statements in a trigger action's body.
    pub trigger_steps: u32,
    /// Chance that one statement fails.
    pub trigger_fail_probability: f64,
    /// Runs after the first before an action is dead-lettered.
    pub trigger_retries: u32,
    /// An action runs this long after its write.
    pub trigger_delay_ms: u64,
    /// The first retry waits this long, each later one twice the one before.
    pub trigger_backoff_ms: u64,
    /// Set by the caller from `--bug` ids, never from a scenario file.
    #[serde(skip)]
    pub bugs: ClusterBugs,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            nodes: 4,
            ddl_every_ms: 150,
            plan_every_ms: 30,
            hold_ms_max: 60,
            lease_ms: 200,
            lease_margin_ms: 20,
            shards_per_plan: 3,
            dispatch_gap_ms: 12,
            rpc_timeout_ms: 100,
            tick_ms: 5,
            query_every_ms: 0,
            gather_deadline_ms: 50,
            catchup_entries: 0,
            catchup_batch: 5,
            readiness_stall_ms: 300,
            triggers: 0,
            cascade: false,
            cascade_depth_max: 2,
            trigger_steps: 3,
            trigger_fail_probability: 0.0,
            trigger_retries: 3,
            trigger_delay_ms: 5,
            trigger_backoff_ms: 5,
            bugs: ClusterBugs::default(),
        }
    }
}

/// The most shards one plan may write to.
pub const SHARDS_PER_PLAN_MAX: u32 = 1_000;
/// The most triggers, cascade depth, statements per body and retries.
pub const TRIGGERS_MAX: u32 = 100;
pub const CASCADE_DEPTH_MAX: u32 = 100;
pub const TRIGGER_STEPS_MAX: u32 = 100;
pub const TRIGGER_RETRIES_MAX: u32 = 20;
/// The most entries a group catches up, and per reply.
pub const CATCHUP_ENTRIES_MAX: u64 = 1_000_000_000;

impl ClusterConfig {
    /// The catalog's node id.
    pub const CATALOG: usize = 0;

    /// The workers' node ids.
    pub fn workers(&self) -> std::ops::Range<usize> {
        1..self.nodes
    }

    /// Rejects options the model cannot run with: one line naming the
    /// knob, its value and its range.
    pub fn validate(&self) -> Result<(), String> {
        within_because(
            "nodes",
            self.nodes,
            2..=sim::NODES_MAX,
            "the catalog and at least one worker",
        )?;
        within("config.shards_per_plan", self.shards_per_plan, 1..=SHARDS_PER_PLAN_MAX)?;
        // Zero periods re-arm their timers forever without time moving on.
        for (field, v) in [
            ("config.ddl_every_ms", self.ddl_every_ms),
            ("config.plan_every_ms", self.plan_every_ms),
            ("config.dispatch_gap_ms", self.dispatch_gap_ms),
            ("config.rpc_timeout_ms", self.rpc_timeout_ms),
            ("config.tick_ms", self.tick_ms),
            ("config.lease_ms", self.lease_ms),
            ("config.gather_deadline_ms", self.gather_deadline_ms),
            ("config.readiness_stall_ms", self.readiness_stall_ms),
        ] {
            ms(field, v, 1)?;
        }
        ms("config.hold_ms_max", self.hold_ms_max, 0)?;
        ms("config.query_every_ms", self.query_every_ms, 0)?;
        ms("config.trigger_delay_ms", self.trigger_delay_ms, 1)?;
        ms("config.trigger_backoff_ms", self.trigger_backoff_ms, 1)?;
        within("config.catchup_entries", self.catchup_entries, 0..=CATCHUP_ENTRIES_MAX)?;
        within("config.catchup_batch", self.catchup_batch, 1..=CATCHUP_ENTRIES_MAX)?;
        within("config.triggers", self.triggers, 0..=TRIGGERS_MAX)?;
        within(
            "config.cascade_depth_max",
            self.cascade_depth_max,
            1..=CASCADE_DEPTH_MAX,
        )?;
        within("config.trigger_steps", self.trigger_steps, 1..=TRIGGER_STEPS_MAX)?;
        within("config.trigger_retries", self.trigger_retries, 0..=TRIGGER_RETRIES_MAX)?;
        sim::bounds::probability("config.trigger_fail_probability", self.trigger_fail_probability)?;
        within_because(
            "config.lease_margin_ms",
            self.lease_margin_ms,
            0..=self.lease_ms - 1,
            "below config.lease_ms",
        )
    }
}

sim::bug_switches! {
    /// One switch per catalogued bug; all off is the correct model.
    pub struct ClusterBugs for "cluster" {
        lease_after_ddl: "lease-after-ddl",
        fence_once: "fence-once",
        epoch_unchecked: "epoch-unchecked",
        read_error_as_zero: "read-error-as-zero",
        gather_no_deadline: "gather-no-deadline",
        gather_partial: "gather-partial",
        retry_refires_succeeded: "retry-refires-succeeded",
        failure_cancels_siblings: "failure-cancels-siblings",
        self_cascade: "self-cascade",
        partial_body: "partial-body",
        readiness_wall_deadline: "readiness-wall-deadline",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogued_bug_has_a_switch_and_every_switch_an_entry() {
        sim::catalogue_matches(crate::cluster::register::BUGS, ClusterBugs::IDS).unwrap();
    }

    #[test]
    fn defaults_validate_and_bad_values_fail() {
        let mut c: ClusterConfig = serde_json::from_str(r#"{"lease_ms": 300}"#).unwrap();
        assert!(c.validate().is_ok());
        c.lease_margin_ms = 300;
        assert!(c.validate().unwrap_err().contains("config.lease_margin_ms"));
        assert!(serde_json::from_str::<ClusterConfig>(r#"{"lease": 3}"#).is_err());
        assert!(serde_json::from_str::<ClusterConfig>(r#"{"nodes": 3}"#).is_err());
    }
}
