//! raft 0.4.3, driven by the contract at the top of its lib.rs and by
//! `Ready::must_sync`: "MustSync indicates whether the HardState and Entries
//! must be synchronously written to disk or if an asynchronous write is
//! permissible."
//!
//! Each Ready: apply its snapshot, append its entries, persist its hard
//! state (store and disk records). A leader sends its messages at once
//! (step 4 of the contract: in parallel with its own persistence). If
//! `must_sync`, the fsync is waited for: the node's event loop blocks and
//! queues every input until `on_fsynced`. Otherwise the write may be
//! asynchronous: the fsync is issued and not waited for. Then the
//! remaining messages go out, committed entries are applied, and the Ready
//! is advanced.

use crate::config::RaftRsConfig;
use crate::glue::{crate_glue, raft_config, raw_calls, storage_common};
use crate::node::{Node, NodeIo, Version};
use crate::store::LogStore;
use raft043::eraftpb::{ConfState, Entry, EntryType, HardState, Message, Snapshot};
use raft043::{
    util, Config, Error, RaftState, RawNode, Ready, Result, SnapshotStatus, StateRole, Storage, StorageError,
};
use sim::SyncTicket;

crate_glue!();

fn entry_type(kind: i32) -> EntryType {
    match kind {
        0 => EntryType::EntryNormal,
        1 => EntryType::EntryConfChange,
        k => panic!("raft 0.4.3 has no entry type {k}"),
    }
}

fn conf_state(voters: &[u64]) -> ConfState {
    let mut cs = ConfState::default();
    cs.set_nodes(voters.to_vec());
    cs
}

fn limit_size(es: &mut Vec<Entry>, max_size: Option<u64>) {
    util::limit_size(es, max_size.unwrap_or(util::NO_LIMIT));
}

impl Storage for Store {
    storage_common!();

    fn entries(&self, low: u64, high: u64, max_size: u64) -> Result<Vec<Entry>> {
        entries_out(&self.0, low, high, Some(max_size))
    }

    fn snapshot(&self) -> Result<Snapshot> {
        Ok(snapshot_out(&self.0.snapshot, &self.0.voters))
    }
}

pub struct V043;

/// The Ready whose `must_sync` fsync the event loop waits for.
#[derive(Default)]
pub struct Held(Option<(SyncTicket, Ready)>);

impl Version for V043 {
    const MODEL: &'static str = "raft-rs-0.4.3";
    type Raw = RawNode<Store>;
    type Msg = Message;
    type Pending = Held;

    fn new_raw(cfg: &RaftRsConfig, id: u64, store: LogStore) -> Self::Raw {
        let config = raft_config!(cfg, id, store.snapshot.index, tag: id.to_string());
        RawNode::new(&config, Store(store), vec![]).expect("a valid raft config")
    }

    raw_calls!(get_randomized_election_timeout);

    fn blocked(pending: &Held) -> bool {
        pending.0.is_some()
    }

    fn drive(node: &mut Node<Self>, io: &mut NodeIo<Self>) {
        while node.pending.0.is_none() && node.raw().has_ready() {
            let mut rd = node.raw().ready();
            let snap = snapshot_in(&rd.snapshot);
            let wrote = node.persist(io, snap, entries_in(&rd.entries), rd.hs.as_ref().map(hard_state_in));
            if node.raw().raft.state == StateRole::Leader {
                let msgs = std::mem::take(&mut rd.messages);
                node.send(io, msgs);
            }
            if rd.must_sync {
                let t = node.fsync(io);
                node.pending.0 = Some((t, rd));
                return;
            }
            if wrote {
                node.fsync(io);
            }
            finish(node, rd, io);
        }
    }

    fn synced(node: &mut Node<Self>, ticket: SyncTicket, io: &mut NodeIo<Self>) {
        if node.pending.0.as_ref().is_some_and(|(t, _)| *t <= ticket) {
            let (_, rd) = node.pending.0.take().expect("checked above");
            finish(node, rd, io);
            Self::drive(node, io);
        }
    }
}

/// The rest of a persisted Ready: messages, read states, committed entries, advance.
fn finish(node: &mut Node<V043>, mut rd: Ready, io: &mut NodeIo<V043>) {
    let msgs = std::mem::take(&mut rd.messages);
    node.send(io, msgs);
    node.read_states(rd.read_states.iter().map(|rs| (rs.request_ctx.clone(), rs.index)));
    let committed = rd.committed_entries.take().unwrap_or_default();
    node.apply(io, entries_in(&committed));
    node.call(io, crate::node::Cause::Ready, |r| r.advance(rd));
    node.advanced(io);
}
