//! omnipaxos 0.2.0: indexes are `u64`, the storage returns the log's length
//! from every append and has no atomic batch, outgoing messages come from
//! `outgoing_messages()` and the leader from `get_current_leader_ballot()`.

use crate::ballot::BallotRec;
use crate::config::AdapterConfig;
use crate::kv::Cmd;
use crate::release::{MsgSummary, Release};
use crate::store::{Rec, Store, Unsupported};
use omnipaxos_020::ballot_leader_election::Ballot;
use omnipaxos_020::messages::ballot_leader_election::HeartbeatMsg;
use omnipaxos_020::messages::sequence_paxos::PaxosMsg;
use omnipaxos_020::messages::Message;
use omnipaxos_020::storage::{Entry, NoSnapshot, StopSign, Storage, StorageResult};
use omnipaxos_020::util::LogEntry;
use omnipaxos_020::{ClusterConfig, OmniPaxos, OmniPaxosConfig, ServerConfig};

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
    fn append_entry(&mut self, entry: Cmd) -> StorageResult<u64> {
        Ok(self.append(vec![entry]))
    }

    fn append_entries(&mut self, entries: Vec<Cmd>) -> StorageResult<u64> {
        Ok(self.append(entries))
    }

    fn append_on_prefix(&mut self, from_idx: u64, entries: Vec<Cmd>) -> StorageResult<u64> {
        Ok(Store::append_on_prefix(self, from_idx, entries))
    }

    fn set_promise(&mut self, n_prom: Ballot) -> StorageResult<()> {
        self.write(Rec::Promise(rec(n_prom)));
        Ok(())
    }

    fn set_decided_idx(&mut self, ld: u64) -> StorageResult<()> {
        self.write(Rec::Decided(ld));
        Ok(())
    }

    fn get_decided_idx(&self) -> StorageResult<u64> {
        Ok(self.read(|s| s.decided))
    }

    fn set_accepted_round(&mut self, na: Ballot) -> StorageResult<()> {
        self.write(Rec::AcceptedRound(rec(na)));
        Ok(())
    }

    fn get_accepted_round(&self) -> StorageResult<Option<Ballot>> {
        Ok(self.read(|s| s.accepted_round.map(ballot)))
    }

    fn get_entries(&self, from: u64, to: u64) -> StorageResult<Vec<Cmd>> {
        Ok(self.entries(from, to))
    }

    fn get_log_len(&self) -> StorageResult<u64> {
        Ok(self.len())
    }

    fn get_suffix(&self, from: u64) -> StorageResult<Vec<Cmd>> {
        Ok(self.suffix(from))
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
    fn trim(&mut self, _idx: u64) -> StorageResult<()> {
        unsupported("trimming")
    }

    fn set_compacted_idx(&mut self, _idx: u64) -> StorageResult<()> {
        unsupported("compaction")
    }

    fn get_compacted_idx(&self) -> StorageResult<u64> {
        Ok(0)
    }

    fn set_snapshot(&mut self, _snapshot: Option<NoSnapshot>) -> StorageResult<()> {
        unsupported("snapshots")
    }

    fn get_snapshot(&self) -> StorageResult<Option<NoSnapshot>> {
        Ok(None)
    }
}

/// omnipaxos 0.2.0, which carries haraldng/omnipaxos#112.
pub struct V020;

impl Release for V020 {
    const MODEL: &'static str = "omnipaxos-0.2.0";
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
        p.outgoing_messages()
    }

    fn promise(p: &Self::Paxos) -> Option<BallotRec> {
        p.get_current_leader_ballot().map(rec)
    }

    fn decided_idx(p: &Self::Paxos) -> u64 {
        p.get_decided_idx()
    }

    fn decided_suffix(p: &Self::Paxos, from: u64) -> Vec<Cmd> {
        decided(p.read_decided_suffix(from).unwrap_or_default())
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
    let seq = |s: omnipaxos_020::util::SequenceNumber| Some((s.session, s.counter));
    match m {
        Message::BLE(b) => match &b.msg {
            HeartbeatMsg::Request(_) => base("hb-request"),
            HeartbeatMsg::Reply(r) => MsgSummary {
                n: Some(rec(r.ballot)),
                ..base("hb-reply")
            },
        },
        Message::SequencePaxos(p) => match &p.msg {
            PaxosMsg::PrepareReq => base("prepare-req"),
            PaxosMsg::Prepare(x) => MsgSummary {
                n: Some(rec(x.n)),
                decided_idx: Some(x.decided_idx),
                accepted_idx: Some(x.accepted_idx),
                ..base("prepare")
            },
            PaxosMsg::Promise(x) => MsgSummary {
                n: Some(rec(x.n)),
                decided_idx: Some(x.decided_idx),
                accepted_idx: Some(x.accepted_idx),
                entries: Some(x.suffix.len()),
                ..base("promise")
            },
            PaxosMsg::AcceptSync(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: Some(x.decided_idx),
                sync_idx: Some(x.sync_idx),
                entries: Some(x.suffix.len()),
                ..base("accept-sync")
            },
            PaxosMsg::AcceptDecide(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: Some(x.decided_idx),
                entries: Some(x.entries.len()),
                ..base("accept-decide")
            },
            PaxosMsg::Accepted(x) => MsgSummary {
                n: Some(rec(x.n)),
                accepted_idx: Some(x.accepted_idx),
                ..base("accepted")
            },
            PaxosMsg::Decide(x) => MsgSummary {
                n: Some(rec(x.n)),
                seq: seq(x.seq_num),
                decided_idx: Some(x.decided_idx),
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
