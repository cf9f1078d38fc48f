//! Link modes. A `datagram` link gives each message its own fate (lost,
//! duplicated, overtaken); a `stream` link is what a TCP connection gives
//! its user: each direction in order, nothing twice, and a loss that shows
//! as a broken connection both ends learn of, after which the next send
//! opens a new one. Most real systems speak TCP and their contracts assume
//! it, so a scenario chooses per cluster and a plan entry per pair of nodes.

use crate::id::NodeId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How messages between two nodes travel: `"datagram"` (the default) or `"stream"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkMode {
    /// Each message its own fate: lost, duplicated or overtaken.
    #[default]
    Datagram,
    /// A TCP-like connection: in order, once, and a loss breaks it.
    Stream,
}

impl LinkMode {
    /// Whether this is [`LinkMode::Datagram`] (a scenario leaves it out).
    pub fn is_datagram(&self) -> bool {
        *self == LinkMode::Datagram
    }
}

/// One connection between two nodes: both directions share its life, as
/// a TCP connection's do (a one-way cut stops the acknowledgements too).
#[derive(Clone, Copy, Debug, Default)]
struct Conn {
    /// Counts the connections this pair has opened; a message carries the
    /// one it was sent on and is void on any other.
    epoch: u64,
    open: bool,
    /// When the last message of each direction (lower id to higher, and
    /// back) arrives: a later one never arrives before it.
    last_arrival_ns: [u64; 2],
    /// Messages sent and handed over, per direction, on this connection.
    sent: [u64; 2],
    handed: [u64; 2],
    /// Whether a message ever got through: a connect that never reached
    /// the other end is news only to the ends that wrote on it.
    established: bool,
    /// Once broken, which ends (by direction they send in) hear of it, and
    /// until when (true time) they have not yet: their writes meanwhile go
    /// into the dead connection, and the news covers them.
    hears: [bool; 2],
    dead_until_ns: u64,
}

/// Where a stream message stands on its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The connection it was sent on, counted per pair; void on any other.
    pub epoch: u64,
    /// 1 for the first message of its direction on the connection.
    pub seq: u64,
}

/// Every pair's mode and connection.
#[derive(Debug, Default)]
pub struct Links {
    mode: LinkMode,
    /// Pairs whose mode a plan entry changed.
    modes: BTreeMap<(NodeId, NodeId), LinkMode>,
    conns: BTreeMap<(NodeId, NodeId), Conn>,
}

fn pair(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    (a.min(b), a.max(b))
}

fn direction(from: NodeId, to: NodeId) -> usize {
    usize::from(from > to)
}

impl Links {
    /// Every pair in `mode` (the scenario's `links`), no connection open yet.
    pub fn new(mode: LinkMode) -> Links {
        Links {
            mode,
            ..Links::default()
        }
    }

    /// Whether no pair can be a stream: the world's datagram path,
    /// unchanged. A connection opened for a message that travels as a
    /// stream on a datagram link (a TCP segment) makes this false.
    pub fn all_datagram(&self) -> bool {
        self.mode.is_datagram() && self.modes.values().all(LinkMode::is_datagram) && self.conns.is_empty()
    }

    /// The mode of the link between `a` and `b`: a plan entry's, else the scenario's.
    pub fn mode(&self, a: NodeId, b: NodeId) -> LinkMode {
        self.modes.get(&pair(a, b)).copied().unwrap_or(self.mode)
    }

    /// Sets the mode of the link between `a` and `b` (the world breaks an
    /// open stream that becomes datagrams first).
    pub fn set_mode(&mut self, a: NodeId, b: NodeId, mode: LinkMode) {
        self.modes.insert(pair(a, b), mode);
    }

    /// A send from `from` to `to` at `now_ns`: on the open connection, or
    /// a new one; none while a broken one's news is on its way.
    pub fn open(&mut self, from: NodeId, to: NodeId, now_ns: u64) -> Option<Tag> {
        let c = self.conns.entry(pair(from, to)).or_default();
        let d = direction(from, to);
        if !c.open {
            if now_ns < c.dead_until_ns && c.hears[d] {
                return None;
            }
            *c = Conn {
                epoch: c.epoch + 1,
                open: true,
                ..Conn::default()
            };
        }
        c.sent[d] += 1;
        Some(Tag {
            epoch: c.epoch,
            seq: c.sent[d],
        })
    }

    /// The message after the last handed over was handed over.
    pub fn handed(&mut self, from: NodeId, to: NodeId) {
        if let Some(c) = self.conns.get_mut(&pair(from, to)) {
            c.handed[direction(from, to)] += 1;
            c.established = true;
        }
    }

    /// The sequence number the connection hands over next, from `from` to
    /// `to`: a message that arrives before it (a stall held back the one
    /// sent ahead of it) waits, as TCP reassembles its stream.
    pub fn next_seq(&self, from: NodeId, to: NodeId) -> u64 {
        self.conns
            .get(&pair(from, to))
            .map_or(1, |c| c.handed[direction(from, to)] + 1)
    }

    /// When a message sent on the open connection arrives, if chance alone
    /// would have it arrive at `at_ns`: not before the one sent before it.
    pub fn in_order(&mut self, from: NodeId, to: NodeId, at_ns: u64) -> u64 {
        let c = self.conns.entry(pair(from, to)).or_default();
        let last = &mut c.last_arrival_ns[direction(from, to)];
        let t = at_ns.max(*last);
        *last = t;
        t
    }

    /// Whether a message sent on connection `epoch` may still arrive.
    pub fn is_current(&self, from: NodeId, to: NodeId, epoch: u64) -> bool {
        self.conns
            .get(&pair(from, to))
            .is_some_and(|c| c.open && c.epoch == epoch)
    }

    /// Breaks the connection between `a` and `b`, if one is open (each
    /// connection breaks once): the ends that hear of it at `heard_ns`,
    /// as `[a hears, b hears]`. An end hears if anything ever got through,
    /// if it wrote on the connection, or if it is the `writer` whose write
    /// failed.
    pub fn break_conn(&mut self, a: NodeId, b: NodeId, heard_ns: u64, writer: Option<NodeId>) -> Option<[bool; 2]> {
        let c = self.conns.get_mut(&pair(a, b)).filter(|c| c.open)?;
        c.open = false;
        c.dead_until_ns = heard_ns;
        let hears =
            |end: NodeId, peer: NodeId| c.established || c.sent[direction(end, peer)] > 0 || writer == Some(end);
        let (ha, hb) = (hears(a, b), hears(b, a));
        c.hears[direction(a, b)] = ha;
        c.hears[direction(b, a)] = hb;
        Some([ha, hb])
    }

    /// The peers whose open connection to `node` breaks now that it is
    /// gone, in id order (each hears: its end is the one left).
    pub fn break_all(&mut self, node: NodeId, heard_ns: u64) -> Vec<NodeId> {
        let peers: Vec<NodeId> = self
            .conns
            .iter()
            .filter(|(&(a, b), c)| c.open && (a == node || b == node))
            .map(|(&(a, b), _)| if a == node { b } else { a })
            .collect();
        for &p in &peers {
            self.break_conn(p, node, heard_ns, Some(p));
        }
        peers
    }

    /// The open connections, as pairs in order, for a fault that may cut them.
    pub fn open_pairs(&self) -> Vec<(NodeId, NodeId)> {
        self.conns.iter().filter(|(_, c)| c.open).map(|(&p, _)| p).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_keeps_each_direction_in_order_and_dies_once() {
        let mut l = Links::new(LinkMode::Stream);
        let e = l.open(0, 1, 0).unwrap().epoch;
        assert_eq!(l.in_order(0, 1, 50), 50);
        assert_eq!(l.in_order(0, 1, 20), 50, "a later message never overtakes");
        assert_eq!(l.in_order(1, 0, 10), 10, "the other direction has its own order");
        assert!(l.is_current(1, 0, e));
        assert_eq!(
            l.break_conn(1, 0, 60, None),
            Some([false, true]),
            "only the end that wrote hears"
        );
        assert_eq!(l.break_conn(0, 1, 60, None), None, "a connection breaks once");
        assert!(!l.is_current(0, 1, e));
        assert_eq!(l.open(0, 1, 59), None, "a write before the news goes nowhere");
        let e2 = l.open(0, 1, 60).unwrap().epoch;
        assert_ne!(e, e2);
        assert_eq!(l.in_order(0, 1, 5), 5, "a new connection starts afresh");
        assert!(!l.is_current(0, 1, e), "a message of the old one stays void");
    }

    #[test]
    fn a_message_that_arrives_early_waits_for_the_one_before() {
        let mut l = Links::new(LinkMode::Stream);
        let first = l.open(0, 1, 0).unwrap();
        let second = l.open(0, 1, 0).unwrap();
        let back = l.open(1, 0, 0).unwrap();
        assert_eq!((first.seq, second.seq, back.seq), (1, 2, 1));
        assert_ne!(l.next_seq(0, 1), second.seq);
        assert_eq!(l.next_seq(1, 0), back.seq, "each direction counts apart");
        l.handed(0, 1);
        assert_eq!(l.next_seq(0, 1), second.seq);
        assert_eq!(l.break_conn(0, 1, 0, None), Some([true, true]));
        assert_eq!(l.open(0, 1, 0).unwrap().seq, 1, "a new connection counts afresh");
    }

    #[test]
    fn a_connect_that_never_got_through_is_news_to_its_writers_only() {
        let mut l = Links::new(LinkMode::Stream);
        l.open(0, 1, 0);
        assert_eq!(l.break_conn(1, 0, 10, None), Some([false, true]));
        assert!(l.open(1, 0, 5).is_some(), "an end that will not hear opens afresh");
        assert_eq!(
            l.break_conn(0, 1, 20, Some(1)),
            Some([false, true]),
            "the failed writer hears"
        );
    }

    #[test]
    fn a_gone_node_breaks_its_connections_only() {
        let mut l = Links::new(LinkMode::Stream);
        l.open(0, 1, 0);
        l.open(2, 1, 0);
        l.open(0, 2, 0);
        assert_eq!(l.break_all(1, 5), vec![0, 2]);
        assert_eq!(l.open_pairs(), vec![(0, 2)]);
    }

    #[test]
    fn a_plan_entry_changes_one_pair() {
        let mut l = Links::new(LinkMode::Datagram);
        assert!(l.all_datagram());
        l.set_mode(2, 0, LinkMode::Stream);
        assert_eq!(l.mode(0, 2), LinkMode::Stream);
        assert_eq!(l.mode(0, 1), LinkMode::Datagram);
        assert!(!l.all_datagram());
        l.set_mode(0, 2, LinkMode::Datagram);
        assert!(l.all_datagram());
    }
}
