//! Where a time-boxed campaign stopped, kept in a file so that the next
//! run (tomorrow night's) continues there instead of repeating seeds.

use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FORMAT: &str = "dst-fuzz-cursor/1";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cursor {
    pub format: String,
    /// The campaign the cursor belongs to: its scenarios, bugs and shard.
    pub campaign: String,
    /// The first seed not yet run (of this shard).
    pub next_seed: u64,
    /// Scenarios of `next_seed`, by index, already run.
    pub next_scenario: usize,
}

/// What makes two runs the same campaign: the scenarios as they run, the
/// bug switches and the shard.
pub fn campaign(scenarios: &[Scenario], bugs: &[String], shard: (u64, u64)) -> String {
    let prints: Vec<String> = scenarios.iter().map(super::record::fingerprint).collect();
    let key = format!("{}|{}|{}/{}", prints.join(","), bugs.join(","), shard.0, shard.1);
    format!("{:016x}", crate::hash::stable_hash(&key))
}

impl Cursor {
    /// The cursor at `path`, or none if there is no file yet; the error is one line.
    pub fn load(path: &Path, campaign: &str) -> Result<Option<Cursor>, String> {
        let text = match crate::files::read_input_text(path, crate::files::SMALL_INPUT_BYTES_MAX) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read cursor {}: {e}", path.display())),
        };
        let c: Cursor =
            serde_json::from_str(&text).map_err(|e| format!("cursor {}: not a dst cursor ({e})", path.display()))?;
        if c.format != FORMAT {
            return Err(format!(
                "cursor {}: format {} (this dst reads {FORMAT})",
                path.display(),
                c.format
            ));
        }
        if c.campaign != campaign {
            return Err(format!(
                "cursor {} belongs to another campaign (other scenarios, bug switches or shard)",
                path.display()
            ));
        }
        Ok(Some(c))
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| format!("cannot encode cursor: {e}"))?;
        crate::files::write_atomic(path, &text)
    }
}
