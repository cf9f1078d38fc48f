//! The store node: serves the table's statements, one at a time, so every
//! lightweight transaction is linearizable per key. It reports each write at
//! the moment it applies it (checkers judge the store's true state), and may
//! lose the reply after applying: the writer's request then times out with
//! an unknown outcome, as in Cassandra.
//!
//! With `config.store_durable` the table lives in a commit log on the
//! store's disk and, as with Cassandra's `commitlog_sync: batch`, "applied"
//! means durable: a statement's reply and report wait for the fsync that
//! covers it, and so does every answer given while any change is unsynced,
//! since it may rest on one. A storage error halts the store rather than
//! let it answer for a change it may have lost.

use super::commit_log::{self, Entry, LogRec};
use super::config::SnapConfig;
use super::events::SnapEvent;
use super::msg::SnapMsg;
use super::table::Table;
use super::{chance, SnapIo, MS};
use sim::hash::debug_digest;
use sim::{DiskError, NodeId, Now, SyncTicket};
use std::collections::{BTreeMap, VecDeque};

const REAP: u64 = 1;

/// An answer or a report that waits for an fsync.
#[derive(Debug)]
enum Held {
    Reply(NodeId, SnapMsg),
    Event(SnapEvent),
}

#[derive(Debug)]
pub struct Store {
    cfg: SnapConfig,
    table: Table,
    /// The last fsync issued and the last completed: while they differ the
    /// table holds changes a crash may lose.
    issued: SyncTicket,
    synced: SyncTicket,
    held: VecDeque<(SyncTicket, Held)>,
    /// Keys with a change not yet acknowledged, by the fsync covering it.
    /// They are not purged meanwhile (their expiry waits, as if the store's
    /// clock lagged by an fsync), so a reap's report, which leaves at once,
    /// never overtakes the report of the write before it.
    unacked: BTreeMap<u32, SyncTicket>,
}

impl Store {
    pub fn new(cfg: SnapConfig) -> Store {
        Store {
            cfg,
            table: Table::default(),
            issued: 0,
            synced: 0,
            held: VecDeque::new(),
            unacked: BTreeMap::new(),
        }
    }

    pub fn boot(&mut self, io: &mut SnapIo) {
        if self.cfg.store_durable && !self.recover(io) {
            return;
        }
        io.set_timer(REAP, self.cfg.reap_every_ms * MS);
    }

    /// Rebuilds the table from the commit log; false if the store halted.
    fn recover(&mut self, io: &mut SnapIo) -> bool {
        let read = io
            .read_disk()
            .and_then(|recs| Ok((recs.len() as u64, commit_log::replay(recs)?)));
        let (records, table) = match read {
            Ok(r) => r,
            // BUG(store-read-error-as-empty): an unreadable disk taken for an
            // empty one: the store comes back without the rows it acknowledged.
            Err(DiskError::Read) if self.cfg.bugs.store_read_error_as_empty => {
                io.reached("store-read-error");
                (0, Table::default())
            }
            Err(e) => {
                match e {
                    DiskError::Corrupt { index } => {
                        io.reached("store-corrupt");
                        io.emit(&SnapEvent::StoreCorrupt { index });
                    }
                    _ => io.reached("store-read-error"),
                }
                io.halt(&format!("cannot read the commit log at boot: {e}"));
                return false;
            }
        };
        self.table = table;
        if records > 0 {
            io.reached("store-recovered");
        }
        let (rows, _) = self.table.read(|_| true);
        io.emit(&SnapEvent::StoreRecovered { records, rows });
        true
    }

    /// Appends to the commit log (durable mode); false if the store halted.
    fn log(&mut self, entry: Entry, io: &mut SnapIo) -> bool {
        if !self.cfg.store_durable {
            return true;
        }
        match io.disk_append(LogRec::new(entry)) {
            Ok(()) => true,
            Err(e) => {
                io.reached("store-disk-full");
                io.halt(&format!("cannot append to the commit log: {e}"));
                false
            }
        }
    }

    /// Logs a change someone will be told of, and asks for its fsync.
    fn log_synced(&mut self, entry: Entry, key: Option<u32>, io: &mut SnapIo) -> bool {
        if !self.log(entry, io) {
            return false;
        }
        if self.cfg.store_durable {
            self.issued = io.fsync();
            if let Some(key) = key {
                self.unacked.insert(key, self.issued);
            }
        }
        true
    }

    pub fn on_timer(&mut self, _timer: u64, io: &mut SnapIo) {
        for key in self.table.keys() {
            if !self.purge(key, io) {
                return;
            }
        }
        io.set_timer(REAP, self.cfg.reap_every_ms * MS);
    }

    /// Drops `key`'s expired cells; false if the store halted.
    fn purge(&mut self, key: u32, io: &mut SnapIo) -> bool {
        let now = io.now_wall_ns();
        if self.cfg.store_durable {
            if self.unacked.contains_key(&key) || !self.table.expires(key, now) {
                return true;
            }
            if !self.log(Entry::Purge { key, now_ns: now }, io) {
                return false;
            }
        }
        let Some(r) = self.table.purge(key, now) else {
            return true;
        };
        if r.row_gone && r.was_tombstone {
            io.reached("tombstone-reaped");
        }
        // Reported at once: should the purge be lost, the recovered table
        // shows the cells back, and no answer rested on them being gone
        // that a later write's fsync does not also cover.
        io.emit(&SnapEvent::StoreReap {
            key,
            offset: r.offset,
            row_gone: r.row_gone,
        });
        true
    }

    /// Whether the reply to a request that was served goes missing.
    fn reply_lost(&self, io: &mut SnapIo) -> bool {
        chance(io, self.cfg.reply_drop_probability)
    }

    /// Sends or reports `h` now if nothing is unsynced, else once the
    /// fsync issued last completes.
    fn hold(&mut self, h: Held, io: &mut SnapIo) {
        if self.synced >= self.issued {
            self.release(h, io);
        } else {
            self.held.push_back((self.issued, h));
        }
    }

    fn release(&self, h: Held, io: &mut SnapIo) {
        match h {
            Held::Reply(to, msg) => {
                if !self.reply_lost(io) {
                    io.send(to, msg);
                }
            }
            Held::Event(e) => io.emit(&e),
        }
    }

    pub fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut SnapIo) {
        self.synced = self.synced.max(ticket);
        let synced = self.synced;
        self.unacked.retain(|_, t| *t > synced);
        while self.held.front().is_some_and(|(t, _)| *t <= synced) {
            let (_, h) = self.held.pop_front().expect("front");
            self.release(h, io);
        }
    }

    pub fn on_fsync_failed(&mut self, ticket: SyncTicket, io: &mut SnapIo) {
        io.reached("store-fsync-failed");
        // BUG(store-fsync-error-ignored): a failed fsync taken for a durable
        // one: the store acknowledges writes the disk may have dropped.
        if self.cfg.bugs.store_fsync_error_ignored {
            return self.on_fsynced(ticket, io);
        }
        io.halt("an fsync of the commit log failed");
    }

    pub fn on_message(&mut self, from: NodeId, msg: SnapMsg, io: &mut SnapIo) {
        match msg {
            SnapMsg::Write {
                req,
                key,
                stmt,
                offset,
                value,
                ttl_ms,
                generation,
            } => {
                if !self.purge(key, io) {
                    return;
                }
                let now_ns = io.now_wall_ns();
                let out = self.table.apply(key, stmt, offset, value, ttl_ms, generation, now_ns);
                let entry = Entry::Apply {
                    key,
                    stmt,
                    offset,
                    value,
                    ttl_ms,
                    meta: generation,
                    now_ns,
                };
                if out.applied && !self.log_synced(entry, Some(key), io) {
                    return;
                }
                if out.removed {
                    let e = SnapEvent::StoreRemove {
                        key,
                        offset,
                        writer: from,
                        generation,
                    };
                    self.hold(Held::Event(e), io);
                } else if out.applied {
                    if out.exists && out.offset.is_none() {
                        io.reached("guard-expired-repaired");
                    }
                    let e = SnapEvent::StoreWrite {
                        key,
                        offset,
                        value,
                        stmt: stmt.name().to_string(),
                        writer: from,
                        generation,
                    };
                    self.hold(Held::Event(e), io);
                }
                let resp = SnapMsg::WriteResp {
                    req,
                    applied: out.applied,
                    exists: out.exists,
                    offset: out.offset,
                };
                self.hold(Held::Reply(from, resp), io);
            }
            SnapMsg::Read { req, partition } => {
                let parts = self.cfg.partitions;
                for key in self.table.keys().into_iter().filter(|k| k % parts == partition) {
                    if !self.purge(key, io) {
                        return;
                    }
                }
                let (rows, events) = self.table.read(|k| k % parts == partition);
                self.hold(Held::Reply(from, SnapMsg::ReadResp { req, rows, events }), io);
            }
            SnapMsg::AppendRows { req, rows } => {
                self.table.append_rows(&rows);
                if !self.log_synced(Entry::Rows(rows), None, io) {
                    return;
                }
                self.hold(Held::Reply(from, SnapMsg::AppendRowsResp { req }), io);
            }
            SnapMsg::ClearRows { key, upto } => {
                self.table.clear_rows(key, upto);
                // Nobody is told: the next fsync covers it, or the rows
                // come back and the fold skips them below the store floor.
                self.log(Entry::ClearRows { key, upto }, io);
            }
            _ => {}
        }
    }
}

// ---- the relative digest (see `super::digest`) ----

impl Store {
    pub fn digest_at(&self, now: &Now) -> u64 {
        let Store {
            cfg: _,
            table,
            issued,
            synced,
            held,
            unacked,
        } = self;
        let held: Vec<_> = held
            .iter()
            .map(|(ticket, h)| {
                let h = match h {
                    Held::Reply(to, msg) => Held::Reply(*to, msg.relative(now)),
                    Held::Event(e) => Held::Event(e.clone()),
                };
                (ticket, h)
            })
            .collect();
        debug_digest(&(table.digest_at(now), issued, synced, held, unacked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ns: u64) -> Now {
        Now {
            mono_ns: ns,
            wall_ns: ns,
        }
    }

    /// A store holding one reply until its fsync.
    fn store(req: u64) -> Store {
        let mut s = Store::new(SnapConfig::default());
        let resp = SnapMsg::WriteResp {
            req,
            applied: true,
            exists: false,
            offset: None,
        };
        s.held.push_back((1, Held::Reply(2, resp)));
        s
    }

    #[test]
    fn a_held_reply_keeps_its_request_id_relative() {
        let (t, d) = (1_000 * MS, 2_345 * MS + 1);
        let a = store(t - 3 * MS).digest_at(&at(t));
        assert_eq!(a, store(t + d - 3 * MS).digest_at(&at(t + d)));
        assert_ne!(a, store(t - 3 * MS - 1).digest_at(&at(t)));
    }
}
