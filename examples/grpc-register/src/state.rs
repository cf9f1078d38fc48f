//! What a node keeps on its disk, through `tokio::fs`: its term, its vote
//! and the register's newest state, in one JSON file replaced whole (write
//! a temporary file, sync it, rename it over the old one, sync the
//! directory).

use crate::proto::Stamped;
use serde::{Deserialize, Serialize};
use sim::KvMap;
use std::io;
use tokio::fs;
use tokio::io::AsyncWriteExt;

const FILE: &str = "register/state.json";
const TMP: &str = "register/state.json.tmp";
const DIR: &str = "register";

/// The register's whole state, stamped `(wterm, seq)` by the write that
/// made it: the leader of `wterm` made it, as its `seq`-th state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub wterm: u64,
    pub seq: u64,
    pub map: KvMap,
}

impl Held {
    pub fn stamp(&self) -> (u64, u64) {
        (self.wterm, self.seq)
    }

    pub fn to_wire(&self) -> Stamped {
        Stamped {
            wterm: self.wterm,
            seq: self.seq,
            map: serde_json::to_vec(&self.map).expect("a map of strings serializes"),
        }
    }

    pub fn from_wire(s: &Stamped) -> Result<Held, String> {
        let map = serde_json::from_slice(&s.map).map_err(|e| format!("a peer sent a map that is not JSON: {e}"))?;
        Ok(Held {
            wterm: s.wterm,
            seq: s.seq,
            map,
        })
    }
}

/// What must survive a crash.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Durable {
    pub term: u64,
    pub voted_for: Option<u32>,
    pub held: Held,
}

/// The state the node last saved, or `None` on a node that never saved.
pub async fn load() -> io::Result<Option<Durable>> {
    match fs::read(FILE).await {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{FILE} is not a saved state: {e}"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Saves `d` durably. With `sync_dir` false the rename is left for a later
/// sync to carry to the disk.
pub async fn save(d: &Durable, sync_dir: bool) -> io::Result<()> {
    fs::create_dir_all(DIR).await?;
    let bytes = serde_json::to_vec(d).map_err(io::Error::other)?;
    let mut f = fs::File::create(TMP).await?;
    f.write_all(&bytes).await?;
    f.sync_all().await?;
    drop(f);
    fs::rename(TMP, FILE).await?;
    if sync_dir {
        fs::File::open(DIR).await?.sync_all().await?;
    }
    Ok(())
}
