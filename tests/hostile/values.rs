//! Command line values that dst parses itself: seed ranges (`--seeds A..B`),
//! shards (`--shard I/N`) and durations (`--budget`). What parses must make
//! sense; what does not is refused in one line.

use crate::assert_one_line;
use crate::mutate::config;
use dst_cli::parse_duration;
use dst_runner::{parse_seeds, parse_shard};
use proptest::prelude::*;

/// Near misses of each syntax as well as noise.
pub fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ \t\n\r\u{b}]{0,2}-?[0-9]{0,25}[ \n]?(\\.\\.|\\.\\.\\.|\\.|/|//|-|:)?[ \n]?-?[0-9]{0,25}[ \r]?",
        "[0-9]{0,22}(\\.[0-9]{0,8})?(e[+-]?[0-9]{1,4})?(ms|s|m|h|d|us|ns|MS|)",
        "(inf|NaN|infinity|-0|\\+1|0x10|1_000|١٢)(ms|s|m|h|)",
        "[0-9./a-z\u{2028}\u{85}\u{0}]{0,10}",
    ]
}

proptest! {
    #![proptest_config(config(5_000))]

    #[test]
    fn seed_ranges(s in value()) {
        match parse_seeds(&s) {
            Ok((a, b)) => prop_assert!(a < b, "{s:?} gave {a}..{b}"),
            Err(e) => assert_one_line!(e),
        }
    }

    #[test]
    fn shards(s in value()) {
        match parse_shard(&s) {
            Ok((i, n)) => prop_assert!(i < n, "{s:?} gave {i}/{n}"),
            Err(e) => assert_one_line!(e),
        }
    }

    #[test]
    fn durations(s in value()) {
        if let Err(e) = parse_duration(&s) {
            assert_one_line!(e);
        }
    }
}
