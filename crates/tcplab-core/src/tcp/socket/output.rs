//! What the socket sends: segment headers, the window- and pipe-driven senders, persist.

use super::*;

impl Socket {
    // ------------------------------------------------------------------ output

    pub(super) fn header(&mut self, now: SimTime, seq: u64, flags: TcpFlags) -> TcpHeader {
        let mut h = TcpHeader::new(
            self.local_port,
            self.remote_port,
            seq,
            self.rcv_nxt,
            flags,
            self.advertised_wnd() as u32,
        );
        if !flags.has(TcpFlags::SYN) {
            h.wscale_applied = self.rcv_shift;
        }
        if self.ts_on {
            h.ts = Some((Self::ts_now(now), self.ts_recent));
        }
        let dsack = match flags.has(TcpFlags::ACK) {
            true => self.dsack_pending.take(),
            false => None,
        };
        if self.sack_on && (dsack.is_some() || !self.reasm.is_empty()) {
            // RFC 2018 §3: at most 4 blocks, 3 with the timestamps option.
            let max = if self.ts_on { 3 } else { 4 };
            // RFC 2883 §4: the duplicate first, then (b) the held block it lies in, then the
            // usual blocks without repeating that one; a D-SACK is reported once.
            let holder = dsack.and_then(|(s, e)| self.reasm.holding(s, e));
            for (s, e) in dsack.into_iter().chain(holder) {
                h.sack.push(s, e);
            }
            for b in self.reasm.sack_blocks(max) {
                if (h.sack.n as usize) < max && Some(b) != holder {
                    h.sack.push(b.0, b.1);
                }
            }
        }
        if self.ece_pending && flags.has(TcpFlags::ACK) {
            // RFC 3168 §6.1.3: echo congestion until CWR arrives.
            h.flags.set(TcpFlags::ECE);
        }
        h
    }

    pub(super) fn emit(
        &mut self,
        mut h: TcpHeader,
        payload: u32,
        ect: bool,
        out: &mut Vec<Segment>,
    ) {
        if payload == 0 && h.flags.has(TcpFlags::ACK) && !h.flags.has(TcpFlags::SYN) {
            // Receiver extensions stamp pure ACKs (data segments keep their size).
            for e in &self.ext {
                e.get().stamp(&mut h);
            }
        }
        if h.flags.has(TcpFlags::ACK) {
            self.last_ack_sent = self.rcv_nxt;
            self.rcv_adv_edge = self.rcv_nxt + ((h.window_field() as u64) << h.wscale_applied);
            self.delack_at = None;
            self.delack_pending = 0;
            if payload == 0 {
                self.stats.acks_sent += 1;
            }
        }
        out.push(Segment {
            hdr: h,
            payload,
            ect,
        });
    }

    pub(super) fn send_syn(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let synack = self.state == State::SynReceived;
        let flags = if synack {
            TcpFlags::SYN | TcpFlags::ACK
        } else {
            TcpFlags::SYN
        };
        let mut h = self.header(now, self.iss, flags);
        h.mss = Some(self.cfg.mss as u16);
        // Offer options on the SYN; on the SYN-ACK only those the peer offered (RFC 7323 §2.2,
        // RFC 2018 §2, RFC 3168 §6.1.1).
        // RFC 7323 §2.2: a SYN-ACK carries the option only if the SYN did.
        if self.cfg.window_scaling && (!synack || self.snd_shift_offered) {
            h.wscale = Some(self.rcv_shift);
        }
        h.sack_permitted = if synack {
            self.sack_on
        } else {
            self.cfg.uses_sack()
        };
        if synack {
            if !self.ts_on {
                h.ts = None;
            }
        } else if self.cfg.timestamps {
            h.ts = Some((Self::ts_now(now), 0));
        }
        if self.cfg.ecn {
            if synack {
                if self.ecn_on {
                    h.flags.set(TcpFlags::ECE);
                }
            } else {
                h.flags.set(TcpFlags::ECE);
                h.flags.set(TcpFlags::CWR);
            }
        }
        if self.cfg.open != OpenMode::Handshake {
            // ns-2's SYN and its answer are bare 40-byte headers: nothing is negotiated.
            (h.mss, h.wscale, h.sack_permitted, h.ts) = (None, None, false, None);
        }
        self.emit(h, 0, false, out);
        if self.rtt_timing.is_none() && !self.syn_timed_out {
            self.rtt_timing = Some((self.iss + 1, now));
        }
        self.arm_rto(now);
    }

    /// Sends [seq, seq+len) of the sequence space (the FIN counts as the last byte).
    pub(super) fn send_range(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u64,
        cause: Option<Cause>,
        out: &mut Vec<Segment>,
    ) {
        let fin = self.fin_seq().is_some_and(|f| seq + len == f + 1);
        let payload = (len - fin as u64) as u32;
        let mut flags = TcpFlags::ACK;
        if fin {
            flags.set(TcpFlags::FIN);
        }
        if payload > 0
            && self
                .app_limit
                .is_some_and(|_| seq + len >= self.data_end() - self.fin_queued as u64)
        {
            flags.set(TcpFlags::PSH);
        }
        let retx = seq < self.snd_max;
        if let Some(t) = self.sent_times.as_mut().filter(|_| payload > 0) {
            t.on_sent(seq, seq + len, retx, now);
        }
        if let Some(r) = self.rec.rack_mut() {
            // RFC 8985 §6.1: RACK records each transmission's time.
            r.on_sent(seq, len, now);
        }
        if self.rec.get().in_recovery() {
            if let Some(p) = self.rec.prr_mut() {
                // RFC 6937 §3: prr_out counts every byte sent during recovery.
                p.on_sent(len);
            }
        }
        if self.cwr_pending && payload > 0 && !retx {
            // RFC 3168 §6.1.2: CWR on the first new data packet after the reduction.
            flags.set(TcpFlags::CWR);
            self.cwr_pending = false;
        }
        let h = self.header(now, seq, flags);
        if payload > 0 {
            self.stats.segments_sent += 1;
            self.stats.bytes_sent += payload as u64;
            self.last_data_sent = Some(now);
        }
        // Retransmission counters count data segments only, like `segments_sent` (seed 000 eq. 7
        // divides one by the other); a bare FIN resent is not a data retransmission.
        if retx && payload > 0 {
            self.stats.retransmissions += 1;
            self.undo_on_retransmit(now, seq);
            match cause {
                Some(Cause::Timeout) | None => self.stats.timeout_retransmissions += 1,
                Some(Cause::Fast) => self.stats.fast_retransmissions += 1,
            }
            // Karn's algorithm (RFC 6298 §3): a retransmitted segment is never timed.
            if self.rtt_timing.is_some_and(|(end, _)| seq < end) {
                self.rtt_timing = None;
            }
        } else if self.rtt_timing.is_none() && !self.ts_on {
            self.rtt_timing = Some((seq + len, now));
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        let ect = self.ecn_on && payload > 0 && !retx;
        self.emit(h, payload, ect, out);
        if payload > 0 && !retx {
            self.ext_event(now, SenderEvent::NewData, out);
        }
        self.snd_max = self.snd_max.max(seq + len);
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        if self.cfg.tlp && !retx {
            // RFC 8985 §7.2: the PTO restarts after new data (the probe itself keeps it off).
            self.arm_pto(now);
        }
        match self.state {
            State::Established if fin => self.set_state(State::FinWait1),
            State::CloseWait if fin => self.set_state(State::LastAck),
            _ => {}
        }
    }

    pub(super) fn send_ack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let h = self.header(now, self.snd_nxt.max(self.snd_una), TcpFlags::ACK);
        self.emit(h, 0, false, out);
    }

    pub(super) fn can_send_data(&self) -> bool {
        matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        )
    }

    /// Sends whatever the windows allow.
    pub(super) fn try_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.can_send_data() || self.frozen {
            return;
        }
        if self.cfg.restart_after_idle {
            self.restart_after_idle(now);
        }
        if self.rec.pipe_driven() {
            self.sack_send(now, out);
        } else {
            self.window_send(now, out);
        }
        self.update_persist(now);
    }

    /// RFC 5681 §4.1: a sender idle for longer than the RTO restarts from
    /// cwnd = min(RW, cwnd), RW = min(IW, cwnd).
    pub(super) fn restart_after_idle(&mut self, now: SimTime) {
        let idle = self.snd_una == self.snd_max;
        if let Some(t) = self.last_data_sent {
            if idle && now.saturating_sub(t) > self.rtt.rto() {
                // cwnd = min(RW, cwnd) with RW = min(IW, cwnd): min(IW, cwnd).
                let iw = self.cfg.initial_window_bytes(self.mss as u32);
                self.win.set(iw.min(self.win.window()));
                // The idle period starts afresh from here.
                self.last_data_sent = Some(now);
            }
        }
    }

    /// Window-limited sending (RFC 5681 §3; go-back-N from snd_nxt after a timeout).
    pub(super) fn window_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        // RFC 3042: up to two extra segments on the first two duplicate ACKs.
        let lt = if self.cfg.limited_transmit && !self.in_recovery() {
            self.dupacks.min(2) as u64 * self.mss
        } else {
            0
        };
        let win = (self.win.window() + lt).min(self.snd_wnd);
        let limit = self.snd_una + win;
        let data_end = self.send_end();
        let fin = self.fin_seq();
        loop {
            let mut s = self.snd_nxt;
            if self.sack_on && s < self.snd_max {
                // Go-back-N skips what the receiver has SACKed (RFC 6675 §5.1).
                s = self.sb.next_unsacked(s).min(self.snd_max.max(s));
                self.snd_nxt = s;
            }
            if s >= data_end {
                break;
            }
            let payload_end = fin.unwrap_or(data_end);
            let mut e = (s + self.mss).min(payload_end);
            if fin.is_some() && e == payload_end {
                e += 1; // the FIN rides on the last segment
            }
            if self.sack_on && s < self.snd_max {
                e = e.min(self.sb.unsacked_run_end(s, self.snd_max).max(s + 1));
            }
            if e > limit {
                // RFC 9293 §3.8.6.2.1 (sender SWS avoidance): a short segment only when nothing is
                // outstanding, so that a window below one MSS cannot stall the connection.
                let usable = limit.saturating_sub(s);
                if usable == 0 || self.snd_una != self.snd_max {
                    break;
                }
                e = s + usable;
            }
            let cause = if s < self.snd_max {
                Some(Cause::Timeout)
            } else {
                None
            };
            self.send_range(now, s, e - s, cause, out);
            self.snd_nxt = e;
        }
    }

    /// RFC 6675 §5 step (C): transmit while cwnd − pipe ≥ 1 SMSS. Pipe is computed once per
    /// ACK and then grows by what each transmission adds (a retransmitted lost octet, a
    /// retransmitted not-lost octet and a new octet each add one), so a burst costs one SetPipe.
    pub(super) fn sack_send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let data_end = self.send_end();
        let seq = self.seq();
        if !self.rec.pipe_driven() {
            return;
        }
        let mut pipe = self.rec.pipe(&seq, &self.sb);
        loop {
            if self.win.window() < pipe + self.mss {
                break;
            }
            let seq = self.seq();
            let can_new = self.can_send_new(data_end);
            match self.rec.next_seg(&seq, &self.sb, can_new) {
                NextSeg::Retransmit { seq, len, rescue } => {
                    self.rec.on_retransmitted(seq, len, rescue);
                    self.send_range(now, seq, len, Some(Cause::Fast), out);
                    // SetPipe (b) counts retransmitted octets up to HighRxt; the rescue segment
                    // lies above it.
                    if !rescue {
                        pipe += len;
                    }
                }
                NextSeg::New => {
                    let (s, e) = (self.snd_max, self.new_segment_end(data_end));
                    self.send_range(now, s, e - s, None, out);
                    self.snd_nxt = self.snd_max;
                    pipe += e - s;
                }
                NextSeg::Nothing => break,
            }
        }
    }

    /// Whether a segment of new data fits the peer's window (RFC 6675 NextSeg (3), RFC 8985 §7.3).
    pub(super) fn can_send_new(&self, data_end: u64) -> bool {
        let new_len = (data_end - self.snd_max.min(data_end)).min(self.mss + 1);
        new_len > 0 && self.snd_max + new_len.min(self.mss) <= self.snd_una + self.snd_wnd
    }

    /// The end of the next new segment from snd_max: one MSS, the FIN riding on the last.
    pub(super) fn new_segment_end(&self, data_end: u64) -> u64 {
        let fin = self.fin_seq();
        let payload_end = fin.unwrap_or(data_end);
        let e = (self.snd_max + self.mss).min(payload_end);
        if fin.is_some() && e == payload_end {
            e + 1
        } else {
            e
        }
    }

    /// Arms or clears the persist timer (RFC 1122 §4.2.2.17): a zero window with data waiting and
    /// nothing outstanding.
    pub(super) fn update_persist(&mut self, now: SimTime) {
        let waiting = self.snd_nxt < self.data_end();
        if self.snd_wnd == 0 && waiting && self.snd_una == self.snd_max && self.can_send_data() {
            if self.persist_at.is_none() {
                let base = self.rtt.rto();
                let iv = base.times(1u64 << self.persist_backoff.min(20));
                let iv = iv.max(self.cfg.persist_min).min(self.cfg.persist_max);
                self.persist_at = Some(self.arm(now, iv));
            }
        } else {
            self.persist_at = None;
            if self.snd_wnd > 0 {
                self.persist_backoff = 0;
            }
        }
    }
}
