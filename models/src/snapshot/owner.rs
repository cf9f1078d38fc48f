//! A partition owner. Per partition it folds journal records into per-key
//! buffer cells, flushes changed keys as snapshots fenced by their offset
//! (a delete as an offset-carrying tombstone, also for a key never written),
//! serializes the writes of each key, and commits the lowest offset any key
//! still holds. A write the fence rejects (a SnapshotWriteConflict) or one
//! whose outcome is unknown tears the partition down: the owner rejoins,
//! reads each key's stored offset as its floor, and replays the journal from
//! the committed offset, folding only records above each floor.

use super::cell::{Cell, Stored};
use super::config::SnapConfig;
use super::digest::req_at;
use super::events::{SnapEvent, SnapValue};
use super::msg::{Record, RowView, SnapMsg, Stmt};
use super::{SnapIo, MS};
use sim::hash::debug_digest;
use sim::{NodeId, Now};
use std::collections::BTreeMap;

const TICK: u64 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the journal to confirm the generation.
    Joining,
    /// Reading the stored snapshots (and journal rows) of the partition.
    Reading {
        committed: u64,
    },
    Running,
}

/// Where a key's write is in the first-write protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// `UPDATE .. IF offset <= :o`.
    Fence,
    /// No row: `INSERT .. IF NOT EXISTS`.
    Insert,
    /// The insert lost a race: the fenced update, once more.
    Retry,
    /// A guard-expired row: `UPDATE .. IF offset = null`.
    Claim,
}

#[derive(Clone, Debug)]
struct Flight {
    key: u32,
    offset: u64,
    value: Option<SnapValue>,
    version: u64,
    step: Step,
    stmt: Stmt,
    deadline_ns: u64,
}

#[derive(Debug)]
struct Part {
    generation: u64,
    phase: Phase,
    /// The join or read in flight: (request, resend deadline).
    pending: Option<(u64, u64)>,
    /// The next offset to fetch and fold.
    next: u64,
    /// The last offset folded: the processing offset.
    processed: u64,
    fetch_deadline_ns: Option<u64>,
    cells: BTreeMap<u32, Cell>,
    flights: BTreeMap<u64, Flight>,
    /// Journal rows waiting to be appended to the store (events mode).
    outbox: Vec<Record>,
    rows_flight: Option<(u64, Vec<Record>, u64)>,
    due_fetch_ns: u64,
    due_flush_ns: u64,
    due_commit_ns: u64,
    due_rows_ns: u64,
    /// A write conflicted: if the rejoin finds the partition moved on, this
    /// owner was a stale writer that the fence stopped.
    conflicted: bool,
}

impl Part {
    fn new(generation: u64) -> Part {
        Part {
            generation,
            phase: Phase::Joining,
            pending: None,
            next: 1,
            processed: 0,
            fetch_deadline_ns: None,
            cells: BTreeMap::new(),
            flights: BTreeMap::new(),
            outbox: Vec::new(),
            rows_flight: None,
            due_fetch_ns: 0,
            due_flush_ns: 0,
            due_commit_ns: 0,
            due_rows_ns: 0,
            conflicted: false,
        }
    }
}

#[derive(Debug)]
pub struct Owner {
    cfg: SnapConfig,
    parts: BTreeMap<u32, Part>,
    next_req: u64,
    due_heartbeat_ns: u64,
}

impl Owner {
    pub fn new(cfg: SnapConfig) -> Owner {
        Owner {
            cfg,
            parts: BTreeMap::new(),
            next_req: 0,
            due_heartbeat_ns: 0,
        }
    }

    /// A fresh request id: the instant it leaves on this node's monotonic
    /// clock, or one past the last id if that is later. An id that is an
    /// instant can be digested as one (see `super::digest::req_at`).
    fn req(&mut self, io: &SnapIo) -> u64 {
        self.next_req = (self.next_req + 1).max(io.now_mono_ns());
        self.next_req
    }

    pub fn boot(&mut self, io: &mut SnapIo) {
        // Request ids never repeat across this node's incarnations: a reply
        // to the previous one's request (a durable store holds replies until
        // its fsync, past a quick restart) must not pass for this one's.
        // The previous one's ids are no later than its last request (but
        // for the few sent at one instant), which left before this boot.
        self.next_req = io.now_mono_ns();
        io.set_timer(TICK, self.cfg.tick_ms * MS);
    }

    // ---- membership ----

    fn join(&mut self, p: u32, io: &mut SnapIo) {
        let req = self.req(io);
        let deadline = io.now_mono_ns() + self.cfg.store_timeout_ms * MS;
        let part = self.parts.get_mut(&p).expect("joined partition");
        part.phase = Phase::Joining;
        part.pending = Some((req, deadline));
        let generation = part.generation;
        io.send(
            SnapConfig::JOURNAL,
            SnapMsg::Join {
                partition: p,
                generation,
            },
        );
    }

    fn read(&mut self, p: u32, io: &mut SnapIo) {
        let req = self.req(io);
        let deadline = io.now_mono_ns() + self.cfg.store_timeout_ms * MS;
        let part = self.parts.get_mut(&p).expect("read partition");
        part.pending = Some((req, deadline));
        io.send(SnapConfig::STORE, SnapMsg::Read { req, partition: p });
    }

    /// Tears the partition down and recovers it under the same generation.
    fn recover(&mut self, p: u32, conflicted: bool, io: &mut SnapIo) {
        let Some(old) = self.parts.get(&p) else { return };
        let mut part = Part::new(old.generation);
        part.conflicted = conflicted || old.conflicted;
        // Keep the commit schedule across the rejoin.
        part.due_commit_ns = old.due_commit_ns;
        self.parts.insert(p, part);
        self.join(p, io);
    }

    // ---- inputs ----

    pub fn on_timer(&mut self, _timer: u64, io: &mut SnapIo) {
        let now = io.now_mono_ns();
        if now >= self.due_heartbeat_ns {
            self.due_heartbeat_ns = now + self.cfg.heartbeat_ms * MS;
            io.send(SnapConfig::JOURNAL, SnapMsg::Heartbeat);
        }
        let ps: Vec<u32> = self.parts.keys().copied().collect();
        for p in ps {
            self.tick(p, now, io);
        }
        io.set_timer(TICK, self.cfg.tick_ms * MS);
    }

    fn tick(&mut self, p: u32, now: u64, io: &mut SnapIo) {
        let part = &self.parts[&p];
        match part.phase {
            Phase::Joining if part.pending.is_none_or(|(_, d)| d <= now) => self.join(p, io),
            Phase::Reading { .. } if part.pending.is_none_or(|(_, d)| d <= now) => self.read(p, io),
            Phase::Running => {
                if part.flights.values().any(|f| f.deadline_ns <= now) {
                    // The outcome is unknown: only the store can say what holds now.
                    return self.recover(p, false, io);
                }
                if now >= part.due_fetch_ns && part.fetch_deadline_ns.is_none_or(|d| d <= now) {
                    self.fetch(p, now, io);
                }
                if now >= self.parts[&p].due_flush_ns {
                    self.flush(p, now, io);
                }
                if now >= self.parts[&p].due_commit_ns {
                    self.commit(p, now, io);
                }
                if self.cfg.events && now >= self.parts[&p].due_rows_ns {
                    self.append_rows(p, now, io);
                }
            }
            _ => {}
        }
    }

    pub fn on_message(&mut self, _from: NodeId, msg: SnapMsg, io: &mut SnapIo) {
        match msg {
            SnapMsg::Assign { partition, generation }
                if self.parts.get(&partition).is_none_or(|p| p.generation < generation) =>
            {
                self.parts.insert(partition, Part::new(generation));
                self.join(partition, io);
            }
            SnapMsg::Revoke { partition, generation }
                if self.parts.get(&partition).is_some_and(|p| p.generation < generation) =>
            {
                self.parts.remove(&partition);
            }
            SnapMsg::Joined {
                partition,
                generation,
                committed,
            } => {
                let Some(part) = self.parts.get_mut(&partition) else {
                    return;
                };
                if part.generation == generation && part.phase == Phase::Joining {
                    part.phase = Phase::Reading { committed };
                    self.read(partition, io);
                }
            }
            SnapMsg::Fenced { partition, generation } => {
                if let Some(part) = self.parts.get(&partition).filter(|p| p.generation < generation) {
                    if part.conflicted {
                        io.reached("stale-write-rejected");
                    }
                    self.parts.remove(&partition);
                }
            }
            SnapMsg::ReadResp { req, rows, events } => {
                let found = self
                    .parts
                    .iter()
                    .find_map(|(p, part)| match (part.phase, part.pending) {
                        (Phase::Reading { committed }, Some((r, _))) if r == req => Some((*p, committed)),
                        _ => None,
                    });
                if let Some((p, committed)) = found {
                    self.install(p, committed, &rows, &events, io);
                }
            }
            SnapMsg::Records {
                partition,
                from,
                records,
            } => self.on_records(partition, from, &records),
            SnapMsg::WriteResp {
                req,
                applied,
                exists,
                offset,
            } => self.on_write_resp(req, applied, exists, offset, io),
            SnapMsg::AppendRowsResp { req } => {
                for part in self.parts.values_mut() {
                    if part.rows_flight.as_ref().is_some_and(|(r, _, _)| *r == req) {
                        part.rows_flight = None;
                    }
                }
            }
            // The journal fences commits by generation: this owner was replaced.
            SnapMsg::CommitResp {
                partition,
                generation,
                ok: false,
            } if self.parts.get(&partition).is_some_and(|p| p.generation == generation) => {
                self.parts.remove(&partition);
            }
            _ => {}
        }
    }

    // ---- recovery ----

    /// Seeds every key's cell from the store, then starts the replay at the
    /// committed offset.
    fn install(&mut self, p: u32, committed: u64, rows: &[RowView], events: &[Record], io: &mut SnapIo) {
        let bugs = self.cfg.bugs;
        let now = io.now_mono_ns();
        let part = self.parts.get_mut(&p).expect("installing partition");
        for row in rows {
            let cell = match (row.offset, row.value) {
                (Some(x), Some(v)) => Cell::recovered(x, Some(v)),
                (Some(_), None) if bugs.tombstone_recovers_as_none => Cell::empty(Stored::Absent),
                (Some(x), None) => Cell::recovered(x, None),
                (None, value) if bugs.guard_expired_naive => Cell::recovered(0, value),
                // A null guard reads as no snapshot at all.
                (None, _) => Cell::empty(Stored::GuardExpired),
            };
            part.cells.insert(row.key, cell);
        }
        if !events.is_empty() {
            io.reached("events-recovery");
        }
        for r in events {
            let cell = part.cells.entry(r.key).or_insert_with(|| Cell::empty(Stored::Absent));
            if bugs.unguarded_journal_fold {
                // Only the value's own version guards the fold: a tombstone has none.
                let value = SnapValue::fold(cell.value, r.offset, r.update);
                if value != cell.value {
                    cell.set(cell.offset.max(r.offset), value);
                }
            } else {
                // Rows that trail the snapshot must not pull the cell below it.
                cell.fold(r.offset, r.update, !bugs.init_persisted_bypass);
            }
            // The snapshot is written back once, so it and the rows agree.
            cell.rewrite = true;
        }
        part.phase = Phase::Running;
        part.pending = None;
        part.next = committed;
        part.processed = committed.saturating_sub(1);
        part.due_fetch_ns = now;
        part.due_flush_ns = now + self.cfg.flush_every_ms * MS;
        if part.due_commit_ns == 0 {
            part.due_commit_ns = now + self.cfg.commit_every_ms * MS;
        }
        part.due_rows_ns = now + self.cfg.rows_every_ms * MS;
    }

    // ---- the fold ----

    fn fetch(&mut self, p: u32, now: u64, io: &mut SnapIo) {
        let part = self.parts.get_mut(&p).expect("fetching partition");
        part.due_fetch_ns = now + self.cfg.fetch_every_ms * MS;
        part.fetch_deadline_ns = Some(now + self.cfg.store_timeout_ms * MS);
        io.send(
            SnapConfig::JOURNAL,
            SnapMsg::Fetch {
                partition: p,
                from: part.next,
                max: self.cfg.fetch_records_max,
            },
        );
    }

    fn on_records(&mut self, p: u32, from: u64, records: &[Record]) {
        let bugs = self.cfg.bugs;
        let events = self.cfg.events;
        let Some(part) = self.parts.get_mut(&p) else { return };
        if part.phase != Phase::Running || from != part.next {
            return; // a late, duplicated or reordered batch
        }
        part.fetch_deadline_ns = None;
        for r in records {
            let cell = part.cells.entry(r.key).or_insert_with(|| Cell::empty(Stored::Absent));
            if cell.fold(r.offset, r.update, !bugs.no_monotone_buffer) && events {
                part.outbox.push(*r);
            }
            part.processed = r.offset;
            part.next = r.offset + 1;
        }
    }

    // ---- flushing ----

    fn flush(&mut self, p: u32, now: u64, io: &mut SnapIo) {
        let serialized = !self.cfg.bugs.flushcell_unserialized;
        let part = self.parts.get_mut(&p).expect("flushing partition");
        part.due_flush_ns = now + self.cfg.flush_every_ms * MS;
        let processed = part.processed;
        let in_window = part.cells.values().any(|c| c.offset > processed);
        let keys: Vec<u32> = part
            .cells
            .iter()
            .filter(|(_, c)| c.dirty() && !(serialized && c.busy))
            .map(|(k, _)| *k)
            .collect();
        let mut wrote = false;
        for key in keys {
            wrote |= self.start_write(p, key, now, io);
        }
        if wrote && in_window {
            io.reached("replay-window-flush");
        }
    }

    /// Writes `key`'s state: a persist at its offset, or a tombstone gated on
    /// max(processing offset, the cell's offset), so that a delete inside the
    /// replay window never goes below the stored snapshot.
    fn start_write(&mut self, p: u32, key: u32, now: u64, io: &mut SnapIo) -> bool {
        let bugs = self.cfg.bugs;
        let req = self.req(io);
        let part = self.parts.get_mut(&p).expect("writing partition");
        let processed = part.processed;
        let generation = part.generation;
        let cell = part.cells.get_mut(&key).expect("dirty cell");
        let deleting = cell.value.is_none();
        // A guard-expired row reads as absent, but its null guard admits any
        // offset: a stale owner's claim still in flight would revive the key.
        // The delete claims the row with its tombstone, which fences it again.
        if deleting && cell.stored == Stored::Absent && bugs.skip_tombstone_unpersisted {
            cell.settle();
            return false;
        }
        let offset = if deleting {
            cell.offset.max(processed)
        } else {
            cell.offset
        };
        let stmt = if bugs.unguarded_persist {
            Stmt::Plain
        } else if deleting && bugs.delete_removes_row {
            Stmt::DeleteRow
        } else if bugs.strict_fence {
            Stmt::UpdateIfLt
        } else {
            Stmt::UpdateIfLe
        };
        let ttl_ms = if deleting {
            self.cfg.delete_ttl_ms
        } else {
            self.cfg.persist_ttl_ms
        };
        cell.busy = true;
        let flight = Flight {
            key,
            offset,
            value: cell.value,
            version: cell.version,
            step: Step::Fence,
            stmt,
            deadline_ns: now + self.cfg.store_timeout_ms * MS,
        };
        io.send(
            SnapConfig::STORE,
            SnapMsg::Write {
                req,
                key,
                stmt,
                offset,
                value: cell.value,
                ttl_ms,
                generation,
            },
        );
        part.flights.insert(req, flight);
        true
    }

    /// Sends the next statement of a flight under a new request id.
    fn resend(&mut self, p: u32, mut f: Flight, step: Step, stmt: Stmt, io: &mut SnapIo) {
        let req = self.req(io);
        let now = io.now_mono_ns();
        let ttl_ms = if f.value.is_none() {
            self.cfg.delete_ttl_ms
        } else {
            self.cfg.persist_ttl_ms
        };
        let part = self.parts.get_mut(&p).expect("writing partition");
        f.step = step;
        f.stmt = stmt;
        f.deadline_ns = now + self.cfg.store_timeout_ms * MS;
        io.send(
            SnapConfig::STORE,
            SnapMsg::Write {
                req,
                key: f.key,
                stmt,
                offset: f.offset,
                value: f.value,
                ttl_ms,
                generation: part.generation,
            },
        );
        part.flights.insert(req, f);
    }

    fn on_write_resp(&mut self, req: u64, applied: bool, exists: bool, offset: Option<u64>, io: &mut SnapIo) {
        let bugs = self.cfg.bugs;
        let events = self.cfg.events;
        let Some(p) = self
            .parts
            .iter()
            .find(|(_, part)| part.flights.contains_key(&req))
            .map(|(p, _)| *p)
        else {
            return;
        };
        let part = self.parts.get_mut(&p).expect("found above");
        let f = part.flights.remove(&req).expect("found above");
        let generation = part.generation;
        let Some(cell) = part.cells.get_mut(&f.key) else { return };
        if applied {
            if f.stmt == Stmt::DeleteRow {
                cell.landed(f.version, Stored::Absent);
                return;
            }
            if bugs.flushcell_unserialized {
                // Marks whatever the cell holds now, not what was written.
                io.emit(&SnapEvent::SnapPersisted {
                    key: f.key,
                    offset: cell.offset,
                    value: cell.value,
                    generation,
                });
                cell.busy = false;
                cell.stored = Stored::At(f.offset);
                cell.settle();
            } else {
                io.emit(&SnapEvent::SnapPersisted {
                    key: f.key,
                    offset: f.offset,
                    value: f.value,
                    generation,
                });
                cell.landed(f.version, Stored::At(f.offset));
            }
            if f.value.is_none() {
                if f.step == Step::Insert {
                    io.reached("tombstone-unpersisted");
                }
                if events {
                    io.send(
                        SnapConfig::STORE,
                        SnapMsg::ClearRows {
                            key: f.key,
                            upto: f.offset,
                        },
                    );
                }
            }
            return;
        }
        // Read a null guard as offset 0, as a naive reader of the row would.
        let offset = if bugs.guard_expired_naive && exists {
            offset.or(Some(0))
        } else {
            offset
        };
        let guard_expired = exists && offset.is_none();
        if guard_expired && f.step != Step::Claim {
            // A tombstone claims the null guard too: left null, it would let
            // a stale writer's claim land below the delete.
            return self.resend(p, f, Step::Claim, Stmt::UpdateIfNull, io);
        }
        if f.stmt == Stmt::DeleteRow && !exists {
            cell.landed(f.version, Stored::Absent);
            return;
        }
        let fence = f.stmt;
        let not_newer = offset.is_none_or(|x| x <= f.offset);
        match f.step {
            Step::Fence if !exists || not_newer => self.resend(p, f, Step::Insert, Stmt::InsertIfNotExists, io),
            Step::Insert => self.resend(p, f, Step::Retry, fence_of(fence, bugs.strict_fence), io),
            // A SnapshotWriteConflict.
            _ => self.recover(p, true, io),
        }
    }

    // ---- commits and journal rows ----

    fn commit(&mut self, p: u32, now: u64, io: &mut SnapIo) {
        let part = self.parts.get_mut(&p).expect("committing partition");
        part.due_commit_ns = now + self.cfg.commit_every_ms * MS;
        let held = part.cells.values().filter_map(|c| c.hold).min();
        let offset = held.unwrap_or(u64::MAX).min(part.processed + 1);
        io.send(
            SnapConfig::JOURNAL,
            SnapMsg::Commit {
                partition: p,
                generation: part.generation,
                offset,
            },
        );
    }

    fn append_rows(&mut self, p: u32, now: u64, io: &mut SnapIo) {
        let req = self.req(io);
        let part = self.parts.get_mut(&p).expect("appending partition");
        part.due_rows_ns = now + self.cfg.rows_every_ms * MS;
        let rows = match part.rows_flight.take() {
            Some((_, rows, deadline)) if deadline <= now => rows,
            Some(flight) => {
                part.rows_flight = Some(flight);
                return;
            }
            None if part.outbox.is_empty() => return,
            None => std::mem::take(&mut part.outbox),
        };
        let deadline = now + self.cfg.store_timeout_ms * MS;
        part.rows_flight = Some((req, rows.clone(), deadline));
        io.send(SnapConfig::STORE, SnapMsg::AppendRows { req, rows });
    }
}

// ---- the relative digest (see `super::digest`) ----

impl Owner {
    pub fn digest_at(&self, now: &Now) -> u64 {
        // Destructured, here and below, so that a new field must be placed.
        let Owner {
            cfg: _,
            parts,
            next_req,
            due_heartbeat_ns,
        } = self;
        let parts: Vec<_> = parts.iter().map(|(p, part)| (p, part.digest_at(now))).collect();
        // The next id is the clock's reading, unless ids ran ahead of it.
        let ids_ahead = now.mono_until(next_req + 1);
        debug_digest(&(parts, ids_ahead, now.mono_until(*due_heartbeat_ns)))
    }
}

impl Part {
    fn digest_at(&self, now: &Now) -> u64 {
        let Part {
            generation,
            phase,
            pending,
            next,
            processed,
            fetch_deadline_ns,
            cells,
            flights,
            outbox,
            rows_flight,
            due_fetch_ns,
            due_flush_ns,
            due_commit_ns,
            due_rows_ns,
            conflicted,
        } = self;
        let pending = pending.map(|(req, deadline)| (req_at(now, req), now.mono_until(deadline)));
        let fetch_deadline = fetch_deadline_ns.map(|d| now.mono_until(d));
        let flights: Vec<_> = flights
            .iter()
            .map(|(req, f)| (req_at(now, *req), f.digest_at(now)))
            .collect();
        let rows_flight = rows_flight
            .as_ref()
            .map(|(req, rows, deadline)| (req_at(now, *req), rows, now.mono_until(*deadline)));
        let due = (
            now.mono_until(*due_fetch_ns),
            now.mono_until(*due_flush_ns),
            // A rejoin keeps the commit schedule unless none was set yet.
            (*due_commit_ns == 0, now.mono_until(*due_commit_ns)),
            now.mono_until(*due_rows_ns),
        );
        debug_digest(&(
            (generation, phase, pending, next, processed, fetch_deadline),
            (cells, flights, outbox, rows_flight, due, conflicted),
        ))
    }
}

impl Flight {
    fn digest_at(&self, now: &Now) -> u64 {
        let Flight {
            key,
            offset,
            value,
            version,
            step,
            stmt,
            deadline_ns,
        } = self;
        debug_digest(&(key, offset, value, version, step, stmt, now.mono_until(*deadline_ns)))
    }
}

/// The fence statement to retry with: the insert's race lost, the update again.
fn fence_of(stmt: Stmt, strict: bool) -> Stmt {
    match stmt {
        Stmt::InsertIfNotExists | Stmt::UpdateIfNull if strict => Stmt::UpdateIfLt,
        Stmt::InsertIfNotExists | Stmt::UpdateIfNull => Stmt::UpdateIfLe,
        s => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 1_000 * MS;

    fn at(t: u64) -> Now {
        Now {
            mono_ns: t,
            wall_ns: t + 7 * MS,
        }
    }

    /// An owner running one partition with a write in flight, as it stands
    /// at `t` on its monotonic clock.
    fn owner(t: u64) -> Owner {
        let mut o = Owner::new(SnapConfig::default());
        let req = t - 3 * MS;
        o.next_req = req;
        o.due_heartbeat_ns = t + 20 * MS;
        let mut part = Part::new(2);
        part.phase = Phase::Running;
        part.next = 6;
        part.processed = 5;
        part.fetch_deadline_ns = Some(t + 40 * MS);
        part.cells.insert(7, Cell::recovered(5, None));
        let flight = Flight {
            key: 7,
            offset: 5,
            value: None,
            version: 1,
            step: Step::Fence,
            stmt: Stmt::UpdateIfLe,
            deadline_ns: req + 100 * MS,
        };
        part.flights.insert(req, flight);
        part.due_fetch_ns = t - 2 * MS;
        part.due_flush_ns = t + 10 * MS;
        part.due_commit_ns = t + 250 * MS;
        part.due_rows_ns = t + 100 * MS;
        o.parts.insert(1, part);
        o
    }

    fn part(o: &mut Owner) -> &mut Part {
        o.parts.get_mut(&1).unwrap()
    }

    #[test]
    fn owners_that_differ_only_by_a_shift_in_time_digest_alike() {
        let d = 3_456 * MS + 1;
        let (a, b) = (owner(T), owner(T + d));
        assert_ne!(debug_digest(&a), debug_digest(&b), "their absolute states differ");
        assert_eq!(a.digest_at(&at(T)), b.digest_at(&at(T + d)));
        let mut c = owner(T + d);
        part(&mut c).processed = 6;
        assert_ne!(
            a.digest_at(&at(T)),
            c.digest_at(&at(T + d)),
            "the processed offset is state"
        );
    }

    #[test]
    fn a_due_time_counts_until_it_passes_and_a_request_id_exactly() {
        let a = owner(T);
        let mut b = owner(T);
        part(&mut b).due_fetch_ns = T - 30 * MS;
        assert_eq!(a.digest_at(&at(T)), b.digest_at(&at(T)), "both fetches are due");
        part(&mut b).due_flush_ns += 1;
        assert_ne!(a.digest_at(&at(T)), b.digest_at(&at(T)), "one flush comes later");
        let mut c = owner(T);
        let f = part(&mut c).flights.remove(&(T - 3 * MS)).unwrap();
        part(&mut c).flights.insert(T - 3 * MS - 1, f);
        assert_ne!(
            a.digest_at(&at(T)),
            c.digest_at(&at(T)),
            "a reply to one id is no reply to the other"
        );
    }

    #[test]
    fn a_commit_schedule_never_set_is_not_one_that_passed() {
        let mut a = owner(T);
        let mut b = owner(T);
        part(&mut a).due_commit_ns = 0;
        part(&mut b).due_commit_ns = T - MS;
        assert_ne!(a.digest_at(&at(T)), b.digest_at(&at(T)));
    }
}
