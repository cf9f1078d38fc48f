//! Messages between nodes: the network routes each send (it may lose or
//! duplicate it, unless the run keeps that message calm), and a delivery
//! still fails if a partition came up in flight or the receiver is down.
//! On a `stream` link the same draws mean what they mean to a TCP user:
//! a loss breaks the connection, a delay holds back everything after it,
//! a duplicate never shows (see [`crate::links`]).

use super::{node::Input, Ev, World};
use crate::event::{DropCause, EventKind};
use crate::links::{LinkMode, Tag};
use crate::machine::{Machine, MsgInfo, NodeId};
use crate::net::Route;

impl<'a, M: Machine, F: Fn(NodeId) -> M> World<'a, M, F> {
    pub(super) fn send(&mut self, from: NodeId, to: NodeId, msg: M::Msg) {
        self.next_msg += 1;
        let id = self.next_msg;
        let kind = msg.kind();
        self.record(
            Some(from),
            EventKind::Send {
                id,
                to,
                msg: kind.into(),
            },
        );
        if self.walk.is_some() {
            return self.send_explored(id, from, to, msg);
        }
        if self.is_stream(&msg, from, to) {
            return self.send_stream(id, from, to, msg);
        }
        let calm = self.calm.contains(id);
        let (route, drawn) = self.net.route_calm(from, to, &mut self.net_rng, calm);
        if drawn.any() && !calm {
            self.chaos.push((id, drawn));
        }
        match route {
            Route::Lost(cause) => self.dropped(from, id, from, to, kind, cause),
            Route::Deliver {
                delay_ns,
                duplicate_delay_ns,
            } => {
                if let Some(d) = duplicate_delay_ns {
                    self.record(Some(from), EventKind::Duplicate { id });
                    let copy = msg.clone();
                    self.at(
                        self.now + d,
                        Ev::Deliver {
                            id,
                            from,
                            to,
                            msg: copy,
                            conn: None,
                        },
                    );
                }
                self.at(
                    self.now + delay_ns,
                    Ev::Deliver {
                        id,
                        from,
                        to,
                        msg,
                        conn: None,
                    },
                );
            }
        }
    }

    /// A send on a stream: on the open connection (a new one if none is),
    /// arriving after everything sent on it before. A cut either way or a
    /// loss breaks the connection instead of losing one message quietly.
    fn send_stream(&mut self, id: u64, from: NodeId, to: NodeId, msg: M::Msg) {
        let kind = msg.kind();
        let Some(conn) = self.links.open(from, to, self.now) else {
            // Into a connection that broke and whose news is on its way.
            return self.dropped(from, id, from, to, kind, DropCause::Reset);
        };
        if self.net.is_cut(to, from) {
            self.dropped(from, id, from, to, kind, DropCause::Partition);
            return self.break_link(from, to, DropCause::Partition, true);
        }
        let calm = self.calm.contains(id);
        let (route, mut drawn) = self.net.route_calm(from, to, &mut self.net_rng, calm);
        // A connection delivers each byte once: the copy was drawn, not sent.
        drawn.duplicated = false;
        if drawn.any() && !calm {
            self.chaos.push((id, drawn));
        }
        match route {
            Route::Lost(cause) => {
                self.dropped(from, id, from, to, kind, cause);
                self.break_link(from, to, cause, true);
            }
            Route::Deliver { delay_ns, .. } => {
                let t = self.links.in_order(from, to, self.now + delay_ns);
                self.at(
                    t,
                    Ev::Deliver {
                        id,
                        from,
                        to,
                        msg,
                        conn: Some(conn),
                    },
                );
            }
        }
    }

    /// A send under exploration: cut links lose it as in a sampled run;
    /// otherwise it arrives within the network's delay bounds, and
    /// whether it is lost or doubled is a move of the walk.
    fn send_explored(&mut self, id: u64, from: NodeId, to: NodeId, msg: M::Msg) {
        let kind = msg.kind();
        let stream = self.is_stream(&msg, from, to);
        let conn = match stream {
            false => None,
            true => match self.links.open(from, to, self.now) {
                Some(c) => Some(c),
                None => return self.dropped(from, id, from, to, kind, DropCause::Reset),
            },
        };
        if self.net.is_cut(from, to) || (stream && self.net.is_cut(to, from)) {
            self.dropped(from, id, from, to, kind, DropCause::Partition);
            if stream {
                self.break_link(from, to, DropCause::Partition, true);
            }
            return;
        }
        let cfg = &self.net.cfg;
        let lo = self.now + (cfg.delay_ms_min * super::MS).max(1);
        let mut hi = self.now + (cfg.delay_ms_max * super::MS).max(1);
        if stream {
            hi = self.links.in_order(from, to, hi);
        }
        self.at_span(
            (lo, hi),
            Ev::Deliver {
                id,
                from,
                to,
                msg,
                conn,
            },
        );
    }

    /// Whether `msg` travels as a stream: as the message says (a TCP
    /// segment always does, a UDP datagram never), else as its link is.
    fn is_stream(&self, msg: &M::Msg, from: NodeId, to: NodeId) -> bool {
        match msg.link() {
            Some(mode) => mode == LinkMode::Stream,
            None => !self.links.all_datagram() && self.links.mode(from, to) == LinkMode::Stream,
        }
    }

    fn dropped(&mut self, at: NodeId, id: u64, from: NodeId, to: NodeId, msg: &'static str, cause: DropCause) {
        self.record(
            Some(at),
            EventKind::Drop {
                id,
                from,
                to,
                msg: msg.into(),
                cause,
            },
        );
    }

    pub(super) fn deliver(&mut self, id: u64, from: NodeId, to: NodeId, msg: M::Msg, conn: Option<Tag>) {
        let Some(tag) = conn else {
            return self.hand_over(id, from, to, msg, false);
        };
        if !self.links.is_current(from, to, tag.epoch) {
            return self.dropped(to, id, from, to, msg.kind(), DropCause::Reset);
        }
        if self.links.next_seq(from, to) != tag.seq {
            self.held.insert((from, to, tag.seq), (id, msg));
            return;
        }
        self.hand_over(id, from, to, msg, true);
        // What arrived early follows, while the connection lives.
        while self.links.is_current(from, to, tag.epoch) {
            let next = self.links.next_seq(from, to);
            let Some((id, msg)) = self.held.remove(&(from, to, next)) else {
                break;
            };
            self.hand_over(id, from, to, msg, true);
        }
    }

    /// A message reaches `to`, unless a partition came up in flight or
    /// `to` is down; on a stream either breaks the connection.
    fn hand_over(&mut self, id: u64, from: NodeId, to: NodeId, msg: M::Msg, stream: bool) {
        let kind = msg.kind();
        let lost = if self.net.is_cut(from, to) || (stream && self.net.is_cut(to, from)) {
            Some(DropCause::Partition)
        } else if self.nodes[to].machine.is_none() {
            Some(DropCause::Down)
        } else {
            None
        };
        match lost {
            Some(cause) => {
                self.dropped(to, id, from, to, kind, cause);
                if stream {
                    self.break_link(from, to, cause, true);
                }
            }
            None => {
                if stream {
                    self.links.handed(from, to);
                }
                self.record(
                    Some(to),
                    EventKind::Deliver {
                        id,
                        from,
                        msg: kind.into(),
                    },
                );
                self.step(to, Input::Message(from, msg));
            }
        }
    }

    /// Messages held for a connection that broke never arrive.
    fn drop_held(&mut self, a: NodeId, b: NodeId) {
        if self.held.is_empty() {
            return;
        }
        let gone: Vec<(NodeId, NodeId, u64)> = self
            .held
            .keys()
            .filter(|(f, t, _)| (*f, *t) == (a, b) || (*f, *t) == (b, a))
            .copied()
            .collect();
        for key in gone {
            let (id, msg) = self.held.remove(&key).expect("a held key");
            self.dropped(key.1, id, key.0, key.1, msg.kind(), DropCause::Reset);
        }
    }

    /// Breaks the connection between `a` and `b`, if one is open (`a`
    /// wrote, and the write failed, if `a_wrote`): the ends that wrote on
    /// it, or both if anything ever got through, learn it one maximal
    /// network delay later, as a reset or a timeout would tell them.
    pub(super) fn break_link(&mut self, a: NodeId, b: NodeId, cause: DropCause, a_wrote: bool) {
        let heard = self.news_at();
        let writer = a_wrote.then_some(a);
        if let Some([ha, hb]) = self.links.break_conn(a, b, heard, writer) {
            self.drop_held(a, b);
            if ha {
                self.tell_broken(a, b, cause, heard);
            }
            if hb {
                self.tell_broken(b, a, cause, heard);
            }
        }
    }

    /// Every connection of a node that went down breaks; the peers at its
    /// other ends learn it.
    pub(super) fn break_all(&mut self, node: NodeId) {
        let heard = self.news_at();
        for peer in self.links.break_all(node, heard) {
            self.drop_held(node, peer);
            self.tell_broken(peer, node, DropCause::Down, heard);
        }
    }

    fn news_at(&self) -> u64 {
        self.now + (self.net.cfg.delay_ms_max * super::MS).max(1)
    }

    fn tell_broken(&mut self, node: NodeId, peer: NodeId, cause: DropCause, at: u64) {
        if self.nodes[node].machine.is_none() {
            return;
        }
        let inc = self.nodes[node].inc;
        self.at(at, Ev::LinkBroken { node, inc, peer, cause });
    }

    /// Connections that a fault just cut, either way, break.
    pub(super) fn break_cut_streams(&mut self) {
        if self.links.all_datagram() {
            return;
        }
        // Every open connection is a stream's: a connection opens only for
        // a message that travels as one.
        for (a, b) in self.links.open_pairs() {
            if self.net.is_cut(a, b) || self.net.is_cut(b, a) {
                self.break_link(a, b, DropCause::Partition, false);
            }
        }
    }

    /// The news of a broken connection reaches the incarnation it was for.
    pub(super) fn link_broken(&mut self, node: NodeId, inc: u64, peer: NodeId, cause: DropCause) {
        if self.nodes[node].inc != inc || self.nodes[node].machine.is_none() {
            return;
        }
        self.record(Some(node), EventKind::LinkBroken { peer, cause });
        if let Some(h) = &self.hooks {
            h.link_broken(node, peer, cause);
        }
        self.step(node, Input::LinkBroken(peer));
    }
}
