//! openraft 0.9.25, bound as `openraft` for the adapter.

use openraft_0925 as openraft;

pub const MODEL: &str = "openraft-0.9.25";

#[path = "../adapter/mod.rs"]
pub mod adapter;
