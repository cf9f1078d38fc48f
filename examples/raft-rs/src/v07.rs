//! raft 0.7.0, driven by the contract at the top of its lib.rs and on
//! `RawNode`: `Ready::messages()` may be sent at once, `persisted_messages()`
//! only once the Ready is persisted; writes may be persisted asynchronously
//! with `advance_append_async` and reported with `on_persist_ready(number)`
//! (which implies every earlier Ready); "if `must_sync()` is false, an
//! asynchronous write of HardState is permissible before calling
//! `on_persist_ready`".
//!
//! Each Ready: send its messages, persist its snapshot, entries and hard
//! state (store and disk records), apply its committed entries (the crate
//! hands out only persisted ones), `advance_append_async`, report what was
//! applied, fsync. When that fsync completes, the persisted messages go out
//! and `on_persist_ready` follows. A Ready that need not sync is released at
//! once, unless an earlier one is still in flight: then it waits its turn.
//! The event loop never blocks.

use crate::config::RaftRsConfig;
use crate::glue::{crate_glue, raft_config, raw_calls, storage_common};
use crate::node::{Cause, Node, NodeIo, Version};
use crate::store::LogStore;
use raft07::eraftpb::{ConfState, Entry, EntryType, HardState, Message, Snapshot};
use raft07::util::limit_size;
use raft07::{
    Config, Error, GetEntriesContext, RaftState, RawNode, Result, SnapshotStatus, StateRole, Storage, StorageError,
};
use sim::SyncTicket;
use std::collections::VecDeque;

crate_glue!();

fn entry_type(kind: i32) -> EntryType {
    match kind {
        0 => EntryType::EntryNormal,
        1 => EntryType::EntryConfChange,
        2 => EntryType::EntryConfChangeV2,
        k => panic!("raft 0.7.0 has no entry type {k}"),
    }
}

fn conf_state(voters: &[u64]) -> ConfState {
    let mut cs = ConfState::default();
    cs.set_voters(voters.to_vec());
    cs
}

impl Storage for Store {
    storage_common!();

    fn entries(
        &self,
        low: u64,
        high: u64,
        max_size: impl Into<Option<u64>>,
        _context: GetEntriesContext,
    ) -> Result<Vec<Entry>> {
        entries_out(&self.0, low, high, max_size.into())
    }

    fn snapshot(&self, request_index: u64, _to: u64) -> Result<Snapshot> {
        if self.0.snapshot.index < request_index {
            return Err(Error::Store(StorageError::SnapshotTemporarilyUnavailable));
        }
        Ok(snapshot_out(&self.0.snapshot, &self.0.voters))
    }
}

pub struct V07;

/// A Ready handed back with `advance_append_async` and not yet reported
/// persisted: it is once fsync `ticket` completes.
pub struct Wait {
    ticket: SyncTicket,
    number: u64,
    persisted_messages: Vec<Message>,
    /// The index of the snapshot it installed: applied once persisted.
    snapshot: Option<u64>,
}

#[derive(Default)]
pub struct InFlight(VecDeque<Wait>);

impl Version for V07 {
    const MODEL: &'static str = "raft-rs-0.7.0";
    type Raw = RawNode<Store>;
    type Msg = Message;
    type Pending = InFlight;

    fn new_raw(cfg: &RaftRsConfig, id: u64, store: LogStore) -> Self::Raw {
        let config = raft_config!(cfg, id, store.snapshot.index);
        let logger = slog::Logger::root(slog::Discard, slog::o!());
        RawNode::new(&config, Store(store), &logger).expect("a valid raft config")
    }

    raw_calls!(randomized_election_timeout);

    fn blocked(_: &InFlight) -> bool {
        false
    }

    fn drive(node: &mut Node<Self>, io: &mut NodeIo<Self>) {
        while node.raw().has_ready() {
            let mut rd = node.raw().ready();
            let msgs = rd.take_messages();
            node.send(io, msgs);
            let snap = snapshot_in(rd.snapshot());
            let snapshot = snap.as_ref().map(|s| s.index);
            let wrote = node.persist(io, snap, entries_in(rd.entries()), rd.hs().map(hard_state_in));
            let committed = rd.take_committed_entries();
            let last_committed = committed.last().map(|e| e.get_index());
            node.apply(io, entries_in(&committed));
            node.read_states(rd.read_states().iter().map(|rs| (rs.request_ctx.clone(), rs.index)));
            let persisted_messages = rd.take_persisted_messages();
            let (number, must_sync) = (rd.number(), rd.must_sync());
            node.call(io, Cause::Ready, |r| r.advance_append_async(rd));
            if let Some(i) = last_committed {
                node.call(io, Cause::Ready, |r| r.advance_apply_to(i));
            }
            let ticket = wrote.then(|| node.fsync(io));
            let earlier = node.pending.0.back().map(|w| w.ticket);
            let gate = if must_sync { ticket.or(earlier) } else { earlier };
            match gate {
                Some(ticket) => node.pending.0.push_back(Wait {
                    ticket,
                    number,
                    persisted_messages,
                    snapshot,
                }),
                None => {
                    node.send(io, persisted_messages);
                    node.call(io, Cause::Ready, |r| r.on_persist_ready(number));
                }
            }
            node.advanced(io);
        }
    }

    fn synced(node: &mut Node<Self>, ticket: SyncTicket, io: &mut NodeIo<Self>) {
        let mut persisted = None;
        let mut snapshot = None;
        while node.pending.0.front().is_some_and(|w| w.ticket <= ticket) {
            let w = node.pending.0.pop_front().expect("checked above");
            node.send(io, w.persisted_messages);
            persisted = Some(w.number);
            snapshot = w.snapshot.or(snapshot);
        }
        let Some(number) = persisted else { return };
        node.call(io, Cause::Ready, |r| r.on_persist_ready(number));
        if let Some(index) = snapshot {
            node.call(io, Cause::Ready, |r| r.advance_apply_to(index));
        }
        node.advanced(io);
        Self::drive(node, io);
    }
}
