//! Recording the event trace (`[trace] events`, trace/events.rs): the world calls these where
//! a packet changes hands between layers — a transport agent sends or receives it, IP
//! receives, forwards or drops it, an interface queue takes it in or lets it go, a wire
//! carries it — and reads the MAC's frame records for the 802.11 layer. Each returns at once
//! when the trace is off, or when its layer or node was not asked for.

use super::World;
use crate::ids::{NodeId, PktId};
use crate::packet::{TcpFlags, Transport, AODV_PORT};
use crate::time::SimTime;
use crate::trace::events::{self as e, EventFilter, EventTrace, Row};
use crate::wifi::{FrameEvent, FrameKind, FrameRecord, BROADCAST};

impl World {
    /// Turns the event trace on for `filter`'s layers and nodes (the MAC's frame records and
    /// collisions are kept while it runs, when the MAC layer is asked for).
    /// `keep_frames`: the run also returns the MAC's frame trace (`trace.frames`).
    pub fn enable_events(&mut self, filter: EventFilter, keep_frames: bool) {
        self.keep_frames |= keep_frames;
        if filter.layers & (1 << e::MAC) != 0 {
            if self.wifi.frames.is_none() {
                self.wifi.frames = Some(Vec::new());
            }
            self.wifi.collision_trace = Some(Vec::new());
            self.wifi.mac_drop_trace = Some(Vec::new());
        }
        if filter.layers & (1 << e::IFQ) != 0 {
            // The stations report what their MACs take from the queue (`start_wifi` tells
            // the traced nodes' stations once they exist).
            self.wifi.dequeue_trace = Some(Vec::new());
        }
        self.event_trace = Some(Box::new(EventTrace::new(filter)));
    }

    /// Sends the event trace's rows to `sink` in batches as the run goes (none are kept);
    /// false when the run records no event trace.
    pub fn stream_events(&mut self, sink: Box<dyn e::RowSink>) -> bool {
        match self.event_trace.as_mut() {
            Some(t) => {
                t.stream_to(sink);
                true
            }
            None => false,
        }
    }

    /// The event trace, if recorded, to change how it is written (`EventTrace::set_batch_rows`).
    pub fn event_trace_mut(&mut self) -> Option<&mut EventTrace> {
        self.event_trace.as_deref_mut()
    }

    /// The event trace, if recorded.
    pub fn events(&self) -> Option<&EventTrace> {
        self.event_trace.as_deref()
    }

    /// Takes the event trace out of the world at the end of a run, with the MAC records not
    /// read yet.
    pub fn take_events(&mut self) -> Option<EventTrace> {
        self.event_trace.as_ref()?;
        self.trace_frames();
        self.event_trace.take().map(|b| *b)
    }

    /// A packet was just put in arena slot `id`: a new uid.
    #[inline]
    pub(super) fn ev_new(&mut self, id: PktId) {
        if let Some(t) = self.event_trace.as_mut() {
            t.new_packet(id.idx());
        }
    }

    /// Slot `to` holds a receiver's copy of the packet in slot `from`: the same uid.
    #[inline]
    pub(super) fn ev_copy(&mut self, from: PktId, to: PktId) {
        if let Some(t) = self.event_trace.as_mut() {
            t.copy_packet(from.idx(), to.idx());
        }
    }

    /// Packet `id` has event `event` at `node`'s `layer`; `peer` is the next hop of a send or
    /// forward, the previous hop of a reception; `reason` a drop's (`trace::events::R_*`).
    #[inline]
    pub(super) fn ev(
        &mut self,
        node: NodeId,
        layer: u8,
        event: u8,
        id: PktId,
        peer: u32,
        reason: u8,
    ) {
        // The test stays at the caller: a run without the trace makes no call.
        if self.event_trace.is_some() {
            self.ev_row(node, layer, event, id, peer, reason, None, SimTime::ZERO);
        }
    }

    /// [`World::ev`] at time `at` (now if None) with time `dur` on the air or wire.
    #[allow(clippy::too_many_arguments)]
    fn ev_row(
        &mut self,
        node: NodeId,
        layer: u8,
        event: u8,
        id: PktId,
        peer: u32,
        reason: u8,
        at: Option<SimTime>,
        dur: SimTime,
    ) {
        let Some(t) = self.event_trace.as_deref() else {
            return;
        };
        if !t.filter.wants(layer, node.0) {
            return;
        }
        let mut row = self.packet_row(id);
        row.node = node.0;
        row.layer = layer;
        row.event = event;
        row.peer = peer;
        row.reason = reason;
        row.dur = dur;
        if let Some(at) = at {
            row.t = at;
        }
        let aodv = self.aodv_fields(id, row.kind);
        let t = self.event_trace.as_mut().expect("checked");
        t.push(row);
        if let Some(f) = aodv {
            t.push_aodv(f);
        }
    }

    /// ns-2's AODV column of packet `id`, if it is an AODV message.
    fn aodv_fields(&self, id: PktId, kind: u8) -> Option<[u32; 6]> {
        if kind != e::K_AODV {
            return None;
        }
        let m = self.packets[id.idx()].aodv()?;
        Some(e::aodv_fields(m, |a| self.ev_node(a)))
    }

    /// Packet `id` is discarded at `node` for `why` (called by `view_drop`, the hook both
    /// traces share): a drop row at the layer that discards it.
    pub(super) fn ev_discard(
        &mut self,
        node: NodeId,
        id: PktId,
        why: crate::trace::view::Discard,
        peer: Option<NodeId>,
    ) {
        use crate::trace::view::Discard as D;
        if self.event_trace.is_none() {
            return;
        }
        let (layer, reason) = match why {
            D::Queue => (e::IFQ, e::R_QUEUE),
            D::Loss => (e::LINK, e::R_LOSS),
            D::Outage => (e::LINK, e::R_OUTAGE),
            D::Ttl => (e::RTR, e::R_TTL),
            D::Routing(r) => (e::RTR, e::routing_reason(r)),
            D::Arp => (e::IFQ, e::R_ARP),
        };
        self.ev(
            node,
            layer,
            e::DROP,
            id,
            peer.map_or(e::NONE, |p| p.0),
            reason,
        );
    }

    /// Packet `id` starts its `dur` on the wire from `node` to `to`.
    #[inline]
    pub(super) fn ev_wire_send(&mut self, node: NodeId, id: PktId, to: u32, dur: SimTime) {
        if self.event_trace.is_some() {
            self.ev_row(node, e::LINK, e::SEND, id, to, e::R_NONE, None, dur);
        }
    }

    /// `route` rows for the changes of `node`'s routing table since its last call (when its
    /// `rtr` layer is traced): an added or changed route with its next hop and hops, a lost
    /// one with no next hop.
    pub(super) fn ev_routes(&mut self, node: NodeId) {
        if !self.ev_wants(e::RTR, node) {
            return;
        }
        let agent = &self.routing[node.idx()];
        let kind = match agent.kind() {
            "aodv" => e::K_AODV,
            "dsr" => e::K_DSR,
            "dsdv" => e::K_DSDV,
            _ => return, // static routes never change
        };
        let t = self.event_trace.as_deref_mut().expect("checked");
        let mut now = std::mem::take(&mut t.routes_now);
        agent.routes(&mut now);
        if t.routes_seen.len() <= node.idx() {
            t.routes_seen.resize(node.idx() + 1, Vec::new());
        }
        let old = std::mem::take(&mut t.routes_seen[node.idx()]);
        if old != now {
            let mut changes = Vec::new();
            let (mut i, mut j) = (0, 0);
            // Both lists are sorted by destination: a merge walk.
            while i < old.len() || j < now.len() {
                match (old.get(i), now.get(j)) {
                    (Some(a), Some(b)) if a.dst == b.dst => {
                        if a != b {
                            changes.push((b.dst, Some(*b)));
                        }
                        i += 1;
                        j += 1;
                    }
                    (Some(a), Some(b)) if a.dst < b.dst => {
                        changes.push((a.dst, None));
                        i += 1;
                    }
                    (Some(a), None) => {
                        changes.push((a.dst, None));
                        i += 1;
                    }
                    (_, Some(b)) => {
                        changes.push((b.dst, Some(*b)));
                        j += 1;
                    }
                    (None, None) => unreachable!(),
                }
            }
            for (dst, r) in changes {
                let mut row = self.control_row();
                row.node = node.0;
                row.layer = e::RTR;
                row.event = e::ROUTE;
                row.kind = kind;
                row.src = node.0;
                row.dst = self.ev_node(dst);
                row.peer = r.map_or(e::NONE, |r| self.ev_node(r.next));
                row.ttl = r.map_or(0, |r| r.hops);
                self.event_trace.as_mut().expect("checked").push(row);
            }
        }
        let t = self.event_trace.as_deref_mut().expect("checked");
        t.routes_seen[node.idx()] = now;
        t.routes_now = old;
    }

    /// MAC rows for the packets the MAC gave up on after its retries (`retry_limit`, or
    /// `outage` when its station was in an outage), before the routing agent decides.
    pub(super) fn ev_mac_drops(&mut self) {
        let drops = self
            .wifi
            .mac_drop_trace
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for &(_, sta, id, outage) in &drops {
            let node = self.wifi.stations[sta as usize].node;
            let reason = if outage {
                e::R_OUTAGE
            } else {
                e::R_RETRY_LIMIT
            };
            self.ev(node, e::MAC, e::DROP, id, e::NONE, reason);
        }
    }

    /// IFQ `dequeue` rows for the packets the stations' MACs took from their interface queues
    /// since the last call (once per packet, when the MAC starts on it: ns-2's queue hands
    /// the next packet down when the MAC is done with the last; a retry is no dequeue).
    ///
    /// Inlined at its callers (the wireless system's hottest loop among them) down to one test
    /// of the trace's list, so that a run without the IFQ trace pays no call.
    #[inline(always)]
    pub(super) fn ev_dequeues(&mut self) {
        if self
            .wifi
            .dequeue_trace
            .as_ref()
            .is_some_and(|d| !d.is_empty())
        {
            self.ev_dequeue_rows();
        }
    }

    #[inline(never)]
    fn ev_dequeue_rows(&mut self) {
        let Some(d) = self.wifi.dequeue_trace.as_mut() else {
            return;
        };
        let taken = std::mem::take(d);
        for &(t, sta, id, dst) in &taken {
            let node = self.wifi.stations[sta as usize].node;
            let peer = if dst == BROADCAST {
                e::BROADCAST
            } else {
                self.wifi.stations[dst as usize].node.0
            };
            self.ev_at(t, node, e::IFQ, e::DEQUEUE, id, peer);
        }
        if let Some(d) = self.wifi.dequeue_trace.as_mut() {
            if d.is_empty() {
                *d = taken; // keep the allocation
                d.clear();
            }
        }
    }

    /// [`World::ev`] at time `t` (an event the wireless system recorded), with no reason.
    fn ev_at(&mut self, t: SimTime, node: NodeId, layer: u8, event: u8, id: PktId, peer: u32) {
        self.ev_row(
            node,
            layer,
            event,
            id,
            peer,
            e::R_NONE,
            Some(t),
            SimTime::ZERO,
        );
    }

    /// The node an address names, or `NONE`.
    pub(super) fn ev_addr(&self, a: crate::packet::Addr) -> u32 {
        self.ev_node(a)
    }

    /// Whether `layer` at `node` is traced (to skip work before calling [`World::ev`]).
    #[inline]
    pub(super) fn ev_wants(&self, layer: u8, node: NodeId) -> bool {
        self.event_trace
            .as_deref()
            .is_some_and(|t| t.filter.wants(layer, node.0))
    }

    /// The node of an address, as the trace names it (`BROADCAST` for the link broadcast).
    fn ev_node(&self, a: crate::packet::Addr) -> u32 {
        if a == crate::net::BROADCAST_ADDR {
            return e::BROADCAST;
        }
        crate::net::addr_node(a, self.nodes.len()).map_or(e::NONE, |n| n.0)
    }

    /// A row describing packet `id` (kind, ids, headers); the caller fills in where and what.
    fn packet_row(&self, id: PktId) -> Row {
        let p = &self.packets[id.idx()];
        let uid = self
            .event_trace
            .as_deref()
            .map_or(0, |t| t.uid_of(id.idx()));
        let (mut kind, mut sport, mut dport, mut seq, mut ack) = (e::K_UDP, 0u16, 0u16, 0, 0);
        match p.l4.innermost() {
            Some(Transport::Tcp(h)) => {
                let data =
                    p.payload > 0 || h.flags.has(TcpFlags::SYN) || h.flags.has(TcpFlags::FIN);
                kind = if data { e::K_TCP } else { e::K_ACK };
                (sport, dport, seq, ack) = (h.sport, h.dport, h.seq, h.ack);
            }
            Some(Transport::Udp(u)) => (sport, dport) = (u.sport, u.dport),
            Some(Transport::Icmp(_)) => kind = e::K_ICMP,
            Some(Transport::Aodv(m)) => {
                kind = e::K_AODV;
                (sport, dport, seq) = (AODV_PORT, AODV_PORT, u64::from(m.type_code()));
            }
            Some(Transport::Dsdv(_)) => {
                kind = e::K_DSDV;
                (sport, dport) = (crate::packet::DSDV_PORT, crate::packet::DSDV_PORT);
            }
            Some(Transport::Arp(m)) => (kind, seq) = (e::K_ARP, m.op as u64),
            Some(Transport::Dsr(_)) | None => kind = e::K_DSR,
        }
        let flow = if p.flow == u32::MAX {
            e::NONE
        } else if p.flow & super::flowstats::CBR_FLOW != 0 {
            self.flows.len() as u32 + (p.flow & !super::flowstats::CBR_FLOW)
        } else {
            p.flow
        };
        Row {
            t: self.now,
            node: 0,
            layer: 0,
            event: 0,
            kind,
            uid,
            flow,
            seq,
            ack,
            bytes: p.ip_len(),
            src: self.ev_node(p.ip.src),
            dst: self.ev_node(p.ip.dst),
            sport,
            dport,
            ttl: p.ip.ttl,
            peer: e::NONE,
            dur: SimTime::ZERO,
            retry: false,
            reason: e::R_NONE,
        }
    }

    /// Reads the frames the MAC traced since the last call, while their packets are still in
    /// the arena (the world calls this before it frees the copies the MAC is done with), for
    /// the event trace; keeps them when the run returns the frame trace.
    pub(super) fn trace_frames(&mut self) {
        let Some(frames) = self.wifi.frames.as_mut() else {
            return;
        };
        let mut new = std::mem::take(frames);
        let start = self.frames_seen.min(new.len());
        if self.event_trace.is_some() {
            self.event_frame_rows(&new[start..]);
        }
        let frames = self.wifi.frames.as_mut().expect("set above");
        if self.keep_frames {
            // The run returns the frame trace too: put it back and remember how far it is read.
            new.append(frames);
            *frames = new;
            self.frames_seen = frames.len();
        } else {
            // Only the traces want the frames: keep the MAC's buffer empty (and its allocation).
            new.clear();
            *frames = new;
            self.frames_seen = 0;
        }
    }

    /// MAC rows from frame records: a transmission is a send (RTS, CTS, ACK and data frames,
    /// retransmissions included), a frame decoded by its addressee (or a receiver of a
    /// broadcast) a reception, one lost to the error model a drop (`frame_error`); collisions
    /// come from the channel's own list (every hearer, as `collisions` counts them). A frame
    /// below the reception threshold, or not locked on, leaves no row (ns-2 traces neither).
    fn event_frame_rows(&mut self, recs: &[FrameRecord]) {
        let mut cols = self
            .wifi
            .collision_trace
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        let n = self.wifi.stations.len() as u32;
        let node_of = |w: &World, sta: u32| {
            if sta == BROADCAST || sta >= n {
                e::BROADCAST
            } else {
                w.wifi.stations[sta as usize].node.0
            }
        };
        let mut rows = Vec::new();
        // The frame trace's own collision outcomes (addressees only) give way to the channel's
        // list of every hearer's.
        let from_mac = recs.iter().filter(|r| r.event != FrameEvent::RxCollision);
        for r in from_mac.chain(cols.iter()) {
            let (event, reason) = match r.event {
                FrameEvent::Tx => (e::SEND, e::R_NONE),
                FrameEvent::RxOk => (e::RECEIVE, e::R_NONE),
                FrameEvent::RxError => (e::DROP, e::R_FRAME_ERROR),
                FrameEvent::RxCollision => (e::DROP, e::R_COLLISION),
                FrameEvent::RxMissed => continue,
            };
            let node = self.wifi.stations[r.sta as usize].node;
            let Some(t) = self.event_trace.as_deref() else {
                return;
            };
            if !t.filter.wants(e::MAC, node.0) {
                continue;
            }
            let (src, dst) = (node_of(self, r.src), node_of(self, r.dst));
            let mut row = match (r.kind, r.pkt) {
                (FrameKind::Data, Some(id)) => self.packet_row(id),
                (kind, _) => Row {
                    kind: match kind {
                        FrameKind::Rts => e::K_RTS,
                        FrameKind::Cts => e::K_CTS,
                        _ => e::K_MAC_ACK,
                    },
                    ..self.control_row()
                },
            };
            row.t = r.t;
            row.node = node.0;
            row.layer = e::MAC;
            row.event = event;
            row.reason = reason;
            row.retry = r.retry;
            if matches!(row.kind, e::K_RTS | e::K_CTS | e::K_MAC_ACK) {
                (row.src, row.dst, row.bytes) = (src, dst, r.bytes);
            }
            if event == e::SEND {
                row.peer = dst;
                row.dur = r.dur;
                row.bytes = r.bytes;
            } else {
                row.peer = src;
            }
            let aodv = r.pkt.and_then(|id| self.aodv_fields(id, row.kind));
            rows.push((row, aodv));
        }
        cols.clear();
        if let Some(c) = self.wifi.collision_trace.as_mut() {
            if c.is_empty() {
                *c = cols; // keep the allocation
            }
        }
        // The channel's collisions come after the batch's other records: restore time order.
        rows.sort_by_key(|r| r.0.t);
        let t = self.event_trace.as_mut().expect("checked by the caller");
        for (row, aodv) in rows {
            t.push(row);
            if let Some(f) = aodv {
                t.push_aodv(f);
            }
        }
    }

    fn control_row(&self) -> Row {
        Row {
            t: self.now,
            node: 0,
            layer: e::MAC,
            event: 0,
            kind: e::K_MAC_ACK,
            uid: 0,
            flow: e::NONE,
            seq: 0,
            ack: 0,
            bytes: 0,
            src: e::NONE,
            dst: e::NONE,
            sport: 0,
            dport: 0,
            ttl: 0,
            peer: e::NONE,
            dur: SimTime::ZERO,
            retry: false,
            reason: e::R_NONE,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::{prepare, RunOutput};
    use crate::scenario::Format;
    use crate::trace::events::{self as e, Row};

    /// A 2-hop AODV string (ns-2's 802.11 preset), frame errors at the relay, a TCP flow and a
    /// CBR flow that overflows the interface queues: every drop reason of a WLAN run shows.
    const TWO_HOP: &str = r#"
        name = "two_hop"
        duration = "20s"
        tcp = { variant = "newreno", mss = 1000, rcv_buf = "20000B" }
        nodes = [{ name = "n0" }, { name = "n1" }, { name = "n2" }]
        [[wlans]]
        name = "manet"
        mode = "adhoc"
        phy = "ns2_dsss"
        rate = "2Mbps"
        propagation = { model = "two_ray_ground" }
        routing = { protocol = "aodv", preset = "ns2" }
        stations = [
            { node = "n0", position = ["0m", "0m"] },
            { node = "n1", position = ["200m", "0m"], loss = { model = "bernoulli", p = 0.1 } },
            { node = "n2", position = ["400m", "0m"] },
        ]
        [[flows]]
        name = "f"
        app = "bulk"
        client = "n2"
        server = "n0"
        [[flows]]
        name = "u"
        app = "cbr"
        src = "n0"
        dst = "n2"
        rate = "600kbps"
        packet_size = "512B"
        start = "5s"
        stop = "8s"
    "#;

    fn run(extra: &[(&str, &str)]) -> RunOutput {
        let set: Vec<(String, String)> = extra
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut p = prepare(TWO_HOP, Format::Toml, Some(1), &set, None).unwrap();
        while !p.step(u64::MAX).unwrap() {}
        p.finish().unwrap()
    }

    fn count(t: &e::EventTrace, pred: impl Fn(usize) -> bool) -> u64 {
        (0..t.len()).filter(|&i| pred(i)).count() as u64
    }

    /// Every drop counter of the summary equals the trace's drop rows with that reason, and
    /// the TCP data the client's agent received equals the flow statistics' count.
    #[test]
    fn drop_rows_equal_the_summary_counters() {
        let out = run(&[("trace.events", "{}")]);
        let t = &out.events.as_ref().expect("asked for").trace;
        let s = &out.summary;
        let drops = |layer: u8, reason: u8| {
            count(t, |i| {
                t.event[i] == e::DROP && t.layer[i] == layer && t.reason[i] == reason
            })
        };
        let wifi = |f: fn(&crate::api::WifiSummary) -> u64| s.wifi.iter().map(f).sum::<u64>();
        let nodes = |f: fn(&crate::api::NodeSummary) -> u64| s.nodes.iter().map(f).sum::<u64>();
        assert_eq!(drops(e::IFQ, e::R_QUEUE), wifi(|w| w.drops_queue));
        assert_eq!(
            drops(e::MAC, e::R_RETRY_LIMIT),
            wifi(|w| w.drops_retry_limit)
        );
        assert_eq!(drops(e::MAC, e::R_COLLISION), wifi(|w| w.collisions));
        assert_eq!(drops(e::MAC, e::R_FRAME_ERROR), wifi(|w| w.frame_errors));
        assert_eq!(drops(e::RTR, 9), nodes(|n| n.drops_link_broken));
        assert_eq!(drops(e::RTR, 5), nodes(|n| n.drops_no_route));
        assert!(wifi(|w| w.drops_queue) > 0 && wifi(|w| w.frame_errors) > 0);
        assert!(wifi(|w| w.collisions) > 0 && wifi(|w| w.drops_retry_limit) > 0);
        let client = 2;
        let got = count(t, |i| {
            t.layer[i] == e::AGT
                && t.event[i] == e::RECEIVE
                && t.node[i] == client
                && t.kind[i] == e::K_TCP
                && t.flow[i] == 0
        });
        assert_eq!(got, s.flows[0].stats.packets_received);
        // Data frames the MAC sent (retransmissions included) are its `frames_sent`.
        let frames = count(t, |i| {
            t.layer[i] == e::MAC
                && t.event[i] == e::SEND
                && !matches!(t.kind[i], e::K_RTS | e::K_CTS | e::K_MAC_ACK)
        });
        assert_eq!(frames, wifi(|w| w.frames_sent));
    }

    /// Station queues balance: at each station, every packet that entered the interface queue
    /// (`enqueue`) left it once — taken by the MAC or back by the routing agent (`dequeue`),
    /// or pushed out by a routing packet (`drop`) — or is still waiting when the run ends
    /// (the last `queue_len` sample). Replays the IFQ rows packet by packet, so a dequeue row
    /// of a packet that was not queued fails too.
    #[test]
    fn station_queues_balance_enqueues_with_dequeues_drops_and_what_is_left() {
        let out = run(&[("trace.events", "{}"), ("trace.series", r#"["queue"]"#)]);
        let t = &out.events.as_ref().expect("asked for").trace;
        let nodes = 3;
        let mut queued: Vec<Vec<u64>> = vec![Vec::new(); nodes];
        // Per node: enqueued, dequeued, dropped after entering, refused at the door.
        let mut n = vec![[0u64; 4]; nodes];
        for i in (0..t.len()).filter(|&i| t.layer[i] == e::IFQ) {
            let (node, uid) = (t.node[i] as usize, t.uid[i]);
            let at = queued[node].iter().position(|&u| u == uid);
            match t.event[i] {
                e::ENQUEUE => {
                    queued[node].push(uid);
                    n[node][0] += 1;
                }
                e::DEQUEUE => {
                    let at = at
                        .unwrap_or_else(|| panic!("row {i}: uid {uid} left a queue it was not in"));
                    queued[node].remove(at);
                    n[node][1] += 1;
                }
                e::DROP => match at {
                    Some(at) => {
                        queued[node].remove(at);
                        n[node][2] += 1;
                    }
                    None => n[node][3] += 1,
                },
                other => panic!("row {i}: IFQ event {other}"),
            }
        }
        // Some dequeues are AODV taking packets back after a link break (dropped at once,
        // `link_broken`), not the MAC's: the replay needs their rows too.
        let dropped_by_rtr: std::collections::HashSet<(u32, u64, crate::time::SimTime)> = (0..t
            .len())
            .filter(|&i| t.layer[i] == e::RTR && t.event[i] == e::DROP)
            .map(|i| (t.node[i], t.uid[i], t.t[i]))
            .collect();
        let taken_back = (0..t.len())
            .filter(|&i| t.layer[i] == e::IFQ && t.event[i] == e::DEQUEUE)
            .filter(|&i| dropped_by_rtr.contains(&(t.node[i], t.uid[i], t.t[i])))
            .count();
        assert!(taken_back > 0);
        let s = &out.series;
        for (node, c) in n.iter().enumerate() {
            let at = format!("manet:n{node}");
            let left = (0..s.t_s.len())
                .filter(|&i| s.series[i] == "queue_len" && s.at[i].as_deref() == Some(&at))
                .map(|i| s.value[i])
                .next_back()
                .expect("a queue_len series per station") as u64;
            assert!(c[0] > 0 && c[1] > 0, "{at}: {c:?}");
            assert_eq!(c[0], c[1] + c[2] + left, "{at}: {c:?}, {left} left");
            assert_eq!(queued[node].len() as u64, left, "{at}");
        }
        // Every queue drop is a row, whether the packet had entered or not.
        let drops: u64 = out.summary.wifi.iter().map(|w| w.drops_queue).sum();
        assert!(drops > 0);
        let dropped: u64 = n.iter().map(|c| c[2] + c[3]).sum();
        let arp: u64 = out
            .summary
            .wifi
            .iter()
            .map(|w| w.drops_arp.unwrap_or(0))
            .sum();
        assert_eq!(dropped, drops + arp);
        // ns-2's wireless trace has no enqueue or dequeue line (ns-mobilenode.tcl gives the
        // IFQ a drop target only): the text form keeps only the IFQ's drops.
        let mut text = Vec::new();
        e::write_ns2(t, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let ifq: Vec<&str> = text
            .lines()
            .filter(|l| l.split(' ').nth(3) == Some("IFQ"))
            .collect();
        assert_eq!(ifq.len() as u64, dropped);
        assert!(ifq.iter().all(|l| l.starts_with("D ")));
    }

    /// Tracing observes: the summary is the same with the trace on, and a run that asks for
    /// nothing has no trace.
    #[test]
    fn tracing_leaves_the_run_unchanged() {
        let off = run(&[]);
        let on = run(&[("trace.events", "{}")]);
        assert!(off.events.is_none());
        let strip = |mut s: crate::api::Summary| {
            s.wall_time_s = 0.0;
            serde_json::to_string(&s).unwrap()
        };
        assert_eq!(strip(off.summary), strip(on.summary));
    }

    /// Layers and nodes select rows; a packet keeps its uid from agent to agent over the hops.
    #[test]
    fn layers_and_nodes_select_rows_and_uids_follow_packets() {
        let out = run(&[(
            "trace.events",
            r#"{ layers = ["agt", "mac"], nodes = ["n1", "n2"] }"#,
        )]);
        let t = &out.events.unwrap().trace;
        assert!(!t.is_empty());
        for i in 0..t.len() {
            assert!(matches!(t.layer[i], e::AGT | e::MAC), "row {i}");
            assert!(t.node[i] == 1 || t.node[i] == 2, "row {i}");
        }
        let full = run(&[("trace.events", "{}")]);
        let t = &full.events.unwrap().trace;
        // The first data segment the server (n0) sent: its uid reaches the client (n2), over n1.
        let sent = (0..t.len())
            .find(|&i| {
                t.layer[i] == e::AGT
                    && t.event[i] == e::SEND
                    && t.kind[i] == e::K_TCP
                    && t.node[i] == 0
                    && t.bytes[i] > 100
            })
            .expect("a data segment");
        let uid = t.uid[sent];
        let at = |node: u32, layer: u8, event: u8| {
            (0..t.len()).any(|i| {
                t.uid[i] == uid && t.node[i] == node && t.layer[i] == layer && t.event[i] == event
            })
        };
        assert!(at(1, e::RTR, e::FORWARD), "forwarded at n1");
        assert!(at(2, e::AGT, e::RECEIVE), "received at n2");
        assert!(at(0, e::MAC, e::SEND) && at(1, e::MAC, e::RECEIVE));
    }

    /// A sink that keeps what it is handed, batch by batch.
    struct Batches(std::sync::Arc<std::sync::Mutex<Vec<Vec<Row>>>>);

    impl e::RowSink for Batches {
        fn write(&mut self, rows: &e::EventTrace) -> std::io::Result<()> {
            let batch = (0..rows.len()).map(|i| rows.row(i)).collect();
            self.0.lock().unwrap().push(batch);
            Ok(())
        }
        fn finish(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn rows_of(t: &e::EventTrace) -> Vec<Row> {
        (0..t.len()).map(|i| t.row(i)).collect()
    }

    /// Streaming: with a sink the trace holds at most one batch while the run goes, and the
    /// batches handed over are, in order, exactly the rows the run keeps in memory without one
    /// (the last batch is handed over when the run ends).
    #[test]
    fn a_streamed_trace_holds_one_batch_and_hands_over_every_row_in_order() {
        let whole = rows_of(&run(&[("trace.events", "{}")]).events.unwrap().trace);
        let set = [("trace.events".to_string(), "{}".to_string())];
        let mut p = prepare(TWO_HOP, Format::Toml, Some(1), &set, None).unwrap();
        let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        assert!(p.world.stream_events(Box::new(Batches(got.clone()))));
        let batch = 1000;
        p.world.event_trace_mut().unwrap().set_batch_rows(batch);
        let mut most = 0;
        while !p.step(200).unwrap() {
            most = most.max(p.world.events().unwrap().len());
        }
        assert!(most <= batch, "held {most} rows");
        let out = p.finish().unwrap();
        let t = &out.events.unwrap().trace;
        assert!(t.is_empty() && t.rows() == whole.len() as u64);
        let batches = got.lock().unwrap();
        assert!(batches.len() > 3, "{} batches", batches.len());
        assert!(batches.iter().all(|b| b.len() <= batch));
        let streamed: Vec<Row> = batches.iter().flatten().copied().collect();
        assert_eq!(streamed.len(), whole.len());
        assert!(streamed == whole, "the streamed rows differ");
    }

    /// The rows replayed for one node up to now: destination → (next hop, hops).
    fn replay(t: &e::EventTrace, node: u32) -> std::collections::BTreeMap<u32, (u32, u8)> {
        let mut table = std::collections::BTreeMap::new();
        for i in 0..t.len() {
            if t.event[i] == e::ROUTE && t.node[i] == node {
                if t.peer[i] == e::NONE {
                    table.remove(&t.dst[i]);
                } else {
                    table.insert(t.dst[i], (t.peer[i], t.ttl[i]));
                }
            }
        }
        table
    }

    /// `route` rows: replayed up to any instant they give the agent's table then, for AODV,
    /// DSR and DSDV (checked every 500 events of a run whose relay walks away and back), and
    /// on the AODV string the table is the known one: n0 reaches n3 through n1 in 3 hops
    /// before the break, has no route while n2 is away, and has it again after.
    #[test]
    fn route_rows_replay_to_the_agents_tables() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/adhoc_break.toml"
        ))
        .unwrap();
        for proto in ["aodv", "dsr", "dsdv"] {
            let set = [
                ("duration".to_string(), "\"90s\"".to_string()),
                (
                    "wlans.manet.routing".to_string(),
                    format!("{{ protocol = \"{proto}\", preset = \"ns2\" }}"),
                ),
                (
                    "trace.events".to_string(),
                    r#"{ layers = ["rtr"] }"#.to_string(),
                ),
            ];
            let mut p = prepare(&text, Format::Toml, Some(1), &set, None).unwrap();
            let mut checks = 0;
            let mut n0_at = Vec::new();
            let mut next_probe = [10.0, 35.0, 80.0].into_iter().peekable();
            let mut entries = Vec::new();
            loop {
                let done = p.step(500).unwrap();
                let now = p.world.now.as_secs_f64();
                let t = p.world.events().unwrap();
                for n in 0..4u32 {
                    p.world.routing(crate::ids::NodeId(n)).routes(&mut entries);
                    let agent: std::collections::BTreeMap<u32, (u32, u8)> = entries
                        .iter()
                        .map(|r| {
                            let node = |a| crate::net::addr_node(a, 4).unwrap().0;
                            (node(r.dst), (node(r.next), r.hops))
                        })
                        .collect();
                    assert_eq!(replay(t, n), agent, "{proto}: node {n} at {now} s");
                    checks += 1;
                }
                while next_probe.peek().is_some_and(|&x| now >= x) {
                    n0_at.push(replay(t, 0).get(&3).copied());
                    next_probe.next();
                }
                if done {
                    break;
                }
            }
            assert!(checks > 100, "{proto}: {checks}");
            if proto == "aodv" {
                assert_eq!(n0_at, vec![Some((1, 3)), None, Some((1, 3))], "{proto}");
            }
            let t = p.world.events().unwrap();
            let lost = (0..t.len()).any(|i| t.event[i] == e::ROUTE && t.peer[i] == e::NONE);
            eprintln!("{proto}: {checks} checks, a route lost: {lost}");
            if proto != "dsdv" {
                assert!(lost, "{proto}: the break loses a route");
            }
        }
    }

    /// Wired links: queue drops at the IFQ and losses on the wire equal the links' counters;
    /// every packet that entered a queue left it or was dropped there; the ns-2 writer gives
    /// these rows in ns-2's wired format.
    #[test]
    fn wired_rows_equal_the_link_counters() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/wired_lossy.toml"
        ))
        .unwrap();
        let set = [
            ("duration".to_string(), "\"20s\"".to_string()),
            (
                "links.bottleneck.queue.packets".to_string(),
                "10".to_string(),
            ),
            ("links.bottleneck.loss.p".to_string(), "0.001".to_string()),
            ("tcp.rcv_buf".to_string(), "\"1MiB\"".to_string()),
            ("trace.events".to_string(), "{}".to_string()),
        ];
        let mut p = prepare(&text, Format::Toml, Some(1), &set, None).unwrap();
        while !p.step(u64::MAX).unwrap() {}
        let out = p.finish().unwrap();
        let ev = out.events.as_ref().unwrap();
        let t = &ev.trace;
        let rows = |layer: u8, event: u8, reason: u8| {
            count(t, |i| {
                t.layer[i] == layer && t.event[i] == event && t.reason[i] == reason
            })
        };
        let links = &out.summary.links;
        let sum = |f: fn(&crate::api::LinkSummary) -> u64| links.iter().map(f).sum::<u64>();
        assert!(sum(|l| l.drops_queue) > 0 && sum(|l| l.drops_loss) > 0);
        assert_eq!(rows(e::IFQ, e::DROP, e::R_QUEUE), sum(|l| l.drops_queue));
        assert_eq!(rows(e::LINK, e::DROP, e::R_LOSS), sum(|l| l.drops_loss));
        assert_eq!(rows(e::LINK, e::SEND, e::R_NONE), sum(|l| l.packets_sent));
        assert_eq!(rows(e::IFQ, e::DEQUEUE, e::R_NONE), sum(|l| l.packets_sent));
        let queued = rows(e::IFQ, e::ENQUEUE, e::R_NONE);
        let in_queue_at_end = queued - sum(|l| l.packets_sent);
        assert!(in_queue_at_end <= 2 * 10, "{queued} queued");
        let mut text = Vec::new();
        e::write_ns2(t, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let letters: std::collections::BTreeSet<&str> =
            text.lines().filter_map(|l| l.split(' ').next()).collect();
        // Wires: `-` (onto the wire), `r`, `d` (lost on it); agents: `s`, `r`.
        assert!(letters.is_superset(&["-", "d", "r", "s"].into_iter().collect()));
        let drop = text.lines().find(|l| l.starts_with("d ")).unwrap();
        assert_eq!(drop.split(' ').count(), 12, "ns-2's wired columns: {drop}");
    }
}
