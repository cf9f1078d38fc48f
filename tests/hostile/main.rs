//! Hostile inputs for every parser: generated and mutated histories,
//! reports, scenario files and command line values. Whatever comes in, no
//! parser panics and every refusal is one line; through the binary, a
//! refusal exits 2 with that one line on stderr and writes nothing.

mod before;
mod binary;
mod claims;
mod files;
mod finds;
mod fixtures;
mod hints;
mod histories;
mod memory;
mod mutate;
mod numbers;
mod outputs;
mod paths;
mod reports;
mod samples;
mod scenarios;
mod strict;
mod terminal;
mod values;

/// Fails the case unless `msg` prints as one line.
#[macro_export]
macro_rules! assert_one_line {
    ($msg:expr) => {{
        let m: &str = &$msg;
        proptest::prop_assert!(linearizability::one_line::is_one_line(m), "not one line: {:?}", m);
    }};
}
