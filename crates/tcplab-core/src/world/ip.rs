//! IP at each node: input (local delivery or forwarding), forwarding through the node's routing
//! agent, carrying out what the agent asks, and ICMP destination unreachable.

use super::World;
use crate::agents::{AgentEvent, FEEDBACK_GOING_DOWN, FEEDBACK_PORT, FEEDBACK_UP};
use crate::ids::{NodeId, PktId};
use crate::net::{
    AnyRouting, Decision, DropReason, Hop, Port, PortKind, RouteSignal, RoutingAgent, RoutingIo,
    StaticRoutes, BROADCAST_ADDR,
};
use crate::packet::icmp::{IcmpUnreachable, HOST_UNREACHABLE};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, Transport};
use crate::sim::Event;
use crate::tcp::ext::Notice;
use crate::time::SimTime;
use crate::trace::events as ev;
use crate::trace::view::Discard;
use crate::wifi::BROADCAST;

impl World {
    /// Gives every node a static shortest-path table over wired links and WLAN adjacencies (ad
    /// hoc: stations in reception range now; infrastructure: stations and their AP). Call after
    /// every link and station is added. Ties break towards wired interfaces, then stations, in
    /// the order they were created. Nodes that run another agent keep it.
    pub fn install_static_routes(&mut self) {
        // Only nodes with static routing get (and cost) a table.
        let wanted: Vec<bool> = self
            .routing
            .iter()
            .map(|a| matches!(a, AnyRouting::Static(_)))
            .collect();
        if !wanted.contains(&true) {
            return;
        }
        let mut adj: Vec<Vec<(Hop, crate::ids::NodeId)>> = self
            .nodes
            .iter()
            .map(|n| {
                n.ifaces
                    .iter()
                    .map(|&i| {
                        let ifc = &self.ifaces[i.idx()];
                        let peer = self.ifaces[ifc.peer.idx()].node;
                        let next = self.nodes[peer.idx()].addr;
                        (
                            Hop {
                                port: ifc.port,
                                next,
                            },
                            peer,
                        )
                    })
                    .collect()
            })
            .collect();
        for (a, b) in self.wifi.adjacency() {
            let (na, nb) = (
                self.wifi.stations[a as usize].node,
                self.wifi.stations[b as usize].node,
            );
            let port = self.sta_port[a as usize];
            let next = self.nodes[nb.idx()].addr;
            adj[na.idx()].push((Hop { port, next }, nb));
        }
        let tables = crate::net::shortest_paths_for(&adj, &wanted);
        for (agent, table) in self.routing.iter_mut().zip(tables) {
            if let (AnyRouting::Static(_), Some(table)) = (&*agent, table) {
                *agent = AnyRouting::Static(StaticRoutes::new(table));
            }
        }
    }

    /// Replaces `node`'s routing agent.
    pub fn set_routing(&mut self, node: NodeId, agent: AnyRouting) {
        self.routing[node.idx()] = agent;
        self.set_promiscuous(node);
    }

    pub fn routing(&self, node: NodeId) -> &AnyRouting {
        &self.routing[node.idx()]
    }

    /// Starts every routing agent's timers (HELLOs, purges); call once after building.
    pub fn start_routing(&mut self) {
        for n in 0..self.nodes.len() {
            self.rearm_routing(NodeId(n as u32));
        }
    }

    /// Sends a packet originating at `node` towards its destination.
    pub(super) fn originate(&mut self, node: NodeId, mut pkt: Packet) {
        pkt.ip.ident = self.nodes[node.idx()].next_ident();
        let id = self.alloc(pkt);
        self.flow_sent(id);
        // ns-2's trace: the agent sends it, the node's router receives it from the agent.
        self.ev(node, ev::AGT, ev::SEND, id, ev::NONE, ev::R_NONE);
        self.ev(node, ev::RTR, ev::RECEIVE, id, ev::NONE, ev::R_NONE);
        self.forward(node, id, None);
    }

    /// Asks `node`'s routing agent where packet `id` goes, and does it.
    pub(super) fn forward(&mut self, node: NodeId, id: PktId, from: Option<Addr>) {
        let now = self.now;
        let mut io = std::mem::take(&mut self.rio);
        let d = self.routing[node.idx()].route(now, id, &mut self.packets[id.idx()], from, &mut io);
        self.apply(node, id, d);
        self.routing_done(node, io);
    }

    /// Carries out a routing decision about packet `id` at `node`.
    pub(super) fn apply(&mut self, node: NodeId, id: PktId, d: Decision) {
        match d {
            Decision::Forward(hop) => self.send_via(node, hop, id),
            Decision::Hold => {}
            Decision::Drop(r) => self.routing_drop(node, id, r),
        }
    }

    fn send_via(&mut self, node: NodeId, hop: Hop, id: PktId) {
        if self.ev_wants(ev::RTR, node) {
            // Its own packets (and its agent's control packets) are sent, others forwarded.
            let own = self.packets[id.idx()].ip.src == self.nodes[node.idx()].addr;
            let event = if own { ev::SEND } else { ev::FORWARD };
            let peer = self.ev_addr(hop.next);
            self.ev(node, ev::RTR, event, id, peer, ev::R_NONE);
        }
        match self.nodes[node.idx()].ports.get(hop.port.0 as usize) {
            Some(&PortKind::Wired(i)) => self.enqueue(i, id),
            Some(&PortKind::Wifi(sta)) => {
                let next = if hop.next == BROADCAST_ADDR {
                    Some(BROADCAST)
                } else {
                    self.station_of(sta, hop.next)
                };
                match next {
                    Some(next) => self.wifi_send(sta, next, id),
                    // The agent named a neighbour that is not on that port's WLAN.
                    None => self.routing_drop(node, id, DropReason::NoRoute),
                }
            }
            None => self.routing_drop(node, id, DropReason::NoRoute),
        }
    }

    /// Carries out what a routing agent asked, then re-arms its wake-up.
    pub(super) fn routing_done(&mut self, node: NodeId, mut io: RoutingIo) {
        // Every call into the agent ends here: the event trace's route rows are its table's
        // changes since the last one.
        self.ev_routes(node);
        if !io.is_empty() {
            for (hop, mut pkt) in io.send.drain(..) {
                pkt.ip.ident = self.nodes[node.idx()].next_ident();
                let id = self.alloc(pkt);
                self.send_via(node, hop, id);
            }
            for (id, hop) in io.release.drain(..) {
                self.send_via(node, hop, id);
            }
            for (id, r) in io.drop.drain(..) {
                self.routing_drop(node, id, r);
            }
            for hop in io.purge.drain(..) {
                self.purge(node, hop);
            }
            for hop in io.recycle.drain(..) {
                self.recycle(node, hop);
            }
            for sig in io.signals.drain(..) {
                self.route_signal(node, sig);
            }
            for id in std::mem::take(&mut io.reroute) {
                self.forward(node, id, None);
            }
        }
        if self.rio.is_empty() {
            self.rio = io; // keep the allocations
        }
        self.rearm_routing(node);
    }

    /// Takes what waits in `hop.port`'s queue for `hop.next` out of it (wireless ports only: a
    /// wired link does not break).
    fn take_queued_for(&mut self, node: NodeId, hop: Hop) -> Vec<PktId> {
        let Some(&PortKind::Wifi(sta)) = self.nodes[node.idx()].ports.get(hop.port.0 as usize)
        else {
            return Vec::new();
        };
        let Some(next) = self.station_of(sta, hop.next) else {
            return Vec::new();
        };
        let taken = self.wifi.drain_queue_for(sta, next);
        if self.ev_wants(ev::IFQ, node) {
            // They leave the queue (ns-2's `ifqueue->filter`): a dequeue row each, before what
            // the routing agent does with them.
            let peer = self.wifi.stations[next as usize].node.0;
            for &id in &taken {
                self.ev(node, ev::IFQ, ev::DEQUEUE, id, peer, ev::R_NONE);
            }
        }
        taken
    }

    /// Drops what waits in `hop.port`'s queue for `hop.next` (ns-2 AODV's `ifqueue->filter`).
    fn purge(&mut self, node: NodeId, hop: Hop) {
        for id in self.take_queued_for(node, hop) {
            self.routing_drop(node, id, DropReason::LinkBroken);
        }
    }

    /// Hands what waits in `hop.port`'s queue for `hop.next` back to the routing agent, one
    /// packet at a time (ns-2 DSR's `ifq->filter` in `xmitFailed`).
    fn recycle(&mut self, node: NodeId, hop: Hop) {
        for id in self.take_queued_for(node, hop) {
            self.undeliverable(node, hop, id, false);
        }
    }

    /// Packet `id` cannot go to `hop.next`: the link layer gave up on it (`failed`), or it was
    /// taken back from the queue for that neighbour. The node's routing agent decides.
    pub(super) fn undeliverable(&mut self, node: NodeId, hop: Hop, id: PktId, failed: bool) {
        let now = self.now;
        let mut io = std::mem::take(&mut self.rio);
        let (agent, pkt) = (&mut self.routing[node.idx()], &self.packets[id.idx()]);
        let d = if failed {
            agent.on_link_failure(now, hop, id, pkt, &mut io)
        } else {
            agent.on_recycled(now, hop, id, pkt, &mut io)
        };
        self.apply(node, id, d);
        self.routing_done(node, io);
    }

    /// Discards packet `id` at `node` for `reason`; tells its source when the reason calls for
    /// an ICMP destination unreachable.
    fn routing_drop(&mut self, node: NodeId, id: PktId, reason: DropReason) {
        self.nodes[node.idx()].drops.count(reason);
        self.view_drop(node, id, Discard::Routing(reason), None);
        if reason.sends_icmp() {
            self.icmp_unreachable(node, id);
        }
        self.lose(id);
    }

    /// RFC 792 / RFC 1812 §4.3.2.3: a router that cannot deliver a datagram tells its source
    /// with a destination unreachable (host unreachable), except about an ICMP error, a
    /// routing packet or a broadcast (RFC 1812 §4.3.2.7). A packet that originated here is
    /// reported to the local socket directly, as a host stack reports EHOSTUNREACH.
    fn icmp_unreachable(&mut self, node: NodeId, id: PktId) {
        let p = &self.packets[id.idx()];
        if matches!(p.l4, Transport::Icmp(_))
            || self.routing[node.idx()].is_control(p)
            || p.ip.dst == BROADCAST_ADDR
        {
            return;
        }
        let msg = IcmpUnreachable::about(p, HOST_UNREACHABLE);
        let (src, own) = (p.ip.src, self.nodes[node.idx()].addr);
        if src == own {
            self.icmp_to_socket(node, &msg);
            return;
        }
        if !self.routing[node.idx()].sends_icmp_unreachable() {
            return; // ns-2.35 has no ICMP: the relay's drop is silent
        }
        self.nodes[node.idx()].drops.icmp_sent += 1;
        let pkt = Packet {
            ip: Ipv4Header {
                src: own,
                dst: src,
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: 0,
            },
            l4: Transport::Icmp(msg),
            payload: 0,
            flow: u32::MAX,
        };
        self.originate(node, pkt);
    }

    /// Hands an ICMP destination unreachable to the socket whose datagram it quotes.
    fn icmp_to_socket(&mut self, node: NodeId, m: &IcmpUnreachable) {
        self.nodes[node.idx()].drops.icmp_received += 1;
        let (local_port, remote_port) = m.orig_ports();
        let key = (node, local_port, m.orig_ip.dst, remote_port);
        if let Some(&s) = self.demux.get(&key) {
            let now = self.now;
            self.sockets[s.idx()].notify(now, Notice::IcmpUnreachable, &mut self.out);
            self.after_socket(s);
        }
    }

    /// Passes a route event to the sockets of `node` whose peer is its destination.
    fn route_signal(&mut self, node: NodeId, sig: RouteSignal) {
        if matches!(sig, RouteSignal::Lost { .. } | RouteSignal::Restored { .. }) {
            self.nodes[node.idx()].drops.route_changes += 1;
        }
        let (dst, notice) = match sig {
            RouteSignal::Lost { dst } => (dst, Notice::RouteFailure),
            RouteSignal::Restored { dst } => (dst, Notice::RouteReestablished),
            RouteSignal::AckLearned {
                peer,
                peer_port,
                port,
                ack,
            } => {
                // One connection: the one the ACK belongs to.
                if let Some(&s) = self.demux.get(&(node, port, peer, peer_port)) {
                    let now = self.now;
                    self.sockets[s.idx()].notify(now, Notice::AckLearned(ack), &mut self.out);
                    self.after_socket(s);
                }
                return;
            }
        };
        let now = self.now;
        for s in 0..self.sockets.len() {
            if self.sock_node[s] == node && self.sock_remote[s] == dst {
                self.sockets[s].notify(now, notice, &mut self.out);
                self.after_socket(crate::ids::SockId(s as u32));
            }
        }
    }

    /// Passes a link notice (a predicted disconnection, the link back) to every socket of
    /// `node` (Freeze-TCP's receiver listens).
    pub(super) fn link_notice(&mut self, node: NodeId, notice: Notice) {
        let now = self.now;
        for s in 0..self.sockets.len() {
            if self.sock_node[s] == node {
                self.sockets[s].notify(now, notice, &mut self.out);
                self.after_socket(crate::ids::SockId(s as u32));
            }
        }
    }

    pub(super) fn on_routing_timer(&mut self, node: NodeId, gen: u32) {
        let w = &mut self.routing_wake[node.idx()];
        if w.1 != gen {
            return; // superseded
        }
        w.0 = None;
        let now = self.now;
        let mut io = std::mem::take(&mut self.rio);
        self.routing[node.idx()].on_timeout(now, &mut io);
        self.routing_done(node, io);
    }

    fn rearm_routing(&mut self, node: NodeId) {
        let Some(t) = self.routing[node.idx()].poll_timeout() else {
            return;
        };
        let w = &mut self.routing_wake[node.idx()];
        if w.0.is_none_or(|cur| t < cur) {
            let superseded = w.0.is_some();
            w.1 = w.1.wrapping_add(1);
            w.0 = Some(t);
            self.queue
                .schedule(t.max(self.now), Event::RoutingTimer(node.0, w.1));
            if superseded {
                self.note_superseded();
            }
        }
    }

    /// IP input at `node` of a packet that arrived on `port` from neighbour `from`: routing
    /// control to the agent, local delivery, or forwarding.
    pub(super) fn receive_ip(&mut self, node: NodeId, id: PktId, port: Port, from: Addr) {
        let prev = if self.event_trace.is_some() {
            self.ev_addr(from)
        } else {
            ev::NONE
        };
        if self.routing[node.idx()].is_control(&self.packets[id.idx()]) {
            self.ev(node, ev::RTR, ev::RECEIVE, id, prev, ev::R_NONE);
            let now = self.now;
            let mut io = std::mem::take(&mut self.rio);
            self.routing[node.idx()].on_control(now, port, from, &self.packets[id.idx()], &mut io);
            self.free(id);
            self.routing_done(node, io);
            return;
        }
        if self
            .node_has_agent
            .get(node.idx())
            .copied()
            .unwrap_or(false)
            && !self.agent_filter(node, id)
        {
            return;
        }
        let p = &self.packets[id.idx()];
        let local = p.ip.dst == self.nodes[node.idx()].addr || p.ip.dst == BROADCAST_ADDR;
        // ns-2's trace: a packet for this node goes to its agent (no router line), one for
        // another node through the router.
        let layer = if local { ev::AGT } else { ev::RTR };
        self.ev(node, layer, ev::RECEIVE, id, prev, ev::R_NONE);
        let p = &mut self.packets[id.idx()];
        if p.ip.dst == self.nodes[node.idx()].addr {
            let (now, mut io) = (self.now, std::mem::take(&mut self.rio));
            self.routing[node.idx()].on_local_delivery(now, p, from, &mut io);
            self.routing_done(node, io);
            self.deliver_local(node, id);
        } else if p.ip.dst == BROADCAST_ADDR {
            self.deliver_local(node, id);
        } else if p.ip.ttl <= 1 {
            self.nodes[node.idx()].drops.ttl += 1;
            self.lose_at(node, id, Discard::Ttl, None);
        } else {
            p.ip.ttl -= 1;
            self.forward(node, id, Some(from));
        }
    }

    fn deliver_local(&mut self, node: NodeId, id: PktId) {
        let now = self.now;
        let p = &self.packets[id.idx()];
        match &p.l4 {
            Transport::Tcp(h) => {
                let key = (node, h.dport, p.ip.src, h.sport);
                if let Some(&s) = self.demux.get(&key) {
                    let ce = p.ip.ecn == Ecn::Ce;
                    let ledger = &mut self.ledgers[s.idx()];
                    ledger.on_arrival(h, p.payload);
                    self.sockets[s.idx()].on_segment(now, h, p.payload, ce, &mut self.out);
                    if self.sockets[s.idx()].delivered() > ledger.in_order() {
                        // Recorded now: a later arrival would hide the moment it went wrong.
                        self.conservation_first.get_or_insert((now, s));
                    }
                    self.flow_received(id);
                    self.free(id);
                    self.after_socket(s);
                    return;
                }
            }
            Transport::Icmp(m) => {
                let m = *m;
                self.free(id);
                self.icmp_to_socket(node, &m);
                return;
            }
            Transport::Udp(u) if u.dport == FEEDBACK_PORT => {
                let ev = match u.sport {
                    FEEDBACK_GOING_DOWN => Some(AgentEvent::LinkGoingDown {
                        est_down: SimTime::ZERO,
                        rtt_to_mobile: None,
                    }),
                    FEEDBACK_UP => Some(AgentEvent::LinkUp),
                    _ => None,
                };
                let src = p.ip.src;
                if let Some(ev) = ev {
                    self.feedback_received(node, src, ev);
                }
            }
            // Routing packets went to the agent before local delivery (receive_ip), which
            // also removed a DSR header from the data it carries.
            Transport::Aodv(_) | Transport::Dsr(_) | Transport::Dsdv(_) => {}
            // ARP frames go to the ARP table before IP (world/arp.rs).
            Transport::Arp(_) => {}
            Transport::Udp(u) => {
                if let Some(c) = self
                    .cbr
                    .iter_mut()
                    .find(|c| c.dst == node && c.port == u.dport)
                {
                    c.received += 1;
                    c.bytes_received += p.payload as u64;
                    self.flow_received(id);
                }
            }
        }
        self.free(id);
    }
}
