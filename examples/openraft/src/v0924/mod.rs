//! openraft 0.9.24, bound as `openraft` for the adapter.

use openraft_0924 as openraft;

pub const MODEL: &str = "openraft-0.9.24";

#[path = "../adapter/mod.rs"]
pub mod adapter;
