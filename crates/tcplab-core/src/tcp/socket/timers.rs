//! Timer expiries: delayed ACK, persist (RFC 1122 §4.2.2.17), retransmission (RFC 6298).

use super::*;

impl Socket {
    // ------------------------------------------------------------------ timers

    pub fn handle_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            self.send_ack(now, out);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.on_persist(now, out);
        }
        if self.rack_at.is_some_and(|t| t <= now) {
            self.rack_at = None;
            self.on_rack_timer(now, out);
        }
        if self.pto_at.is_some_and(|t| t <= now) {
            self.pto_at = None;
            self.on_pto(now, out);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.on_rto(now, out);
        }
        self.ext_timers(now, out);
    }

    pub(super) fn on_persist(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.snd_wnd > 0 || self.snd_nxt >= self.data_end() {
            return;
        }
        let seq = self.snd_una;
        if self.fin_seq() == Some(seq) {
            // RFC 9293 §3.8.6.1: only the FIN is left, so the FIN is the probe (no data byte
            // exists to send); from here the retransmission timer covers it.
            self.send_range(now, seq, 1, None, out);
            self.snd_nxt = seq + 1;
            self.stats.window_probes += 1;
            self.update_persist(now);
            return;
        }
        // RFC 9293 §3.8.6.1: probe with one byte of new data beyond the zero window.
        let h = self.header(now, seq, TcpFlags::ACK);
        self.emit(h, 1, false, out);
        self.stats.window_probes += 1;
        self.probe_end = seq + 1;
        // RFC 1122 §4.2.2.17: probe intervals SHOULD grow exponentially.
        self.persist_backoff += 1;
        self.update_persist(now);
    }

    pub(super) fn on_rto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        match self.state {
            State::SynSent | State::SynReceived => {
                if self.syn_retries >= self.cfg.max_retransmissions {
                    self.abort();
                    return;
                }
                self.syn_retries += 1;
                self.syn_timed_out = true;
                self.rtt_timing = None;
                self.stats.timeouts += 1;
                // RFC 6298 (5.5)/(5.6).
                self.rtt.back_off();
                self.send_syn(now, out);
            }
            _ if self.snd_una < self.snd_max && self.can_send_data() => {
                // An extension may take the timeout over (ATCP's Loss state).
                if self.ext_event(now, SenderEvent::Timeout, out) {
                    return;
                }
                // RFC 5682 §2: F-RTO on the first timeout outside any recovery.
                let frto = self.frto_allowed() && self.consecutive_timeouts == 0;
                if self.unanswered_timeouts >= self.cfg.max_retransmissions {
                    // RFC 1122 §4.2.3.5: R2 reached, close the connection.
                    self.abort();
                    return;
                }
                self.stats.timeouts += 1;
                // RFC 5681 §3.1: ssthresh is cut on the first timeout only and held when the same
                // segment times out again. ns-2.35 (tcp.cc timeout → slowdown) cuts it at every
                // expiry from the window of the moment, un-inflated (Reno's timeout clears dupwnd_).
                let every = self.cfg.rto_ssthresh == RtoSsthresh::EveryTimeout;
                if every && self.consecutive_timeouts > 0 {
                    self.win.ssthresh = self.congestion_ssthresh(now, Congestion::Timeout);
                } else if self.consecutive_timeouts == 0 {
                    if every && self.in_recovery() {
                        // The un-inflated window is halved (and saved for undo); cwnd becomes
                        // the loss window below.
                        self.win.cwnd = self.win.cwnd.min(self.win.ssthresh as f64);
                    }
                    self.undo_start();
                    let eq4 = self.congestion_ssthresh(now, Congestion::Timeout);
                    self.win.ssthresh = match self.cfg.rto_ssthresh {
                        // RFC 5681 §3.1: eq. (4) is an upper bound ("no more than"); inside fast
                        // recovery the flight is inflated, so the episode's ssthresh is kept.
                        RtoSsthresh::KeepInRecovery if self.in_recovery() => {
                            self.win.ssthresh.min(eq4)
                        }
                        _ => eq4,
                    };
                }
                self.consecutive_timeouts += 1;
                self.unanswered_timeouts += 1;
                // RFC 5681 §3.1: cwnd = loss window (1 SMSS for Reno).
                let lw = self.cc.get().loss_window(&self.win);
                self.win.set(lw);
                self.dupacks = 0;
                // RFC 6582 §3.2 step 4 / RFC 6675 §5.1: the episode ends, recover = HighData.
                let seq = self.seq();
                let srtt = self.rtt.srtt();
                match self.rec.rack_mut() {
                    // RFC 8985 §6.3: RACK also marks what the timeout shows lost.
                    Some(r) => r.on_rto(&seq, now, srtt),
                    None => self.rec.get_mut().on_timeout(&seq),
                }
                self.rack_at = None;
                self.rtt_timing = None;
                // RTO recovery until snd_una passes what was sent; an outstanding probe is moot.
                self.loss_recover = Some(self.snd_max);
                self.tlp_end = None;
                self.pto_at = None;
                // RFC 6298 (5.5): back off.
                self.rtt.back_off();
                // RFC 6298 (5.4): retransmit the earliest unacknowledged segment — even into a
                // zero window, which makes it a probe (RFC 9293 §3.8.6.1).
                self.snd_nxt = self.snd_una;
                let s = if self.sack_on {
                    self.sb.next_unsacked(self.snd_una).min(self.snd_max - 1)
                } else {
                    self.snd_una
                };
                let fin = self.fin_seq();
                let mut e = (s + self.mss).min(self.snd_max);
                if fin.is_some_and(|f| e == f) && self.snd_max > e {
                    e += 1;
                } else if !self.sack_on && e == self.snd_max && e - s < self.mss {
                    e = self.repacketized_end(s, e);
                }
                if self.sack_on {
                    e = e.min(self.sb.unsacked_run_end(s, self.snd_max).max(s + 1));
                }
                self.send_range(now, s, e - s, Some(Cause::Timeout), out);
                self.snd_nxt = e;
                self.frto_on_timeout(frto, e);
                // RFC 6298 (5.6): restart the timer with the backed-off RTO.
                self.arm_rto(now);
                self.window_send(now, out);
                self.update_persist(now);
            }
            _ => {}
        }
    }

    /// The end of a timeout's retransmission from `s` when all that is outstanding, [s, e), is
    /// shorter than a segment — left when an ACK covered part of a segment (M-TCP's supervisor
    /// host withholds the last byte of every ACK). The retransmission then carries new data up to
    /// one MSS, within the peer's window, as BSD's go-back-N does (snd_nxt = snd_una, then one MSS
    /// from there); RFC 6298 (5.4) names the earliest unacknowledged segment, not its boundaries.
    /// Resending the remainder alone can stall for good: the peer has it, its ACK stays short of
    /// it again, and a one-segment window never admits new data.
    fn repacketized_end(&self, s: u64, e: u64) -> u64 {
        let payload_end = self.fin_seq().unwrap_or_else(|| self.send_end());
        let mut end = (s + self.mss)
            .min(payload_end)
            .min(self.snd_una + self.snd_wnd)
            .max(e);
        if self.fin_seq().is_some_and(|f| end == f) {
            end += 1; // the FIN rides on the last segment
        }
        end
    }
}
