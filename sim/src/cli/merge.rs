//! `dst merge SUMMARY...`: the shards of one fuzz campaign, one verdict.

use super::args::MergeArgs;
use super::Exit;
use crate::runner::record::{merge, FuzzRecord};

pub fn main(a: &MergeArgs) -> Exit {
    if let Err(e) = super::fuzz::check_targets(&a.out) {
        return Exit::Bad(e);
    }
    let mut records = Vec::new();
    for path in &a.summaries {
        match FuzzRecord::read(path) {
            Ok(r) => records.push((path.clone(), r)),
            Err(e) => return Exit::Bad(e),
        }
    }
    match merge(&records) {
        Ok(merged) => super::fuzz::publish(&merged, &a.out),
        Err(e) => Exit::Bad(e),
    }
}
