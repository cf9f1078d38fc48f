//! Messages between nodes: the network routes each send (it may lose or
//! duplicate it, unless the run keeps that message calm), and a delivery
//! still fails if a partition came up in flight or the receiver is down.

use super::{node::Input, Ev, World};
use crate::event::{DropCause, EventKind};
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
        let calm = self.calm.contains(id);
        let (route, drawn) = self.net.route_calm(from, to, &mut self.net_rng, calm);
        if drawn.any() && !calm {
            self.chaos.push((id, drawn));
        }
        match route {
            Route::Lost(cause) => self.record(
                Some(from),
                EventKind::Drop {
                    id,
                    from,
                    to,
                    msg: kind.into(),
                    cause,
                },
            ),
            Route::Deliver {
                delay_ns,
                duplicate_delay_ns,
            } => {
                if let Some(d) = duplicate_delay_ns {
                    self.record(Some(from), EventKind::Duplicate { id });
                    self.at(
                        self.now + d,
                        Ev::Deliver {
                            id,
                            from,
                            to,
                            msg: msg.clone(),
                        },
                    );
                }
                self.at(self.now + delay_ns, Ev::Deliver { id, from, to, msg });
            }
        }
    }

    pub(super) fn deliver(&mut self, id: u64, from: NodeId, to: NodeId, msg: M::Msg) {
        let kind = msg.kind();
        let lost = if self.net.is_cut(from, to) {
            Some(DropCause::Partition)
        } else if self.nodes[to].machine.is_none() {
            Some(DropCause::Down)
        } else {
            None
        };
        match lost {
            Some(cause) => self.record(
                Some(to),
                EventKind::Drop {
                    id,
                    from,
                    to,
                    msg: kind.into(),
                    cause,
                },
            ),
            None => {
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
}
