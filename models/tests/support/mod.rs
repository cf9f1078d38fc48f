//! What the model tests that drive `dst explore`'s world share.

use dst_runner::run_seed_with;
use sim::explore::{Bounds, Tape};
use sim::{Overrides, RunOutcome, Scenario};

/// The natural explored run of `sc` (no departure from the natural order)
/// within `bounds`, seed 0, every event kept.
pub fn natural(sc: &Scenario, bounds: Bounds) -> RunOutcome {
    let reg = models::registry();
    let tape = Tape {
        bounds,
        choices: vec![],
    };
    let o = Overrides {
        explore: Some(tape),
        ..Overrides::default()
    }
    .keeping_all();
    run_seed_with(&reg, sc, 0, &[], o).unwrap().0
}
