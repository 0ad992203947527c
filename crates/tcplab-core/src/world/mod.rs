//! The world: every node, interface, socket and application of a run in arenas addressed by
//! typed ids, plus the event loop that drives them.
//!
//! Components are sans-IO; the world owns time and delivery. A socket is woken for its timers
//! through one pending wake-up at a time (lazy cancellation with generation numbers, see `sim`).
//!
//! The event loop lives here; the rest of the world is split by layer:
//! [`links`] (wired interfaces), [`wireless`] (the 802.11 system's requests, link failures),
//! [`ip`] (IP input, forwarding through each node's routing agent, ICMP), [`apps`] (sockets,
//! TCP flows, CBR, series), [`agents`] (in-network agents and the disconnection-feedback
//! protocol).

mod agents;
mod apps;
mod arp;
mod capture;
mod census;
mod error;
mod events;
mod flowstats;
mod hash;
mod ip;
mod links;
mod mobility;
mod netseries;
mod paths;
mod view;
mod wireless;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::time::Instant;

use crate::app::conservation::{check_tcp, check_udp, StreamLedger};
use crate::app::{AppKind, CbrFlow, TcpFlow};
use crate::ids::{FlowId, IfaceId, LinkId, NodeId, PktId, SockId};
use crate::net::{AnyRouting, Node, Port, PortKind, RoutingIo};
use crate::packet::{Addr, Packet, TcpFlags};
use crate::sim::{Event, EventQueue};
use crate::tcp::{Segment, Socket};
use crate::time::SimTime;
use crate::trace::view::Discard;
use crate::trace::{PcapWriter, SeriesSet};
use crate::wifi::{Wakeup, Wifi};

pub use agents::{AgentSlot, FeedbackSender};
pub use census::MemoryCensus;
pub use error::SimError;
pub use hash::FxHasher;
pub use links::{Iface, IfaceStats, Link, LinkDir};
pub use paths::PathTimes;
pub use wireless::WifiRed;

pub struct World {
    pub name: String,
    pub seed: u64,
    pub now: SimTime,
    pub stop_at: SimTime,
    pub max_events: u64,
    pub events: u64,
    /// MAC wake-ups that found nothing to do and were dropped or re-keyed in the queue
    /// without counting as events.
    pub idle_wakeups: u64,
    /// Whether those wake-ups are handled in the queue (true) or popped and dispatched as events
    /// (false: the slower path, kept for the test that compares the two).
    pub lazy_wakeups: bool,
    queue: EventQueue,
    /// Timer wake-ups superseded by an earlier re-arm since the queue was last swept
    /// (`census.rs`, `note_superseded`).
    superseded: usize,
    /// Whether superseded wake-ups are swept out of the queue (`census.rs`; false only for
    /// the test that shows the queue growing without it).
    pub sweep_superseded: bool,

    nodes: Vec<Node>,
    /// Each node's routing agent, by node.
    routing: Vec<AnyRouting>,
    routing_wake: Vec<(Option<SimTime>, u32)>,
    /// Scratch space for what a routing agent asks (kept to reuse its allocations).
    rio: RoutingIo,
    ifaces: Vec<Iface>,
    links: Vec<Link>,
    packets: Vec<Packet>,
    free_packets: Vec<PktId>,
    /// When each packet in the arena was sent by its source (the flow statistics' delays; set
    /// for the packets that count for a flow only).
    born: Vec<SimTime>,
    /// Flow statistics: each TCP flow's [data, reverse] direction, each CBR flow's.
    tcp_stats: Vec<[crate::trace::flowstats::DirStats; 2]>,
    cbr_stats: Vec<crate::trace::flowstats::DirStats>,

    sockets: Vec<Socket>,
    sock_node: Vec<NodeId>,
    /// The peer address of each socket.
    sock_remote: Vec<Addr>,
    sock_flow: Vec<FlowId>,
    sock_wake: Vec<(Option<SimTime>, u32)>,
    /// What arrived at each socket, for the byte-conservation check.
    ledgers: Vec<StreamLedger>,
    /// The first moment a socket had delivered more than had arrived in order, if ever.
    conservation_first: Option<(SimTime, SockId)>,
    demux: HashMap<(NodeId, u16, Addr, u16), SockId, BuildHasherDefault<FxHasher>>,

    flows: Vec<TcpFlow>,
    series: Vec<SeriesSet>,
    cbr: Vec<CbrFlow>,
    active_flows: usize,
    /// Stop once every finite flow is finished (no unlimited flow, no CBR running).
    stop_when_idle: bool,

    out: Vec<Segment>,
    /// Every WLAN of the run (stations are wireless interfaces of nodes).
    wifi: Wifi,
    /// In-network agents (M-TCP, M-TCP+, ACK holder) and the feedback senders at mobiles.
    agents: Vec<AgentSlot>,
    feedback: Vec<FeedbackSender>,
    node_has_agent: Vec<bool>,
    /// How far the link-signal log has been read.
    signal_cursor: usize,
    agent_out: Vec<Packet>,
    /// Stations that move, with their models; the refresh interval; scratch for the moves.
    mobile: Vec<(u32, crate::mobility::Mobility)>,
    position_update: Option<SimTime>,
    moves: Vec<(u32, (f64, f64))>,
    /// Each flow's shortest-path length over time (ad hoc flows only), by flow.
    paths: Vec<paths::PathLog>,
    /// Each station's port at its node, by station.
    sta_port: Vec<Port>,
    /// The station of each node in each WLAN: `wlan_sta[wlan][node]`.
    wlan_sta: Vec<Vec<Option<u32>>>,
    /// pcap writers of wireless interfaces, by station.
    wifi_pcap: Vec<Option<PcapWriter>>,
    /// 802.11 (radiotap) capture writers, by station (`trace.pcap_80211`), and their scratch.
    wifi_pcap_80211: Vec<Option<PcapWriter>>,
    air_buf: Vec<u8>,
    /// RED with its random stream and ECN marks on a station's interface queue, by station.
    wifi_red: Vec<Option<WifiRed>>,
    /// ARP tables by station (`wlans.*.arp`); empty when no station has one.
    arp: Vec<Option<crate::net::arp::ArpTable>>,
    /// The station tracks `tcplab view` draws (`trace.view`); None when not asked for.
    view: Option<Box<crate::trace::view::ViewTrace>>,
    /// The event trace (`trace.events`); None when not asked for.
    event_trace: Option<Box<crate::trace::events::EventTrace>>,
    /// Series beyond TCP (`trace.series`: queues, stations, routing); None when not asked for.
    net_series: Option<Box<crate::trace::NetSeries>>,
    /// How far the MAC's frame trace has been read by the event trace, and whether
    /// the run also returns it (`trace.frames`).
    frames_seen: usize,
    keep_frames: bool,
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
            idle_wakeups: 0,
            lazy_wakeups: true,
            queue: EventQueue::new(),
            superseded: 0,
            sweep_superseded: true,
            nodes: Vec::new(),
            routing: Vec::new(),
            routing_wake: Vec::new(),
            rio: RoutingIo::default(),
            ifaces: Vec::new(),
            links: Vec::new(),
            packets: Vec::new(),
            free_packets: Vec::new(),
            born: Vec::new(),
            tcp_stats: Vec::new(),
            cbr_stats: Vec::new(),
            sockets: Vec::new(),
            sock_node: Vec::new(),
            sock_remote: Vec::new(),
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
            mobile: Vec::new(),
            position_update: None,
            moves: Vec::new(),
            paths: Vec::new(),
            sta_port: Vec::new(),
            wlan_sta: Vec::new(),
            wifi_pcap: Vec::new(),
            wifi_pcap_80211: Vec::new(),
            air_buf: Vec::new(),
            wifi_red: Vec::new(),
            arp: Vec::new(),
            view: None,
            event_trace: None,
            net_series: None,
            frames_seen: 0,
            keep_frames: false,
            started: None,
            wall_time: 0.0,
            finished: false,
        }
    }

    // ------------------------------------------------------------------ building

    /// Adds a node with static (empty) routes; `install_static_routes` or `set_routing` gives it
    /// its agent.
    pub fn add_node(&mut self, name: &str) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node::new(name, crate::net::node_addr(id)));
        self.routing
            .push(AnyRouting::Static(crate::net::StaticRoutes::default()));
        self.routing_wake.push((None, 0));
        id
    }

    /// Adds a full-duplex link; `dirs[0]` describes a→b and `dirs[1]` b→a.
    pub fn add_link(&mut self, name: &str, a: NodeId, b: NodeId, dirs: [LinkDir; 2]) -> LinkId {
        let link = LinkId(self.links.len() as u32);
        let ia = IfaceId(self.ifaces.len() as u32);
        let ib = IfaceId(ia.0 + 1);
        for (k, d) in dirs.into_iter().enumerate() {
            let (node, peer) = if k == 0 { (a, ib) } else { (b, ia) };
            let port = Port(self.nodes[node.idx()].ports.len() as u16);
            self.nodes[node.idx()]
                .ports
                .push(PortKind::Wired(IfaceId(self.ifaces.len() as u32)));
            self.nodes[node.idx()]
                .ifaces
                .push(IfaceId(self.ifaces.len() as u32));
            self.ifaces.push(Iface {
                node,
                port,
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
        self.links.push(Link {
            name: name.to_string(),
            ifaces: [ia, ib],
        });
        link
    }

    // ------------------------------------------------------------------ reading

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub fn ifaces(&self) -> &[Iface] {
        &self.ifaces
    }
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    pub fn sockets(&self) -> &[Socket] {
        &self.sockets
    }
    pub fn flows(&self) -> &[TcpFlow] {
        &self.flows
    }
    /// The time series of each flow, by flow.
    pub fn series(&self) -> &[SeriesSet] {
        &self.series
    }
    pub fn cbr(&self) -> &[CbrFlow] {
        &self.cbr
    }
    /// Flows and CBR sources, writable: for tests that inject faults (tests/conservation.rs).
    pub fn flows_mut(&mut self) -> &mut [TcpFlow] {
        &mut self.flows
    }
    pub fn cbr_mut(&mut self) -> &mut [CbrFlow] {
        &mut self.cbr
    }
    pub fn wifi(&self) -> &Wifi {
        &self.wifi
    }
    /// The wireless system, for building (stations' error models, the frame trace).
    pub fn wifi_mut(&mut self) -> &mut Wifi {
        &mut self.wifi
    }
    /// A station's port at its node.
    pub fn station_port(&self, sta: u32) -> Port {
        self.sta_port[sta as usize]
    }
    pub fn agents(&self) -> &[AgentSlot] {
        &self.agents
    }
    pub fn feedback(&self) -> &[FeedbackSender] {
        &self.feedback
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
        // The stop time, or the next sample of a series beyond TCP if earlier: one comparison
        // per event either way.
        let mut pause = self.pause_at();
        let res = loop {
            if n >= budget {
                break Ok(false);
            }
            let Some((t, ev)) = self.queue.peek() else {
                break Ok(true);
            };
            if t > pause {
                if t > self.stop_at {
                    break Ok(true);
                }
                self.sample_before(t);
                pause = self.pause_at();
                continue;
            }
            if let Event::WifiTimer(s, gen) = ev {
                if self.lazy_wakeups {
                    if let Wakeup::Idle(next) = self.wifi.timer_wakeup(t, s, gen) {
                        // A MAC wake-up with nothing to do is not an event: it is dropped, or
                        // re-keyed in place to the MAC's new deadline (the same key a pop and a
                        // schedule would give it, so the order of every event stays as it was).
                        self.now = t;
                        self.idle_wakeups += 1;
                        match next {
                            Some((at, e)) => self.queue.replace_top(at, e),
                            None => {
                                self.queue.pop();
                            }
                        }
                        continue;
                    }
                }
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
            self.sample_end();
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
        let wifi = self.wifi_pcap.iter_mut().chain(&mut self.wifi_pcap_80211);
        for w in wifi.filter_map(Option::take) {
            w.finish().map_err(|e| SimError::Io(e.to_string()))?;
        }
        Ok(())
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone(i) => self.start_tx(i),
            Event::Arrive(i, p) => self.on_arrive(i, p),
            Event::SockTimer(s, gen) => self.on_sock_timer(s, gen),
            Event::App(a) if a & (1 << 31) != 0 => self.cbr_send((a & !(1 << 31)) as usize),
            Event::App(f) => self.flow_start(FlowId(f)),
            Event::WifiTimer(s, gen) => {
                if self.lazy_wakeups {
                    // `run_for` found this wake-up due (`Wakeup::Acts`) just before popping it.
                    self.wifi.on_timer_due(self.now, s);
                } else {
                    self.wifi.on_timer(self.now, s, gen);
                }
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
            Event::AgentTimer(a, gen) => self.on_agent_timer(a as usize, gen),
            Event::RoutingTimer(n, gen) => self.on_routing_timer(NodeId(n), gen),
            Event::Mobility => self.on_mobility(),
        }
    }

    // ------------------------------------------------------------------ packets

    fn alloc(&mut self, p: Packet) -> PktId {
        if let Some(id) = self.free_packets.pop() {
            self.packets[id.idx()] = p;
            self.ev_new(id);
            id
        } else {
            self.packets.push(p);
            // Written when the packet counts for a flow (`flow_sent`), read only then.
            self.born.push(SimTime::ZERO);
            let id = PktId(self.packets.len() as u32 - 1);
            self.ev_new(id);
            id
        }
    }

    /// Discards packet `id` at `node` for `why` (`peer`: the next hop it was meant for, if
    /// known): the event trace's drop row, then `lose`.
    fn lose_at(&mut self, node: NodeId, id: PktId, why: Discard, peer: Option<NodeId>) {
        self.view_drop(node, id, why, peer);
        self.lose(id);
    }

    /// Discards packet `id` lost in the network, counting a TCP segment against its flow.
    fn lose(&mut self, id: PktId) {
        self.flow_lost(id);
        let p = &self.packets[id.idx()];
        if let (Some(h), Some(f)) = (p.tcp(), self.flows.get_mut(p.flow as usize)) {
            if p.payload > 0 {
                f.data_lost += 1;
            } else if !h.flags.has(TcpFlags::SYN) {
                f.acks_lost += 1;
            }
        }
        self.free(id);
    }

    #[inline]
    fn free(&mut self, id: PktId) {
        self.free_packets.push(id);
    }
}
