//! M-TCP's supervisor host (Brown & Singh 1997, as seed 000 §2.5 models it) and M-TCP+'s
//! intermediate host (seed 000 §3.2, Algorithm 2).
//!
//! **M-TCP SH.** Forwards each ACK from the mobile with its acknowledgement number reduced by one
//! (it withholds the last byte). On a disconnection it acknowledges that byte with a zero window,
//! which sends the FH into persist if nothing else is outstanding; on reconnection it repeats the
//! ACK with the window reopened. It stores nothing and retransmits nothing.
//!
//! **M-TCP+ IH.** Forwards ACKs unchanged and keeps a FIFO copy of every new FH segment until the
//! mobile acknowledges it. On disconnection feedback it sends the mobile's last ACK with rwnd = 0
//! and, if that ACK is below snd_max, an ACK for snd_max with rwnd = 0 (Algorithm 2): the FH then
//! has nothing outstanding and enters persist; the IH answers its probes with a zero window. What
//! happens on reconnection is not in the paper (ALGORITHMS.md §3.2, [RECONSTRUCTED]); here the IH
//! delivers the buffered segments itself (retransmitting them on its own timer or on three
//! duplicate ACKs, since the FH believes them delivered), reopens the FH's window with the mobile's
//! last advertised window, and absorbs the mobile's ACKs below what it has already acknowledged.
//! `snd_max` is taken as the end of the highest segment seen (the next byte the FH will send), so
//! that the FH is left with nothing outstanding, which is what the paper's text requires.

use std::collections::{BTreeMap, VecDeque};

use super::{ack_from_template, earliest, seg_end, AgentEvent, ConnKey, Dir, Verdict};
use crate::packet::{Packet, TcpFlags, Transport};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MtcpStats {
    pub disconnections: u64,
    pub reconnections: u64,
    pub zero_window_acks: u64,
    pub probes_answered: u64,
    pub window_updates: u64,
    /// Segments the IH sent to the mobile from its buffer (after reconnection or on loss).
    pub ih_retransmissions: u64,
    pub acks_absorbed: u64,
    /// New FH segments that did not fit in the buffer.
    pub buffer_overflows: u64,
}

// ---------------------------------------------------------------------------------- M-TCP SH

#[derive(Debug, Default)]
struct ShConn {
    /// The mobile's last ACK (template) and its unreduced acknowledgement number.
    last_ack: Option<Packet>,
    w: u64,
    wnd: u32,
    fh_iss: Option<u64>,
    fh_fin_end: Option<u64>,
}

/// M-TCP supervisor host.
#[derive(Debug, Default)]
pub struct MtcpSh {
    conns: BTreeMap<ConnKey, ShConn>,
    disconnected: bool,
    pub stats: MtcpStats,
}

impl MtcpSh {
    pub fn on_packet(
        &mut self,
        _now: SimTime,
        dir: Dir,
        p: &mut Packet,
        _out: &mut Vec<Packet>,
    ) -> Verdict {
        let Some(key) = ConnKey::of(p, dir) else {
            return Verdict::Forward;
        };
        let payload = p.payload;
        let disconnected = self.disconnected;
        let c = self.conns.entry(key).or_default();
        let Transport::Tcp(h) = &mut p.l4 else {
            return Verdict::Forward;
        };
        match dir {
            Dir::ToMobile => {
                if h.flags.has(TcpFlags::SYN) {
                    c.fh_iss = Some(h.seq);
                }
                if h.flags.has(TcpFlags::FIN) {
                    c.fh_fin_end = Some(seg_end(h, payload));
                }
            }
            Dir::FromMobile => {
                if !h.flags.has(TcpFlags::ACK) || h.flags.has(TcpFlags::SYN) {
                    return Verdict::Forward;
                }
                c.w = h.ack;
                c.wnd = h.window;
                let tpl = Packet {
                    ip: p.ip,
                    l4: Transport::Tcp(h.clone()),
                    payload: 0,
                    flow: p.flow,
                };
                c.last_ack = Some(tpl);
                // Withhold the last acknowledged byte — except for the handshake's ACK (nothing to
                // withhold) and the ACK of the FH's FIN (the transfer is over).
                let data_acked = c.fh_iss.is_some_and(|iss| h.ack > iss + 1);
                if disconnected {
                    // Between the prediction and the outage the mobile still acknowledges: the FH
                    // must stay at a zero window (and the withheld byte is already acknowledged).
                    h.window = 0;
                } else if data_acked && c.fh_fin_end != Some(h.ack) {
                    h.ack -= 1;
                }
            }
        }
        Verdict::Forward
    }

    pub fn on_event(&mut self, _now: SimTime, ev: AgentEvent, out: &mut Vec<Packet>) {
        match ev {
            AgentEvent::LinkGoingDown { .. } if !self.disconnected => {
                self.disconnected = true;
                self.stats.disconnections += 1;
                for c in self.conns.values() {
                    if let Some(tpl) = &c.last_ack {
                        // Acknowledge the withheld byte with a zero window (seed 000 §2.5).
                        out.push(ack_from_template(tpl, c.w, 0));
                        self.stats.zero_window_acks += 1;
                    }
                }
            }
            AgentEvent::LinkUp if self.disconnected => {
                self.disconnected = false;
                self.stats.reconnections += 1;
                for c in self.conns.values() {
                    if let Some(tpl) = &c.last_ack {
                        // A duplicate ACK that opens the window all the way.
                        out.push(ack_from_template(tpl, c.w, c.wnd));
                        self.stats.window_updates += 1;
                    }
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------- M-TCP+ IH

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MtcpPlusConfig {
    /// FIFO capacity in payload bytes.
    pub buffer: u64,
    /// The IH's retransmission timeout for buffered segments after reconnection (doubles on
    /// each expiry, reset when the mobile's ACK advances).
    pub rto: SimTime,
    pub max_rto: SimTime,
}

impl Default for MtcpPlusConfig {
    fn default() -> Self {
        MtcpPlusConfig {
            buffer: 1 << 20,
            rto: SimTime::from_millis(500),
            max_rto: SimTime::from_secs(8),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IhState {
    Connected,
    Disconnected,
    /// Reconnected; buffered segments the FH believes delivered are still on their way.
    Resuming,
}

#[derive(Debug)]
struct IhConn {
    /// End of the highest segment seen from the FH.
    snd_max: u64,
    fifo: VecDeque<Packet>,
    fifo_bytes: u64,
    /// End of the contiguous sequence range the FIFO holds above the mobile's ACK.
    covered_end: u64,
    last_ack: Option<Packet>,
    w: u64,
    wnd: u32,
    /// Highest acknowledgement the IH itself sent to the FH on the mobile's behalf.
    ih_acked: u64,
    dupacks: u32,
    rexmit_at: Option<SimTime>,
    backoff: u32,
}

impl IhConn {
    fn new() -> Self {
        IhConn {
            snd_max: 0,
            fifo: VecDeque::new(),
            fifo_bytes: 0,
            covered_end: 0,
            last_ack: None,
            w: 0,
            wnd: 0,
            ih_acked: 0,
            dupacks: 0,
            rexmit_at: None,
            backoff: 0,
        }
    }

    fn purge(&mut self, ack: u64) {
        while let Some(f) = self.fifo.front() {
            let h = f.tcp().expect("tcp in fifo");
            if seg_end(h, f.payload) <= ack {
                self.fifo_bytes -= f.payload as u64;
                self.fifo.pop_front();
            } else {
                break;
            }
        }
    }
}

/// M-TCP+ intermediate host.
#[derive(Debug)]
pub struct MtcpPlusIh {
    cfg: MtcpPlusConfig,
    conns: BTreeMap<ConnKey, IhConn>,
    state: IhState,
    pub stats: MtcpStats,
}

impl MtcpPlusIh {
    pub fn new(cfg: MtcpPlusConfig) -> Self {
        MtcpPlusIh {
            cfg,
            conns: BTreeMap::new(),
            state: IhState::Connected,
            stats: MtcpStats::default(),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        earliest(self.conns.values().map(|c| c.rexmit_at))
    }

    /// Bytes currently buffered.
    pub fn buffered(&self) -> u64 {
        self.conns.values().map(|c| c.fifo_bytes).sum()
    }

    pub fn on_packet(
        &mut self,
        now: SimTime,
        dir: Dir,
        p: &mut Packet,
        out: &mut Vec<Packet>,
    ) -> Verdict {
        let Some(key) = ConnKey::of(p, dir) else {
            return Verdict::Forward;
        };
        let (cfg, state) = (self.cfg, self.state);
        let stats = &mut self.stats;
        let c = self.conns.entry(key).or_insert_with(IhConn::new);
        let Some(h) = p.tcp() else {
            return Verdict::Forward;
        };
        match dir {
            Dir::ToMobile => {
                if h.flags.has(TcpFlags::SYN) {
                    c.snd_max = h.seq + 1;
                    c.covered_end = c.snd_max;
                    return Verdict::Forward;
                }
                let end = seg_end(h, p.payload);
                let is_data = end > h.seq;
                if state == IhState::Disconnected && p.payload == 1 && h.seq == c.ih_acked {
                    // A persist probe: answered with the last ACK and rwnd = 0 (§3.2), not stored.
                    if let Some(tpl) = &c.last_ack {
                        out.push(ack_from_template(tpl, c.ih_acked, 0));
                        stats.probes_answered += 1;
                        return Verdict::Absorb;
                    }
                }
                if is_data && end > c.snd_max {
                    // A new segment: keep a copy until the mobile acknowledges it (§3.2).
                    c.snd_max = end;
                    if c.fifo_bytes + p.payload as u64 <= cfg.buffer {
                        if h.seq <= c.covered_end {
                            c.covered_end = c.covered_end.max(end);
                        }
                        c.fifo_bytes += p.payload as u64;
                        c.fifo.push_back(p.clone());
                    } else {
                        stats.buffer_overflows += 1;
                    }
                }
                if state == IhState::Disconnected {
                    // The mobile cannot be reached: keep the data, acknowledge what is covered with
                    // a zero window, and answer probes the same way (§3.2).
                    if let Some(tpl) = &c.last_ack {
                        let ack = c.covered_end.max(c.ih_acked);
                        out.push(ack_from_template(tpl, ack, 0));
                        c.ih_acked = ack;
                        stats.zero_window_acks += 1;
                        return Verdict::Absorb;
                    }
                }
                if state != IhState::Disconnected
                    && c.ih_acked > h.seq
                    && end <= c.ih_acked
                    && is_data
                {
                    // A probe or retransmission of data the IH already acknowledged: the IH owns it.
                    if let Some(tpl) = &c.last_ack {
                        out.push(ack_from_template(tpl, c.ih_acked, c.wnd));
                    }
                    return Verdict::Absorb;
                }
                Verdict::Forward
            }
            Dir::FromMobile => {
                if !h.flags.has(TcpFlags::ACK) || h.flags.has(TcpFlags::SYN) {
                    return Verdict::Forward;
                }
                let ack = h.ack;
                let advanced = ack > c.w;
                if ack >= c.w {
                    c.dupacks = if advanced { 0 } else { c.dupacks + 1 };
                    c.w = ack;
                    c.wnd = h.window;
                    c.last_ack = Some(Packet {
                        ip: p.ip,
                        l4: p.l4.clone(),
                        payload: 0,
                        flow: p.flow,
                    });
                }
                c.purge(ack);
                c.covered_end = c.covered_end.max(ack);
                if advanced {
                    c.backoff = 0;
                    c.rexmit_at = if ack < c.ih_acked {
                        Some(now + cfg.rto)
                    } else {
                        None
                    };
                }
                if state == IhState::Disconnected {
                    // The FH holds an ACK for everything covered, with a zero window; a mobile ACK
                    // (sent between the prediction and the outage) would reopen it.
                    stats.acks_absorbed += 1;
                    return Verdict::Absorb;
                }
                if ack < c.ih_acked {
                    // Below what the FH already has: the IH recovers it, the FH must not see it.
                    stats.acks_absorbed += 1;
                    if c.dupacks == 3 {
                        if let Some(f) = c.fifo.front() {
                            out.push(f.clone());
                            stats.ih_retransmissions += 1;
                        }
                    }
                    return Verdict::Absorb;
                }
                Verdict::Forward
            }
        }
    }

    pub fn on_event(&mut self, now: SimTime, ev: AgentEvent, out: &mut Vec<Packet>) {
        match ev {
            AgentEvent::LinkGoingDown { .. } if self.state != IhState::Disconnected => {
                self.state = IhState::Disconnected;
                self.stats.disconnections += 1;
                for c in self.conns.values_mut() {
                    let Some(tpl) = &c.last_ack else { continue };
                    c.rexmit_at = None;
                    // Algorithm 2, step 1: the last ACK from the mobile with rwnd = 0.
                    out.push(ack_from_template(tpl, c.w, 0));
                    self.stats.zero_window_acks += 1;
                    // Algorithm 2, step 2: if w < snd_max, acknowledge snd_max with rwnd = 0 (as
                    // far as the buffer holds the data contiguously).
                    let target = c.covered_end.max(c.w);
                    if c.w < target {
                        out.push(ack_from_template(tpl, target, 0));
                        self.stats.zero_window_acks += 1;
                    }
                    c.ih_acked = c.ih_acked.max(target);
                }
            }
            AgentEvent::LinkUp if self.state == IhState::Disconnected => {
                self.state = IhState::Resuming;
                self.stats.reconnections += 1;
                for c in self.conns.values_mut() {
                    let Some(tpl) = &c.last_ack else { continue };
                    // Deliver what the FH believes delivered, then reopen the FH's window.
                    for f in &c.fifo {
                        out.push(f.clone());
                        self.stats.ih_retransmissions += 1;
                    }
                    if !c.fifo.is_empty() {
                        c.rexmit_at = Some(now + self.cfg.rto);
                    }
                    out.push(ack_from_template(tpl, c.ih_acked.max(c.w), c.wnd));
                    self.stats.window_updates += 1;
                }
            }
            _ => {}
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        for c in self.conns.values_mut() {
            if c.rexmit_at.is_some_and(|t| t <= now) {
                if c.w < c.ih_acked && self.state != IhState::Disconnected {
                    if let Some(f) = c.fifo.front() {
                        out.push(f.clone());
                        self.stats.ih_retransmissions += 1;
                    }
                    c.backoff += 1;
                    let rto = self
                        .cfg
                        .rto
                        .times(1 << c.backoff.min(16))
                        .min(self.cfg.max_rto);
                    c.rexmit_at = Some(now + rto);
                } else {
                    c.rexmit_at = None;
                }
            }
        }
        if self.state == IhState::Resuming && self.conns.values().all(|c| c.w >= c.ih_acked) {
            self.state = IhState::Connected;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::tcp_packet;
    use crate::packet::TcpHeader;

    const FH: u32 = 0x0a00_0001;
    const WH: u32 = 0x0a00_0003;
    const ISS: u64 = 1000;
    const MSS: u32 = 1460;

    fn data(seq: u64, len: u32) -> Packet {
        tcp_packet(
            FH,
            WH,
            TcpHeader::new(5001, 49152, seq, 1, TcpFlags::ACK, 65535),
            len,
            0,
        )
    }
    fn syn_ack() -> Packet {
        tcp_packet(
            FH,
            WH,
            TcpHeader::new(5001, 49152, ISS, 1, TcpFlags::SYN | TcpFlags::ACK, 65535),
            0,
            0,
        )
    }
    fn ack(a: u64, wnd: u32) -> Packet {
        tcp_packet(
            WH,
            FH,
            TcpHeader::new(49152, 5001, 1, a, TcpFlags::ACK, wnd),
            0,
            0,
        )
    }
    fn ack_no(p: &Packet) -> (u64, u32) {
        let h = p.tcp().unwrap();
        (h.ack, h.window)
    }
    fn seg(k: u64) -> u64 {
        ISS + 1 + k * MSS as u64
    }
    /// (ack, window) of each packet sent.
    fn acks(out: &[Packet]) -> Vec<(u64, u32)> {
        out.iter().map(ack_no).collect()
    }
    /// A RST from the mobile (no ACK flag) carrying `a` and `wnd` in its header fields.
    fn reset_from_mobile(a: u64, wnd: u32) -> Packet {
        let mut p = ack(a, wnd);
        if let Transport::Tcp(h) = &mut p.l4 {
            h.flags = TcpFlags::RST;
        }
        p
    }
    /// M-TCP's SH after the handshake and one segment acknowledged (last byte withheld).
    fn sh_with_one_segment_acknowledged() -> (MtcpSh, Vec<Packet>) {
        let mut sh = MtcpSh::default();
        let mut out = vec![];
        let t = SimTime::ZERO;
        sh.on_packet(t, Dir::ToMobile, &mut syn_ack(), &mut out);
        sh.on_packet(t, Dir::FromMobile, &mut ack(ISS + 1, 8760), &mut out);
        sh.on_packet(t, Dir::ToMobile, &mut data(seg(0), MSS), &mut out);
        sh.on_packet(t, Dir::FromMobile, &mut ack(seg(1), 8760), &mut out);
        (sh, out)
    }

    #[test]
    fn sh_withholds_one_byte_and_zero_windows_it_on_disconnection() {
        let mut sh = MtcpSh::default();
        let mut out = vec![];
        let t = SimTime::ZERO;
        sh.on_packet(t, Dir::ToMobile, &mut syn_ack(), &mut out);
        // The handshake ACK passes unchanged.
        let mut a = ack(ISS + 1, 8760);
        sh.on_packet(t, Dir::FromMobile, &mut a, &mut out);
        assert_eq!(ack_no(&a).0, ISS + 1);
        sh.on_packet(t, Dir::ToMobile, &mut data(seg(0), MSS), &mut out);
        let mut a = ack(seg(1), 8760);
        sh.on_packet(t, Dir::FromMobile, &mut a, &mut out);
        assert_eq!(ack_no(&a).0, seg(1) - 1, "last byte withheld");
        sh.on_event(
            t,
            AgentEvent::LinkGoingDown {
                est_down: SimTime::from_secs(10),
                rtt_to_mobile: None,
            },
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            ack_no(&out[0]),
            (seg(1), 0),
            "withheld byte acknowledged with a zero window"
        );
        out.clear();
        sh.on_event(t, AgentEvent::LinkUp, &mut out);
        assert_eq!(ack_no(&out[0]), (seg(1), 8760), "window reopened");
    }

    /// M-TCP's SH withholds the last byte of each ACK (seed 000 §2.5) except the ACK of the FH's
    /// FIN: the transfer is over, and the FIN's sequence number (RFC 9293 §3.4) must be
    /// acknowledged whole or the FH keeps retransmitting it.
    #[test]
    fn sh_forwards_the_ack_of_the_fh_fin_whole() {
        let mut sh = MtcpSh::default();
        let mut out = vec![];
        let t = SimTime::ZERO;
        sh.on_packet(t, Dir::ToMobile, &mut syn_ack(), &mut out);
        sh.on_packet(t, Dir::FromMobile, &mut ack(ISS + 1, 8760), &mut out);
        for k in 0..2 {
            sh.on_packet(t, Dir::ToMobile, &mut data(seg(k), MSS), &mut out);
        }
        let mut a = ack(seg(2), 8760);
        sh.on_packet(t, Dir::FromMobile, &mut a, &mut out);
        assert_eq!(
            ack_no(&a).0,
            seg(2) - 1,
            "data acknowledged, last byte withheld"
        );
        // The FH closes: a bare FIN, one sequence number.
        let mut fin = data(seg(2), 0);
        if let Transport::Tcp(h) = &mut fin.l4 {
            h.flags = TcpFlags::ACK | TcpFlags::FIN;
        }
        sh.on_packet(t, Dir::ToMobile, &mut fin, &mut out);
        let mut a = ack(seg(2) + 1, 8760);
        sh.on_packet(t, Dir::FromMobile, &mut a, &mut out);
        assert_eq!(ack_no(&a), (seg(2) + 1, 8760), "the FIN acknowledged whole");
        assert!(out.is_empty(), "the SH originates nothing while connected");
    }

    fn ih_with_flight() -> (MtcpPlusIh, Vec<Packet>) {
        let mut ih = MtcpPlusIh::new(MtcpPlusConfig::default());
        let mut out = vec![];
        let t = SimTime::ZERO;
        ih.on_packet(t, Dir::ToMobile, &mut syn_ack(), &mut out);
        for k in 0..4 {
            assert_eq!(
                ih.on_packet(t, Dir::ToMobile, &mut data(seg(k), MSS), &mut out),
                Verdict::Forward
            );
        }
        // The mobile acknowledged two segments (delayed ACK); two are in flight.
        let mut a = ack(seg(2), 8760);
        assert_eq!(
            ih.on_packet(t, Dir::FromMobile, &mut a, &mut out),
            Verdict::Forward
        );
        assert_eq!(ack_no(&a), (seg(2), 8760), "M-TCP+ forwards ACKs unchanged");
        assert_eq!(
            ih.buffered(),
            2 * MSS as u64,
            "acknowledged segments are purged"
        );
        (ih, out)
    }

    #[test]
    fn ih_algorithm_2_acknowledges_snd_max_with_zero_window() {
        let (mut ih, mut out) = ih_with_flight();
        ih.on_event(
            SimTime::ZERO,
            AgentEvent::LinkGoingDown {
                est_down: SimTime::from_secs(10),
                rtt_to_mobile: None,
            },
            &mut out,
        );
        let acks: Vec<_> = out.iter().map(ack_no).collect();
        assert_eq!(acks, vec![(seg(2), 0), (seg(4), 0)]);
        out.clear();
        // A segment still in flight from the FH arrives: kept and acknowledged, not forwarded.
        assert_eq!(
            ih.on_packet(
                SimTime::ZERO,
                Dir::ToMobile,
                &mut data(seg(4), MSS),
                &mut out
            ),
            Verdict::Absorb
        );
        assert_eq!(ack_no(&out[0]), (seg(5), 0));
        out.clear();
        // A persist probe is answered with the last ACK and a zero window.
        assert_eq!(
            ih.on_packet(SimTime::ZERO, Dir::ToMobile, &mut data(seg(5), 1), &mut out),
            Verdict::Absorb
        );
        assert_eq!(ack_no(&out[0]), (seg(5), 0));
        assert_eq!(ih.stats.probes_answered, 1);
    }

    #[test]
    fn ih_reconnection_delivers_buffer_reopens_window_and_absorbs_old_acks() {
        let (mut ih, mut out) = ih_with_flight();
        let t = SimTime::from_secs(1);
        ih.on_event(
            t,
            AgentEvent::LinkGoingDown {
                est_down: SimTime::from_secs(10),
                rtt_to_mobile: None,
            },
            &mut out,
        );
        out.clear();
        let t = SimTime::from_secs(11);
        ih.on_event(t, AgentEvent::LinkUp, &mut out);
        // Segments 2 and 3 go to the mobile, then the FH's window reopens at snd_max.
        let seqs: Vec<u64> = out
            .iter()
            .filter(|p| p.payload > 0)
            .map(|p| p.tcp().unwrap().seq)
            .collect();
        assert_eq!(seqs, vec![seg(2), seg(3)]);
        assert_eq!(ack_no(out.last().unwrap()), (seg(4), 8760));
        out.clear();
        // The mobile acknowledges segment 2: the FH already has that ACK, so it is absorbed.
        let mut a = ack(seg(3), 8760);
        assert_eq!(
            ih.on_packet(t, Dir::FromMobile, &mut a, &mut out),
            Verdict::Absorb
        );
        // Segment 3 is lost again: the IH retransmits it on its timer.
        assert_eq!(ih.poll_timeout(), Some(t + SimTime::from_millis(500)));
        ih.handle_timeout(t + SimTime::from_millis(500), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].tcp().unwrap().seq, seg(3));
        // Once the mobile catches up, its ACKs flow to the FH again.
        let mut a = ack(seg(4), 8760);
        assert_eq!(
            ih.on_packet(t, Dir::FromMobile, &mut a, &mut out),
            Verdict::Forward
        );
        ih.handle_timeout(t + SimTime::from_secs(2), &mut out);
        assert_eq!(ih.buffered(), 0);
    }

    /// After a reconnection that delivered segments 2 and 3 from the buffer: the mobile
    /// acknowledged segment 2 (absorbed, the FH already has that ACK), so segment 3 is the IH's.
    fn ih_resuming_with_segment_3_outstanding(t: SimTime) -> MtcpPlusIh {
        let (mut ih, mut out) = ih_with_flight();
        let down = AgentEvent::LinkGoingDown {
            est_down: SimTime::from_secs(10),
            rtt_to_mobile: None,
        };
        ih.on_event(SimTime::from_secs(1), down, &mut out);
        ih.on_event(t, AgentEvent::LinkUp, &mut out);
        assert_eq!(
            ih.on_packet(t, Dir::FromMobile, &mut ack(seg(3), 8760), &mut out),
            Verdict::Absorb
        );
        ih
    }

    #[test]
    fn ih_retransmits_on_the_third_duplicate_ack_only() {
        let t = SimTime::from_secs(11);
        let mut ih = ih_resuming_with_segment_3_outstanding(t);
        let before = ih.stats.ih_retransmissions;
        let mut out = vec![];
        for k in 1..=4u32 {
            assert_eq!(
                ih.on_packet(t, Dir::FromMobile, &mut ack(seg(3), 8760), &mut out),
                Verdict::Absorb,
                "duplicate {k} is below what the FH has"
            );
            let sent: Vec<u64> = out.iter().map(|p| p.tcp().unwrap().seq).collect();
            // Fast retransmit on the third duplicate (RFC 5681 §3.2), once: not on the fourth.
            let want = if k >= 3 { vec![seg(3)] } else { vec![] };
            assert_eq!(sent, want, "after duplicate {k}");
        }
        assert_eq!(ih.stats.ih_retransmissions, before + 1);
        assert_eq!(out[0].payload, MSS, "the buffered segment itself");
    }

    #[test]
    fn ih_timer_doubles_up_to_its_maximum_and_resets_when_the_ack_advances() {
        let t = SimTime::from_secs(11);
        let mut ih = ih_resuming_with_segment_3_outstanding(t);
        let mut out = vec![];
        // Binary exponential backoff of the IH's own timer (as RFC 6298 (5.5)): 0.5, 1, 2, 4,
        // then the 8 s maximum.
        let mut now = t;
        for want_ms in [500, 1000, 2000, 4000, 8000, 8000] {
            let at = ih.poll_timeout().expect("timer armed");
            assert_eq!(at - now, SimTime::from_millis(want_ms));
            // Not before its time.
            ih.handle_timeout(at - SimTime::from_millis(1), &mut out);
            assert!(out.is_empty());
            ih.handle_timeout(at, &mut out);
            assert_eq!(out.len(), 1, "one retransmission per expiry");
            assert_eq!(out.pop().unwrap().tcp().unwrap().seq, seg(3));
            now = at;
        }
        // An ACK that advances (still below what the FH has) restarts the timer from 0.5 s.
        ih.on_packet(now, Dir::FromMobile, &mut ack(seg(3) + 100, 8760), &mut out);
        assert_eq!(ih.poll_timeout(), Some(now + SimTime::from_millis(500)));
    }

    #[test]
    fn acks_sent_after_the_prediction_keep_the_fh_window_closed() {
        let (mut ih, mut out) = ih_with_flight();
        let down = AgentEvent::LinkGoingDown {
            est_down: SimTime::from_secs(10),
            rtt_to_mobile: None,
        };
        ih.on_event(SimTime::ZERO, down, &mut out);
        let mut a = ack(seg(4), 8760);
        assert_eq!(
            ih.on_packet(SimTime::ZERO, Dir::FromMobile, &mut a, &mut out),
            Verdict::Absorb
        );

        let mut sh = MtcpSh::default();
        sh.on_packet(SimTime::ZERO, Dir::ToMobile, &mut syn_ack(), &mut out);
        sh.on_packet(
            SimTime::ZERO,
            Dir::FromMobile,
            &mut ack(seg(1), 8760),
            &mut out,
        );
        sh.on_event(SimTime::ZERO, down, &mut out);
        let mut a = ack(seg(2), 8760);
        assert_eq!(
            sh.on_packet(SimTime::ZERO, Dir::FromMobile, &mut a, &mut out),
            Verdict::Forward
        );
        assert_eq!(ack_no(&a), (seg(2), 0), "unreduced, zero window");
    }

    #[test]
    fn buffer_overflow_limits_what_the_ih_acknowledges_for_the_mobile() {
        // Room for two segments only: of four in flight, two are copied, and Algorithm 2 may
        // acknowledge only what the buffer holds (the FH keeps the rest and retransmits it).
        let mut ih = MtcpPlusIh::new(MtcpPlusConfig {
            buffer: 2 * MSS as u64,
            ..Default::default()
        });
        let mut out = vec![];
        let t = SimTime::ZERO;
        ih.on_packet(t, Dir::ToMobile, &mut syn_ack(), &mut out);
        ih.on_packet(t, Dir::FromMobile, &mut ack(ISS + 1, 8760), &mut out);
        for k in 0..4 {
            ih.on_packet(t, Dir::ToMobile, &mut data(seg(k), MSS), &mut out);
        }
        assert_eq!(ih.stats.buffer_overflows, 2);
        ih.on_event(
            t,
            AgentEvent::LinkGoingDown {
                est_down: SimTime::from_secs(10),
                rtt_to_mobile: None,
            },
            &mut out,
        );
        let acks: Vec<_> = out.iter().map(ack_no).collect();
        assert_eq!(
            acks,
            vec![(ISS + 1, 0), (seg(2), 0)],
            "not snd_max = seg(4): segments 2-3 are not buffered"
        );
    }

    #[test]
    fn ih_without_feedback_is_plain_forwarding() {
        let (mut ih, mut out) = ih_with_flight();
        let mut a = ack(seg(2), 8760);
        // A duplicate ACK reaches the FH (its own fast retransmit needs it).
        assert_eq!(
            ih.on_packet(SimTime::ZERO, Dir::FromMobile, &mut a, &mut out),
            Verdict::Forward
        );
        assert!(out.is_empty());
        assert_eq!(ih.poll_timeout(), None);
    }

    fn down() -> AgentEvent {
        AgentEvent::LinkGoingDown {
            est_down: SimTime::from_secs(10),
            rtt_to_mobile: None,
        }
    }

    /// M-TCP's SH (seed 000 §2.5) acts once per disconnection: one zero-window ACK per connection
    /// on the first notice, one window update on reconnection; a repeated notice, or a
    /// reconnection without a disconnection, sends nothing. The run summary reports the counts.
    #[test]
    fn sh_acts_once_per_disconnection_and_counts_what_it_sends() {
        let (mut sh, mut out) = sh_with_one_segment_acknowledged();
        let t = SimTime::ZERO;
        sh.on_event(t, AgentEvent::LinkUp, &mut out);
        assert!(out.is_empty(), "connected: nothing to reopen");
        for _ in 0..2 {
            sh.on_event(t, down(), &mut out);
        }
        assert_eq!(acks(&out), vec![(seg(1), 0)]);
        out.clear();
        for _ in 0..2 {
            sh.on_event(t, AgentEvent::LinkUp, &mut out);
        }
        assert_eq!(acks(&out), vec![(seg(1), 8760)]);
        let s = sh.stats;
        assert_eq!((s.disconnections, s.zero_window_acks), (1, 1));
        assert_eq!((s.reconnections, s.window_updates), (1, 1));
    }

    /// Only the mobile's ACKs are the SH's to rewrite (seed 000 §2.5): a RST from the mobile
    /// passes untouched and is not the template of the zero-window ACK sent at the disconnection.
    #[test]
    fn sh_leaves_a_reset_from_the_mobile_alone() {
        let (mut sh, mut out) = sh_with_one_segment_acknowledged();
        let t = SimTime::ZERO;
        let mut rst = reset_from_mobile(seg(1), 4000);
        let before = rst.clone();
        assert_eq!(
            sh.on_packet(t, Dir::FromMobile, &mut rst, &mut out),
            Verdict::Forward
        );
        assert_eq!(rst.tcp(), before.tcp(), "the RST passes untouched");
        sh.on_event(t, down(), &mut out);
        let zero: Vec<_> = out
            .iter()
            .map(|p| (ack_no(p), p.tcp().unwrap().flags))
            .collect();
        assert_eq!(zero, [((seg(1), 0), TcpFlags::ACK)]);
    }

    /// M-TCP+'s IH (seed 000 §3.2) runs Algorithm 2 once per disconnection and delivers its
    /// buffer once per reconnection; a repeated notice, or a reconnection without a disconnection,
    /// sends nothing (no duplicate data at the mobile). The run summary reports the counts.
    #[test]
    fn ih_acts_once_per_disconnection_and_counts_what_it_sends() {
        let (mut ih, mut out) = ih_with_flight();
        let t = SimTime::ZERO;
        ih.on_event(t, AgentEvent::LinkUp, &mut out);
        assert!(out.is_empty(), "connected: nothing to deliver");
        for _ in 0..2 {
            ih.on_event(t, down(), &mut out);
        }
        assert_eq!(out.len(), 2, "Algorithm 2's two ACKs, once");
        // The mobile's ACK sent after the prediction is absorbed (and counted).
        let mut a = ack(seg(3), 8760);
        assert_eq!(
            ih.on_packet(t, Dir::FromMobile, &mut a, &mut out),
            Verdict::Absorb
        );
        out.clear();
        for _ in 0..2 {
            ih.on_event(SimTime::from_secs(11), AgentEvent::LinkUp, &mut out);
        }
        let seqs: Vec<u64> = out
            .iter()
            .filter(|p| p.payload > 0)
            .map(|p| p.tcp().unwrap().seq)
            .collect();
        assert_eq!(
            seqs,
            vec![seg(3)],
            "the buffer above the mobile's ACK, once"
        );
        assert_eq!(out.len(), 2, "and one window update");
        let s = ih.stats;
        assert_eq!(
            (s.disconnections, s.zero_window_acks, s.acks_absorbed),
            (1, 2, 1)
        );
        assert_eq!(
            (s.reconnections, s.window_updates, s.ih_retransmissions),
            (1, 1, 1)
        );
    }

    /// After reconnection the IH owns the data it acknowledged for the mobile (seed 000 §3.2,
    /// reconnection as reconstructed in docs/models/mtcp.md): an FH segment wholly below that ACK
    /// (a retransmission) is answered with the ACK and the mobile's window and not forwarded; a
    /// segment reaching above it, or new data, passes.
    #[test]
    fn ih_answers_fh_segments_it_already_acknowledged_and_forwards_the_rest() {
        let t = SimTime::from_secs(11);
        let mut ih = ih_resuming_with_segment_3_outstanding(t);
        let mut out = vec![];
        let v = ih.on_packet(t, Dir::ToMobile, &mut data(seg(3), MSS), &mut out);
        assert_eq!(v, Verdict::Absorb, "ends where the IH's ACK stands");
        assert_eq!(acks(&out), vec![(seg(4), 8760)]);
        out.clear();
        for mut p in [data(seg(3) + 100, MSS), data(seg(4), MSS)] {
            assert_eq!(
                ih.on_packet(t, Dir::ToMobile, &mut p, &mut out),
                Verdict::Forward
            );
        }
        assert!(out.is_empty());
    }

    /// The IH keeps a copy of each new FH segment until the mobile has it (seed 000 §3.2), once:
    /// the FH's retransmission of its last segment is not stored again, and a pure ACK from the
    /// FH (no sequence space, nothing to own) passes even with a sequence number below the IH's
    /// ACK.
    #[test]
    fn ih_stores_each_segment_once_and_forwards_the_fhs_pure_acks() {
        let (mut ih, mut out) = ih_with_flight();
        let t = SimTime::ZERO;
        let held = |ih: &MtcpPlusIh| ih.conns.values().map(|c| c.fifo.len()).sum::<usize>();
        let before = held(&ih);
        assert_eq!(
            ih.on_packet(t, Dir::ToMobile, &mut data(seg(3), MSS), &mut out),
            Verdict::Forward
        );
        assert_eq!(held(&ih), before, "the retransmission is not a new segment");
        let t = SimTime::from_secs(11);
        let mut ih = ih_resuming_with_segment_3_outstanding(t);
        assert_eq!(
            ih.on_packet(t, Dir::ToMobile, &mut data(seg(3), 0), &mut out),
            Verdict::Forward
        );
        assert!(out.is_empty(), "{out:?}");
    }

    /// One outage through M-TCP+'s IH, with its counters (seed 000 §3.2, Algorithm 2): a RST from
    /// the mobile is not an ACK; at the prediction, the last ACK and then the end of the buffered
    /// data are acknowledged with a zero window (only the first when they are the same); new FH
    /// data while the mobile is away is kept and answered the same way; at the reconnection the
    /// buffer goes out and the IH's timer is armed one RTO later; expiring exactly then, it
    /// resends the head; a mobile ACK below what the FH holds is absorbed and counted; once the
    /// mobile has caught up no timer is left.
    #[test]
    fn ih_outage_trace_with_its_counters() {
        let (mut ih, mut out) = ih_with_flight();
        let t0 = SimTime::from_secs(1);
        let mut rst = reset_from_mobile(seg(4), 0);
        assert_eq!(
            ih.on_packet(t0, Dir::FromMobile, &mut rst, &mut out),
            Verdict::Forward
        );
        ih.on_event(t0, down(), &mut out);
        assert_eq!(acks(&out), [(seg(2), 0), (seg(4), 0)]);
        out.clear();
        assert_eq!(
            ih.on_packet(t0, Dir::ToMobile, &mut data(seg(4), MSS), &mut out),
            Verdict::Absorb
        );
        assert_eq!(acks(&out), [(seg(5), 0)]);
        assert_eq!(ih.stats.zero_window_acks, 3);
        out.clear();
        let up = SimTime::from_secs(11);
        ih.on_event(up, AgentEvent::LinkUp, &mut out);
        assert_eq!(out.iter().filter(|p| p.payload > 0).count(), 3);
        let rto = MtcpPlusConfig::default().rto;
        assert_eq!(ih.poll_timeout(), Some(up + rto));
        out.clear();
        let sent = ih.stats.ih_retransmissions;
        ih.handle_timeout(up + rto, &mut out);
        let seqs: Vec<_> = out.iter().map(|p| p.tcp().unwrap().seq).collect();
        assert_eq!(seqs, [seg(2)]);
        assert_eq!(ih.stats.ih_retransmissions, sent + 1);
        let absorbed = ih.stats.acks_absorbed;
        let t = up + rto + SimTime::from_millis(10);
        let v = ih.on_packet(t, Dir::FromMobile, &mut ack(seg(3), 8760), &mut out);
        assert_eq!((v, ih.stats.acks_absorbed), (Verdict::Absorb, absorbed + 1));
        let v = ih.on_packet(t, Dir::FromMobile, &mut ack(seg(5), 8760), &mut out);
        assert_eq!((v, ih.poll_timeout()), (Verdict::Forward, None));
        // Everything acknowledged at the prediction: one zero-window ACK, not two.
        let (mut ih, mut out) = ih_with_flight();
        ih.on_packet(t0, Dir::FromMobile, &mut ack(seg(4), 8760), &mut out);
        out.clear();
        ih.on_event(t0, down(), &mut out);
        assert_eq!(acks(&out), [(seg(4), 0)]);
    }

    /// The IH leaves its disconnected state only at LINK_UP (seed 000 §3.2): a timer wake-up while
    /// the mobile is away (a stale one, after the mobile's last ACK caught up) leaves it holding
    /// the FH's new data.
    #[test]
    fn ih_stays_disconnected_through_a_timer_wake_up_until_link_up() {
        let (mut ih, mut out) = ih_with_flight();
        let t = SimTime::from_secs(1);
        ih.on_event(t, down(), &mut out);
        ih.on_packet(t, Dir::FromMobile, &mut ack(seg(4), 8760), &mut out);
        ih.handle_timeout(t + SimTime::from_millis(500), &mut out);
        out.clear();
        let t = t + SimTime::from_secs(1);
        assert_eq!(
            ih.on_packet(t, Dir::ToMobile, &mut data(seg(4), MSS), &mut out),
            Verdict::Absorb
        );
        assert_eq!(acks(&out), [(seg(5), 0)]);
    }

    /// While the mobile is unreachable the IH sends it nothing, even when its own retransmission
    /// timer (armed by a mobile ACK that arrived after the prediction) expires.
    #[test]
    fn ih_timer_sends_nothing_while_the_mobile_is_disconnected() {
        let (mut ih, mut out) = ih_with_flight();
        let t = SimTime::ZERO;
        ih.on_event(t, down(), &mut out);
        ih.on_packet(t, Dir::FromMobile, &mut ack(seg(3), 8760), &mut out);
        out.clear();
        let at = ih
            .poll_timeout()
            .expect("armed: seg(3) is below what the FH holds");
        ih.handle_timeout(at, &mut out);
        assert!(out.is_empty());
        assert_eq!(ih.poll_timeout(), None);
    }
}
