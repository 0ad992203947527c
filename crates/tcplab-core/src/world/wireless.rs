//! The world's side of the 802.11 system: carrying out what it asks (events, packets handed up,
//! freed copies, captures) and handing frames the MAC gave up on to the routing agent.

use super::World;
use crate::ids::{NodeId, PktId};
use crate::link::{LossModel, Outage};
use crate::net::{Hop, Port, PortKind, RoutingAgent};
use crate::packet::Addr;
use crate::rng::Rng;
use crate::trace::PcapWriter;
use crate::wifi::BROADCAST;

impl World {
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
        self.wifi.start(self.now);
        self.wifi_io();
    }

    /// Carries out what the wireless system asked for: events, packets handed up, freed copies,
    /// packets the MAC gave up on.
    pub(super) fn wifi_io(&mut self) {
        loop {
            for (t, ev) in self.wifi.io.sched.drain(..) {
                self.queue.schedule(t, ev);
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
            if !self.wifi.io.failed.is_empty() {
                for (s, p, dst) in std::mem::take(&mut self.wifi.io.failed) {
                    self.link_failed(s, p, dst);
                }
                self.free_packets.append(&mut freed);
                continue;
            }
            if self.wifi.io.up.is_empty() {
                self.free_packets.append(&mut freed);
                break;
            }
            let mut up = std::mem::take(&mut self.wifi.io.up);
            for &(s, p, src) in &up {
                // The sender keeps its copy until the ACK (it may retransmit); the receiver gets
                // its own.
                let copy = self.packets[p.idx()].clone();
                let id = self.alloc(copy);
                let node = self.wifi.stations[s as usize].node;
                if let Some(w) = self.wifi_pcap.get_mut(s as usize).and_then(Option::as_mut) {
                    w.record(self.now, &self.packets[id.idx()]);
                }
                let from = self.nodes[self.wifi.stations[src as usize].node.idx()].addr;
                self.receive_ip(node, id, self.sta_port[s as usize], from);
            }
            self.free_packets.append(&mut freed);
            up.clear();
            if self.wifi.io.up.is_empty() {
                self.wifi.io.up = up;
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
        let next = self.nodes[self.wifi.stations[dst as usize].node.idx()].addr;
        let hop = Hop {
            port: self.sta_port[sta as usize],
            next,
        };
        let now = self.now;
        let mut io = std::mem::take(&mut self.rio);
        let d = self.routing[node.idx()].on_link_failure(
            now,
            hop,
            id,
            &self.packets[id.idx()],
            &mut io,
        );
        self.apply(node, id, d);
        self.routing_done(node, io);
    }

    /// Offers packet `id` to station `sta`'s interface queue for station `next`.
    pub(super) fn wifi_enqueue(&mut self, sta: u32, next: u32, id: PktId) {
        let node = self.wifi.stations[sta as usize].node;
        let p = &self.packets[id.idx()];
        // Routing packets go to the head of the queue, as ns-2's PriQueue with
        // `Prefer_Routing_Protocols`.
        let (len, prio) = (p.ip_len(), self.routing[node.idx()].is_control(p));
        if !self.wifi.enqueue(self.now, sta, id, next, len, prio) {
            self.free(id);
        }
        if !self.wifi.io.up.is_empty()
            || !self.wifi.io.sched.is_empty()
            || !self.wifi.io.freed.is_empty()
            || !self.wifi.io.failed.is_empty()
        {
            self.wifi_io();
        }
    }
}
