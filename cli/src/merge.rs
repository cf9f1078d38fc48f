//! `dst merge SUMMARY...`: the shards of one fuzz campaign, one verdict.

use super::args::MergeArgs;
use super::Exit;
use dst_runner::record::{merge, FuzzRecord};
use sim::Registry;

pub fn main(reg: &Registry, a: &MergeArgs) -> Exit {
    if let Err(e) = super::fuzz::check_targets(&a.out).and_then(|_| super::corpus::check(&a.corpus)) {
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
        Ok(merged) => {
            let exit = super::fuzz::publish(&merged, &a.out);
            match super::corpus::grow_from(reg, &merged, &a.corpus, &super::corpus::from_registry(reg)) {
                Ok(()) => exit,
                Err(e) => Exit::Bad(e),
            }
        }
        Err(e) => Exit::Bad(e),
    }
}
