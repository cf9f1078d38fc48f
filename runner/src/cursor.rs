//! Where a time-boxed campaign stopped, kept in a file so that the next
//! run (tomorrow night's) continues there instead of repeating seeds.

use linearizability::one_line::one_line;
use serde::{Deserialize, Serialize};
use sim::Scenario;
use std::path::Path;

/// The format tag every cursor file carries; [`Cursor::load`] refuses any other.
pub const FORMAT: &str = "dst-fuzz-cursor/1";

/// A campaign's place in its seeds, as its cursor file holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cursor {
    /// Always [`FORMAT`], so that a file of another kind or version is refused.
    pub format: String,
    /// The campaign the cursor belongs to: its scenarios, bugs and shard.
    pub campaign: String,
    /// The first seed not yet run (of this shard).
    pub next_seed: u64,
    /// Scenarios of `next_seed`, by index, already run.
    pub next_scenario: usize,
    /// Stretches below `next_seed` that a campaign claimed and did not run
    /// (see [`super::claim`]), sorted: the next claims take them first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub free: Vec<Gap>,
}

/// The items from (`from_seed`, scenario `from_scenario`) up to, not
/// including, `to_seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    /// The first seed of the stretch.
    pub from_seed: u64,
    /// The index of the scenario of `from_seed` the stretch starts at; the ones before it ran.
    pub from_scenario: usize,
    /// The seed the stretch ends before.
    pub to_seed: u64,
}

/// What makes two runs the same campaign: the scenarios as they run, the
/// bug switches and the shard.
pub fn campaign(scenarios: &[Scenario], bugs: &[String], shard: (u64, u64)) -> String {
    let prints: Vec<String> = scenarios.iter().map(super::record::fingerprint).collect();
    let key = format!("{}|{}|{}/{}", prints.join(","), bugs.join(","), shard.0, shard.1);
    format!("{:016x}", sim::hash::stable_hash(&key))
}

impl Cursor {
    /// The cursor at `path`, or none if there is no file yet; the error is one line.
    pub fn load(path: &Path, campaign: &str) -> Result<Option<Cursor>, String> {
        let text = match sim::host::files::read_input_text(path, sim::host::files::SMALL_INPUT_BYTES_MAX) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read cursor {}: {e}", sim::host::files::shown(path))),
        };
        let c: Cursor = sim::host::strict::from_str(&text).map_err(|e| {
            one_line(&format!(
                "cursor {}: not a dst cursor ({e})",
                sim::host::files::shown(path)
            ))
        })?;
        if c.format != FORMAT {
            return Err(format!(
                "cursor {}: format {} (this dst reads {FORMAT})",
                sim::host::files::shown(path),
                c.format
            ));
        }
        if c.campaign != campaign {
            return Err(format!(
                "cursor {} belongs to another campaign (other scenarios, bug switches or shard)",
                sim::host::files::shown(path)
            ));
        }
        c.check(path)?;
        Ok(Some(c))
    }

    /// Refuses a cursor whose numbers cannot have been written by a run:
    /// free stretches that are empty, overlap, or lie past the frontier.
    fn check(&self, path: &Path) -> Result<(), String> {
        let bad = |what: String| Err(format!("cursor {}: {what}", sim::host::files::shown(path)));
        let mut last_end = 0;
        for g in &self.free {
            if g.from_seed >= g.to_seed {
                return bad(format!("free stretch {}..{} is empty", g.from_seed, g.to_seed));
            }
            if g.to_seed > self.next_seed {
                return bad(format!(
                    "free stretch {}..{} lies past next_seed {}",
                    g.from_seed, g.to_seed, self.next_seed
                ));
            }
            if g.from_seed < last_end {
                return bad(format!(
                    "free stretch {}..{} overlaps the one before",
                    g.from_seed, g.to_seed
                ));
            }
            last_end = g.to_seed;
        }
        Ok(())
    }

    /// Takes back a stretch a campaign claimed and did not run: at the
    /// frontier the frontier moves back to it, so a cursor used by one
    /// campaign at a time reads as it always did.
    pub fn give_back(&mut self, g: Gap) {
        // An empty stretch would make a cursor that `load` refuses.
        if g.from_seed >= g.to_seed {
            return;
        }
        if g.to_seed == self.next_seed && self.next_scenario == 0 {
            self.next_seed = g.from_seed;
            self.next_scenario = g.from_scenario;
            // A free stretch that now ends at the frontier joins it too.
            while let Some(last) = self.free.last().copied() {
                if last.to_seed != self.next_seed || self.next_scenario != 0 {
                    break;
                }
                self.free.pop();
                self.next_seed = last.from_seed;
                self.next_scenario = last.from_scenario;
            }
            return;
        }
        self.free.push(g);
        self.free.sort();
    }

    /// Writes the cursor to `path` as JSON, whole or not at all; the error is one line.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| format!("cannot encode cursor: {e}"))?;
        sim::host::files::write_atomic(path, &text)
    }
}
