//! A tiny network for routing agents' trace tests, for any [`RoutingAgent`]: N agents over a
//! fixed adjacency, every transmission taking `hop_delay`, timers run in time order, links
//! that can be failed. It records every control packet sent, data deliveries (as the
//! destination received them), drops and route signals. An agent that asks for overheard
//! frames ([`RoutingAgent::wants_overheard`]) is shown every unicast a neighbour of it sends
//! to another node over a working link (the link it went over is up, so with RTS/CTS the
//! data frame was sent), as the world's promiscuous MAC does.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use crate::ids::{NodeId, PktId};
use crate::net::routing::{
    Decision, DropReason, Hop, Port, RouteSignal, RoutingAgent, RoutingIo, BROADCAST_ADDR,
};
use crate::net::{addr_node, node_addr};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, TcpFlags, TcpHeader, Transport, UdpHeader};
use crate::time::SimTime;

/// The IP TTL the harness's sources give data.
pub const DATA_TTL: u8 = 64;

/// One control packet as it left a node.
#[derive(Clone, Debug)]
pub struct Sent {
    pub at: SimTime,
    pub node: usize,
    /// Neighbour it was addressed to (BROADCAST_ADDR: all).
    pub next: Addr,
    pub pkt: Packet,
}

#[derive(Debug)]
enum Ev {
    /// `pkt` (data when `id` is Some) arrives at node `to` from neighbour `from`.
    Arrive {
        to: usize,
        from: usize,
        pkt: Packet,
        id: Option<PktId>,
    },
    /// The MAC of `node` gave up sending data packet `id` to `next`.
    Fail { node: usize, next: usize, id: PktId },
    /// Node `to` overhears `pkt` going from `from` to `next`.
    Overhear {
        to: usize,
        from: usize,
        next: usize,
        pkt: Packet,
    },
}

pub struct Net<A> {
    pub nodes: Vec<A>,
    adj: Vec<BTreeSet<usize>>,
    down: BTreeSet<(usize, usize)>,
    /// Links whose next data unicast fails once (a MAC giving up on a link that still works).
    fail_once: BTreeSet<(usize, usize)>,
    pub now: SimTime,
    pub hop_delay: SimTime,
    queue: BinaryHeap<Reverse<(SimTime, u64)>>,
    events: HashMap<u64, Ev>,
    order: u64,
    pub data: HashMap<PktId, Packet>,
    next_id: u32,
    pub sent: Vec<Sent>,
    /// (time, node, packet as it arrived) data that reached its destination.
    pub delivered: Vec<(SimTime, usize, Packet)>,
    /// (time, node, packet as it left) data transmissions, hop by hop.
    pub data_hops: Vec<(SimTime, usize, Addr, Packet)>,
    pub dropped: Vec<(SimTime, usize, PktId, DropReason)>,
    pub signals: Vec<(SimTime, usize, RouteSignal)>,
    /// (time, node, neighbour) interface queues the agent asked to purge.
    pub purged: Vec<(SimTime, usize, Addr)>,
    /// (time, node, packet) data taken back from a queue the agent asked to recycle.
    pub recycled: Vec<(SimTime, usize, PktId)>,
    /// (time, overhearing node, sender, addressee) unicasts lent to a listening agent.
    pub overheard: Vec<(SimTime, usize, usize, usize)>,
    /// Unicast control packets over a failed link (or one `fail_next` names) are reported to
    /// their sender's agent as the world's MAC does (`on_link_failure`), with a packet id;
    /// off, they are lost silently.
    pub control_fails: bool,
}

pub fn addr(i: usize) -> Addr {
    node_addr(NodeId(i as u32))
}

impl<A: RoutingAgent> Net<A> {
    /// The agents `nodes` over bidirectional `links`.
    pub fn new(nodes: Vec<A>, links: &[(usize, usize)]) -> Net<A> {
        let mut adj = vec![BTreeSet::new(); nodes.len()];
        for &(a, b) in links {
            adj[a].insert(b);
            adj[b].insert(a);
        }
        Net {
            nodes,
            adj,
            down: BTreeSet::new(),
            fail_once: BTreeSet::new(),
            now: SimTime::ZERO,
            hop_delay: SimTime::from_millis(1),
            queue: BinaryHeap::new(),
            events: HashMap::new(),
            order: 0,
            data: HashMap::new(),
            next_id: 0,
            sent: Vec::new(),
            delivered: Vec::new(),
            data_hops: Vec::new(),
            dropped: Vec::new(),
            signals: Vec::new(),
            purged: Vec::new(),
            recycled: Vec::new(),
            overheard: Vec::new(),
            control_fails: false,
        }
    }

    /// Breaks the link a–b both ways: unicasts over it fail, broadcasts do not reach across.
    pub fn fail_link(&mut self, a: usize, b: usize) {
        self.down.insert((a, b));
        self.down.insert((b, a));
    }

    /// The next data unicast from `a` to `b` fails (the MAC reports it) while the link itself
    /// stays up: a false break, as collisions cause on a static string.
    pub fn fail_next(&mut self, a: usize, b: usize) {
        self.fail_once.insert((a, b));
    }

    /// Mends the link a–b (a node coming into range).
    pub fn restore_link(&mut self, a: usize, b: usize) {
        self.down.remove(&(a, b));
        self.down.remove(&(b, a));
    }

    fn up(&self, a: usize, b: usize) -> bool {
        self.adj[a].contains(&b) && !self.down.contains(&(a, b))
    }

    fn schedule(&mut self, at: SimTime, ev: Ev) {
        self.order += 1;
        self.events.insert(self.order, ev);
        self.queue.push(Reverse((at, self.order)));
    }

    /// Node `src` originates a 500-byte UDP datagram to node `dst` now.
    pub fn send_data(&mut self, src: usize, dst: usize) -> PktId {
        self.originate(
            src,
            dst,
            Transport::Udp(UdpHeader { sport: 9, dport: 9 }),
            500,
        )
    }

    /// Node `src`'s TCP sends a pure ACK `ack` from port `sport` to node `dst`'s port `dport`.
    pub fn send_tcp_ack(
        &mut self,
        src: usize,
        dst: usize,
        (sport, dport): (u16, u16),
        ack: u64,
    ) -> PktId {
        let h = TcpHeader::new(sport, dport, 1, ack, TcpFlags::ACK, 65535);
        self.originate(src, dst, Transport::Tcp(h), 0)
    }

    fn originate(&mut self, src: usize, dst: usize, l4: Transport, payload: u32) -> PktId {
        let id = PktId(self.next_id);
        self.next_id += 1;
        let mut pkt = Packet {
            ip: Ipv4Header {
                src: addr(src),
                dst: addr(dst),
                ttl: DATA_TTL,
                ecn: Ecn::NotEct,
                ident: id.0 as u16,
            },
            l4,
            payload,
            flow: 0,
        };
        let mut io = RoutingIo::default();
        let d = self.nodes[src].route(self.now, id, &mut pkt, None, &mut io);
        self.data.insert(id, pkt);
        self.decided(src, id, d);
        self.apply(src, io);
        id
    }

    fn decided(&mut self, node: usize, id: PktId, d: Decision) {
        match d {
            Decision::Forward(h) => self.transmit_data(node, id, h),
            Decision::Hold => {}
            Decision::Drop(why) => self.dropped.push((self.now, node, id, why)),
        }
    }

    fn transmit_data(&mut self, node: usize, id: PktId, h: Hop) {
        let next = addr_node(h.next, self.nodes.len())
            .expect("data to a node")
            .idx();
        let at = self.now + self.hop_delay;
        let pkt = self.data[&id].clone();
        self.data_hops.push((self.now, node, h.next, pkt.clone()));
        if self.up(node, next) && !self.fail_once.remove(&(node, next)) {
            self.overhear(at, node, next, &pkt);
            let ev = Ev::Arrive {
                to: next,
                from: node,
                pkt,
                id: Some(id),
            };
            self.schedule(at, ev);
        } else {
            self.schedule(at, Ev::Fail { node, next, id });
        }
    }

    /// The listening neighbours of `from` other than `next` overhear its unicast at `at`.
    fn overhear(&mut self, at: SimTime, from: usize, next: usize, pkt: &Packet) {
        let listeners: Vec<usize> = self.adj[from]
            .iter()
            .copied()
            .filter(|&n| n != next && self.up(from, n) && self.nodes[n].wants_overheard())
            .collect();
        for to in listeners {
            let pkt = pkt.clone();
            self.schedule(
                at,
                Ev::Overhear {
                    to,
                    from,
                    next,
                    pkt,
                },
            );
        }
    }

    /// Carries out what an agent asked for.
    fn apply(&mut self, node: usize, io: RoutingIo) {
        for (h, pkt) in io.send {
            self.sent.push(Sent {
                at: self.now,
                node,
                next: h.next,
                pkt: pkt.clone(),
            });
            let at = self.now + self.hop_delay;
            let targets: Vec<usize> = if h.next == BROADCAST_ADDR {
                self.adj[node].iter().copied().collect()
            } else {
                addr_node(h.next, self.nodes.len())
                    .map(|n| vec![n.idx()])
                    .unwrap_or_default()
            };
            if self.control_fails && h.next != BROADCAST_ADDR {
                if let Some(&to) = targets.first() {
                    if !self.up(node, to) || self.fail_once.remove(&(node, to)) {
                        let id = PktId(self.next_id);
                        self.next_id += 1;
                        self.data.insert(id, pkt);
                        self.schedule(at, Ev::Fail { node, next: to, id });
                        continue;
                    }
                }
            }
            for to in targets {
                if self.up(node, to) {
                    if h.next != BROADCAST_ADDR {
                        self.overhear(at, node, to, &pkt);
                    }
                    let pkt = pkt.clone();
                    let ev = Ev::Arrive {
                        to,
                        from: node,
                        pkt,
                        id: None,
                    };
                    self.schedule(at, ev);
                }
            }
        }
        for (id, h) in io.release {
            self.transmit_data(node, id, h);
        }
        for (id, why) in io.drop {
            self.dropped.push((self.now, node, id, why));
        }
        for s in io.signals {
            self.signals.push((self.now, node, s));
        }
        for h in io.purge {
            self.purged.push((self.now, node, h.next));
        }
        for h in io.recycle {
            self.recycle(node, h.next);
        }
        for id in io.reroute {
            let mut pkt = self.data[&id].clone();
            let mut io = RoutingIo::default();
            let d = self.nodes[node].route(self.now, id, &mut pkt, None, &mut io);
            self.data.insert(id, pkt);
            self.decided(node, id, d);
            self.apply(node, io);
        }
    }

    /// The data `node` is still trying to send to `next` (failures not yet reported: the
    /// harness's interface queue) go back to the agent, one by one.
    fn recycle(&mut self, node: usize, next: Addr) {
        let mut waiting: Vec<(u64, PktId)> = self
            .events
            .iter()
            .filter_map(|(&k, ev)| match *ev {
                Ev::Fail {
                    node: n,
                    next: x,
                    id,
                } if n == node && addr(x) == next => Some((k, id)),
                _ => None,
            })
            .collect();
        waiting.sort();
        for (k, id) in waiting {
            self.events.remove(&k);
            self.recycled.push((self.now, node, id));
            let hop = Hop {
                port: Port(0),
                next,
            };
            let pkt = self.data[&id].clone();
            let mut io = RoutingIo::default();
            let d = self.nodes[node].on_recycled(self.now, hop, id, &pkt, &mut io);
            self.decided(node, id, d);
            self.apply(node, io);
        }
    }

    fn next_timer(&self) -> Option<(SimTime, usize)> {
        (0..self.nodes.len())
            .filter_map(|i| self.nodes[i].poll_timeout().map(|t| (t, i)))
            .min()
    }

    /// Runs events and timers in time order up to and including `until`.
    pub fn run_until(&mut self, until: SimTime) {
        assert!(until >= self.now, "time runs forwards");
        for _ in 0..1_000_000 {
            let ev_at = self.queue.peek().map(|r| r.0 .0);
            let t = match (ev_at, self.next_timer()) {
                (Some(e), Some((t, _))) => e.min(t),
                (Some(e), None) => e,
                (None, Some((t, _))) => t,
                (None, None) => until,
            };
            if t > until || (ev_at.is_none() && self.next_timer().is_none()) {
                self.now = self.now.max(until);
                return;
            }
            self.now = self.now.max(t);
            if ev_at == Some(t) {
                let Reverse((_, k)) = self.queue.pop().unwrap();
                // An event gone from the map was taken back (a recycled queue).
                if let Some(ev) = self.events.remove(&k) {
                    self.handle(ev);
                }
            } else {
                let (_, i) = self.next_timer().unwrap();
                let mut io = RoutingIo::default();
                self.nodes[i].on_timeout(self.now, &mut io);
                self.apply(i, io);
            }
        }
        panic!("no progress: a million steps before {until}");
    }

    fn handle(&mut self, ev: Ev) {
        let mut io = RoutingIo::default();
        match ev {
            Ev::Arrive { to, from, pkt, id } => {
                let from_addr = addr(from);
                match id {
                    // A control packet the harness gave an id (it failed once and was sent
                    // again) is still the agent's, as the world hands it over.
                    _ if self.nodes[to].is_control(&pkt) => {
                        self.nodes[to].on_control(self.now, Port(0), from_addr, &pkt, &mut io)
                    }
                    None => self.nodes[to].on_control(self.now, Port(0), from_addr, &pkt, &mut io),
                    Some(id) => {
                        let mut pkt = pkt;
                        if pkt.ip.dst == addr(to) {
                            let arrived = pkt.clone();
                            self.nodes[to]
                                .on_local_delivery(self.now, &mut pkt, from_addr, &mut io);
                            self.data.insert(id, pkt);
                            self.delivered.push((self.now, to, arrived));
                        } else {
                            pkt.ip.ttl -= 1;
                            let d = self.nodes[to].route(
                                self.now,
                                id,
                                &mut pkt,
                                Some(from_addr),
                                &mut io,
                            );
                            self.data.insert(id, pkt);
                            self.decided(to, id, d);
                        }
                    }
                }
                self.apply(to, io);
            }
            Ev::Overhear {
                to,
                from,
                next,
                pkt,
            } => {
                self.overheard.push((self.now, to, from, next));
                let (a, b) = (addr(from), addr(next));
                self.nodes[to].on_overheard(self.now, Port(0), a, b, &pkt, &mut io);
                self.apply(to, io);
            }
            Ev::Fail { node, next, id } => {
                let hop = Hop {
                    port: Port(0),
                    next: addr(next),
                };
                let pkt = self.data[&id].clone();
                let d = self.nodes[node].on_link_failure(self.now, hop, id, &pkt, &mut io);
                self.decided(node, id, d);
                self.apply(node, io);
            }
        }
    }

    /// Control packets sent by `node` that `pick` accepts.
    pub fn sent_by(&self, node: usize, pick: impl Fn(&Packet) -> bool) -> Vec<&Sent> {
        self.sent
            .iter()
            .filter(|s| s.node == node && pick(&s.pkt))
            .collect()
    }
}
