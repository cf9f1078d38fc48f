//! The network: per-link partitions (symmetric and one-way), degraded links,
//! and per-message loss, delay, duplication and reordering, all drawn from
//! the network's own stream of the seed.

use crate::event::DropCause;
use crate::machine::NodeId;
use crate::nemesis::SwarmDraw;
use crate::rng::{chance, range};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

const MS: u64 = 1_000_000;

/// The message chaos of one run: rates and base delays as its swarm draw set them.
#[derive(Clone, Debug, Default)]
pub struct NetConfig {
    /// The chance, from 0 to 1, that chaos loses a message.
    pub drop_probability: f64,
    /// The chance, from 0 to 1, that a message also arrives a second time.
    pub duplicate_probability: f64,
    /// A reordered message waits an extra delay of up to 10x the maximum,
    /// so that later messages overtake it.
    pub reorder_probability: f64,
    /// The shortest base delay of a message, in ms.
    pub delay_ms_min: u64,
    /// The longest base delay of a message, in ms (inclusive).
    pub delay_ms_max: u64,
}

impl From<&SwarmDraw> for NetConfig {
    fn from(d: &SwarmDraw) -> Self {
        NetConfig {
            drop_probability: d.drop_probability,
            duplicate_probability: d.duplicate_probability,
            reorder_probability: d.reorder_probability,
            delay_ms_min: d.delay_ms_min,
            delay_ms_max: d.delay_ms_max,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct LinkFault {
    drop_per_million: u32,
    delay_ms_extra: u64,
}

/// The fate of one message: delays of each copy, or why none will arrive.
#[derive(Debug, PartialEq)]
pub enum Route {
    /// The message arrives, and maybe a copy of it too.
    Deliver {
        /// How long after the send it arrives, in ns (at least 1).
        delay_ns: u64,
        /// How long after the send its copy arrives, in ns; `None`: no copy.
        duplicate_delay_ns: Option<u64>,
    },
    /// It never arrives, for this reason.
    Lost(DropCause),
}

/// The network of one run: its message chaos, the links that partitions cut,
/// and the degraded links.
#[derive(Debug, Default)]
pub struct Network {
    /// The base delays, and the chaos rates that apply while `chaos` is on.
    pub cfg: NetConfig,
    /// `(from, to)` pairs whose messages are cut.
    cut: BTreeSet<(NodeId, NodeId)>,
    degraded: BTreeMap<(NodeId, NodeId), LinkFault>,
    /// While false, message chaos is off (the liveness phase).
    pub chaos: bool,
}

impl Network {
    /// A network with chaos on and no link cut or degraded.
    pub fn new(cfg: NetConfig) -> Self {
        Network {
            cfg,
            chaos: true,
            ..Network::default()
        }
    }

    /// Lose every message from `from` to `to` until [`Network::heal`]; a node's
    /// messages to itself are never cut.
    pub fn cut(&mut self, from: NodeId, to: NodeId) {
        if from != to {
            self.cut.insert((from, to));
        }
    }

    /// Whether messages from `from` to `to` are lost to a cut.
    pub fn is_cut(&self, from: NodeId, to: NodeId) -> bool {
        self.cut.contains(&(from, to))
    }

    /// Nodes in different groups lose each other, both ways.
    pub fn partition(&mut self, groups: &[Vec<NodeId>]) {
        for (gi, a) in groups.iter().enumerate() {
            for (gj, b) in groups.iter().enumerate() {
                if gi != gj {
                    for &x in a {
                        for &y in b {
                            self.cut(x, y);
                        }
                    }
                }
            }
        }
    }

    /// Cut `node` off from every node of a cluster of `nodes`; with `inbound_only`
    /// it can still send but hears nothing.
    pub fn isolate(&mut self, node: NodeId, nodes: usize, inbound_only: bool) {
        for other in 0..nodes {
            self.cut(other, node);
            if !inbound_only {
                self.cut(node, other);
            }
        }
    }

    /// Make the link from `from` to `to` lose `drop_per_million` of its messages and
    /// delay each by `delay_ms_extra` ms more, in place of any earlier degradation.
    pub fn degrade(&mut self, from: NodeId, to: NodeId, drop_per_million: u32, delay_ms_extra: u64) {
        self.degraded.insert(
            (from, to),
            LinkFault {
                drop_per_million,
                delay_ms_extra,
            },
        );
    }

    /// Whether messages from `from` to `to` pass without a cut or a degraded link.
    pub fn is_clean(&self, from: NodeId, to: NodeId) -> bool {
        !self.cut.contains(&(from, to)) && !self.degraded.contains_key(&(from, to))
    }

    /// Lift every cut and every degraded link; message chaos stays as it is.
    pub fn heal(&mut self) {
        self.cut.clear();
        self.degraded.clear();
    }

    /// Decide the fate of a message sent now from `from` to `to`.
    #[cfg(test)]
    pub fn route(&self, from: NodeId, to: NodeId, rng: &mut ChaCha8Rng) -> Route {
        self.route_calm(from, to, rng, false).0
    }

    /// The fate of a message, and what message chaos drew for it. A `calm`
    /// message makes the same draws, so the stream stays aligned and every
    /// later message meets the fate it would have met, but chaos does not
    /// apply: it arrives once at its base delay, or at the minimum delay
    /// where chaos drew a loss before any delay was drawn. Cuts and
    /// degraded links still apply: they are faults of the plan.
    pub fn route_calm(&self, from: NodeId, to: NodeId, rng: &mut ChaCha8Rng, calm: bool) -> (Route, Chaos) {
        let mut drawn = Chaos::default();
        if self.is_cut(from, to) {
            return (Route::Lost(DropCause::Partition), drawn);
        }
        let link = self.degraded.get(&(from, to));
        if let Some(l) = link {
            if chance(rng, l.drop_per_million as f64 / 1e6) {
                return (Route::Lost(DropCause::Loss), drawn);
            }
        }
        let extra = link.map_or(0, |l| l.delay_ms_extra) * MS;
        let chaos = self.chaos;
        if chaos && chance(rng, self.cfg.drop_probability) {
            drawn.dropped = true;
            let route = if calm {
                Route::Deliver {
                    delay_ns: (self.cfg.delay_ms_min * MS + extra).max(1),
                    duplicate_delay_ns: None,
                }
            } else {
                Route::Lost(DropCause::Loss)
            };
            return (route, drawn);
        }
        let one = |rng: &mut ChaCha8Rng, delayed: &mut bool| {
            let mut d = range(rng, self.cfg.delay_ms_min * MS, self.cfg.delay_ms_max * MS) + extra;
            if chaos && chance(rng, self.cfg.reorder_probability) {
                let late = range(rng, 0, 10 * self.cfg.delay_ms_max * MS);
                *delayed |= late > 0;
                if !calm {
                    d += late;
                }
            }
            d.max(1)
        };
        let delay_ns = one(rng, &mut drawn.delayed);
        let mut duplicate_delay_ns = None;
        if chaos && chance(rng, self.cfg.duplicate_probability) {
            drawn.duplicated = true;
            // The copy's own lateness is part of the duplicate, not of the message.
            let copy = one(rng, &mut false);
            duplicate_delay_ns = (!calm).then_some(copy);
        }
        let route = Route::Deliver {
            delay_ns,
            duplicate_delay_ns,
        };
        (route, drawn)
    }
}

/// What message chaos drew for one message: partitions, degraded links
/// and down receivers are faults of the plan, not chaos.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chaos {
    /// Drawn to be lost.
    pub dropped: bool,
    /// Drawn to arrive a second time.
    pub duplicated: bool,
    /// Held back beyond its base delay, so that later messages may overtake it.
    pub delayed: bool,
}

impl Chaos {
    /// Whether chaos drew anything for the message.
    pub fn any(&self) -> bool {
        self.dropped || self.duplicated || self.delayed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn one_way_isolation_keeps_the_outbound_direction() {
        let mut n = Network::new(NetConfig {
            delay_ms_min: 1,
            delay_ms_max: 2,
            ..NetConfig::default()
        });
        n.isolate(0, 3, true);
        let mut rng = stream(1, Stream::Net);
        assert_eq!(n.route(1, 0, &mut rng), Route::Lost(DropCause::Partition));
        assert!(matches!(n.route(0, 1, &mut rng), Route::Deliver { .. }));
        n.heal();
        assert!(matches!(n.route(1, 0, &mut rng), Route::Deliver { .. }));
    }

    #[test]
    fn partition_cuts_across_groups_only() {
        let mut n = Network::new(NetConfig::default());
        n.partition(&[vec![0, 1], vec![2]]);
        assert!(n.is_cut(0, 2) && n.is_cut(2, 1));
        assert!(!n.is_cut(0, 1));
    }

    #[test]
    fn chaos_rates_show_up_in_draws() {
        let n = Network::new(NetConfig {
            drop_probability: 0.2,
            duplicate_probability: 0.1,
            reorder_probability: 0.0,
            delay_ms_min: 1,
            delay_ms_max: 5,
        });
        let mut rng = stream(9, Stream::Net);
        let (mut lost, mut dup) = (0, 0);
        for _ in 0..10_000 {
            match n.route(0, 1, &mut rng) {
                Route::Lost(_) => lost += 1,
                Route::Deliver {
                    duplicate_delay_ns,
                    delay_ns,
                } => {
                    assert!((MS..=5 * MS).contains(&delay_ns));
                    dup += duplicate_delay_ns.is_some() as u32;
                }
            }
        }
        assert!((1_700..2_300).contains(&lost), "lost {lost}");
        assert!((600..1_000).contains(&dup), "dup {dup}");
    }

    #[test]
    fn a_calm_message_draws_the_same_and_meets_no_chaos() {
        let cfg = NetConfig {
            drop_probability: 0.3,
            duplicate_probability: 0.3,
            reorder_probability: 0.3,
            delay_ms_min: 2,
            delay_ms_max: 6,
        };
        let n = Network::new(cfg);
        let (mut wild, mut calm) = (stream(4, Stream::Net), stream(4, Stream::Net));
        let mut seen = Chaos::default();
        for _ in 0..2_000 {
            let (w, drawn) = n.route_calm(0, 1, &mut wild, false);
            let (c, same) = n.route_calm(0, 1, &mut calm, true);
            assert_eq!(drawn, same, "calm or not, the draws agree");
            seen.dropped |= drawn.dropped;
            seen.duplicated |= drawn.duplicated;
            seen.delayed |= drawn.delayed;
            let Route::Deliver {
                delay_ns,
                duplicate_delay_ns,
            } = c
            else {
                panic!("a calm message on a clean link is never lost: {c:?}")
            };
            assert_eq!(duplicate_delay_ns, None);
            assert!((2 * MS..=6 * MS).contains(&delay_ns), "{delay_ns}");
            if !drawn.any() {
                assert_eq!(w, c, "without chaos, calm changes nothing");
            }
            if drawn.dropped {
                assert_eq!(w, Route::Lost(DropCause::Loss));
                assert_eq!(delay_ns, 2 * MS, "no delay was drawn: the minimum");
            }
        }
        assert!(seen.dropped && seen.duplicated && seen.delayed, "{seen:?}");
        use rand::RngCore;
        assert_eq!(wild.next_u64(), calm.next_u64(), "the stream stays aligned");
    }

    #[test]
    fn calm_does_not_lift_faults() {
        let mut n = Network::new(NetConfig {
            delay_ms_min: 1,
            delay_ms_max: 1,
            ..NetConfig::default()
        });
        n.cut(0, 1);
        n.degrade(0, 2, 1_000_000, 7);
        let mut rng = stream(2, Stream::Net);
        assert_eq!(n.route_calm(0, 1, &mut rng, true).0, Route::Lost(DropCause::Partition));
        assert_eq!(n.route_calm(0, 2, &mut rng, true).0, Route::Lost(DropCause::Loss));
        n.degrade(0, 2, 0, 7);
        let (r, drawn) = n.route_calm(0, 2, &mut rng, true);
        assert_eq!(
            r,
            Route::Deliver {
                delay_ns: 8 * MS,
                duplicate_delay_ns: None
            }
        );
        assert!(!drawn.any(), "a degraded link is a fault, not chaos");
    }
}
