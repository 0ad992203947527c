//! The world's side of the 802.11 system: carrying out what it asks (events, packets handed up,
//! freed copies, captures) and handing frames the MAC gave up on to the routing agent.

use super::World;
use crate::ids::{NodeId, PktId};
use crate::link::{Enqueue, LossModel, Outage, Red, RedParams};
use crate::net::{Hop, Port, PortKind, RoutingAgent};
use crate::packet::{Addr, Ecn, Transport};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::trace::events as ev;
use crate::trace::view::Discard;
use crate::trace::PcapWriter;
use crate::wifi::BROADCAST;

/// RED on a station's interface queue (the MAC's DropTail still bounds it).
#[derive(Debug)]
pub struct WifiRed {
    red: Red,
    rng: Rng,
    pub ecn_marks: u64,
    pub drops: u64,
}

impl World {
    /// Puts RED (RFC 3168 §7 marking) in front of station `sta`'s interface queue, with its own
    /// random stream. Routing control packets bypass it (they go to the head of the queue).
    pub fn set_wifi_red(&mut self, sta: u32, p: RedParams, rng: Rng) {
        let s = sta as usize;
        if self.wifi_red.len() <= s {
            self.wifi_red.resize_with(s + 1, || None);
        }
        // The idle-time decay of Floyd & Jacobson §4 is not applied (the MAC does not report when
        // its queue empties); with w_q = 1 the average is the instantaneous length.
        self.wifi_red[s] = Some(WifiRed {
            red: Red::new(p, SimTime::ZERO),
            rng,
            ecn_marks: 0,
            drops: 0,
        });
    }

    /// RED's counters at station `sta`, if it runs RED.
    pub fn wifi_red(&self, sta: u32) -> Option<&WifiRed> {
        self.wifi_red.get(sta as usize).and_then(|r| r.as_ref())
    }

    /// RED's verdict on packet `id` at station `sta` (Queued when the station runs no RED).
    fn wifi_aqm(&mut self, sta: u32, id: PktId, prio: bool) -> Enqueue {
        let Some(Some(r)) = self.wifi_red.get_mut(sta as usize) else {
            return Enqueue::Queued;
        };
        if prio {
            return Enqueue::Queued;
        }
        let qlen = self.wifi.stations[sta as usize].mac.queue_len();
        let ect = self.packets[id.idx()].ip.ecn != Ecn::NotEct;
        let v = r.red.arrival(self.now, qlen, ect, &mut r.rng);
        match v {
            Enqueue::Dropped => r.drops += 1,
            Enqueue::QueuedMarked => {
                r.ecn_marks += 1;
                self.packets[id.idx()].ip.ecn = Ecn::Ce;
            }
            Enqueue::Queued => {}
        }
        v
    }

    /// Adds a node's wireless interface to WLAN `wlan` (see [`crate::wifi::Wifi::add_station`])
    /// and gives the node a port for it; returns the station.
    #[allow(clippy::too_many_arguments)]
    pub fn add_station(
        &mut self,
        wlan: u32,
        node: NodeId,
        pos: (f64, f64),
        is_ap: bool,
        outage: Outage,
        rngs: [Rng; 4],
        pcap: Option<PcapWriter>,
    ) -> u32 {
        let sta = self
            .wifi
            .add_station(wlan, node, pos, is_ap, LossModel::None, outage, rngs);
        self.wifi.stations[sta as usize].pcap = pcap.is_some();
        self.wifi_pcap.push(pcap);
        let port = Port(self.nodes[node.idx()].ports.len() as u16);
        self.nodes[node.idx()].ports.push(PortKind::Wifi(sta));
        self.sta_port.push(port);
        let w = wlan as usize;
        if self.wlan_sta.len() <= w {
            self.wlan_sta.resize(w + 1, Vec::new());
        }
        let map = &mut self.wlan_sta[w];
        if map.len() < self.nodes.len() {
            map.resize(self.nodes.len(), None);
        }
        map[node.idx()] = Some(sta);
        sta
    }

    /// The station of the node with address `addr` in the WLAN of station `sta`.
    pub(super) fn station_of(&self, sta: u32, addr: Addr) -> Option<u32> {
        let w = self.wifi.stations[sta as usize].wlan as usize;
        let n = crate::net::addr_node(addr, self.nodes.len())?;
        self.wlan_sta.get(w)?.get(n.idx()).copied().flatten()
    }

    /// Schedules the wireless system's first outage and signal events; call once after building.
    pub fn start_wifi(&mut self) {
        if self.wifi.dequeue_trace.is_some() {
            for sta in 0..self.wifi.stations.len() {
                let node = self.wifi.stations[sta].node;
                let on = self.ev_wants(ev::IFQ, node);
                self.wifi.stations[sta].mac.set_report_dequeue(on);
            }
        }
        self.wifi.start(self.now);
        self.wifi_io();
    }

    /// Carries out what the wireless system asked for: events, packets handed up, freed copies,
    /// packets the MAC gave up on.
    pub(super) fn wifi_io(&mut self) {
        loop {
            if self.event_trace.is_some() {
                self.trace_frames();
            }
            for &(t, ev) in &self.wifi.io.sched {
                self.queue.schedule(t, ev);
            }
            self.wifi.io.sched.clear();
            if self.wifi.io.is_idle() {
                if self.wifi.dequeue_trace.is_some() {
                    self.ev_dequeues();
                }
                break; // most events: the MAC only re-armed timers
            }
            // Copies the MAC is done with are released only after this round's receptions:
            // a broadcast's copy is cloned for each receiver, and a receiver that answers
            // (allocating) must not get its slot before the last receiver has its clone.
            let mut freed = std::mem::take(&mut self.wifi.io.freed);
            if !self.wifi.io.pcap_tx.is_empty() {
                let now = self.now;
                for (s, p) in std::mem::take(&mut self.wifi.io.pcap_tx) {
                    if let Some(w) = self.wifi_pcap.get_mut(s as usize).and_then(Option::as_mut) {
                        w.record(now, &self.packets[p.idx()]);
                    }
                }
            }
            if !self.wifi.io.air.is_empty() {
                self.capture_air();
            }
            // Packets a routing packet pushed out of a full interface queue.
            if !self.wifi.io.lost.is_empty() {
                for (s, p) in std::mem::take(&mut self.wifi.io.lost) {
                    let node = self.wifi.stations[s as usize].node;
                    self.lose_at(node, p, Discard::Queue, None);
                }
            }
            if self
                .wifi
                .mac_drop_trace
                .as_ref()
                .is_some_and(|d| !d.is_empty())
            {
                self.ev_mac_drops();
            }
            // After the MAC's drop of the packet it gave up on, the next one it took.
            if self.wifi.dequeue_trace.is_some() {
                self.ev_dequeues();
            }
            if !self.wifi.io.failed.is_empty() {
                for (s, p, dst) in std::mem::take(&mut self.wifi.io.failed) {
                    self.link_failed(s, p, dst);
                }
                self.release(&mut freed);
                continue;
            }
            if !self.wifi.io.overheard.is_empty() {
                let mut heard = std::mem::take(&mut self.wifi.io.overheard);
                for &(s, p, src, dst) in &heard {
                    self.overheard(s, p, src, dst);
                }
                heard.clear();
                if self.wifi.io.overheard.is_empty() {
                    self.wifi.io.overheard = heard; // keep the allocation
                }
            }
            if self.wifi.io.up.is_empty() {
                self.release(&mut freed);
                break;
            }
            let mut up = std::mem::take(&mut self.wifi.io.up);
            for &(s, p, src) in &up {
                if !self.arp.is_empty() && matches!(self.packets[p.idx()].l4, Transport::Arp(_)) {
                    self.arp_input(s, p, src); // the sender keeps its copy; nothing to free
                    continue;
                }
                // The sender keeps its copy until the ACK (it may retransmit); the receiver gets
                // its own.
                let copy = self.packets[p.idx()].clone();
                let id = self.alloc(copy);
                self.born[id.idx()] = self.born[p.idx()];
                self.ev_copy(p, id);
                let node = self.wifi.stations[s as usize].node;
                if let Some(w) = self.wifi_pcap.get_mut(s as usize).and_then(Option::as_mut) {
                    w.record(self.now, &self.packets[id.idx()]);
                }
                let from = self.nodes[self.wifi.stations[src as usize].node.idx()].addr;
                self.receive_ip(node, id, self.sta_port[s as usize], from);
            }
            self.release(&mut freed);
            up.clear();
            if self.wifi.io.up.is_empty() {
                self.wifi.io.up = up;
            }
        }
    }

    /// Frees the copies of `freed` (the MAC's list of a round of `wifi_io`), and gives the list's
    /// allocation back to the MAC unless the round made a new list.
    fn release(&mut self, freed: &mut Vec<PktId>) {
        self.free_packets.append(freed);
        if self.wifi.io.freed.is_empty() {
            std::mem::swap(&mut self.wifi.io.freed, freed);
        }
    }

    /// Promiscuous station `sta` decoded packet `id` sent by station `src` to station `dst`:
    /// the packet is lent to the node's routing agent only (no copy: it stays the sender's,
    /// and is neither delivered, counted, traced nor freed here).
    fn overheard(&mut self, sta: u32, id: PktId, src: u32, dst: u32) {
        let node = self.wifi.stations[sta as usize].node;
        let addr = |st: u32| self.nodes[self.wifi.stations[st as usize].node.idx()].addr;
        let (from, to) = (addr(src), addr(dst));
        let (now, port, mut io) = (
            self.now,
            self.sta_port[sta as usize],
            std::mem::take(&mut self.rio),
        );
        let pkt = &self.packets[id.idx()];
        self.routing[node.idx()].on_overheard(now, port, from, to, pkt, &mut io);
        self.routing_done(node, io);
    }

    /// Turns promiscuous reception on at `node`'s stations when its routing agent asks for it
    /// (off otherwise: a MAC without a listener does no work for frames for others).
    pub(super) fn set_promiscuous(&mut self, node: NodeId) {
        let on = self.routing[node.idx()].wants_overheard();
        for port in &self.nodes[node.idx()].ports {
            if let PortKind::Wifi(sta) = *port {
                self.wifi.stations[sta as usize].mac.set_promiscuous(on);
            }
        }
    }

    /// The MAC of station `sta` gave up on packet `id` for station `dst`: the node's routing
    /// agent decides what becomes of it (RFC 3561 §6.11: link-layer feedback).
    fn link_failed(&mut self, sta: u32, id: PktId, dst: u32) {
        let node = self.wifi.stations[sta as usize].node;
        if dst == BROADCAST {
            self.free(id);
            return;
        }
        if matches!(self.packets[id.idx()].l4, Transport::Arp(_)) {
            // ns-2.35: an ARP reply carries no link-failure callback; the MAC's drop is all.
            self.free(id);
            return;
        }
        let next = self.nodes[self.wifi.stations[dst as usize].node.idx()].addr;
        let hop = Hop {
            port: self.sta_port[sta as usize],
            next,
        };
        self.undeliverable(node, hop, id, true);
    }

    /// Offers packet `id` to station `sta`'s interface queue for station `next`.
    pub(super) fn wifi_enqueue(&mut self, sta: u32, next: u32, id: PktId) {
        let node = self.wifi.stations[sta as usize].node;
        let p = &self.packets[id.idx()];
        // Routing packets go to the head of the queue, as ns-2's PriQueue with
        // `Prefer_Routing_Protocols`.
        let (len, prio) = (p.ip_len(), self.routing[node.idx()].is_control(p));
        let peer = if next == BROADCAST {
            ev::BROADCAST
        } else {
            self.wifi.stations[next as usize].node.0
        };
        if self.wifi_aqm(sta, id, prio) == Enqueue::Dropped
            || !self.wifi.enqueue(self.now, sta, id, next, len, prio)
        {
            self.lose_at(node, id, Discard::Queue, None);
        } else {
            // The MAC's frames for it (if it went on the air at once) are read after this row,
            // and after its dequeue if the MAC took it at once.
            self.ev(node, ev::IFQ, ev::ENQUEUE, id, peer, ev::R_NONE);
            self.ev_dequeues();
        }
        if !self.wifi.io.up.is_empty()
            || !self.wifi.io.overheard.is_empty()
            || !self.wifi.io.sched.is_empty()
            || !self.wifi.io.freed.is_empty()
            || !self.wifi.io.lost.is_empty()
            || !self.wifi.io.failed.is_empty()
        {
            self.wifi_io();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::api::prepare;
    use crate::ids::NodeId;
    use crate::net::{addr_node, AnyRouting};
    use crate::scenario::Format;

    /// n0 – n1 – n2 200 m apart, n3 200 m from n1 only (250 m reception): n3 decodes n1's
    /// frames to n2 but is on no route. CBR n0 → n2 over DSR (ns-2 preset).
    const NET: &str = r#"
        name = "overhear"
        duration = "5s"
        nodes = [{ name = "n0" }, { name = "n1" }, { name = "n2" }, { name = "n3" }]
        [[wlans]]
        name = "manet"
        mode = "adhoc"
        phy = "ns2_dsss"
        rate = "2Mbps"
        propagation = { model = "two_ray_ground" }
        routing = { protocol = "dsr", preset = "ns2" }
        stations = [
            { node = "n0", position = ["0m", "0m"] },
            { node = "n1", position = ["200m", "0m"] },
            { node = "n2", position = ["400m", "0m"] },
            { node = "n3", position = ["200m", "200m"] },
        ]
        [[flows]]
        name = "u"
        app = "cbr"
        src = "n0"
        dst = "n2"
        rate = "64kbps"
        packet_size = "512B"
        stop = "4s"
    "#;

    /// n0 → n1 over ns-2's 802.11 with RTS/CTS; n0 alone receives in error with probability
    /// 0.3 (`direction = "b_to_a"`): n0 receives only CTS and ACK frames.
    const LOSSY_RX: &str = r#"
        name = "phy-errors"
        duration = "3s"
        nodes = [{ name = "n0" }, { name = "n1" }]
        [[wlans]]
        name = "w"
        mode = "adhoc"
        phy = "ns2_dsss"
        rate = "2Mbps"
        propagation = { model = "two_ray_ground" }
        stations = [
            { node = "n0", position = ["0m", "0m"], loss = { model = "bernoulli", p = 0.3, direction = "b_to_a" } },
            { node = "n1", position = ["200m", "0m"] },
        ]
        [[flows]]
        name = "u"
        app = "cbr"
        src = "n0"
        dst = "n1"
        rate = "100kbps"
        packet_size = "500B"
        start = "0.5s"
    "#;

    /// Below the MAC (`loss_at = "phy"`, the ns2_dsss default, ns-2's error hook) the errors hit
    /// the CTS and ACK frames n0 receives, and n0 retries; where they act on data frames only
    /// (`frames`) n0, which receives no data frame, loses nothing.
    #[test]
    fn errors_below_the_mac_hit_control_frames_too() {
        let run = |at: Option<&str>| {
            let mut set = Vec::new();
            if let Some(a) = at {
                set.push(("wlans.w.stations.0.loss_at".to_string(), format!("\"{a}\"")));
            }
            let mut p = prepare(LOSSY_RX, Format::Toml, Some(1), &set, None).unwrap();
            while !p.step(u64::MAX).unwrap() {}
            p.finish().unwrap().summary
        };
        let phy = run(Some("phy"));
        let frames = run(Some("frames"));
        let default = run(None);
        let (p0, f0) = (&phy.wifi[0], &frames.wifi[0]);
        assert_eq!((f0.frame_errors, f0.retries), (0, 0), "{f0:?}");
        assert!(p0.frame_errors > 20 && p0.retries > 20, "{p0:?}");
        assert_eq!(phy.wifi[1].frame_errors, 0);
        // Every datagram still arrives (the MAC retries), later for some.
        assert_eq!(phy.cbr[0].received, frames.cbr[0].received);
        let strip = |mut s: crate::api::Summary| {
            s.wall_time_s = 0.0;
            serde_json::to_string(&s).unwrap()
        };
        assert_eq!(strip(default), strip(phy), "phy is the ns2_dsss default");
    }

    /// The MAC's switch: with DSR's tap on, n3's station reports the frames n1 sends n2 and
    /// the world lends them to n3's agent (which caches n3-n1-n2 from them); the packets are
    /// delivered once, to n2 alone, and nothing at n3 is delivered, forwarded or dropped.
    #[test]
    fn an_overheard_frame_is_lent_to_routing_and_not_delivered() {
        let run = |promiscuous: bool| {
            let set = [(
                "wlans.manet.routing.promiscuous".to_string(),
                promiscuous.to_string(),
            )];
            let mut p = prepare(NET, Format::Toml, Some(1), &set, None).unwrap();
            while !p.step(u64::MAX).unwrap() {}
            let w = &p.world;
            let n3 = &w.wifi().stations[3];
            let AnyRouting::Dsr(d) = w.routing(NodeId(3)) else {
                panic!("DSR at n3");
            };
            let route = d.cache().peek(w.nodes()[2].addr, w.now);
            let hops: Option<Vec<u32>> =
                route.map(|r| r.iter().map(|&a| addr_node(a, 4).unwrap().0).collect());
            let n3_sent = n3.mac.stats.data_frames_sent;
            let dropped = w.nodes()[3].drops;
            let (overheard, delivered) = (n3.mac.stats.overheard, n3.mac.stats.delivered);
            let cbr = p.finish().unwrap().summary.cbr[0].clone();
            (
                overheard,
                hops,
                delivered,
                n3_sent,
                dropped.routing,
                cbr.sent,
                cbr.received,
            )
        };
        let on = run(true);
        let off = run(false);
        assert!(on.0 > 50, "n3 overheard n1's frames: {on:?}");
        assert_eq!(on.1, Some(vec![3, 1, 2]), "lent to routing");
        assert_eq!(off.0, 0, "off unless the agent asks");
        assert_eq!(off.1, None);
        // Only the broadcast requests reach n3's IP and leave it again, as without the tap.
        assert_eq!((on.2, on.3, on.4), (off.2, off.3, off.4));
        assert_eq!(on.6, on.5, "every datagram delivered once: {on:?}");
        assert_eq!(off.6, off.5);
    }
}
