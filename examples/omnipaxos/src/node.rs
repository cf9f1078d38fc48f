//! One dst node over either release: everything the two share. A
//! [`Release`] supplies the calls whose signatures differ; [`Node`] owns the
//! key-value state machine, the client requests in flight, the disk
//! records, the events the checkers read, the input queue of an event loop
//! blocked in a synchronous write, and what the network tells it about its
//! connections.

use crate::ballot::BallotRec;
use crate::config::AdapterConfig;
use crate::events::PaxosEvent;
use crate::kv::{Cmd, Kv};
use crate::release::{Msg, Release};
use crate::store::{State, Store};
use sim::{ClientReply, ClientReq, Io, KvOp, Machine, ModelEvent, NodeId, Role, RoleCause, SyncTicket, TimerId};
use std::collections::{BTreeSet, VecDeque};

/// The periodic timer that calls `tick()`.
pub const TICK: TimerId = 1;

/// The capacity the crate reserves for its outgoing buffers. Its default,
/// 100,000 messages, is allocated again on every call in 0.2.0.
pub const BUFFER_SIZE: usize = 64;

const NS_PER_MS: u64 = 1_000_000;

pub type NodeIo<'a, R> = Io<'a, Node<R>>;

/// What a step produced after its writes, held until they are durable.
struct Held<M> {
    ticket: SyncTicket,
    msgs: Vec<M>,
}

enum Input<M> {
    Tick,
    Message(NodeId, M),
    Client(ClientReq),
    LinkBroken(NodeId),
}

/// What made the crate's state change, for the Role event.
#[derive(Clone, Copy, Debug)]
enum Cause {
    Boot,
    Tick,
    Message(NodeId),
    Client,
}

pub struct Node<R: Release> {
    id: NodeId,
    nodes: usize,
    cfg: AdapterConfig,
    paxos: Option<R::Paxos>,
    store: Store,
    /// The fsync the event loop waits for, with what the step that wrote
    /// produced: it leaves once the fsync completes.
    blocked: Option<Held<R::Msg>>,
    /// Inputs that arrived while the event loop waited.
    queue: VecDeque<Input<R::Msg>>,
    /// Peers whose connection broke: their next message comes on a new one.
    broken: BTreeSet<NodeId>,
    kv: Kv,
    applied: u64,
    decided: u64,
    /// Requests this node appended as leader, answered when they apply,
    /// whoever leads by then: the crate may still decide them.
    pending: BTreeSet<u64>,
    /// The ballot in which this node, leading, reached the accept phase:
    /// it sent an AcceptSync, which the crate does once a quorum promised.
    accepting: Option<BallotRec>,
    /// A ballot of its own this node moved its promise to in this
    /// incarnation: it campaigns in it.
    campaign: Option<BallotRec>,
    /// The role and ballot last reported.
    seen: Option<(Role, BallotRec)>,
    /// The log tail (length, epoch of the last entry) last reported.
    tail: Option<(u64, u64)>,
}

impl<R: Release> Node<R> {
    pub fn new(id: NodeId, nodes: usize, cfg: AdapterConfig) -> Self {
        Node {
            id,
            nodes,
            cfg,
            paxos: None,
            store: Store::default(),
            blocked: None,
            queue: VecDeque::new(),
            broken: BTreeSet::new(),
            kv: Kv::default(),
            applied: 0,
            decided: 0,
            pending: BTreeSet::new(),
            accepting: None,
            campaign: None,
            seen: None,
            tail: None,
        }
    }

    /// Node ids are 0-based, the crate's pids 1-based.
    fn pid(&self) -> u64 {
        self.id as u64 + 1
    }

    fn paxos(&mut self) -> &mut R::Paxos {
        self.paxos.as_mut().expect("the node has booted")
    }

    fn promise(&self) -> BallotRec {
        self.paxos.as_ref().and_then(R::promise).unwrap_or_default()
    }

    fn on_input(&mut self, input: Input<R::Msg>, io: &mut NodeIo<R>) {
        if self.blocked.is_some() || !self.queue.is_empty() {
            self.queue.push_back(input);
            return;
        }
        self.handle(input, io);
    }

    /// Handles queued inputs in arrival order while the loop is free.
    fn drain(&mut self, io: &mut NodeIo<R>) {
        while self.blocked.is_none() {
            let Some(input) = self.queue.pop_front() else { return };
            self.handle(input, io);
        }
    }

    fn handle(&mut self, input: Input<R::Msg>, io: &mut NodeIo<R>) {
        match input {
            Input::Tick => self.call(io, Cause::Tick, R::tick),
            Input::Message(from, m) => {
                // The crate asks to hear of a connection re-established, and
                // this message is the first proof of one.
                let reconnect = self.broken.remove(&from);
                if reconnect {
                    io.emit(&PaxosEvent::Reconnected { peer: from });
                    io.reached("reconnected");
                }
                let pid = from as u64 + 1;
                self.call(io, Cause::Message(from), |p| {
                    if reconnect {
                        R::reconnected(p, pid);
                    }
                    R::handle(p, m)
                });
            }
            Input::Client(req) => self.client(req, io),
            Input::LinkBroken(peer) => {
                self.broken.insert(peer);
            }
        }
    }

    /// Calls into the crate, then does what the call produced: writes go to
    /// the disk and hold the step's messages until they are durable.
    fn call<T>(&mut self, io: &mut NodeIo<R>, cause: Cause, f: impl FnOnce(&mut R::Paxos) -> T) -> T {
        let r = f(self.paxos());
        let msgs = R::outgoing(self.paxos());
        self.observe(io, cause, &msgs);
        for (from, len) in self.store.take_gaps() {
            io.emit(&PaxosEvent::LogGap { from, len });
        }
        let recs = self.store.take_written();
        if recs.is_empty() {
            self.release(io, msgs);
        } else {
            for rec in recs {
                if let Err(e) = io.disk_append(rec) {
                    // Nothing the node does after may rest on that write.
                    io.halt(&format!("cannot write: {e}"));
                    return r;
                }
            }
            let ticket = io.fsync();
            self.blocked = Some(Held { ticket, msgs });
        }
        self.report_tail(io);
        r
    }

    /// Sends what a step produced once its writes are durable, then applies
    /// what they decided.
    fn release(&mut self, io: &mut NodeIo<R>, msgs: Vec<R::Msg>) {
        for m in msgs {
            // 0.2.0 sends a PrepareReq to pid 0, the pid of no ballot, while
            // it follows no leader: no network can deliver it.
            match R::to(&m) as NodeId {
                pid @ 1.. if pid <= self.nodes => io.send(pid - 1, Msg(m)),
                _ => {}
            }
        }
        self.catch_up(io);
    }

    /// Reports a role or ballot change.
    fn observe(&mut self, io: &mut NodeIo<R>, cause: Cause, sent: &[R::Msg]) {
        let me = self.pid();
        for m in sent {
            let s = R::summary(m);
            if s.kind == "accept-sync" && s.from == me {
                self.accepting = s.n;
            }
        }
        let p = self.promise();
        let prev = self.seen;
        if prev.is_some_and(|(_, b)| b != p) && p.pid == me {
            self.campaign = Some(p);
        }
        let role = if p.pid == me && self.accepting == Some(p) {
            Role::Leader
        } else if self.campaign == Some(p) {
            Role::Candidate
        } else {
            Role::Follower
        };
        if prev == Some((role, p)) {
            return;
        }
        self.seen = Some((role, p));
        let why = role_cause(prev, (role, p));
        let (term, ballot) = p.epoch();
        io.event(ModelEvent::Role {
            term,
            role,
            cause: why.clone(),
            from: match cause {
                Cause::Message(n) => Some(n),
                Cause::Boot | Cause::Tick | Cause::Client => None,
            },
            ballot: Some(ballot),
        });
        if role == Role::Leader {
            io.reached("leader-elected");
        }
        if matches!(prev, Some((Role::Leader, _))) && why == RoleCause::HigherTerm {
            io.reached("leader-deposed");
        }
    }

    /// The leader this node knows of, as a dst node id.
    fn hint(&self) -> Option<NodeId> {
        let pid = self.promise().pid;
        (pid != 0 && pid != self.pid()).then(|| pid as NodeId - 1)
    }

    /// The leader appends every op, reads too, and answers when it applies.
    fn client(&mut self, req: ClientReq, io: &mut NodeIo<R>) {
        let leading = matches!(self.seen, Some((Role::Leader, _)));
        if !leading || matches!(req.op, KvOp::FollowerGet { .. }) {
            io.reply(req.req_id, ClientReply::NotLeader { hint: self.hint() });
            return;
        }
        let cmd = Cmd {
            node: self.id,
            req: req.req_id,
            term: self.promise().term(),
            op: req.op,
        };
        self.pending.insert(req.req_id);
        if !self.call(io, Cause::Client, |p| R::append(p, cmd)) && self.pending.remove(&req.req_id) {
            io.reply(req.req_id, ClientReply::NotLeader { hint: self.hint() });
        }
    }

    /// Applies what was decided since the last time, every index in order,
    /// and answers this node's clients. Runs only once the writes that
    /// decided it are durable.
    fn catch_up(&mut self, io: &mut NodeIo<R>) {
        let Some(p) = self.paxos.as_ref() else { return };
        let decided = R::decided_idx(p);
        if decided > self.decided {
            self.decided = decided;
            io.event(ModelEvent::Commit { index: decided });
        }
        if decided <= self.applied {
            return;
        }
        for cmd in R::decided_suffix(p, self.applied) {
            let result = self.kv.apply(&cmd.op);
            self.applied += 1;
            io.event(ModelEvent::Apply {
                index: self.applied,
                term: cmd.term,
                digest: self.kv.digest(),
            });
            if cmd.node == self.id && self.pending.remove(&cmd.req) {
                io.reply(cmd.req, ClientReply::Ok(result));
            }
        }
    }

    /// Reports the log's tail when it moved (what the search reads to tell
    /// who holds the newest entry).
    fn report_tail(&mut self, io: &mut NodeIo<R>) {
        let tail = self.store.tail();
        if self.tail != Some(tail) {
            self.tail = Some(tail);
            io.event(ModelEvent::LogTail {
                index: tail.0,
                term: tail.1,
            });
        }
    }
}

/// Why (role, ballot) went from `prev` to `now`, in the words the checkers read.
fn role_cause(prev: Option<(Role, BallotRec)>, now: (Role, BallotRec)) -> RoleCause {
    match (prev, now.0) {
        (None, _) => RoleCause::Boot,
        (_, Role::Leader) => RoleCause::Won,
        (_, Role::Candidate | Role::PreCandidate) => RoleCause::Timeout,
        (Some((_, b)), Role::Follower) if now.1 > b => RoleCause::HigherTerm,
        (Some(_), Role::Follower) => RoleCause::from("stepped-down"),
    }
}

impl<R: Release> Machine for Node<R> {
    type Msg = Msg<R>;
    type Rec = crate::store::Rec;

    /// Fail-recovery as the crate documents it: the same config, over the
    /// storage rebuilt from what was persisted. The state machine starts
    /// empty and applies the decided log again.
    fn boot(&mut self, io: &mut NodeIo<R>) {
        let state = State::replay(io.disk());
        if !state.log.is_empty() {
            io.reached("restart-with-log");
        }
        self.store = Store::new(state);
        io.event(ModelEvent::SmReset {
            applied: 0,
            digest: self.kv.digest(),
        });
        let pids = (1..=self.nodes as u64).collect();
        self.paxos = Some(R::build(&self.cfg, self.pid(), pids, self.store.clone()));
        io.set_timer(TICK, self.cfg.tick_ms * NS_PER_MS);
        // Building writes the promise it recovered and queues a PrepareReq
        // to every peer: a step like any other.
        self.call(io, Cause::Boot, |_| ());
    }

    fn on_message(&mut self, from: NodeId, msg: Self::Msg, io: &mut NodeIo<R>) {
        self.on_input(Input::Message(from, msg.0), io);
    }

    fn on_timer(&mut self, timer: TimerId, io: &mut NodeIo<R>) {
        if timer == TICK {
            // The clock keeps its period whether or not the loop is free.
            io.set_timer(TICK, self.cfg.tick_ms * NS_PER_MS);
            self.on_input(Input::Tick, io);
        }
    }

    fn on_client(&mut self, req: ClientReq, io: &mut NodeIo<R>) {
        self.on_input(Input::Client(req), io);
    }

    fn on_fsynced(&mut self, ticket: SyncTicket, io: &mut NodeIo<R>) {
        let Some(held) = self.blocked.take_if(|h| h.ticket <= ticket) else {
            return;
        };
        self.release(io, held.msgs);
        self.drain(io);
    }

    /// The crate's contract: call `reconnected(pid)` once the network says
    /// a connection to `pid` is re-established. A break is not that yet;
    /// the first message on the next connection is.
    fn on_link_broken(&mut self, peer: NodeId, io: &mut NodeIo<R>) {
        self.on_input(Input::LinkBroken(peer), io);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: u32, pid: u64) -> BallotRec {
        BallotRec {
            config_id: 1,
            n,
            priority: 0,
            pid,
        }
    }

    #[test]
    fn causes_name_what_the_checkers_look_for() {
        use Role::*;
        assert_eq!(role_cause(None, (Follower, b(0, 0))), RoleCause::Boot);
        assert_eq!(
            role_cause(Some((Follower, b(1, 2))), (Candidate, b(2, 1))),
            RoleCause::Timeout
        );
        assert_eq!(
            role_cause(Some((Candidate, b(2, 1))), (Leader, b(2, 1))),
            RoleCause::Won
        );
        assert_eq!(
            role_cause(Some((Leader, b(2, 1))), (Follower, b(3, 2))),
            RoleCause::HigherTerm
        );
    }
}
