//! Segment arrival (RFC 9293 §3.10.7): handshake, the sender's ACK processing with loss
//! recovery, and the receiver's data processing.

use super::*;

impl Socket {
    // ------------------------------------------------------------------ input

    /// Processes an arriving segment. `ce` says the IP header carried Congestion Experienced.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        if h.flags.has(TcpFlags::RST) {
            if self.state != State::Listen && self.state != State::Closed {
                self.abort();
            }
            return;
        }
        match self.state {
            State::Closed => {}
            State::Listen => {
                if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) {
                    self.accept_syn(now, h);
                    self.set_state(State::SynReceived);
                    self.snd_nxt = self.iss + 1;
                    self.snd_max = self.iss + 1;
                    self.send_syn(now, out);
                }
            }
            State::SynSent => {
                if h.flags.has(TcpFlags::SYN) && h.flags.has(TcpFlags::ACK) && h.ack == self.iss + 1
                {
                    self.accept_syn(now, h);
                    self.ecn_on =
                        self.cfg.ecn && h.flags.has(TcpFlags::ECE) && !h.flags.has(TcpFlags::CWR);
                    self.snd_una = h.ack;
                    self.handshake_rtt(now, h);
                    self.establish(now);
                    if self.cfg.open == OpenMode::SenderSyn {
                        // ns-2's one-way start: the first data packet is the answer's ACK.
                        let before = out.len();
                        self.try_send(now, out);
                        if out.len() == before {
                            self.send_ack(now, out);
                        }
                    } else {
                        self.send_ack(now, out);
                        self.try_send(now, out);
                    }
                }
            }
            State::SynReceived if h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK) => {
                // Our SYN-ACK was lost and the peer retransmitted its SYN.
                self.send_syn(now, out);
                // Karn (RFC 6298 §3): the SYN-ACK is now retransmitted, its ACK gives no sample.
                self.rtt_timing = None;
            }
            _ => self.on_synchronized(now, h, payload, ce, out),
        }
    }

    /// Records the peer's SYN and the options it offered.
    pub(super) fn accept_syn(&mut self, now: SimTime, h: &TcpHeader) {
        self.irs = h.seq;
        self.rcv_nxt = h.seq + 1;
        self.last_ack_sent = self.rcv_nxt;
        // RFC 9293 §3.7.1: send no segment larger than the peer's MSS (536 if absent).
        // ns-2's one-way start negotiates nothing: each end uses its own MSS and options.
        let one_way = self.cfg.open != OpenMode::Handshake;
        let peer_mss = h
            .mss
            .unwrap_or(if one_way { self.cfg.mss as u16 } else { 536 });
        self.mss = (self.cfg.mss as u64).min(peer_mss as u64);
        self.win.mss = self.mss;
        self.win.set(self.cfg.initial_window_bytes(self.mss as u32));
        self.sack_on = self.cfg.uses_sack() && (h.sack_permitted || one_way);
        if !self.sack_on && matches!(self.rec, AnyRecovery::Sack(_) | AnyRecovery::Rack(_)) {
            // RFC 6675 and RFC 8985 need the peer's SACK blocks; without them recovery is RFC 5681's.
            self.rec = AnyRecovery::Reno(Default::default());
        }
        self.ts_on = self.cfg.timestamps && (h.ts.is_some() || one_way);
        if let Some((val, _)) = h.ts {
            self.ts_recent = val;
        }
        // RFC 7323 §2.2: scaling only when both SYNs carry the option; a one-way start's bare
        // SYNs carry none, its scale is agreed from both configurations (`agreed_wscale`).
        if one_way {
            self.agreed_wscale(self.one_way_peer_wscale);
        } else {
            self.agreed_wscale(h.wscale);
        }
        if self.state == State::Listen {
            // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR.
            self.ecn_on = self.cfg.ecn && h.flags.has(TcpFlags::ECE) && h.flags.has(TcpFlags::CWR);
        }
        // The window in a SYN is never scaled (RFC 7323 §2.2).
        self.snd_wnd = h.window_field() as u64;
        self.last_peer_wnd_field = h.window_field();
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = h.seq;
        self.snd_wl2 = h.ack;
        let _ = now;
    }

    pub(super) fn handshake_rtt(&mut self, now: SimTime, h: &TcpHeader) {
        self.take_rtt_sample(now, h);
        self.rtt_timing = None;
    }

    /// RTT from an ACK that advances snd_una: RFC 7323 §4.2 with timestamps (every such ACK),
    /// otherwise the timed segment (RFC 6298 §3, Karn).
    pub(super) fn take_rtt_sample(&mut self, now: SimTime, h: &TcpHeader) -> Option<SimTime> {
        let timed = if self.ts_on {
            match h.ts {
                Some((_, ecr)) if ecr != 0 => Some(SimTime::from_millis(
                    Self::ts_now(now).wrapping_sub(ecr) as u64,
                )),
                _ => None,
            }
        } else {
            match self.rtt_timing {
                Some((end, t0)) if h.ack >= end => {
                    self.rtt_timing = None;
                    Some(now - t0)
                }
                _ => None,
            }
        };
        if let Some(r) = timed {
            self.rtt
                .on_sample_at(now.saturating_sub(r), now, self.ts_on);
        }
        timed
    }

    pub(super) fn establish(&mut self, now: SimTime) {
        self.set_state(State::Established);
        self.connected_at = Some(now);
        self.rto_at = None;
        self.consecutive_timeouts = 0;
        if self.syn_timed_out {
            // RFC 6298 (5.7).
            self.rtt
                .raise_floor_before_sample(self.cfg.rto_after_syn_timeout);
        }
    }

    pub(super) fn on_synchronized(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        if h.flags.has(TcpFlags::SYN) {
            // A retransmitted SYN-ACK: our ACK of it was lost. Acknowledge again.
            if h.flags.has(TcpFlags::ACK) {
                self.send_ack(now, out);
            }
            return;
        }
        if !h.flags.has(TcpFlags::ACK) {
            return;
        }
        if self.state == State::SynReceived {
            if h.ack == self.iss + 1 {
                self.snd_una = h.ack;
                self.handshake_rtt(now, h);
                self.establish(now);
                self.snd_wnd = (h.window_field() as u64) << self.snd_shift;
                self.max_snd_wnd = self.max_snd_wnd.max(self.snd_wnd);
                self.snd_wl1 = h.seq;
                self.snd_wl2 = h.ack;
            } else {
                return;
            }
        }
        // RFC 7323 §4.3: TS.Recent follows the segment that covers the last ACK sent.
        if self.ts_on {
            if let Some((val, _)) = h.ts {
                if h.seq <= self.last_ack_sent && (val.wrapping_sub(self.ts_recent) as i32) >= 0 {
                    self.ts_recent = val;
                }
            }
        }
        self.process_ack(now, h, payload, out);
        if self.state == State::Closed {
            return;
        }
        self.process_data(now, h, payload, ce, out);
        self.try_send(now, out);
    }

    /// The sender's half of segment processing (RFC 9293 §3.10.7.4 fifth step).
    pub(super) fn process_ack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        out: &mut Vec<Segment>,
    ) {
        let ack = h.ack;
        if ack > self.snd_max.max(self.probe_end) {
            // Acknowledges something not yet sent: reply with an ACK and ignore (RFC 9293).
            self.send_ack(now, out);
            return;
        }
        let wnd = (h.window_field() as u64) << self.snd_shift;
        let wnd_changed = h.window_field() != self.last_peer_wnd_field;
        self.last_peer_wnd_field = h.window_field();
        // RFC 9293 §3.10.7.4: update the send window from the newest segment (SND.WL1/WL2 rule).
        if ack >= self.snd_una
            && (self.snd_wl1 < h.seq || (self.snd_wl1 == h.seq && self.snd_wl2 <= ack))
        {
            self.snd_wnd = wnd;
            self.max_snd_wnd = self.max_snd_wnd.max(wnd);
            self.snd_wl1 = h.seq;
            self.snd_wl2 = ack;
        }
        // RFC 6937 DeliveredData = change in snd.una + change in SACKed bytes.
        let before = self.snd_una + self.sb.sacked_bytes();
        // F-RTO step 3b looks for data sent before the timeout newly SACKed by this ACK.
        let frto_mark = self.frto_recover();
        let orig_before = frto_mark.map_or(0, |r| self.sb.sacked_below(r));
        // SACK information updates the scoreboard whatever else the ACK does (RFC 6675 §5 B.1).
        let mut new_sack = false;
        if self.sack_on {
            for &(s, e) in h.sack.as_slice() {
                if e <= self.snd_max {
                    new_sack |= self.sb.add(s, e, ack.max(self.snd_una));
                }
            }
        }
        let orig_sacked = frto_mark.is_some_and(|r| self.sb.sacked_below(r) > orig_before);
        if self.ecn_on && h.flags.has(TcpFlags::ECE) {
            // ATCP's Congested state starts here, before TCP's own reaction.
            self.ext_event(now, SenderEvent::Ece, out);
        }
        // RFC 3168 §6.1.2: react to ECE at most once per window of data.
        if self.ecn_on
            && h.flags.has(TcpFlags::ECE)
            && ack > self.ecn_recover
            && !self.in_recovery()
        {
            self.win.ssthresh = self.congestion_ssthresh(now, Congestion::Ecn);
            self.win.set(self.win.ssthresh);
            self.cwr_pending = true;
            self.ecn_recover = self.snd_max.saturating_sub(1);
            self.stats.ecn_reductions += 1;
        }

        // RFC 6675 §2: with SACK, an ACK carrying new SACK information is a DupAck "even if it
        // ... moves the cumulative acknowledgment point".
        let sack_dup = self.rec.get().sack_dupacks() && new_sack;
        if let Some((learned, seen)) = self.learned_ack {
            if ack > learned {
                self.learned_ack = None; // seed 002 §IV-B: a real ACK above ack_seq resumes
            } else if ack == learned && !seen {
                // The ACK the receiver sent when it reached ack_seq: new to the receiver's
                // stream, not a duplicate; a window update at most.
                self.learned_ack = Some((learned, true));
                return;
            }
        }
        let advanced = ack > self.snd_una;
        if ack > self.snd_una {
            self.on_new_ack(now, h, ack, out);
            // RFC 6675 §5: the cumulative ACK reset DupAcks to zero; the DupAck counts after it.
            if sack_dup && self.snd_una < self.snd_max && self.state != State::Closed {
                self.on_dupack(now, h, out);
            }
        } else if ack == self.snd_una && self.snd_una < self.snd_max && !h.flags.has(TcpFlags::FIN)
        {
            if wnd == 0 {
                // RFC 1122 §4.2.2.17: a receiver that keeps answering with a zero window keeps the
                // connection open, whatever the retransmission count.
                self.unanswered_timeouts = 0;
            }
            // RFC 5681 §2 duplicate ACK: no data, same window; RFC 6675 §2 DupAck: new SACK info.
            let dup = if self.rec.get().sack_dupacks() {
                sack_dup
            } else {
                payload == 0 && !wnd_changed
            };
            if dup {
                self.on_dupack(now, h, out);
            }
        }
        if self.state == State::Closed {
            return;
        }
        self.ext_event(now, SenderEvent::Ack { advanced }, out);
        self.rack_on_ack(now, h, out);
        self.tlp_on_ack(now, h, advanced);
        self.undo_on_dsack(h);
        self.frto_on_ack(now, h, advanced, orig_sacked, out);
        if self.in_recovery() {
            let delivered = (self.snd_una + self.sb.sacked_bytes()).saturating_sub(before);
            let pipe = self.rec.pipe(&self.seq(), &self.sb);
            if let Some(p) = self.rec.prr_mut() {
                // RFC 6937 §3: on every ACK during recovery, cwnd = pipe + sndcnt.
                p.on_ack(delivered, pipe, &mut self.win);
            }
        }
    }

    pub(super) fn on_new_ack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        ack: u64,
        out: &mut Vec<Segment>,
    ) {
        self.undo_on_timestamp(h);
        let acked = ack - self.snd_una;
        let rtt = self.take_rtt_sample(now, h);
        let ca_rtt = self.sent_times.as_mut().and_then(|t| t.on_ack(ack, now));
        self.consecutive_timeouts = 0;
        self.unanswered_timeouts = 0;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        if self.snd_max < ack {
            self.snd_max = ack; // an accepted window probe
        }
        if self.sack_on {
            self.sb.on_cumulative_ack(ack);
        }
        let a = Ack {
            now,
            acked,
            rtt,
            ca_rtt,
            snd_una: ack,
            snd_max: self.snd_max,
        };
        self.cc.get_mut().on_any_ack(&self.win, &a, &self.rtt);
        let mut restart_timer = true;
        if self.in_recovery() {
            let seq = self.seq();
            match self.rec.get_mut().on_ack(&seq, acked, &mut self.win) {
                AckOutcome::Stay {
                    retransmit_head,
                    restart_timer: restart,
                } => {
                    if retransmit_head {
                        self.retransmit_head(now, out);
                    }
                    restart_timer = restart;
                }
                AckOutcome::Exit => self.cc.get_mut().on_recovery_exit(&mut self.win),
            }
        } else {
            let found = self.hystart_found();
            self.cc.get_mut().on_ack(&mut self.win, &a, &self.rtt);
            if let (None, Some(e)) = (found, self.hystart_found()) {
                self.hystart_log.push((now, e, self.win.window()));
            }
        }
        self.dupacks = 0;
        // Vegas §3.1: after a retransmission the next new ACKs check the new head's fine-grained
        // timer (the controller's `resend_head`; ns-2.35 tcp-vegas.cc `v_worried_`).
        if self.snd_una < self.snd_max && self.controller_resends_head(now, AckKind::New).is_some()
        {
            self.fine_resends_log.push((now, self.snd_una));
            self.retransmit_head(now, out);
        }
        // RFC 6298 (5.2)/(5.3); Linux restarts the timer on every ACK that advances snd_una.
        if self.cfg.rto_rule == RtoRule::Linux {
            restart_timer = true;
        }
        if self.loss_recover.is_some_and(|r| self.snd_una >= r) {
            self.loss_recover = None;
        }
        if self.snd_una >= self.snd_max {
            self.rto_at = None;
        } else if restart_timer {
            self.arm_rto(now);
        }
        // RFC 8985 §7.2: the PTO restarts on an ACK of new data.
        self.arm_pto(now);
        self.on_fin_acked();
    }

    pub(super) fn on_fin_acked(&mut self) {
        let Some(f) = self.fin_seq() else { return };
        if self.snd_una > f {
            match self.state {
                State::FinWait1 => self.set_state(State::FinWait2),
                State::Closing => self.set_state(State::TimeWait),
                State::LastAck => self.set_state(State::Closed),
                _ => {}
            }
            if matches!(
                self.state,
                State::FinWait2 | State::TimeWait | State::Closed
            ) {
                self.rto_at = None;
            }
        }
    }

    pub(super) fn on_dupack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<Segment>) {
        self.stats.dupacks_received += 1;
        self.dupacks += 1;
        // An extension may keep the duplicate from TCP (ATCP's third duplicate ACK).
        if self.ext_event(now, SenderEvent::DupAck(self.dupacks), out) || self.frozen {
            return;
        }
        // Vegas §3.1: the controller's fine-grained timer may call for the head on any duplicate
        // ACK, the first included (ns-2.35 tcp-vegas.cc `vegas_expire` on every duplicate).
        let fine = self.controller_resends_head(now, AckKind::Duplicate);
        if self.in_recovery() {
            self.rec.get_mut().on_dupack(&mut self.win);
            if let Some(head) = fine {
                self.fine_resends_log.push((now, self.snd_una));
                self.retransmit_head(now, out);
                self.cc.get_mut().on_dupack_resend(&head);
            }
            return;
        }
        // Extensions may know of duplicates that never arrived (TCP-pgy S2's dup_count). Their
        // evidence counts up to DupThresh: the schemes act on the DupThresh-th duplicate, and a
        // surviving ACK may report more (seed 002 Algorithm 2: dup_count ≥ num_dupacks).
        let seq = self.seq();
        let mut count = self.dupacks;
        for e in &mut self.ext {
            let seen = e.get_mut().dupacks_seen(h, self.dupacks);
            count = count.max(seen.min(seq.dupthresh));
        }
        if fine.is_some() {
            // An expired head is a loss now: fast retransmit as on the DupThresh-th duplicate.
            count = count.max(seq.dupthresh);
        }
        if self.rec.get().should_enter(count, &seq, &self.sb) {
            if !self.rec.get().should_enter(self.dupacks, &seq, &self.sb) {
                if fine.is_some() {
                    self.fine_resends_log.push((now, self.snd_una));
                } else {
                    self.early_fast_log.push((now, self.dupacks));
                }
            }
            let head = self.head();
            self.enter_recovery(now, out);
            if let Some(head) = head {
                self.cc.get_mut().on_dupack_resend(&head);
            }
        }
    }

    /// Fast retransmit: the controller's ssthresh, then the scheme's first retransmission.
    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.fast_recoveries += 1;
        self.undo_start();
        self.win.ssthresh = self.congestion_ssthresh(now, Congestion::FastRetransmit);
        let seq = self.seq();
        match self.rec.get_mut().enter(&seq, &self.sb, &mut self.win) {
            FirstRetransmit::Head => self.retransmit_head(now, out),
            FirstRetransmit::Range { seq, len } => {
                self.send_range(now, seq, len, Some(Cause::Fast), out)
            }
        }
        if self.cfg.fast_retransmit_restarts_timer {
            // ns-2.35 dupack_action: reset_rtx_timer(1,0) restarts the timer and ends the
            // RTT sample in progress (rtt_active_ = 0).
            self.arm_rto(now);
            self.rtt_timing = None;
        }
    }

    /// Retransmits the first unacknowledged segment (fast retransmit, NewReno partial ACK).
    pub(super) fn retransmit_head(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let s = self.snd_una;
        let mut e = (s + self.mss).min(self.snd_max);
        if let Some(f) = self.fin_seq() {
            if e == f && self.snd_max > f {
                e += 1;
            }
        }
        if e > s {
            self.send_range(now, s, e - s, Some(Cause::Fast), out);
        }
    }

    /// The receiver's half (RFC 9293 §3.10.7.4 seventh and eighth steps).
    pub(super) fn process_data(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        payload: u32,
        ce: bool,
        out: &mut Vec<Segment>,
    ) {
        let fin = h.flags.has(TcpFlags::FIN);
        if payload == 0 && !fin {
            return;
        }
        if self.ecn_on {
            if ce {
                self.ece_pending = true;
            }
            if h.flags.has(TcpFlags::CWR) && payload > 0 {
                self.ece_pending = false;
            }
        }
        let s = h.seq;
        let e = s + payload as u64;
        let wnd_end = self.rcv_nxt + self.rcv_wnd();
        let had_gap = !self.reasm.is_empty();
        // Data the receiver already has: below rcv_nxt, or fully held out of order.
        if payload > 0 && (e <= self.rcv_nxt || self.reasm.covers(s, e)) {
            self.stats.duplicate_segments_received += 1;
            self.note_duplicate(s, e);
            // Linux: a retransmission the receiver has (its ACK was lost) → quick-ACK mode.
            self.quickack_enter(quickack::MAX_QUICKACKS);
            self.send_ack(now, out); // RFC 9293: an unacceptable segment elicits an ACK
            return;
        }
        // RFC 9293 §3.10.7.4 seventh step: after the peer's FIN (CLOSE-WAIT, CLOSING, LAST-ACK,
        // TIME-WAIT) new segment text "should not occur" and is ignored (Linux drops it unACKed).
        if payload > 0 && self.fin_rcvd {
            return;
        }
        if payload > 0 && s < self.rcv_nxt {
            // RFC 2883 §4: of a partly duplicate segment, the duplicate part is reported.
            self.note_duplicate(s, self.rcv_nxt);
        }
        let s_eff = s.max(self.rcv_nxt);
        let e_eff = e.min(wnd_end);
        if payload > 0 && s_eff >= e_eff {
            // Outside the window (e.g. a zero-window probe): acknowledge, keep nothing.
            // Linux: out-of-window data → quick-ACK mode.
            self.quickack_enter(quickack::MAX_QUICKACKS);
            self.send_ack(now, out);
            return;
        }
        let mut immediate = false;
        if payload > 0 {
            self.quickack_on_data(now);
            for x in &mut self.ext {
                x.get_mut().on_data(s_eff == self.rcv_nxt);
            }
            if s_eff == self.rcv_nxt {
                let before = self.rcv_nxt;
                self.rcv_nxt = self.reasm.advance(e_eff);
                let got = self.rcv_nxt - before;
                self.deliver(got);
                self.autotune(now, h, payload);
                if self.grow_window() {
                    self.quickack_window_grew();
                }
                // RFC 5681 §4.2: fill of a gap → immediate ACK.
                immediate = had_gap;
            } else {
                self.reasm.insert(s_eff, e_eff);
                // RFC 5681 §4.2: out-of-order segment → immediate (duplicate) ACK.
                immediate = true;
            }
        }
        if fin && !self.fin_rcvd && e > self.rcv_nxt {
            // A FIN above a gap: remember where it is, so that filling the gap delivers it
            // (RFC 9293 §3.10.7.4: the FIN is processed once its sequence number is reached).
            self.fin_pending = Some(e);
            // RFC 5681 §4.2: an out-of-order segment (a bare FIN too) is acknowledged at once.
            immediate = true;
        }
        let fin_now = !self.fin_rcvd
            && ((fin && e == self.rcv_nxt) || self.fin_pending == Some(self.rcv_nxt));
        if fin_now {
            self.fin_pending = None;
            self.fin_rcvd = true;
            self.rcv_nxt += 1;
            immediate = true;
            match self.state {
                State::Established => self.set_state(State::CloseWait),
                State::FinWait1 => self.set_state(State::Closing),
                State::FinWait2 => self.set_state(State::TimeWait),
                _ => {}
            }
        } else if fin && self.fin_rcvd {
            immediate = true; // a retransmitted FIN: our ACK was lost
        }
        // Linux's quick-ACK mode ACKs data at once while its budget lasts.
        let quick = payload > 0 && self.quickack_take();
        if immediate || quick || !self.cfg.delayed_ack {
            self.send_ack(now, out);
        } else {
            // RFC 1122 §4.2.3.2 / RFC 5681 §4.2: ACK every `ack_every` segments or after the delay.
            self.delack_pending += 1;
            if self.delack_pending >= self.cfg.ack_every {
                self.send_ack(now, out);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(self.arm(now, self.cfg.ack_delay));
            }
        }
    }

    pub(super) fn deliver(&mut self, n: u64) {
        self.delivered += n;
        if !self.auto_read {
            self.unread += n;
        }
    }
}
