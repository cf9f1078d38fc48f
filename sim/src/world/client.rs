//! The clients: each runs one op at a time, with think time between ops,
//! and retries refused attempts until the op ends ok, failed, or unknown
//! (a timeout among them).

use super::explore::Dice;
use super::{Ev, World, MS};
use crate::event::EventKind;
use crate::machine::{Machine, NodeId};
use crate::rng::range;
use crate::workload::{ClientReply, ClientReq, KvOp, KvResult, Value};
use std::collections::BTreeMap;

#[derive(Debug)]
struct OpState {
    op_id: u64,
    op: KvOp,
    req_id: u64,
    attempts: u32,
    /// Where the current attempt went.
    node: NodeId,
}

/// A client behaves like a real driver: it keeps sending to the node that
/// last served it as leader, follows a refusal's hint, tries the next node
/// round robin when a refusal names none, and forgets the leader when an op
/// times out or ends unknown.
#[derive(Debug, Default)]
pub(super) struct Client {
    op: Option<OpState>,
    /// Where the next attempt goes (a hint or the next node in turn).
    next: Option<NodeId>,
    /// The node that last served a leader-only op.
    leader: Option<NodeId>,
    last_read: BTreeMap<u32, Value>,
}

impl Client {
    /// Its digest with node `x` named `ids[x]` (see
    /// [`crate::Machine::digest_renamed`]).
    pub(super) fn digest_renamed(&self, ids: &[NodeId]) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = crate::hash::WordHasher::default();
        let r = |x: &NodeId| ids[*x];
        match &self.op {
            None => 0u8.hash(&mut h),
            Some(o) => (
                1u8,
                o.op_id,
                crate::hash::debug_digest(&o.op),
                o.req_id,
                o.attempts,
                r(&o.node),
            )
                .hash(&mut h),
        }
        (self.next.as_ref().map(r), self.leader.as_ref().map(r)).hash(&mut h);
        crate::hash::debug_digest(&self.last_read).hash(&mut h);
        h.finish()
    }

    /// Whether op `op_id` is still open.
    pub(super) fn runs(&self, op_id: u64) -> bool {
        self.op.as_ref().is_some_and(|o| o.op_id == op_id)
    }

    /// Whether the client waits for nothing: no op open.
    pub(super) fn idle(&self) -> bool {
        self.op.is_none()
    }

    /// Whether the current op's latest request is `req_id`.
    pub(super) fn awaits(&self, req_id: u64) -> bool {
        self.op.as_ref().is_some_and(|o| o.req_id == req_id)
    }
}

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    /// When a request or reply sent now between a client and a node arrives.
    pub(super) fn client_latency(&mut self) -> (u64, u64) {
        self.span(MS / 2, 2 * MS, Dice::Work)
    }

    pub(super) fn next_tick(&mut self, client: u32) {
        let think = self.span(0, self.scenario.workload.think_ms_max * MS, Dice::Work);
        // How long a client thinks is its own choice: in the natural order
        // it thinks its longest, as a backoff waits, rather than invoking
        // the moment its last op returns, a flood that would spend the
        // depth bound on ops a few milliseconds apart.
        self.at_span_late(think, Ev::ClientTick { client });
    }

    fn pick_op(&mut self, client: u32) -> KvOp {
        let w = &self.scenario.workload;
        let key = range(&mut self.work_rng, 0, w.keys as u64 - 1) as u32;
        self.next_op += 1;
        // Unique per write, so a value read back names the write that made it.
        let value = self.next_op;
        let mix = [
            w.put_weight,
            w.append_weight,
            w.get_weight,
            w.cas_weight,
            w.follower_get_weight,
        ];
        let total: u64 = mix.iter().map(|x| *x as u64).sum();
        let r = range(&mut self.work_rng, 0, total - 1) as u32;
        let mut drawn = mix.len() - 1;
        let mut below = 0;
        for (i, weight) in mix.into_iter().enumerate() {
            below += weight;
            if r < below {
                drawn = i;
                break;
            }
        }
        // Under exploration the kind of operation is a choice like the
        // model's own (`Io::choice`): the drawn one is natural, every other
        // kind the workload has is a departure, so a bug that needs a read
        // at one exact point is not left to what the seed drew.
        let kind = match self.walk.as_deref_mut() {
            Some(w) => {
                use crate::machine::Choices;
                let kinds: Vec<usize> = (0..mix.len()).filter(|&i| mix[i] > 0).collect();
                match kinds.iter().position(|&k| k == drawn) {
                    Some(at) if kinds.len() > 1 => kinds[w.choose(at as u32, kinds.len() as u32) as usize],
                    _ => drawn,
                }
            }
            None => drawn,
        };
        let spell = match w.read_spell_ms {
            0 => None,
            ms => self.read_only_spells.get((self.now / (ms * MS)) as usize),
        };
        match kind {
            // A read-only spell turns every write into a read.
            0 | 1 | 3 if spell == Some(&true) => KvOp::Get { key },
            0 => KvOp::Put { key, value },
            1 => KvOp::Append { key, value },
            2 => KvOp::Get { key },
            3 => {
                let expected = self.clients[client as usize]
                    .last_read
                    .get(&key)
                    .cloned()
                    .unwrap_or_default();
                KvOp::Cas { key, expected, value }
            }
            _ => KvOp::FollowerGet { key },
        }
    }

    pub(super) fn invoke(&mut self, client: u32) {
        if !self.may_invoke() {
            return;
        }
        let op = self.pick_op(client);
        let op_id = self.next_op;
        self.next_req += 1;
        let req_id = self.next_req;
        self.clients[client as usize].op = Some(OpState {
            op_id,
            op: op.clone(),
            req_id,
            attempts: 0,
            node: 0,
        });
        let timeout = self.now + self.scenario.workload.op_timeout_ms * MS;
        self.at(timeout, Ev::ClientTimeout { client, op_id });
        // Where the first request goes is drawn before the op is recorded,
        // so that the invocation can name it; recording draws nothing.
        let to = self.attempt(client, (0, 0));
        self.record(None, EventKind::Invoke { client, op_id, op, to });
    }

    /// Send the current op of `client` where its retry policy says, or to a
    /// random node, after `delay_ns` (a retry backoff). A follower read
    /// starts at a random node: any node may serve it. Returns the node.
    fn attempt(&mut self, client: u32, delay_ns: (u64, u64)) -> Option<NodeId> {
        let n = self.nodes.len() as u64;
        let guess = range(&mut self.work_rng, 0, n - 1) as NodeId;
        self.next_req += 1;
        let req_id = self.next_req;
        let c = &mut self.clients[client as usize];
        let op = c.op.as_mut()?;
        let first = op.attempts == 0;
        let anywhere = first && matches!(op.op, KvOp::FollowerGet { .. });
        let retry_to = c.next.take();
        let home = (client as u64 % n) as NodeId;
        let node = match (anywhere, retry_to, c.leader) {
            (true, _, _) => guess,
            (false, Some(n), _) => n,
            (false, None, _) if first && self.scenario.workload.bound_clients => home,
            (false, None, Some(l)) if first => l,
            _ => guess,
        };
        op.node = node;
        op.req_id = req_id;
        op.attempts += 1;
        let req = ClientReq {
            req_id,
            op: op.op.clone(),
        };
        let (lo, hi) = self.client_latency();
        let window = (lo + delay_ns.0, hi + delay_ns.1);
        match delay_ns {
            (0, 0) => self.at_span(window, Ev::ClientReq { node, req }),
            _ => self.at_span_late(window, Ev::ClientReq { node, req }),
        }
        Some(node)
    }

    /// An op still open when its deadline comes ends unknown.
    pub(super) fn client_timeout(&mut self, client: u32, op_id: u64) {
        let c = &self.clients[client as usize];
        if let Some(o) = c.op.as_ref().filter(|o| o.op_id == op_id) {
            let to = o.node;
            self.unknown(client, op_id, "timeout", to);
        }
    }

    /// The op ended with an unknown outcome, its last request sent `to`: it
    /// may yet take effect. The client forgets where the leader was and
    /// moves on to its next op.
    fn unknown(&mut self, client: u32, op_id: u64, why: &str, to: NodeId) {
        let c = &mut self.clients[client as usize];
        c.op = None;
        c.next = None;
        c.leader = None;
        self.record(
            None,
            EventKind::Info {
                client,
                op_id,
                why: why.into(),
                to: Some(to),
            },
        );
        self.next_tick(client);
    }

    pub(super) fn client_reply(&mut self, req_id: u64, reply: ClientReply) {
        let Some(client) = self.clients.iter().position(|c| c.awaits(req_id)) else {
            return; // a late answer to an op that already ended
        };
        let cl = client as u32;
        let op = self.clients[client].op.take().expect("matched above");
        match reply {
            ClientReply::Ok(result) => {
                if let (KvResult::Value { value }, KvOp::Get { key } | KvOp::FollowerGet { key }) = (&result, &op.op) {
                    self.clients[client].last_read.insert(*key, value.clone());
                }
                if !matches!(op.op, KvOp::FollowerGet { .. }) {
                    self.clients[client].leader = Some(op.node);
                }
                self.record(
                    None,
                    EventKind::Ok {
                        client: cl,
                        op_id: op.op_id,
                        result,
                        to: Some(op.node),
                    },
                );
                self.next_tick(cl);
            }
            ClientReply::Unknown => self.unknown(cl, op.op_id, "unknown", op.node),
            ClientReply::NotLeader { hint } => {
                if op.attempts >= self.scenario.workload.retries_max {
                    self.record(
                        None,
                        EventKind::Fail {
                            client: cl,
                            op_id: op.op_id,
                            why: "no leader".into(),
                            to: Some(op.node),
                        },
                    );
                    self.refund_op();
                    self.next_tick(cl);
                    return;
                }
                let n = self.nodes.len();
                let c = &mut self.clients[client];
                // A hint naming no node of the cluster is treated as a real
                // client would meet it (no such address): the next node in turn.
                let useful = |h: &NodeId| *h != op.node && *h < n;
                c.next = Some(hint.filter(useful).unwrap_or((op.node + 1) % n));
                c.leader = None;
                c.op = Some(op);
                let most = self.scenario.workload.retry_backoff_ms;
                let backoff = if self.walk.is_some() {
                    (MS, most * MS)
                } else {
                    let d = range(&mut self.work_rng, 1, most) * MS;
                    (d, d)
                };
                self.attempt(cl, backoff);
            }
        }
    }
}
