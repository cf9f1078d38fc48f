//! A report too large to be useful is refused with one line that says how
//! large it would be, instead of a file of gigabytes.

use dst_runner::{self as runner, run_seed};
use models::registry;

#[test]
fn an_oversized_report_says_so_instead_of_being_written() {
    let reg = registry();
    let scenario = reg.load("raft-crash-restart").unwrap();
    let (out, wall) = run_seed(&reg, &scenario, 0, &[], None).unwrap();
    let class = reg.classify(&out, &scenario, &[]);
    let path = std::env::temp_dir().join(format!("dst-size-{}.json", std::process::id()));
    let full = sim::report::Style {
        full_trace: true,
        gzip: false,
    };
    let report = runner::report(&reg, &out, class, &scenario, 0, &[], wall, &path, full).unwrap();
    let whole = report.encode(usize::MAX).unwrap();
    assert!(whole.len() > 1000);
    let e = report.encode(whole.len() - 1).unwrap_err();
    assert!(
        e.contains(&format!("{} bytes", whole.len())) && !e.contains('\n'),
        "{e}"
    );
    assert_eq!(report.encode(whole.len()).unwrap(), whole);
}
