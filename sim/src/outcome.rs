//! Reading a run's outcome the way a campaign does: what it is a finding
//! of against what its scenario and bug switches call for ([`classify`]),
//! the one-line cause it is counted under ([`cause`]), and the panics a
//! model raises, caught and kept as findings ([`install_panic_hook`]).
//! [`limits`] holds the bounds that turn a model that stops making
//! progress into a finding.

pub use crate::panics::{install_panic_hook, panic_text};
pub use crate::world::{cause, cause_of, classify, limits, one_fault_kind_each, Class, PANIC};
