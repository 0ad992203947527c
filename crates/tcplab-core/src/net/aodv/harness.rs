//! A tiny network for AODV's tests: N agents over a fixed adjacency, every transmission taking
//! `hop_delay`, timers run in time order, links that can be failed. It records every control
//! packet sent, data deliveries, drops, purges and route signals, as a packet-level trace.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use super::{Aodv, AodvParams, ORIGIN_TTL};
use crate::ids::{NodeId, PktId};
use crate::net::routing::{
    Decision, DropReason, Hop, Port, RouteSignal, RoutingAgent, RoutingIo, BROADCAST_ADDR,
};
use crate::net::{addr_node, node_addr};
use crate::packet::{
    Addr, AodvMsg, Ecn, Ipv4Header, Packet, TcpFlags, TcpHeader, Transport, UdpHeader,
};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

/// One control packet as it left a node.
#[derive(Clone, Debug)]
pub struct Sent {
    pub at: SimTime,
    pub node: usize,
    /// Neighbour it was addressed to (BROADCAST_ADDR: all).
    pub next: Addr,
    pub ttl: u8,
    pub ip_src: Addr,
    pub ip_dst: Addr,
    pub msg: AodvMsg,
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
}

pub struct Net {
    pub nodes: Vec<Aodv>,
    adj: Vec<BTreeSet<usize>>,
    down: BTreeSet<(usize, usize)>,
    pub now: SimTime,
    pub hop_delay: SimTime,
    queue: BinaryHeap<Reverse<(SimTime, u64)>>,
    events: HashMap<u64, Ev>,
    order: u64,
    data: HashMap<PktId, Packet>,
    next_id: u32,
    pub sent: Vec<Sent>,
    /// (time, node, packet) data packets that reached their destination.
    pub delivered: Vec<(SimTime, usize, PktId)>,
    pub dropped: Vec<(SimTime, usize, PktId, DropReason)>,
    pub purged: Vec<(SimTime, usize, Addr)>,
    pub signals: Vec<(SimTime, usize, RouteSignal)>,
}

pub fn addr(i: usize) -> Addr {
    node_addr(NodeId(i as u32))
}

pub fn node_of(a: Addr) -> usize {
    (a - addr(0)) as usize
}

impl Net {
    /// `n` nodes with `params`, bidirectional `links`.
    pub fn new(n: usize, links: &[(usize, usize)], params: AodvParams) -> Net {
        let nodes = (0..n)
            .map(|i| {
                let rng = Rng::derive(1, StreamId::Custom(i as u64));
                Aodv::new(addr(i), Port(0), params, rng)
            })
            .collect();
        let mut adj = vec![BTreeSet::new(); n];
        for &(a, b) in links {
            adj[a].insert(b);
            adj[b].insert(a);
        }
        Net {
            nodes,
            adj,
            down: BTreeSet::new(),
            now: SimTime::ZERO,
            hop_delay: SimTime::from_millis(1),
            queue: BinaryHeap::new(),
            events: HashMap::new(),
            order: 0,
            data: HashMap::new(),
            next_id: 0,
            sent: Vec::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            purged: Vec::new(),
            signals: Vec::new(),
        }
    }

    /// A string 0 – 1 – … – (n−1).
    pub fn string(n: usize, params: AodvParams) -> Net {
        let links: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
        Net::new(n, &links, params)
    }

    /// Breaks the link a–b both ways: unicasts over it fail, broadcasts do not reach across.
    pub fn fail_link(&mut self, a: usize, b: usize) {
        self.down.insert((a, b));
        self.down.insert((b, a));
    }

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

    /// Node `src` originates a data packet to node `dst` now.
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
                ttl: ORIGIN_TTL,
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
        if self.up(node, next) {
            let pkt = self.data[&id].clone();
            self.schedule(
                at,
                Ev::Arrive {
                    to: next,
                    from: node,
                    pkt,
                    id: Some(id),
                },
            );
        } else {
            self.schedule(at, Ev::Fail { node, next, id });
        }
    }

    /// Carries out what an agent asked for.
    fn apply(&mut self, node: usize, io: RoutingIo) {
        for (h, pkt) in io.send {
            self.sent.push(Sent {
                at: self.now,
                node,
                next: h.next,
                ttl: pkt.ip.ttl,
                ip_src: pkt.ip.src,
                ip_dst: pkt.ip.dst,
                msg: pkt.aodv().expect("AODV control").clone(),
            });
            let at = self.now + self.hop_delay;
            let targets: Vec<usize> = if h.next == BROADCAST_ADDR {
                self.adj[node].iter().copied().collect()
            } else {
                addr_node(h.next, self.nodes.len())
                    .map(|n| vec![n.idx()])
                    .unwrap_or_default()
            };
            for to in targets {
                if self.up(node, to) {
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
        for h in io.purge {
            self.purged.push((self.now, node, h.next));
        }
        for s in io.signals {
            self.signals.push((self.now, node, s));
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
            let timer = self.next_timer();
            let t = match (ev_at, timer) {
                (Some(e), Some((t, _))) => e.min(t),
                (Some(e), None) => e,
                (None, Some((t, _))) => t,
                (None, None) => {
                    self.now = self.now.max(until);
                    return;
                }
            };
            if t > until {
                self.now = self.now.max(until);
                return;
            }
            self.now = self.now.max(t);
            if ev_at == Some(t) {
                let Reverse((_, k)) = self.queue.pop().unwrap();
                let ev = self.events.remove(&k).unwrap();
                self.handle(ev);
            } else {
                let (_, i) = timer.unwrap();
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
                    None => self.nodes[to].on_control(self.now, Port(0), from_addr, &pkt, &mut io),
                    Some(id) => {
                        if pkt.ip.dst == addr(to) {
                            self.delivered.push((self.now, to, id));
                        } else {
                            let mut pkt = pkt;
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

    /// Control packets originated or forwarded by `node` of one kind.
    pub fn sent_by(&self, node: usize, kind: u8) -> Vec<&Sent> {
        self.sent
            .iter()
            .filter(|s| s.node == node && s.msg.type_code() == kind)
            .collect()
    }

    pub fn delivered_ids(&self, node: usize) -> Vec<PktId> {
        self.delivered
            .iter()
            .filter(|d| d.1 == node)
            .map(|d| d.2)
            .collect()
    }
}
