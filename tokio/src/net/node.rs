//! A socket of a simulated node, as the shim's types hold it: the node's
//! id for it and the incarnation that made it. Dropping it closes it.

use crate::dst::{self, Here, Sim};
use std::io;

pub(crate) struct NodeSocket {
    pub(crate) here: Here,
    pub(crate) id: u64,
}

impl NodeSocket {
    /// The simulator, for a call on this socket; a socket carried off the
    /// run's thread (or kept past its run) has none.
    pub(crate) fn sim(&self) -> io::Result<&'static dyn Sim> {
        dst::sim().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotConnected,
                "the simulation this socket belonged to is over",
            )
        })
    }
}

impl Drop for NodeSocket {
    fn drop(&mut self) {
        if let Some(sim) = dst::sim() {
            sim.close(self.here, self.id);
        }
    }
}

impl std::fmt::Debug for NodeSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "socket {} of node {}", self.id, self.here.node)
    }
}

/// What a simulated socket refuses that only a host's socket can do.
#[track_caller]
pub(crate) fn refuse_os(what: &str) -> ! {
    dst::refuse(
        what,
        "a simulated socket has no operating-system socket behind it; bind and connect with tokio::net on the node",
    )
}
