//! The world: every node, interface, socket and application of a run in arenas addressed by
//! typed ids, plus the event loop that drives them.
//!
//! Components are sans-IO; the world owns time and delivery. A socket is woken for its timers
//! through one pending wake-up at a time (lazy cancellation with generation numbers, see `sim`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use crate::agents::{
    AgentEvent, AnyAgent, Dir, Verdict, FEEDBACK_GOING_DOWN, FEEDBACK_PAYLOAD, FEEDBACK_PORT,
    FEEDBACK_UP,
};
use crate::app::conservation::{check_tcp, check_udp, StreamLedger};
use crate::app::{AppKind, CbrFlow, TcpFlow};
use crate::ids::{FlowId, IfaceId, LinkId, NodeId, PktId, SockId};
use crate::link::{Enqueue, LossModel, Outage, Queue};
use crate::net::{addr_node, Node};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, Transport, UdpHeader};
use crate::rng::Rng;
use crate::sim::{Event, EventQueue};
use crate::tcp::{Segment, Socket};
use crate::time::SimTime;
use crate::trace::{PcapWriter, SeriesKind, SeriesSet};
use crate::wifi::{LinkSignalKind, Wifi, BROADCAST};

/// Counters of one interface (one direction of a link).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IfaceStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_outage: u64,
    pub ecn_marks: u64,
}

/// The sending side of one direction of a full-duplex point-to-point link.
pub struct Iface {
    pub node: NodeId,
    pub peer: IfaceId,
    pub link: LinkId,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    pub busy: bool,
    pub loss: LossModel,
    pub outage: Outage,
    pub rng: Rng,
    pub stats: IfaceStats,
    pub pcap: Option<PcapWriter>,
}

pub struct Link {
    pub name: String,
    pub ifaces: [IfaceId; 2],
}

/// Why a run stopped early with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// The scenario's event limit was reached before the run ended.
    EventLimit { limit: u64, at: SimTime },
    /// A pcap file could not be written.
    Io(String),
    /// Byte conservation failed (app/conservation.rs): the results cannot be trusted.
    Conservation(Vec<String>),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::EventLimit { limit, at } => {
                write!(f, "event limit of {limit} events reached at t = {at} (raise the scenario's top-level `max_events` or shorten its `duration`)")
            }
            SimError::Io(e) => write!(f, "I/O error: {e}"),
            SimError::Conservation(v) => {
                write!(
                    f,
                    "byte conservation violated (a simulator bug): {}",
                    v.join("; ")
                )
            }
        }
    }
}

impl std::error::Error for SimError {}

pub struct World {
    pub name: String,
    pub seed: u64,
    pub now: SimTime,
    pub stop_at: SimTime,
    pub max_events: u64,
    pub events: u64,
    queue: EventQueue,

    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub links: Vec<Link>,
    packets: Vec<Packet>,
    free_packets: Vec<PktId>,

    pub sockets: Vec<Socket>,
    sock_node: Vec<NodeId>,
    sock_flow: Vec<FlowId>,
    sock_wake: Vec<(Option<SimTime>, u32)>,
    /// What arrived at each socket, for the byte-conservation check.
    ledgers: Vec<StreamLedger>,
    /// The first moment a socket had delivered more than had arrived in order, if ever.
    conservation_first: Option<(SimTime, SockId)>,
    demux: HashMap<(NodeId, u16, Addr, u16), SockId, BuildHasherDefault<FxHasher>>,

    pub flows: Vec<TcpFlow>,
    pub series: Vec<SeriesSet>,
    pub cbr: Vec<CbrFlow>,
    active_flows: usize,
    /// Stop once every finite flow is finished (no unlimited flow, no CBR running).
    stop_when_idle: bool,

    out: Vec<Segment>,
    /// Every WLAN of the run (stations are wireless interfaces of nodes).
    pub wifi: Wifi,
    /// In-network agents (M-TCP, M-TCP+, ACK holder) and the feedback senders at mobiles.
    pub agents: Vec<AgentSlot>,
    pub feedback: Vec<FeedbackSender>,
    node_has_agent: Vec<bool>,
    /// How far the link-signal log has been read.
    signal_cursor: usize,
    agent_out: Vec<Packet>,
    /// Wireless first hops: `wifi_hop[node][dst]` = (sending station, next-hop station) when the
    /// route to `dst` leaves `node` over a WLAN (`Node::routes` then holds None).
    wifi_hop: Vec<Vec<Option<(u32, u32)>>>,
    /// pcap writers of wireless interfaces, by station.
    pub wifi_pcap: Vec<Option<PcapWriter>>,
    started: Option<Instant>,
    pub wall_time: f64,
    finished: bool,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(name: String, seed: u64, stop_at: SimTime, max_events: u64) -> World {
        World {
            name,
            seed,
            now: SimTime::ZERO,
            stop_at,
            max_events,
            events: 0,
            queue: EventQueue::new(),
            nodes: Vec::new(),
            ifaces: Vec::new(),
            links: Vec::new(),
            packets: Vec::new(),
            free_packets: Vec::new(),
            sockets: Vec::new(),
            sock_node: Vec::new(),
            sock_flow: Vec::new(),
            sock_wake: Vec::new(),
            ledgers: Vec::new(),
            conservation_first: None,
            demux: HashMap::default(),
            flows: Vec::new(),
            series: Vec::new(),
            cbr: Vec::new(),
            active_flows: 0,
            stop_when_idle: true,
            out: Vec::with_capacity(64),
            wifi: Wifi::new(),
            agents: Vec::new(),
            feedback: Vec::new(),
            node_has_agent: Vec::new(),
            signal_cursor: 0,
            agent_out: Vec::new(),
            wifi_hop: Vec::new(),
            wifi_pcap: Vec::new(),
            started: None,
            wall_time: 0.0,
            finished: false,
        }
    }

    // ------------------------------------------------------------------ building

    pub fn add_node(&mut self, name: &str) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            name: name.to_string(),
            addr: crate::net::node_addr(id),
            ifaces: Vec::new(),
            routes: Vec::new(),
            ip_ident: 0,
            drops_no_route: 0,
            drops_ttl: 0,
        });
        id
    }

    /// Adds a full-duplex link; `dirs[0]` describes a→b and `dirs[1]` b→a.
    pub fn add_link(&mut self, name: &str, a: NodeId, b: NodeId, dirs: [LinkDir; 2]) -> LinkId {
        let link = LinkId(self.links.len() as u32);
        let ia = IfaceId(self.ifaces.len() as u32);
        let ib = IfaceId(ia.0 + 1);
        for (k, d) in dirs.into_iter().enumerate() {
            let (node, peer) = if k == 0 { (a, ib) } else { (b, ia) };
            self.ifaces.push(Iface {
                node,
                peer,
                link,
                rate_bps: d.rate_bps,
                delay: d.delay,
                queue: d.queue,
                busy: false,
                loss: d.loss,
                outage: d.outage,
                rng: d.rng,
                stats: IfaceStats::default(),
                pcap: d.pcap,
            });
        }
        self.nodes[a.idx()].ifaces.push(ia);
        self.nodes[b.idx()].ifaces.push(ib);
        self.links.push(Link {
            name: name.to_string(),
            ifaces: [ia, ib],
        });
        link
    }

    /// Computes static shortest-path routes over wired links and WLAN adjacencies (ad hoc:
    /// stations in reception range now; infrastructure: stations and their AP); call after every
    /// link and station is added. Ties break towards wired interfaces, then stations, in the
    /// order they were created.
    pub fn compute_routes(&mut self) {
        #[derive(Clone, Copy)]
        enum Hop {
            Wired(IfaceId),
            Wifi(u32, u32),
        }
        let mut adj: Vec<Vec<(Hop, NodeId)>> = self
            .nodes
            .iter()
            .map(|n| {
                n.ifaces
                    .iter()
                    .map(|&i| {
                        (
                            Hop::Wired(i),
                            self.ifaces[self.ifaces[i.idx()].peer.idx()].node,
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
            adj[na.idx()].push((Hop::Wifi(a, b), nb));
        }
        let routes = crate::net::shortest_paths(&adj);
        let has_wifi = !self.wifi.is_empty();
        self.wifi_hop = Vec::new();
        for (n, r) in self.nodes.iter_mut().zip(routes) {
            n.routes = r
                .iter()
                .map(|h| match h {
                    Some(Hop::Wired(i)) => Some(*i),
                    _ => None,
                })
                .collect();
            if has_wifi {
                self.wifi_hop.push(
                    r.iter()
                        .map(|h| match h {
                            Some(Hop::Wifi(a, b)) => Some((*a, *b)),
                            _ => None,
                        })
                        .collect(),
                );
            }
        }
    }

    pub fn add_socket(&mut self, node: NodeId, sock: Socket, remote: Addr, flow: FlowId) -> SockId {
        let id = SockId(self.sockets.len() as u32);
        self.demux
            .insert((node, sock.local_port, remote, sock.remote_port), id);
        self.sockets.push(sock);
        self.ledgers.push(StreamLedger::default());
        self.sock_node.push(node);
        self.sock_flow.push(flow);
        self.sock_wake.push((None, 0));
        id
    }

    /// Registers a TCP flow; its client connects at `flow.start`.
    pub fn add_flow(&mut self, flow: TcpFlow, series: SeriesSet) -> FlowId {
        let id = FlowId(self.flows.len() as u32);
        if flow.kind == AppKind::Bulk {
            self.stop_when_idle = false;
        }
        self.queue.schedule(flow.start, Event::App(id.0));
        self.flows.push(flow);
        self.series.push(series);
        self.active_flows += 1;
        id
    }

    pub fn add_cbr(&mut self, c: CbrFlow) {
        self.stop_when_idle = false;
        let idx = (1u32 << 31) | self.cbr.len() as u32;
        self.queue.schedule(c.start, Event::App(idx));
        self.cbr.push(c);
    }

    pub fn next_flow_id(&self) -> FlowId {
        FlowId(self.flows.len() as u32)
    }

    // ------------------------------------------------------------------ running

    /// Runs until the stop time, until every flow is finished, or for at most `budget` events
    /// (then returns `Ok(false)` so a caller can check for interrupts and continue).
    pub fn run_for(&mut self, budget: u64) -> Result<bool, SimError> {
        if self.finished {
            return Ok(true);
        }
        let t0 = Instant::now();
        self.started.get_or_insert(t0);
        let mut n = 0u64;
        let res = loop {
            if n >= budget {
                break Ok(false);
            }
            let Some(t) = self.queue.peek_time() else {
                break Ok(true);
            };
            if t > self.stop_at {
                break Ok(true);
            }
            let (t, ev) = self.queue.pop().expect("peeked");
            self.now = t;
            self.events += 1;
            n += 1;
            if self.events > self.max_events {
                break Err(SimError::EventLimit {
                    limit: self.max_events,
                    at: t,
                });
            }
            self.dispatch(ev);
            if self.stop_when_idle && self.active_flows == 0 {
                break Ok(true);
            }
        };
        self.wall_time += t0.elapsed().as_secs_f64();
        if let Ok(true) = res {
            self.finished = true;
            // A run that ran out of events before the stop time ends at the last event; one that
            // reached the stop time ends there.
            if self.queue.peek_time().is_some_and(|t| t > self.stop_at) {
                self.now = self.stop_at;
            }
        }
        res
    }

    pub fn run(&mut self) -> Result<(), SimError> {
        while !self.run_for(u64::MAX)? {}
        Ok(())
    }

    /// Byte conservation at the end of a run (app/conservation.rs): every violation, per flow.
    pub fn conservation_violations(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some((t, s)) = self.conservation_first {
            let f = &self.flows[self.sock_flow[s.idx()].idx()];
            v.push(format!(
                "flow {}: at t = {t} a socket had delivered more bytes than had arrived in order",
                f.name
            ));
        }
        for f in &self.flows {
            let (c, s) = (f.client.idx(), f.server.idx());
            let size = match f.kind {
                AppKind::BulkDownload { size } => Some(size),
                AppKind::Bulk => None,
            };
            let download = (&self.ledgers[c], self.sockets[c].delivered(), size);
            let request = (
                &self.ledgers[s],
                self.sockets[s].delivered(),
                Some(f.request),
            );
            let done = [f.completed_at.is_some(), f.response_started];
            for ((ledger, delivered, written), done) in [download, request].into_iter().zip(done) {
                if let Some(e) = check_tcp(ledger, delivered, written, done) {
                    v.push(format!("flow {}: {e}", f.name));
                }
            }
        }
        for c in &self.cbr {
            let bytes_sent = c.sent * u64::from(c.packet_size);
            if let Some(e) = check_udp(c.sent, c.received, bytes_sent, c.bytes_received) {
                v.push(format!("flow {}: {e}", c.name));
            }
        }
        v
    }

    /// Flushes and closes pcap files.
    pub fn finish_pcaps(&mut self) -> Result<(), SimError> {
        for i in &mut self.ifaces {
            if let Some(w) = i.pcap.take() {
                w.finish().map_err(|e| SimError::Io(e.to_string()))?;
            }
        }
        for w in self.wifi_pcap.iter_mut().filter_map(Option::take) {
            w.finish().map_err(|e| SimError::Io(e.to_string()))?;
        }
        Ok(())
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(i) => self.start_tx(i),
            Event::Arrive(i, p) => self.on_arrive(i, p),
            Event::SockTimer(s, gen) => {
                let w = &mut self.sock_wake[s.idx()];
                if w.1 != gen {
                    return; // superseded
                }
                w.0 = None;
                let now = self.now;
                self.sockets[s.idx()].handle_timeout(now, &mut self.out);
                self.after_socket(s);
            }
            Event::App(a) if a & (1 << 31) != 0 => self.cbr_send((a & !(1 << 31)) as usize),
            Event::App(f) => self.flow_start(FlowId(f)),
            Event::WifiTimer(s, gen) => {
                self.wifi.on_timer(self.now, s, gen);
                self.wifi_io();
            }
            Event::WifiRxEnd(t) => {
                self.wifi.on_rx_end(self.now, t);
                self.wifi_io();
            }
            Event::WifiLink(s, k) => {
                self.wifi.on_link_event(self.now, s, k);
                self.wifi_io();
                self.deliver_link_signals();
            }
            Event::AgentTimer(a, gen) => {
                let slot = &mut self.agents[a as usize];
                if slot.wake.1 != gen {
                    return;
                }
                slot.wake.0 = None;
                let now = self.now;
                slot.agent.handle_timeout(now, &mut self.agent_out);
                self.after_agent(a as usize);
            }
        }
    }

    // ------------------------------------------------------------------ wireless

    /// Schedules the wireless system's first outage and signal events; call once after building.
    pub fn start_wifi(&mut self) {
        self.wifi.start(self.now);
        self.wifi_io();
    }

    /// Carries out what the wireless system asked for: events, packets handed up, freed copies.
    fn wifi_io(&mut self) {
        for (t, ev) in self.wifi.io.sched.drain(..) {
            self.queue.schedule(t, ev);
        }
        for &p in &self.wifi.io.freed {
            self.free_packets.push(p);
        }
        self.wifi.io.freed.clear();
        if !self.wifi.io.pcap_tx.is_empty() {
            let now = self.now;
            for (s, p) in std::mem::take(&mut self.wifi.io.pcap_tx) {
                if let Some(w) = self.wifi_pcap.get_mut(s as usize).and_then(Option::as_mut) {
                    w.record(now, &self.packets[p.idx()]);
                }
            }
        }
        while !self.wifi.io.up.is_empty() {
            let up = std::mem::take(&mut self.wifi.io.up);
            for &(s, p, _src) in &up {
                // The sender keeps its copy until the ACK (it may retransmit); the receiver gets
                // its own.
                let copy = self.packets[p.idx()].clone();
                let id = self.alloc(copy);
                let node = self.wifi.stations[s as usize].node;
                if let Some(w) = self.wifi_pcap.get_mut(s as usize).and_then(Option::as_mut) {
                    w.record(self.now, &self.packets[id.idx()]);
                }
                self.receive_ip(node, id);
            }
            let mut up = up;
            up.clear();
            if self.wifi.io.up.is_empty() {
                self.wifi.io.up = up;
            }
            // Forwarding may have produced more wireless work.
            for (t, ev) in self.wifi.io.sched.drain(..) {
                self.queue.schedule(t, ev);
            }
            for &p in &self.wifi.io.freed {
                self.free_packets.push(p);
            }
            self.wifi.io.freed.clear();
        }
    }

    /// Routing control packets (AODV, UDP port 654 — RFC 3561 §4) go to the head of a wireless
    /// interface queue, as ns-2's PriQueue with `Prefer_Routing_Protocols`.
    fn is_routing_control(p: &Packet) -> bool {
        matches!(p.l4, Transport::Aodv(_)) || matches!(p.l4, Transport::Udp(u) if u.dport == 654)
    }

    fn wifi_enqueue(&mut self, sta: u32, next: u32, id: PktId) {
        let p = &self.packets[id.idx()];
        let (len, prio) = (p.ip_len(), Self::is_routing_control(p));
        if !self.wifi.enqueue(self.now, sta, id, next, len, prio) {
            self.free(id);
        }
        if !self.wifi.io.up.is_empty()
            || !self.wifi.io.sched.is_empty()
            || !self.wifi.io.freed.is_empty()
        {
            self.wifi_io();
        }
    }

    /// Sends a packet on a WLAN as a link-layer broadcast (for routing protocols).
    pub fn wifi_broadcast(&mut self, sta: u32, pkt: Packet) {
        let id = self.alloc(pkt);
        self.wifi_enqueue(sta, BROADCAST, id);
    }

    // ------------------------------------------------------------------ agents

    /// Adds an agent at `node` serving the connections of `mobile`. For agents driven by feedback
    /// (M-TCP, M-TCP+), a feedback sender is placed at the mobile.
    pub fn add_agent(&mut self, node: NodeId, mobile: NodeId, agent: AnyAgent) {
        if self.node_has_agent.len() < self.nodes.len() {
            self.node_has_agent.resize(self.nodes.len(), false);
        }
        self.node_has_agent[node.idx()] = true;
        if agent.uses_feedback() {
            self.feedback.push(FeedbackSender {
                mobile,
                to: node,
                sent: 0,
            });
        }
        let mobile = self.nodes[mobile.idx()].addr;
        self.agents.push(AgentSlot {
            node,
            mobile,
            agent,
            wake: (None, 0),
        });
    }

    /// Hands a packet crossing `node` to its agents; false if one absorbed it.
    fn agent_filter(&mut self, node: NodeId, id: PktId) -> bool {
        let now = self.now;
        for a in 0..self.agents.len() {
            if self.agents[a].node != node {
                continue;
            }
            let mobile = self.agents[a].mobile;
            let p = &mut self.packets[id.idx()];
            if p.tcp().is_none() {
                continue;
            }
            let dir = if p.ip.dst == mobile {
                Dir::ToMobile
            } else if p.ip.src == mobile {
                Dir::FromMobile
            } else {
                continue;
            };
            let v = self.agents[a]
                .agent
                .on_packet(now, dir, p, &mut self.agent_out);
            self.after_agent(a);
            if v == Verdict::Absorb {
                self.free(id);
                return false;
            }
        }
        true
    }

    /// Sends what an agent produced and re-arms its wake-up.
    fn after_agent(&mut self, a: usize) {
        let node = self.agents[a].node;
        let mut out = std::mem::take(&mut self.agent_out);
        for mut p in out.drain(..) {
            let n = &mut self.nodes[node.idx()];
            n.ip_ident = n.ip_ident.wrapping_add(1);
            p.ip.ident = n.ip_ident;
            // Agent packets are routed from the agent's node without passing its own filter.
            let id = self.alloc(p);
            self.forward(node, id);
        }
        self.agent_out = out;
        let slot = &mut self.agents[a];
        if let Some(t) = slot.agent.poll_timeout() {
            if slot.wake.0.is_none_or(|cur| t < cur) {
                slot.wake.1 = slot.wake.1.wrapping_add(1);
                slot.wake.0 = Some(t);
                self.queue
                    .schedule(t.max(self.now), Event::AgentTimer(a as u32, slot.wake.1));
            }
        }
    }

    /// Passes new link signals to their consumers: an ACK holder hears its mobile's link
    /// indications directly (it is that link's base station); a feedback sender at a mobile
    /// turns its own node's going-down and up into datagrams to its intermediate host.
    fn deliver_link_signals(&mut self) {
        let now = self.now;
        while self.signal_cursor < self.wifi.log.len() {
            let sig = self.wifi.log[self.signal_cursor];
            self.signal_cursor += 1;
            let ev = match sig.kind {
                LinkSignalKind::GoingDown { expected } => AgentEvent::LinkGoingDown {
                    est_down: expected,
                    rtt_to_mobile: None,
                },
                LinkSignalKind::Gone => AgentEvent::LinkGone,
                LinkSignalKind::Up => AgentEvent::LinkUp,
                _ => continue,
            };
            let addr = self.nodes[sig.node.idx()].addr;
            for a in 0..self.agents.len() {
                if self.agents[a].mobile == addr && !self.agents[a].agent.uses_feedback() {
                    self.agents[a].agent.on_event(now, ev, &mut self.agent_out);
                    self.after_agent(a);
                }
            }
            for k in 0..self.feedback.len() {
                let f = self.feedback[k];
                let sport = match ev {
                    AgentEvent::LinkGoingDown { .. } if f.mobile == sig.node => FEEDBACK_GOING_DOWN,
                    AgentEvent::LinkUp if f.mobile == sig.node => FEEDBACK_UP,
                    _ => continue,
                };
                self.feedback[k].sent += 1;
                let src = self.nodes[f.mobile.idx()].addr;
                let dst = self.nodes[f.to.idx()].addr;
                let n = &mut self.nodes[f.mobile.idx()];
                n.ip_ident = n.ip_ident.wrapping_add(1);
                let pkt = Packet {
                    ip: Ipv4Header {
                        src,
                        dst,
                        ttl: 64,
                        ecn: Ecn::NotEct,
                        ident: n.ip_ident,
                    },
                    l4: Transport::Udp(UdpHeader {
                        sport,
                        dport: FEEDBACK_PORT,
                    }),
                    payload: FEEDBACK_PAYLOAD,
                    flow: u32::MAX,
                };
                self.originate(f.mobile, pkt);
            }
        }
    }

    // ------------------------------------------------------------------ packets

    fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(id) = self.free_packets.pop() {
            self.packets[id.idx()] = p;
            id
        } else {
            self.packets.push(p);
            PktId(self.packets.len() as u32 - 1)
        }
    }

    #[inline]
    fn free(&mut self, id: PktId) {
        self.free_packets.push(id);
    }

    /// Sends a packet originating at `node` towards its destination.
    fn originate(&mut self, node: NodeId, pkt: Packet) {
        let id = self.alloc(pkt);
        self.forward(node, id);
    }

    fn forward(&mut self, node: NodeId, id: PktId) {
        let dst = self.packets[id.idx()].ip.dst;
        let d = addr_node(dst, self.nodes.len());
        let route = d.and_then(|d| self.nodes[node.idx()].routes[d.idx()]);
        match route {
            Some(ifc) => self.enqueue(ifc, id),
            None => {
                let hop = d.and_then(|d| self.wifi_hop.get(node.idx()).and_then(|r| r[d.idx()]));
                match hop {
                    Some((sta, next)) => self.wifi_enqueue(sta, next, id),
                    None => {
                        self.nodes[node.idx()].drops_no_route += 1;
                        self.free(id);
                    }
                }
            }
        }
    }

    fn enqueue(&mut self, i: IfaceId, id: PktId) {
        let now = self.now;
        let (size, ect) = {
            let p = &self.packets[id.idx()];
            (p.ip_len(), p.ip.ecn != Ecn::NotEct)
        };
        let ifc = &mut self.ifaces[i.idx()];
        match ifc.queue.enqueue(now, id, size, ect, &mut ifc.rng) {
            Enqueue::Dropped => {
                ifc.stats.drops_queue += 1;
                self.free(id);
                return;
            }
            Enqueue::QueuedMarked => {
                ifc.stats.ecn_marks += 1;
                self.packets[id.idx()].ip.ecn = Ecn::Ce;
            }
            Enqueue::Queued => {}
        }
        if !self.ifaces[i.idx()].busy {
            self.start_tx(i);
        }
    }

    /// Starts serialising the next queued packet, if any (also the handler of TxDone).
    fn start_tx(&mut self, i: IfaceId) {
        let now = self.now;
        let ifc = &mut self.ifaces[i.idx()];
        let Some((id, size)) = ifc.queue.dequeue(now) else {
            ifc.busy = false;
            return;
        };
        ifc.busy = true;
        let tx = SimTime::tx_time(size as u64, ifc.rate_bps);
        let arrive = now + tx + ifc.delay;
        ifc.stats.packets_sent += 1;
        ifc.stats.bytes_sent += size as u64;
        if let Some(w) = ifc.pcap.as_mut() {
            w.record(now, &self.packets[id.idx()]);
        }
        // An outage at either end of the packet's time on the wire loses it; otherwise the loss
        // model decides.
        let lost = if ifc.outage.is_down(now) || ifc.outage.is_down(arrive) {
            ifc.stats.drops_outage += 1;
            true
        } else if ifc.loss.lose(&mut ifc.rng) {
            ifc.stats.drops_loss += 1;
            true
        } else {
            false
        };
        let peer = ifc.peer;
        self.queue.schedule(now + tx, Event::TxDone(i));
        if lost {
            self.free(id);
        } else {
            self.queue.schedule(arrive, Event::Arrive(peer, id));
        }
    }

    fn on_arrive(&mut self, i: IfaceId, id: PktId) {
        let now = self.now;
        let node = self.ifaces[i.idx()].node;
        if let Some(w) = self.ifaces[i.idx()].pcap.as_mut() {
            w.record(now, &self.packets[id.idx()]);
        }
        self.receive_ip(node, id);
    }

    /// IP input at `node`: deliver locally or forward.
    fn receive_ip(&mut self, node: NodeId, id: PktId) {
        if self
            .node_has_agent
            .get(node.idx())
            .copied()
            .unwrap_or(false)
            && !self.agent_filter(node, id)
        {
            return;
        }
        let p = &mut self.packets[id.idx()];
        if p.ip.dst == self.nodes[node.idx()].addr {
            self.deliver_local(node, id);
        } else if p.ip.ttl <= 1 {
            self.nodes[node.idx()].drops_ttl += 1;
            self.free(id);
        } else {
            p.ip.ttl -= 1;
            self.forward(node, id);
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
                    self.free(id);
                    self.after_socket(s);
                    return;
                }
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
                    for a in 0..self.agents.len() {
                        let slot = &mut self.agents[a];
                        if slot.node == node && slot.mobile == src && slot.agent.uses_feedback() {
                            slot.agent.on_event(now, ev, &mut self.agent_out);
                            self.after_agent(a);
                        }
                    }
                }
            }
            Transport::Udp(u) => {
                if let Some(c) = self
                    .cbr
                    .iter_mut()
                    .find(|c| c.dst == node && c.port == u.dport)
                {
                    c.received += 1;
                    c.bytes_received += p.payload as u64;
                }
            }
            // Routing control is handed to the node's routing agent before local delivery.
            Transport::Aodv(_) => {}
        }
        self.free(id);
    }

    // ------------------------------------------------------------------ sockets and apps

    /// Sends what a socket produced, runs the flow's application logic, re-arms its wake-up.
    fn after_socket(&mut self, s: SockId) {
        let node = self.sock_node[s.idx()];
        let flow = self.sock_flow[s.idx()];
        self.flush_out(node, s);
        self.flow_step(flow);
        self.rearm(s);
        let other = {
            let f = &self.flows[flow.idx()];
            if f.client == s {
                f.server
            } else {
                f.client
            }
        };
        self.rearm(other);
        if !self.series[flow.idx()].is_empty() {
            self.sample_series(flow);
        }
    }

    fn flush_out(&mut self, node: NodeId, s: SockId) {
        if self.out.is_empty() {
            return;
        }
        let flow = self.sock_flow[s.idx()];
        let remote = {
            let f = &self.flows[flow.idx()];
            let other = if f.client == s {
                f.server_node
            } else {
                f.client_node
            };
            self.nodes[other.idx()].addr
        };
        let src = self.nodes[node.idx()].addr;
        let mut out = std::mem::take(&mut self.out);
        for seg in out.drain(..) {
            let n = &mut self.nodes[node.idx()];
            n.ip_ident = n.ip_ident.wrapping_add(1);
            let pkt = Packet {
                ip: Ipv4Header {
                    src,
                    dst: remote,
                    ttl: 64,
                    ecn: if seg.ect { Ecn::Ect0 } else { Ecn::NotEct },
                    ident: n.ip_ident,
                },
                l4: Transport::Tcp(seg.hdr),
                payload: seg.payload,
                flow: flow.0,
            };
            self.originate(node, pkt);
        }
        self.out = out;
    }

    fn rearm(&mut self, s: SockId) {
        if let Some(t) = self.sockets[s.idx()].poll_timeout() {
            let w = &mut self.sock_wake[s.idx()];
            if w.0.is_none_or(|cur| t < cur) {
                w.1 = w.1.wrapping_add(1);
                w.0 = Some(t);
                self.queue
                    .schedule(t.max(self.now), Event::SockTimer(s, w.1));
            }
        }
    }

    fn flow_start(&mut self, f: FlowId) {
        let now = self.now;
        let c = self.flows[f.idx()].client;
        let srv = self.flows[f.idx()].server;
        self.sockets[srv.idx()].listen();
        self.sockets[c.idx()].connect(now, &mut self.out);
        self.after_socket(c);
    }

    /// Application logic of a TCP flow, run after any of its sockets changed.
    fn flow_step(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f.idx()];
        if fl.finished {
            return;
        }
        let (ci, si) = (fl.client.idx(), fl.server.idx());
        // Client: send the request once connected.
        if !fl.request_sent && self.sockets[ci].is_established() {
            fl.request_sent = true;
            let req = fl.request;
            self.sockets[ci].write(now, req, &mut self.out);
            let node = fl.client_node;
            let c = fl.client;
            self.flush_out(node, c);
        }
        let fl = &mut self.flows[f.idx()];
        // Server: answer once the whole request is in.
        if !fl.response_started && self.sockets[si].delivered() >= fl.request {
            fl.response_started = true;
            match fl.kind {
                AppKind::BulkDownload { size } => {
                    self.sockets[si].write(now, size, &mut self.out);
                    self.sockets[si].shutdown(now, &mut self.out);
                }
                AppKind::Bulk => self.sockets[si].write_unlimited(now, &mut self.out),
            }
            let (node, s) = (fl.server_node, fl.server);
            self.flush_out(node, s);
        }
        let fl = &mut self.flows[f.idx()];
        if let AppKind::BulkDownload { size } = fl.kind {
            if fl.completed_at.is_none() && self.sockets[ci].delivered() >= size {
                fl.completed_at = Some(now);
            }
        }
        // Client closes its half when the server has closed.
        if !fl.client_closed && self.sockets[ci].peer_closed() {
            fl.client_closed = true;
            self.sockets[ci].shutdown(now, &mut self.out);
            let (node, c) = (fl.client_node, fl.client);
            self.flush_out(node, c);
        }
        let fl = &mut self.flows[f.idx()];
        let aborted = self.sockets[ci].aborted() || self.sockets[si].aborted();
        let done = match fl.kind {
            AppKind::BulkDownload { .. } => {
                fl.completed_at.is_some() && self.sockets[ci].is_closed()
            }
            AppKind::Bulk => false,
        };
        if aborted || done {
            fl.finished = true;
            self.active_flows -= 1;
        }
    }

    fn cbr_send(&mut self, k: usize) {
        let now = self.now;
        let c = &mut self.cbr[k];
        if now >= c.stop {
            return;
        }
        c.sent += 1;
        let (src, dst, port, size, next) = (c.src, c.dst, c.port, c.packet_size, now + c.interval);
        let n = &mut self.nodes[src.idx()];
        n.ip_ident = n.ip_ident.wrapping_add(1);
        let pkt = Packet {
            ip: Ipv4Header {
                src: n.addr,
                dst: crate::net::node_addr(dst),
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: n.ip_ident,
            },
            l4: Transport::Udp(UdpHeader {
                sport: port,
                dport: port,
            }),
            payload: size,
            flow: u32::MAX,
        };
        self.originate(src, pkt);
        if next < self.cbr[k].stop {
            self.queue.schedule(next, Event::App((1 << 31) | k as u32));
        }
    }

    fn sample_series(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &self.flows[f.idx()];
        let snd = &self.sockets[fl.server.idx()];
        let rcv = &self.sockets[fl.client.idx()];
        self.series[f.idx()].sample(now, |k| match k {
            SeriesKind::Cwnd => snd.cwnd() as f64,
            SeriesKind::Ssthresh => snd.ssthresh().min(1 << 40) as f64,
            SeriesKind::Srtt => snd.srtt().map_or(f64::NAN, |t| t.as_secs_f64()),
            SeriesKind::Rto => snd.rto().as_secs_f64(),
            SeriesKind::Rwnd => snd.snd_wnd() as f64,
            SeriesKind::SndUna => snd.snd_una_rel() as f64,
            SeriesKind::SndNxt => snd.snd_nxt_rel() as f64,
            SeriesKind::RcvNxt => rcv.rcv_nxt_rel() as f64,
        });
    }
}

/// Parameters of one direction of a link.
pub struct LinkDir {
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    pub loss: LossModel,
    pub outage: Outage,
    pub rng: Rng,
    pub pcap: Option<PcapWriter>,
}

/// A small, fast, deterministic hasher for the socket demultiplexing table (lookups only; the
/// table is never iterated, so its order cannot leak into results).
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// An in-network agent placed at a node.
#[derive(Debug)]
pub struct AgentSlot {
    pub node: NodeId,
    /// Address of the mobile whose connections the agent handles.
    pub mobile: Addr,
    pub agent: AnyAgent,
    wake: (Option<SimTime>, u32),
}

/// At a mobile: sends disconnection feedback (seed 000) to its intermediate host when its own
/// link layer predicts an outage, and a reconnection notice when the link is back. The datagram
/// crosses the wireless link like any packet, so it can be lost or delayed.
#[derive(Clone, Copy, Debug)]
pub struct FeedbackSender {
    pub mobile: NodeId,
    pub to: NodeId,
    pub sent: u64,
}
