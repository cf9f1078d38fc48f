//! Campaigns that share one cursor file. Each takes its seeds from the
//! file a block at a time, under the file's lock (see
//! [`sim::host::files::locked`]): the block is written off in the cursor
//! before any of its seeds runs, so no two campaigns ever run the same
//! seed. What a campaign claimed and did not run (a budget or an
//! interruption ended it) goes back to the cursor as a free stretch that
//! the next claim takes first; a campaign killed outright loses at most
//! the rest of one block, never repeats it.

use super::cursor::{Cursor, Gap, FORMAT};
use std::path::PathBuf;

/// Seeds per claim and job: a claim costs a lock and an atomic write, a
/// seed milliseconds to seconds; a lost block stays small.
pub const SEEDS_PER_JOB: u64 = 4;

/// A cursor file, shared, and the campaign's place in it.
pub struct Claims {
    path: PathBuf,
    campaign: String,
    /// Where a cursor file that does not exist yet starts, and the end of
    /// the range (exclusive): nothing at or past it is claimed.
    lo: u64,
    hi: u64,
    shard: (u64, u64),
    scenarios: usize,
    /// Seeds (of the whole range, not only the shard's) per claim.
    block: u64,
    /// What this campaign holds and has not handed out yet, and the next
    /// item of it.
    held: Option<(Gap, (u64, usize))>,
    error: Option<String>,
}

impl Claims {
    /// The claims of `campaign` on the cursor at `path`: the seeds of `range` (end exclusive) that
    /// `shard` runs, [`SEEDS_PER_JOB`] per job a claim. Nothing is read from the file yet.
    pub fn new(
        path: PathBuf,
        campaign: String,
        range: (u64, u64),
        shard: (u64, u64),
        scenarios: usize,
        jobs: usize,
    ) -> Self {
        let per_claim = SEEDS_PER_JOB.saturating_mul(jobs.max(1) as u64);
        Claims {
            path,
            campaign,
            lo: range.0,
            hi: range.1,
            shard,
            scenarios: scenarios.max(1),
            block: per_claim.saturating_mul(shard.1.max(1)),
            held: None,
            error: None,
        }
    }

    /// The first item of `g` this shard runs, if it has any.
    fn first(&self, g: &Gap) -> Option<(u64, usize)> {
        let (i, n) = self.shard;
        let s = g.from_seed;
        if s % n == i && g.from_scenario < self.scenarios {
            return (s < g.to_seed).then_some((s, g.from_scenario));
        }
        let next = shard_seed_after(s, i, n)?;
        (next < g.to_seed).then_some((next, 0))
    }

    fn after(&self, (seed, sc): (u64, usize), to_seed: u64) -> Option<(u64, usize)> {
        if sc + 1 < self.scenarios {
            return Some((seed, sc + 1));
        }
        let next = shard_seed_after(seed, self.shard.0, self.shard.1)?;
        (next < to_seed).then_some((next, 0))
    }

    /// Takes the next block from the file: a free stretch first, else the
    /// block at the frontier. None once nothing is left below the end.
    fn claim(&mut self) -> Result<Option<Gap>, String> {
        let (campaign, lo, hi, block, n_sc) = (self.campaign.clone(), self.lo, self.hi, self.block, self.scenarios);
        let path = self.path.clone();
        sim::host::files::locked(&path, || {
            let mut c = Cursor::load(&path, &campaign)?.unwrap_or_else(|| Cursor {
                format: FORMAT.into(),
                campaign: campaign.clone(),
                next_seed: lo,
                next_scenario: 0,
                free: Vec::new(),
            });
            // A scenario index past the campaign's would skip seeds unrun.
            let mut past = std::iter::once(c.next_scenario).chain(c.free.iter().map(|g| g.from_scenario));
            if let Some(sc) = past.find(|&sc| sc >= n_sc) {
                return Err(format!(
                    "cursor {}: scenario index {sc} is past the campaign's {n_sc} scenario(s)",
                    sim::host::files::shown(&path)
                ));
            }
            let taken = match c.free.iter().position(|g| g.from_seed < hi) {
                Some(k) => {
                    let g = c.free[k];
                    // `block` is at least 1, and `from_seed` below `hi`: the claim is never empty.
                    let end = g.to_seed.min(hi).min(g.from_seed.saturating_add(block));
                    if end < g.to_seed {
                        c.free[k] = Gap {
                            from_seed: end,
                            from_scenario: 0,
                            to_seed: g.to_seed,
                        };
                    } else {
                        c.free.remove(k);
                    }
                    Gap { to_seed: end, ..g }
                }
                None if c.next_seed < hi => {
                    let end = c.next_seed.saturating_add(block).min(hi);
                    let g = Gap {
                        from_seed: c.next_seed,
                        from_scenario: c.next_scenario,
                        to_seed: end,
                    };
                    c.next_seed = end;
                    c.next_scenario = 0;
                    g
                }
                None => return Ok(None),
            };
            c.save(&path)?;
            Ok(Some(taken))
        })
    }

    /// Gives back what this campaign claimed and did not run; the error,
    /// if a claim or this failed, is one line.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some((g, (seed, sc))) = self.held.take() {
            let rest = Gap {
                from_seed: seed,
                from_scenario: sc,
                to_seed: g.to_seed,
            };
            let (path, campaign) = (self.path.clone(), self.campaign.clone());
            let given = sim::host::files::locked(&path, || {
                let Some(mut c) = Cursor::load(&path, &campaign)? else {
                    return Err(format!(
                        "cursor {} disappeared while the campaign ran",
                        sim::host::files::shown(&path)
                    ));
                };
                c.give_back(rest);
                c.save(&path)
            });
            if let Err(e) = given {
                self.error.get_or_insert(e);
            }
        }
        self.error.take().map_or(Ok(()), Err)
    }
}

impl Iterator for Claims {
    type Item = (usize, u64);

    fn next(&mut self) -> Option<(usize, u64)> {
        loop {
            if let Some((g, at)) = self.held {
                self.held = self.after(at, g.to_seed).map(|n| (g, n));
                return Some((at.1, at.0));
            }
            if self.error.is_some() {
                return None;
            }
            match self.claim() {
                Ok(Some(g)) => self.held = self.first(&g).map(|at| (g, at)),
                Ok(None) => return None,
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
    }
}

/// The first seed after `s` that shard `i` of `n` runs.
fn shard_seed_after(s: u64, i: u64, n: u64) -> Option<u64> {
    let base = s - s % n;
    let here = base.checked_add(i)?;
    if here > s {
        Some(here)
    } else {
        here.checked_add(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_shard_seed_is_after_and_of_the_shard() {
        for n in 1..6u64 {
            for i in 0..n {
                for s in 0..40u64 {
                    let t = shard_seed_after(s, i, n).unwrap();
                    assert!(t > s && t % n == i && t - s <= n, "{s} {i}/{n} -> {t}");
                }
            }
        }
        assert_eq!(shard_seed_after(u64::MAX - 1, 0, 1), Some(u64::MAX));
        assert_eq!(shard_seed_after(u64::MAX, 0, 1), None);
    }
}
