//! The store node: serves the table's statements, one at a time, so every
//! lightweight transaction is linearizable per key. It reports each write at
//! the moment it applies it (checkers judge the store's true state), and may
//! lose the reply after applying: the writer's request then times out with
//! an unknown outcome, as in Cassandra.

use super::config::SnapConfig;
use super::events::SnapEvent;
use super::msg::SnapMsg;
use super::table::Table;
use super::{chance, SnapIo, MS};
use sim::machine::NodeId;

const REAP: u64 = 1;

pub struct Store {
    cfg: SnapConfig,
    table: Table,
}

impl Store {
    pub fn new(cfg: SnapConfig) -> Store {
        Store {
            cfg,
            table: Table::default(),
        }
    }

    pub fn boot(&mut self, io: &mut SnapIo) {
        io.set_timer(REAP, self.cfg.reap_every_ms * MS);
    }

    pub fn on_timer(&mut self, _timer: u64, io: &mut SnapIo) {
        for key in self.table.keys() {
            self.purge(key, io);
        }
        io.set_timer(REAP, self.cfg.reap_every_ms * MS);
    }

    fn purge(&mut self, key: u32, io: &mut SnapIo) {
        let Some(r) = self.table.purge(key, io.now_wall_ns()) else {
            return;
        };
        if r.row_gone && r.was_tombstone {
            io.reached("tombstone-reaped");
        }
        io.emit(&SnapEvent::StoreReap {
            key,
            offset: r.offset,
            row_gone: r.row_gone,
        });
    }

    /// Whether the reply to a request that was served goes missing.
    fn reply_lost(&self, io: &mut SnapIo) -> bool {
        chance(io, self.cfg.reply_drop_probability)
    }

    fn reply(&self, to: NodeId, msg: SnapMsg, io: &mut SnapIo) {
        if !self.reply_lost(io) {
            io.send(to, msg);
        }
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
                self.purge(key, io);
                let out = self
                    .table
                    .apply(key, stmt, offset, value, ttl_ms, generation, io.now_wall_ns());
                if out.removed {
                    io.emit(&SnapEvent::StoreRemove {
                        key,
                        offset,
                        writer: from,
                        generation,
                    });
                } else if out.applied {
                    if out.exists && out.offset.is_none() {
                        io.reached("guard-expired-repaired");
                    }
                    io.emit(&SnapEvent::StoreWrite {
                        key,
                        offset,
                        value,
                        stmt: stmt.name().to_string(),
                        writer: from,
                        generation,
                    });
                }
                let resp = SnapMsg::WriteResp {
                    req,
                    applied: out.applied,
                    exists: out.exists,
                    offset: out.offset,
                };
                self.reply(from, resp, io);
            }
            SnapMsg::Read { req, partition } => {
                let parts = self.cfg.partitions;
                for key in self.table.keys().into_iter().filter(|k| k % parts == partition) {
                    self.purge(key, io);
                }
                let (rows, events) = self.table.read(|k| k % parts == partition);
                self.reply(from, SnapMsg::ReadResp { req, rows, events }, io);
            }
            SnapMsg::AppendRows { req, rows } => {
                self.table.append_rows(&rows);
                self.reply(from, SnapMsg::AppendRowsResp { req }, io);
            }
            SnapMsg::ClearRows { key, upto } => self.table.clear_rows(key, upto),
            _ => {}
        }
    }
}
