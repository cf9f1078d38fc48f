//! Names that come from data (a scenario's name, a bug's) never choose
//! where a file goes: whatever the name, the report path a campaign makes
//! of it is a plain file name inside the folder the user gave, short enough
//! for any file system, and not hidden.

use crate::mutate::config;
use proptest::prelude::*;
use std::path::Path;

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[./\\\\a-z]{0,40}",
        Just("..".to_string()),
        Just("/etc/passwd".to_string()),
        Just("../../x".to_string()),
        "\\PC{200,400}",
    ]
}

proptest! {
    #![proptest_config(config(2_000))]

    #[test]
    fn a_report_path_stays_a_plain_name_in_its_folder(scenario in name(), bugs in prop::collection::vec(name(), 0..3), seed in any::<u64>()) {
        let dir = Path::new("reports/here");
        let p = dst_runner::report_path(dir, &scenario, seed, &bugs);
        prop_assert_eq!(p.parent(), Some(dir));
        let file = p.file_name().unwrap().to_str().unwrap();
        prop_assert!(!file.starts_with('.'), "{}", file);
        prop_assert!(file.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{}", file);
        prop_assert!(file.len() <= 255, "{} bytes", file.len());
        let safe = sim::host::files::name_from_data(&scenario);
        prop_assert!(!safe.is_empty() && !safe.contains('/') && safe != "." && safe != "..");
    }
}
