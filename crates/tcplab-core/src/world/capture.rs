//! The per-station 802.11 captures (`trace.pcap_80211`): what each captured station sent and
//! decoded, written as radiotap + 802.11 frames (trace/radiotap.rs). The wireless system lists
//! the frames (`WifiIo::air`, empty unless a station is captured); the world, which holds the
//! packets, serialises them.

use super::World;
use crate::packet::emit;
use crate::trace::radiotap::{self, Ds, MacAddr, Mpdu, Radio, BROADCAST_MAC};
use crate::trace::PcapWriter;
use crate::wifi::{AirFrame, FrameKind, Mode, Modulation, Propagation, BROADCAST};

impl World {
    /// Captures station `sta`'s 802.11 frames to `w` (build time).
    pub fn set_station_capture_80211(&mut self, sta: u32, w: PcapWriter) {
        let s = sta as usize;
        if self.wifi_pcap_80211.len() <= s {
            self.wifi_pcap_80211.resize_with(s + 1, || None);
        }
        self.wifi.stations[s].pcap_80211 = true;
        self.wifi_pcap_80211[s] = Some(w);
    }

    /// The MAC address of station `sta`: locally administered, 02:<wlan>:<the node's IPv4
    /// address>, so Wireshark's addresses read as the nodes' IP addresses.
    pub(super) fn sta_mac(&self, sta: u32) -> MacAddr {
        if sta == BROADCAST {
            return BROADCAST_MAC;
        }
        let st = &self.wifi.stations[sta as usize];
        let a = self.nodes[st.node.idx()].addr.to_be_bytes();
        [0x02, st.wlan as u8, a[0], a[1], a[2], a[3]]
    }

    /// Writes the frames the wireless system listed for the 802.11 captures.
    pub(super) fn capture_air(&mut self) {
        let mut air = std::mem::take(&mut self.wifi.io.air);
        let mut buf = std::mem::take(&mut self.air_buf);
        let mut ip = Vec::new();
        for a in &air {
            buf.clear();
            self.air_frame(a, &mut ip, &mut buf);
            if let Some(w) = self
                .wifi_pcap_80211
                .get_mut(a.sta as usize)
                .and_then(Option::as_mut)
            {
                w.record_bytes(a.t, &buf);
            }
        }
        air.clear();
        self.wifi.io.air = air;
        self.air_buf = buf;
    }

    /// Serialises one captured frame (radiotap + MPDU + FCS) into `buf`.
    fn air_frame(&self, a: &AirFrame, ip: &mut Vec<u8>, buf: &mut Vec<u8>) {
        let f = &a.frame;
        let wlan = &self.wifi.wlans[self.wifi.stations[f.src as usize].wlan as usize];
        let (freq_mhz, has_power) = match &wlan.cfg.propagation {
            Propagation::UnitDisk { .. } => (None, false),
            Propagation::FreeSpace(r) | Propagation::TwoRayGround(r) => {
                (Some((r.freq / 1e6).round() as u16), true)
            }
            Propagation::LogDistance { radio, .. } => {
                (Some((radio.freq / 1e6).round() as u16), true)
            }
        };
        let ofdm = match wlan.cfg.phy.modulation {
            Modulation::Ofdm => true,
            Modulation::ErpOfdm => f.rate.is_multiple_of(3_000_000),
            Modulation::Ns2Dsss | Modulation::Dsss => false,
        };
        let radio = Radio {
            rate_bps: f.rate,
            // A model without a carrier frequency (unit disk) is shown on channel 1 (2.4 GHz)
            // or 36 (5 GHz, 802.11a OFDM).
            freq_mhz: freq_mhz.unwrap_or(if wlan.cfg.phy.modulation == Modulation::Ofdm {
                5180
            } else {
                2412
            }),
            ofdm,
            signal_dbm: a
                .power_w
                .filter(|_| has_power)
                .map(|p| 10.0 * (p * 1e3).log10()),
        };
        // Duration/ID in µs, rounded up (9.2.5).
        let duration_us = f.nav.0.div_ceil(1000).min(32_767) as u16;
        let (ra, ta) = (self.sta_mac(f.dst), self.sta_mac(f.src));
        let mpdu = match f.kind {
            FrameKind::Rts => Mpdu::Rts {
                duration_us,
                ra,
                ta,
            },
            FrameKind::Cts => Mpdu::Cts { duration_us, ra },
            FrameKind::Ack => Mpdu::Ack { duration_us, ra },
            FrameKind::Data => {
                let Some(p) = f.pkt.map(|id| &self.packets[id.idx()]) else {
                    return;
                };
                ip.clear();
                emit(p, ip);
                let wl = self.wifi.stations[f.src as usize].wlan as u8;
                let node_mac = |addr: u32| {
                    let b = addr.to_be_bytes();
                    [0x02, wl, b[0], b[1], b[2], b[3]]
                };
                let (ds, a1, a2, a3) = match (wlan.cfg.mode, wlan.ap) {
                    (Mode::Infrastructure, Some(ap)) if f.src == ap => {
                        (Ds::FromDs, ra, ta, node_mac(p.ip.src))
                    }
                    (Mode::Infrastructure, Some(ap)) if f.dst == ap => {
                        (Ds::ToDs, ra, ta, node_mac(p.ip.dst))
                    }
                    // Ad hoc (IBSS): the BSSID is the WLAN's own, 02:<wlan>:00:00:00:00.
                    _ => (Ds::None, ra, ta, [0x02, wl, 0, 0, 0, 0]),
                };
                Mpdu::Data {
                    duration_us,
                    a1,
                    a2,
                    a3,
                    ds,
                    retry: f.retry,
                    seq: f.seq,
                    arp: matches!(p.l4, crate::packet::Transport::Arp(_)),
                    ip,
                }
            }
        };
        radiotap::write(buf, &radio, &mpdu);
    }
}
