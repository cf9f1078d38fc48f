//! omnipaxos 0.2.4: indexes are `usize`, the storage applies the crate's
//! multi-step writes through `write_atomically`, outgoing messages come from
//! `take_outgoing_messages` and the promised ballot from `get_promise()`.

use crate::ballot::BallotRec;
use crate::config::AdapterConfig;
use crate::kv::Cmd;
use crate::release::{MsgSummary, Release};
use crate::store::{Rec, Store, Unsupported};
use omnipaxos_024::ballot_leader_election::Ballot;
use omnipaxos_024::messages::ballot_leader_election::HeartbeatMsg;
use omnipaxos_024::messages::sequence_paxos::PaxosMsg;
use omnipaxos_024::messages::Message;
use omnipaxos_024::storage::{Entry, NoSnapshot, StopSign, Storage, StorageOp, StorageResult};
use omnipaxos_024::util::LogEntry;
use omnipaxos_024::{ClusterConfig, OmniPaxos, OmniPaxosConfig, ServerConfig};

impl Entry for Cmd {
    type Snapshot = NoSnapshot;
}

fn rec(b: Ballot) -> BallotRec {
    BallotRec {
        config_id: b.config_id,
        n: b.n,
        priority: b.priority,
        pid: b.pid,
    }
}

fn ballot(b: BallotRec) -> Ballot {
    Ballot::with(b.config_id, b.n, b.priority, b.pid)
}

fn unsupported<T>(what: &'static str) -> StorageResult<T> {
    Err(Box::new(Unsupported(what)))
}

impl Storage<Cmd> for Store {
    fn write_atomically(&mut self, ops: Vec<StorageOp<Cmd>>) -> StorageResult<()> {
        let mut store = self.clone();
        self.atomically(|| {
            for op in ops {
                match op {
                    StorageOp::AppendEntry(e) => store.append_entry(e)?,
                    StorageOp::AppendEntries(es) => store.append_entries(es)?,
                    StorageOp::AppendOnPrefix(from, es) => Storage::append_on_prefix(&mut store, from, es)?,
                    StorageOp::SetPromise(b) => store.set_promise(b)?,
                    StorageOp::SetDecidedIndex(i) => store.set_decided_idx(i)?,
                    StorageOp::SetAcceptedRound(b) => store.set_accepted_round(b)?,
                    StorageOp::SetCompactedIdx(i) => store.set_compacted_idx(i)?,
                    StorageOp::Trim(i) => Storage::trim(&mut store, i)?,
                    StorageOp::SetStopsign(s) => store.set_stopsign(s)?,
                    StorageOp::SetSnapshot(s) => store.set_snapshot(s)?,
                }
            }
            Ok(())
        })
    }

    fn append_entry(&mut self, entry: Cmd) -> StorageResult<()> {
        self.append(vec![entry]);
        Ok(())
    }

    fn append_entries(&mut self, entries: Vec<Cmd>) -> StorageResult<()> {
        self.append(entries);
        Ok(())
    }

    fn append_on_prefix(&mut self, from_idx: usize, entries: Vec<Cmd>) -> StorageResult<()> {
        Store::append_on_prefix(self, from_idx as u64, entries);
        Ok(())
    }

    fn set_promise(&mut self, n_prom: Ballot) -> StorageResult<()> {
        self.write(Rec::Promise(rec(n_prom)));
        Ok(())
    }

    fn set_decided_idx(&mut self, ld: usize) -> StorageResult<()> {
        self.write(Rec::Decided(ld as u64));
        Ok(())
    }

    fn get_decided_idx(&self) -> StorageResult<usize> {
        Ok(self.read(|s| s.decided) as usize)
    }

    fn set_accepted_round(&mut self, na: Ballot) -> StorageResult<()> {
        self.write(Rec::AcceptedRound(rec(na)));
        Ok(())
    }

    fn get_accepted_round(&self) -> StorageResult<Option<Ballot>> {
        Ok(self.read(|s| s.accepted_round.map(ballot)))
    }

    fn get_entries(&self, from: usize, to: usize) -> StorageResult<Vec<Cmd>> {
        Ok(self.entries(from as u64, to as u64))
    }

    fn get_log_len(&self) -> StorageResult<usize> {
        Ok(self.len() as usize)
    }

    fn get_suffix(&self, from: usize) -> StorageResult<Vec<Cmd>> {
        Ok(self.suffix(from as u64))
    }

    fn get_promise(&self) -> StorageResult<Option<Ballot>> {
        Ok(self.read(|s| s.promise.map(ballot)))
    }

    // The adapter never reconfigures: clearing the stop sign is writing
    // what is already there.
    fn set_stopsign(&mut self, s: Option<StopSign>) -> StorageResult<()> {
        match s {
            None => Ok(()),
            Some(_) => unsupported("a stop sign"),
        }
    }

    fn get_stopsign(&self) -> StorageResult<Option<StopSign>> {
        Ok(None)
    }

    // Nothing trims or snapshots: the adapter never asks, so no peer does.
    fn trim(&mut self, _idx: usize) -> StorageResult<()> {
        unsupported("trimming")
    }

    fn set_compacted_idx(&mut self, _idx: usize) -> StorageResult<()> {
        unsupported("compaction")
    }

    fn get_compacted_idx(&self) -> StorageResult<usize> {
        Ok(0)
    }

    fn set_snapshot(&mut self, _snapshot: Option<NoSnapshot>) -> StorageResult<()> {
        unsupported("snapshots")
    }

    fn get_snapshot(&self) -> StorageResult<Option<NoSnapshot>> {
        Ok(None)
    }
}

/// omnipaxos 0.2.4, the newest release of the 0.2 series.
pub struct V024;

impl Release for V024 {
    const MODEL: &'static str = "omnipaxos-0.2.4";
    type Paxos = OmniPaxos<Cmd, Store>;
    type Msg = Message<Cmd>;

    fn build(cfg: &AdapterConfig, pid: u64, nodes: Vec<u64>, store: Store) -> Self::Paxos {
        OmniPaxosConfig {
            cluster_config: ClusterConfig {
                configuration_id: 1,
                nodes,
                flexible_quorum: None,
            },
            server_config: ServerConfig {
                pid,
                election_tick_timeout: cfg.election_tick_timeout,
                resend_message_tick_timeout: cfg.resend_message_tick_timeout,
                buffer_size: crate::node::BUFFER_SIZE,
                ..ServerConfig::default()
            },
        }
        .build(store)
        .expect("a config the adapter validated")
    }

    fn handle(p: &mut Self::Paxos, m: Self::Msg) {
        p.handle_incoming(m);
    }

    fn tick(p: &mut Self::Paxos) {
        p.tick();
    }

    fn append(p: &mut Self::Paxos, c: Cmd) -> bool {
        p.append(c).is_ok()
    }

    fn reconnected(p: &mut Self::Paxos, pid: u64) {
        p.reconnected(pid);
    }

    fn outgoing(p: &mut Self::Paxos) -> Vec<Self::Msg> {
        let mut out = Vec::new();
        p.take_outgoing_messages(&mut out);
        out
    }

    fn promise(p: &Self::Paxos) -> Option<BallotRec> {
        let b = p.get_promise();
        (b != Ballot::default()).then(|| rec(b))
    }

    fn decided_idx(p: &Self::Paxos) -> u64 {
        p.get_decided_idx() as u64
    }

    fn decided_suffix(p: &Self::Paxos, from: u64) -> Vec<Cmd> {
        decided(p.read_decided_suffix(from as usize).unwrap_or_default())
    }

    fn summary(m: &Self::Msg) -> MsgSummary {
        summary(m)
    }
}

fn decided(entries: Vec<LogEntry<Cmd>>) -> Vec<Cmd> {
    entries
        .into_iter()
        .map(|e| match e {
            LogEntry::Decided(c) => c,
            other => panic!("read_decided_suffix returned {other:?}"),
        })
        .collect()
}

fn summary(m: &Message<Cmd>) -> MsgSummary {
    let (from, to) = (m.get_sender(), m.get_receiver());
    let base = |kind| MsgSummary {
        kind,
        from,
        to,
        ..MsgSummary::default()
    };
    let seq = |s: omnipaxos_024::util::SequenceNumber| Some((s.session, s.counter));
    let idx = |i: usize| Some(i as u64);
    match m {
        Message::BLE(b) => match &b.msg {
            HeartbeatMsg::Request(_) => base("hb-request"),
            HeartbeatMsg::Reply(r) => MsgSummary {
                n: Some(rec(r.ballot)),
                ..base("hb-reply")
            },
        },
        Message::SequencePaxos(p) => match &p.msg {
            PaxosMsg::PrepareReq(x) => MsgSummary {
                n: Some(rec(x.n)),
                ..base("prepare-req")
            },
            PaxosMsg::Prepare(x) => MsgSummary {
                n: Some(rec(x.n)),
                decided_idx: idx(x.decided_idx),
                accepted_idx: idx(x.accepted_idx),
                ..base("prepare")
            },
            PaxosMsg::Promise(x) => MsgSummary {
                n: Some(rec(x.n)),
                decided_idx: idx(x.decided_idx),
                accepted_idx: idx(x.accepted_idx),
                sync_idx: x.log_sync.as_ref().and_then(|s| idx(s.sync_idx)),
                entries: x.log_sync.as_ref().map(|s| s.suffix.len()),
                ..base("promise")
            },
            PaxosMsg::AcceptSync(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: idx(x.decided_idx),
                sync_idx: idx(x.log_sync.sync_idx),
                entries: Some(x.log_sync.suffix.len()),
                ..base("accept-sync")
            },
            PaxosMsg::AcceptDecide(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: idx(x.decided_idx),
                entries: Some(x.entries.len()),
                ..base("accept-decide")
            },
            PaxosMsg::Accepted(x) => MsgSummary {
                n: Some(rec(x.n)),
                accepted_idx: idx(x.accepted_idx),
                ..base("accepted")
            },
            PaxosMsg::NotAccepted(x) => MsgSummary {
                n: Some(rec(x.n)),
                ..base("not-accepted")
            },
            PaxosMsg::Decide(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: idx(x.decided_idx),
                ..base("decide")
            },
            PaxosMsg::ProposalForward(x) => MsgSummary {
                entries: Some(x.len()),
                ..base("proposal-forward")
            },
            PaxosMsg::Compaction(_) => base("compaction"),
            PaxosMsg::AcceptStopSign(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                ..base("accept-stop-sign")
            },
            PaxosMsg::ForwardStopSign(_) => base("forward-stop-sign"),
        },
    }
}
