//! Swarm over configuration: a scenario may name knobs to draw per seed
//! (entries per append, timings, node count, client count, ..), so that
//! seeds cover configurations and not only fault schedules. The draw comes
//! from the seed's own `Vary` stream, so it never reshuffles the faults or
//! the workload, and the scenario as it ran (every knob concrete, the drawn
//! values listed in `varied`) goes into the report, so a replay draws
//! nothing.

use crate::rng::{chance, range, stream, Stream};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// How one knob is drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Vary {
    /// An integer from `[lo, hi]`, both included: an end a quarter of the
    /// time, else uniformly.
    Range([u64; 2]),
    /// One of these values, each as likely.
    OneOf(Vec<Value>),
}

/// The parts of a scenario a draw may change: the cluster size, the
/// model's config, the workload, the fault profile, the phase lengths.
const ROOTS: &[&str] = &[
    "nodes",
    "links",
    "config",
    "workload",
    "faults",
    "liveness",
    "safety_ms",
    "liveness_ms",
];

/// How often a range is drawn at one of its ends.
const EDGE: f64 = 0.25;

/// Most combinations of extremes checked when a scenario is loaded.
const CORNERS_MAX: usize = 1024;

/// Most values a one-of list may name. Each is checked when the scenario
/// loads (every value a draw can give must be one the model takes), and
/// each check reads the whole scenario, the list among it: a list of a
/// hundred thousand values took minutes to load. A range covers more.
pub const ONE_OF_MAX: usize = 1024;

impl Vary {
    fn check(&self, path: &str) -> Result<(), String> {
        match self {
            Vary::Range([lo, hi]) if lo > hi => Err(format!("vary.{path}: range [{lo}, {hi}] is empty")),
            Vary::OneOf(v) if v.is_empty() => Err(format!("vary.{path}: one-of lists no value")),
            Vary::OneOf(v) if v.len() > ONE_OF_MAX => Err(format!(
                "vary.{path}: one-of lists {} values, more than {ONE_OF_MAX}; a range draws from more",
                v.len()
            )),
            _ => Ok(()),
        }
    }

    /// The values at the edges of what this knob can draw.
    fn extremes(&self) -> Vec<Value> {
        match self {
            Vary::Range([lo, hi]) if lo == hi => vec![(*lo).into()],
            Vary::Range([lo, hi]) => vec![(*lo).into(), (*hi).into()],
            Vary::OneOf(v) => v.clone(),
        }
    }

    /// A value for this knob. A range gives one of its ends a quarter of
    /// the time: bugs of configuration sit at the edges (one entry per
    /// append, the shortest timeout, the fewest clients), and a uniform
    /// draw from a wide range almost never lands there.
    pub fn draw(&self, rng: &mut rand_chacha::ChaCha8Rng) -> Value {
        match self {
            Vary::Range([lo, hi]) if chance(rng, EDGE) => (if chance(rng, 0.5) { *lo } else { *hi }).into(),
            Vary::Range([lo, hi]) => range(rng, *lo, *hi).into(),
            Vary::OneOf(v) => v[range(rng, 0, v.len() as u64 - 1) as usize].clone(),
        }
    }
}

/// Checks the knob paths and ranges; the error is one line.
pub fn check(vary: &BTreeMap<String, Vary>) -> Result<(), String> {
    for (path, v) in vary {
        let root = path.split('.').next().unwrap_or_default();
        if !ROOTS.contains(&root) || path.ends_with('.') || path.contains("..") {
            return Err(format!(
                "vary: '{path}' is not a knob a draw may change (it must start with one of: {})",
                ROOTS.join(", ")
            ));
        }
        v.check(path)?;
    }
    Ok(())
}

/// The knobs drawn for `seed`, in the order of their paths.
pub fn draw(vary: &BTreeMap<String, Vary>, seed: u64) -> BTreeMap<String, Value> {
    let mut rng = stream(seed, Stream::Vary);
    vary.iter().map(|(p, v)| (p.clone(), v.draw(&mut rng))).collect()
}

/// Every combination of the knobs' extreme values (each knob alone when
/// there would be too many), for a check at load time that no draw can
/// produce a configuration the model refuses.
pub fn corners(vary: &BTreeMap<String, Vary>) -> Vec<BTreeMap<String, Value>> {
    let knobs: Vec<(&String, Vec<Value>)> = vary.iter().map(|(p, v)| (p, v.extremes())).collect();
    let total = knobs.iter().try_fold(1usize, |n, (_, e)| n.checked_mul(e.len()));
    if total.is_some_and(|t| t <= CORNERS_MAX) {
        let mut out = vec![BTreeMap::new()];
        for (path, ends) in &knobs {
            out = out
                .into_iter()
                .flat_map(|m| {
                    ends.iter().map(move |e| {
                        let mut m = m.clone();
                        m.insert((*path).clone(), e.clone());
                        m
                    })
                })
                .collect();
        }
        return out;
    }
    knobs
        .iter()
        .flat_map(|(path, ends)| ends.iter().map(move |e| BTreeMap::from([((*path).clone(), e.clone())])))
        .collect()
}

/// Sets the value at a dotted `path` of a scenario's JSON.
pub(crate) fn set(json: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let mut at = json;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if at.is_null() {
            *at = Value::Object(Default::default());
        }
        let obj = at
            .as_object_mut()
            .ok_or_else(|| format!("'{}' is not an object", parts[..i].join(".")))?;
        if i + 1 == parts.len() {
            // A whole object drawn in place of one would silently reset
            // every field it does not name.
            if obj
                .get(*part)
                .is_some_and(|v| v.as_object().is_some_and(|m| !m.is_empty()))
            {
                return Err(format!(
                    "'{path}' is an object: vary its fields one by one ('{path}.FIELD'), as a whole object drawn would drop the fields it does not name"
                ));
            }
            obj.insert(part.to_string(), value);
            return Ok(());
        }
        at = obj.entry(part.to_string()).or_insert(Value::Null);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn knobs() -> BTreeMap<String, Vary> {
        BTreeMap::from([
            ("config.max_entries_per_append".to_string(), Vary::Range([1, 64])),
            ("nodes".to_string(), Vary::OneOf(vec![3.into(), 5.into(), 7.into()])),
        ])
    }

    #[test]
    fn a_draw_is_the_same_for_a_seed_and_stays_in_range() {
        let k = knobs();
        assert_eq!(draw(&k, 9), draw(&k, 9));
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let d = draw(&k, seed);
            let n = d["config.max_entries_per_append"].as_u64().unwrap();
            assert!((1..=64).contains(&n));
            seen.insert(d["nodes"].as_u64().unwrap());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![3, 5, 7]);
    }

    #[test]
    fn corners_cover_every_combination_of_extremes() {
        assert_eq!(corners(&knobs()).len(), 6);
    }

    #[test]
    fn bad_knobs_are_refused() {
        assert!(check(&BTreeMap::from([("name".to_string(), Vary::Range([1, 2]))])).is_err());
        assert!(check(&BTreeMap::from([("config.x".to_string(), Vary::Range([3, 2]))])).is_err());
        assert!(check(&BTreeMap::from([("nodes".to_string(), Vary::OneOf(vec![]))])).is_err());
        let many = |n: usize| BTreeMap::from([("nodes".to_string(), Vary::OneOf(vec![3.into(); n]))]);
        assert!(check(&many(ONE_OF_MAX)).is_ok());
        assert!(check(&many(ONE_OF_MAX + 1)).unwrap_err().contains("more than 1024"));
        assert!(check(&knobs()).is_ok());
    }

    #[test]
    fn applying_a_draw_records_it_and_leaves_nothing_to_draw() {
        let mut s =
            Scenario::from_json(r#"{"name":"x","model":"m","nodes":3,"invariants":[],"config":{"a":1}}"#).unwrap();
        s.vary = knobs();
        let d = BTreeMap::from([
            ("config.max_entries_per_append".to_string(), Value::from(4)),
            ("nodes".to_string(), Value::from(5)),
        ]);
        let c = s.with_knobs(&d).unwrap();
        assert_eq!(c.nodes, 5);
        assert_eq!(c.config["max_entries_per_append"], 4);
        assert_eq!(c.config["a"], 1);
        assert!(c.vary.is_empty());
        assert_eq!(c.varied, d);
        let bad = BTreeMap::from([("nodes".to_string(), Value::from("many"))]);
        assert!(s.with_knobs(&bad).unwrap_err().contains("invalid"));
        for root in ["config", "faults", "workload"] {
            let whole = BTreeMap::from([(root.to_string(), serde_json::json!({"b": 2}))]);
            let e = s.with_knobs(&whole).unwrap_err();
            assert!(e.contains(&format!("'{root}' is an object")), "{e}");
        }
    }
}
