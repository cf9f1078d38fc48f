#![deny(missing_docs)]
#![warn(unnameable_types)]
//! The systems under test that ship with dst, each a sans-IO
//! [`sim::Machine`] with its catalogued bug switches, registered
//! through the same public path as any user's model.

mod cluster;
mod raft;
mod snapshot;

pub mod scenarios;

pub use cluster::{events::ClusterEvent, ClusterConfig};
pub use raft::{RaftConfig, ReadMode};
pub use snapshot::{events::SnapEvent, events::SnapValue, msg::RowView, SnapConfig};

use sim::Registry;

/// Adds the built-in models and their scenarios to `registry`.
pub fn register(registry: &mut Registry) {
    registry.add(raft::register::model());
    registry.add(snapshot::register::model());
    registry.add(cluster::register::model());
    for (_, json) in scenarios::BUILTIN {
        registry.scenario(json);
    }
}

/// A registry with the built-in models and nothing else.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_scenario_is_valid_and_named_after_its_file() {
        let r = super::registry();
        r.check().unwrap();
        for (name, _) in super::scenarios::BUILTIN {
            assert_eq!(&r.load(name).unwrap().name, name);
        }
    }
}
