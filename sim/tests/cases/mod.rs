//! What the tests of dst's tokio share: a model whose node runs one named
//! case of calls, and a scenario of it in a calm network (no fault but
//! those a test's plan asks for).

use serde::{Deserialize, Serialize};
use sim::async_node::Ctx;
use sim::{ClientReply, MsgInfo, Registry};

/// The cases send nothing through dst's `Ctx`.
#[derive(Clone, Debug, Serialize)]
pub enum Msg {}

impl MsgInfo for Msg {
    fn kind(&self) -> &'static str {
        match *self {}
    }
}

pub type NodeCtx = Ctx<Msg, ()>;

/// The scenario's `config`: which case the nodes run.
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Case {
    pub name: String,
}

/// Answers every client at once: a node that has done its case waits here.
pub async fn idle(ctx: NodeCtx) {
    loop {
        let req = ctx.client_request().await;
        ctx.client_reply(req.req_id, ClientReply::Unknown);
    }
}

/// Case `name` of `model` on `nodes` nodes, with message loss at `drop`.
pub fn scenario(r: &Registry, model: &str, nodes: usize, name: &str, drop: f64) -> sim::Scenario {
    let text = format!(
        r#"{{
  "name": "{model}-{name}",
  "description": "one case of dst's tokio",
  "model": "{model}",
  "nodes": {nodes},
  "config": {{ "name": "{name}" }},
  "workload": {{ "clients": 1, "keys": 1, "think_ms_max": 50, "op_timeout_ms": 100 }},
  "faults": {{
    "swarm": false, "partition": false, "partition_one_way": false, "link": false, "crash": false, "pause": false,
    "drop_probability_max": {drop}, "duplicate_probability_max": 0.0, "reorder_probability_max": 0.0,
    "impair_leader_probability": 0.0,
    "interval_ms_mean": 100000, "delay_ms_min": 1, "delay_ms_max": 3, "fsync_ms_min": 1, "fsync_ms_max": 2
  }},
  "safety_ms": 3000,
  "liveness_ms": 0,
  "invariants": ["linearizable"],
  "coverage": ["done"],
  "expect": "pass"
}}"#
    );
    let s = sim::Scenario::from_json(&text).expect("a valid scenario");
    r.validate(&s, &[]).expect("a scenario its model accepts");
    s
}
