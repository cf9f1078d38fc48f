//! The adapter's own events, beside the generic ones the checkers read.

use serde::{Deserialize, Serialize};
use sim::NodeId;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum PaxosEvent {
    /// The first message on a new connection from `peer` arrived after the
    /// old one broke: the adapter called `reconnected(peer)`.
    Reconnected { peer: NodeId },
    /// The crate asked its storage to put entries at index `from` of a log
    /// only `len` long. The reference storage, which the adapter's follows,
    /// truncates at `from` (nothing) and appends: each entry lands at a
    /// lower index than the crate meant.
    LogGap { from: u64, len: u64 },
}
