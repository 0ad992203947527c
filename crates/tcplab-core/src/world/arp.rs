//! The world's side of ARP (net/arp.rs; docs/models/arp.md): a station with an ARP table
//! resolves a unicast next hop before the packet enters its interface queue, sends the
//! requests and replies through that queue and the MAC as ordinary frames, and answers the
//! ARP messages its MAC hands up. A station without a table (every PHY but `ns2_dsss`, unless
//! `wlans.*.arp` says otherwise) pays one empty-vector test per packet.

use super::World;
use crate::ids::PktId;
use crate::net::arp::{ArpTable, Resolve};
use crate::net::Hop;
use crate::packet::{Addr, ArpMsg, ArpOp, Ecn, Ipv4Header, Packet, Transport};
use crate::trace::view::Discard;
use crate::wifi::BROADCAST;

impl World {
    /// Gives station `sta` an ARP table (build time).
    pub fn set_arp(&mut self, sta: u32) {
        let s = sta as usize;
        if self.arp.len() <= s {
            self.arp.resize_with(s + 1, || None);
        }
        self.arp[s] = Some(ArpTable::default());
    }

    /// Station `sta`'s ARP table, if it has one.
    pub fn arp(&self, sta: u32) -> Option<&ArpTable> {
        self.arp.get(sta as usize).and_then(Option::as_ref)
    }

    /// Packet `id` leaves station `sta` for station `next`: through ARP when the station has a
    /// table and the frame is unicast (ns-2.35 ll.cc `sendDown`: broadcasts need no resolution),
    /// into the interface queue otherwise.
    pub(super) fn wifi_send(&mut self, sta: u32, next: u32, id: PktId) {
        if self.arp.is_empty() || next == BROADCAST {
            return self.wifi_enqueue(sta, next, id);
        }
        let Some(Some(table)) = self.arp.get_mut(sta as usize) else {
            return self.wifi_enqueue(sta, next, id);
        };
        match table.resolve(next, id) {
            Resolve::Send => self.wifi_enqueue(sta, next, id),
            Resolve::Request { dropped } => {
                let node = self.wifi.stations[sta as usize].node;
                if let Some(old) = dropped {
                    // ns-2.35 arp.cc arpresolve: the older held packet is dropped ("ARP").
                    let peer = self.wifi.stations[next as usize].node;
                    self.lose_at(node, old, Discard::Arp, Some(peer));
                }
                let target = self.nodes[self.wifi.stations[next as usize].node.idx()].addr;
                let req = self.arp_packet(sta, ArpOp::Request, BROADCAST, target);
                self.wifi_enqueue(sta, BROADCAST, req);
            }
            Resolve::GiveUp { held } => {
                // ns-2.35 arp.cc: after ARP_MAX_REQUEST_COUNT requests both packets go to their
                // link-failure callback, the one the MAC's retry limit calls.
                let node = self.wifi.stations[sta as usize].node;
                let hop = Hop {
                    port: self.sta_port[sta as usize],
                    next: self.nodes[self.wifi.stations[next as usize].node.idx()].addr,
                };
                if let Some(h) = held {
                    self.undeliverable(node, hop, h, true);
                }
                self.undeliverable(node, hop, id, true);
            }
        }
    }

    /// An ARP message station `src` sent reached station `sta` (packet `id` stays the sender's):
    /// the sender is learnt and the packet held for it released; a request for this node is
    /// answered with a unicast reply (ns-2.35 arp.cc `arpinput`: the held packet first, then the
    /// reply, both into the interface queue).
    pub(super) fn arp_input(&mut self, sta: u32, id: PktId, src: u32) {
        let Transport::Arp(m) = self.packets[id.idx()].l4 else {
            return;
        };
        let node = self.wifi.stations[sta as usize].node;
        let Some(Some(table)) = self.arp.get_mut(sta as usize) else {
            return; // a station without ARP ignores the frame
        };
        let held = table.learn(src);
        let answer = m.op == ArpOp::Request && m.tpa == self.nodes[node.idx()].addr;
        if answer {
            table.stats.replies_sent += 1;
        }
        if let Some(h) = held {
            self.wifi_enqueue(sta, src, h);
        }
        if answer {
            let rep = self.arp_packet(sta, ArpOp::Reply, src, m.spa);
            self.wifi_enqueue(sta, src, rep);
        }
    }

    /// A new ARP message from station `sta` to station `to` (BROADCAST for a request) about
    /// the node with address `target` (the one asked for, or the requester).
    fn arp_packet(&mut self, sta: u32, op: ArpOp, to: u32, target: Addr) -> PktId {
        let node = self.wifi.stations[sta as usize].node;
        let spa = self.nodes[node.idx()].addr;
        let tha = if op == ArpOp::Reply {
            self.sta_mac(to)
        } else {
            [0; 6] // what the request asks for
        };
        let msg = ArpMsg {
            op,
            sha: self.sta_mac(sta),
            spa,
            tha,
            tpa: target,
        };
        let pkt = Packet {
            ip: Ipv4Header {
                src: spa,
                // Not on the wire (an ARP frame has no IP header): names the target for the
                // traces; the MAC's destination is `to` (broadcast for a request).
                dst: target,
                ttl: 1,
                ecn: Ecn::NotEct,
                ident: 0,
            },
            l4: Transport::Arp(msg),
            payload: 0,
            flow: u32::MAX,
        };
        self.alloc(pkt)
    }
}

#[cfg(test)]
mod tests {
    use crate::api::{prepare, RunOutput};
    use crate::scenario::Format;
    use crate::time::SimTime;
    use crate::trace::events as e;

    /// n0 – n1, 200 m apart on ns-2's 802.11 (ARP on by default), static routes; `cbr` sends
    /// n0 → n1, `back` n1 → n0 a second later.
    const PAIR: &str = r#"
        name = "arp"
        duration = "4s"
        nodes = [{ name = "n0" }, { name = "n1" }]
        [[wlans]]
        name = "w"
        mode = "adhoc"
        phy = "ns2_dsss"
        rate = "2Mbps"
        propagation = { model = "two_ray_ground" }
        stations = [
            { node = "n0", position = ["0m", "0m"] },
            { node = "n1", position = ["200m", "0m"] },
        ]
        [trace]
        events = {}
        [[flows]]
        name = "cbr"
        app = "cbr"
        src = "n0"
        dst = "n1"
        rate = "40kbps"
        packet_size = "500B"
        start = "1s"
        stop = "1.2s"
        [[flows]]
        name = "back"
        app = "cbr"
        src = "n1"
        dst = "n0"
        rate = "40kbps"
        packet_size = "500B"
        start = "2s"
        stop = "2.2s"
    "#;

    fn run(arp: bool, set: &[(&str, &str)]) -> RunOutput {
        let mut set: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        set.push(("wlans.w.arp".into(), arp.to_string()));
        let mut p = prepare(PAIR, Format::Toml, Some(1), &set, None).unwrap();
        while !p.step(u64::MAX).unwrap() {}
        p.finish().unwrap()
    }

    /// Times from each CBR datagram's send at its source agent to its receipt at the other
    /// end's agent, in send order, for datagrams of `src`.
    fn delays(out: &RunOutput, src: u32) -> Vec<Option<SimTime>> {
        let t = &out.events.as_ref().unwrap().trace;
        let rows = |node: u32, ev: u8| {
            (0..t.len())
                .filter(move |&i| t.layer[i] == e::AGT && t.event[i] == ev && t.node[i] == node)
        };
        rows(src, e::SEND)
            .map(|i| {
                rows(1 - src, e::RECEIVE)
                    .find(|&j| t.uid[j] == t.uid[i])
                    .map(|j| t.t[j] - t.t[i])
            })
            .collect()
    }

    /// The first datagram to a new neighbour waits for the broadcast request and the unicast
    /// reply; later ones do not; the neighbour learnt the sender from its request, so the
    /// datagrams back send no request. With ARP off no datagram waits.
    #[test]
    fn the_first_packet_to_a_new_next_hop_waits_for_the_request_and_reply() {
        let on = run(true, &[]);
        let off = run(false, &[]);
        let (d_on, d_off) = (delays(&on, 0), delays(&off, 0));
        assert_eq!(d_on.len(), 2, "{d_on:?}");
        let first_on = d_on[0].expect("delivered");
        let first_off = d_off[0].expect("delivered");
        // A request (28 B + MAC header at 1 Mb/s with the long preamble) and a reply exchange
        // (RTS/CTS/DATA/ACK): well over 1.5 ms of air time before the datagram's own frames.
        assert!(
            first_on >= first_off + SimTime::from_micros(1_500),
            "{first_on:?} vs {first_off:?}"
        );
        let second_on = d_on[1].expect("delivered");
        assert!(
            second_on + SimTime::from_micros(1_500) < first_on,
            "{d_on:?}"
        );
        let w = &on.summary.wifi;
        assert_eq!((w[0].arp_requests, w[0].arp_replies), (Some(1), Some(0)));
        assert_eq!((w[1].arp_requests, w[1].arp_replies), (Some(0), Some(1)));
        assert_eq!(w[0].drops_arp, Some(0));
        assert!(delays(&on, 1).iter().all(Option::is_some));
        // Off: no ARP counters in the summary, no ARP frames.
        assert_eq!(off.summary.wifi[0].arp_requests, None);
        let t = &off.events.as_ref().unwrap().trace;
        assert!(t.kind.iter().all(|&k| k != e::K_ARP));
        // On: the request is a broadcast MAC frame from n0, the reply a unicast one from n1,
        // both before the datagram's first DATA frame.
        let t = &on.events.as_ref().unwrap().trace;
        let mac_send = |node: u32, kind: u8| {
            (0..t.len()).find(|&i| {
                t.layer[i] == e::MAC
                    && t.event[i] == e::SEND
                    && t.node[i] == node
                    && t.kind[i] == kind
            })
        };
        let req = mac_send(0, e::K_ARP).expect("request sent");
        let rep = mac_send(1, e::K_ARP).expect("reply sent");
        let data = mac_send(0, e::K_UDP).expect("datagram sent");
        assert!(req < rep && rep < data, "{req} {rep} {data}");
        assert_eq!((t.peer[req], t.seq[req]), (e::BROADCAST, 1));
        assert_eq!((t.peer[rep], t.seq[rep]), (0, 2));
        // 28 bytes of ARP into the queue (ns-2.35 arp.h ARP_HDR_LEN); the MAC rows add the
        // MAC header, as a datagram's do.
        let enq = (0..t.len())
            .find(|&i| t.layer[i] == e::IFQ && t.event[i] == e::ENQUEUE && t.kind[i] == e::K_ARP)
            .expect("request queued");
        assert_eq!(t.bytes[enq], 28);
        let udp_enq = (0..t.len())
            .find(|&i| t.layer[i] == e::IFQ && t.event[i] == e::ENQUEUE && t.kind[i] == e::K_UDP)
            .expect("datagram queued");
        assert_eq!(t.bytes[req] - 28, t.bytes[data] - t.bytes[udp_enq]);
    }

    /// The 802.11 captures show the ARP frames as RFC 826 messages behind LLC/SNAP ethertype
    /// 0x0806: n0's the request it sent (op 1), n1's the reply (op 2); none with ARP off.
    #[test]
    fn the_80211_captures_hold_the_arp_frames() {
        let capture = |arp: bool| {
            let dir = std::env::temp_dir().join(format!("tcplab-arp-{}-{arp}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let set = [
                ("wlans.w.arp".to_string(), arp.to_string()),
                ("trace.pcap_80211".to_string(), "[\"w\"]".to_string()),
                ("duration".to_string(), "\"1.5s\"".to_string()),
            ];
            let mut p = prepare(PAIR, Format::Toml, Some(1), &set, Some(&dir)).unwrap();
            while !p.step(u64::MAX).unwrap() {}
            p.finish().unwrap();
            let read = |n: &str| std::fs::read(dir.join(format!("w-{n}-80211.pcap"))).unwrap();
            let (n0, n1) = (read("n0"), read("n1"));
            std::fs::remove_dir_all(&dir).unwrap();
            (n0, n1)
        };
        // LLC/SNAP with ethertype 0x0806, then hardware 1, protocol 0x0800, lengths 6 and 4, op.
        let arp = |op: u8| {
            [
                0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, op,
            ]
        };
        let has = |pcap: &[u8], pat: [u8; 16]| pcap.windows(16).any(|w| w == pat);
        let (n0, n1) = capture(true);
        assert!(
            has(&n0, arp(1)) && has(&n1, arp(1)),
            "the request, sent and heard"
        );
        assert!(
            has(&n1, arp(2)) && has(&n0, arp(2)),
            "the reply, sent and heard"
        );
        let (n0, n1) = capture(false);
        assert!(!has(&n0, arp(1)) && !has(&n1, arp(2)));
    }

    /// A second datagram while the neighbour is unresolved replaces the held one, which is
    /// dropped with reason "arp" (the summary's `drops_arp`, the event trace's IFQ drop row);
    /// with ARP off both arrive.
    #[test]
    fn a_second_packet_while_unresolved_drops_the_first() {
        // 500-byte datagrams every 0.5 ms: the second is sent before the reply is back.
        let set = [
            ("flows.cbr.rate", "\"8Mbps\""),
            ("flows.cbr.stop", "\"1.0009s\""),
        ];
        let on = run(true, &set);
        let off = run(false, &set);
        let (d_on, d_off) = (delays(&on, 0), delays(&off, 0));
        assert_eq!(d_on.len(), 2, "{d_on:?}");
        assert!(d_off.iter().all(Option::is_some), "{d_off:?}");
        assert_eq!(d_on[0], None, "the first is dropped: {d_on:?}");
        assert!(d_on[1].is_some());
        let w = &on.summary.wifi;
        assert_eq!(w[0].drops_arp, Some(1));
        assert_eq!(
            w[0].arp_requests,
            Some(2),
            "each held packet sends a request"
        );
        let t = &on.events.as_ref().unwrap().trace;
        let drops: Vec<usize> = (0..t.len())
            .filter(|&i| t.event[i] == e::DROP && t.reason[i] == e::R_ARP)
            .collect();
        assert_eq!(drops.len(), 1);
        assert_eq!((t.node[drops[0]], t.layer[drops[0]]), (0, e::IFQ));
        assert_eq!(e::REASON_NAMES[e::R_ARP as usize], "arp");
        assert_eq!(e::NS2_REASON[e::R_ARP as usize], "ARP");
        assert_eq!(on.summary.cbr[0].received + 1, on.summary.cbr[0].sent);
        assert_eq!(off.summary.cbr[0].received, off.summary.cbr[0].sent);
    }
}
