//! The faults a run meets, as data: the scenario's [`FaultProfile`], the
//! timed plan of [`PlanEntry`]s drawn from it (stored in every report, and
//! replayed or edited from there), the per-message [`Chaos`] the network
//! draws and the [`Calm`] set that switches it off, and how two nodes'
//! messages travel ([`LinkMode`]).

pub use crate::calm::Calm;
pub use crate::links::LinkMode;
pub use crate::nemesis::{
    check_plan, Action, BurstFault, DiskFault, FaultProfile, PlanEntry, SwarmDraw, Target, Trigger, DRIFT_PPM_MAX,
    SLOW_DISK_FACTOR,
};
pub use crate::net::Chaos;
