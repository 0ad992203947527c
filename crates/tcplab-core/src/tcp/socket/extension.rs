//! The socket's side of the extension hooks: offering events to the extensions and carrying out
//! their [`Response`]s.

use super::*;
use crate::tcp::ext::{Ctx, Resend, SenderEvent};

impl Socket {
    fn ext_ctx(&self, now: SimTime) -> Ctx {
        Ctx {
            now,
            rto: self.rtt.rto(),
            in_recovery: self.in_recovery(),
            dupthresh: self.cfg.dupack_threshold,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
        }
    }

    /// Offers `ev` to every extension in order and carries out the answers. True when an
    /// extension absorbed the event (TCP must not react to it).
    pub(super) fn ext_event(
        &mut self,
        now: SimTime,
        ev: SenderEvent,
        out: &mut Vec<Segment>,
    ) -> bool {
        // The extensions act on a connection, not on its handshake (a frozen SYN would never be
        // retransmitted).
        if !self.is_established() {
            return false;
        }
        let mut absorbed = false;
        for i in 0..self.ext.len() {
            let cx = self.ext_ctx(now);
            let r = self.ext[i].get_mut().on_event(ev, &cx);
            absorbed |= self.apply_response(now, r, out);
        }
        absorbed
    }

    /// The extensions' own timers that are due.
    pub(super) fn ext_timers(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        for i in 0..self.ext.len() {
            if self.ext[i].get().poll_timeout().is_some_and(|t| t <= now) {
                let cx = self.ext_ctx(now);
                let r = self.ext[i].get_mut().on_event(SenderEvent::Timer, &cx);
                self.apply_response(now, r, out);
            }
        }
    }

    /// The earliest of the extensions' timers.
    pub(super) fn ext_poll(&self) -> Option<SimTime> {
        self.ext.iter().filter_map(|e| e.get().poll_timeout()).min()
    }

    /// The extensions' states, in the order the configuration lists them (traces and tests).
    pub fn extension_states(&self) -> Vec<&'static str> {
        self.ext.iter().filter_map(|e| e.get().state()).collect()
    }

    fn freeze(&mut self) {
        self.frozen = true;
        self.rto_at = None;
        self.persist_at = None;
    }

    /// Carries out one answer; true if it absorbs the event.
    fn apply_response(&mut self, now: SimTime, r: Response, out: &mut Vec<Segment>) -> bool {
        match r {
            Response::Ignore => false,
            Response::Freeze => {
                self.freeze();
                false
            }
            Response::Resume if self.frozen => {
                self.frozen = false;
                if self.snd_una < self.snd_max {
                    self.retransmit_head(now, out);
                    self.arm_rto(now);
                }
                self.try_send(now, out);
                false
            }
            Response::Resume => false,
            Response::AdvanceAck(ack) if ack > self.snd_una && ack <= self.snd_max => {
                // Seed 002 §IV-B: new data waits for an ACK above ack_seq (no burst).
                self.learned_ack = Some((ack, false));
                self.stats.acks_learned += 1;
                self.learned_log.push((now, ack - self.iss - 1));
                self.snd_una = ack;
                self.snd_nxt = self.snd_nxt.max(ack);
                if self.sack_on {
                    self.sb.on_cumulative_ack(ack);
                }
                self.on_fin_acked();
                if self.snd_una == self.snd_max {
                    // Everything sent is acknowledged: no ACK above it can come, so this counts
                    // as that ACK (the timer stops, sending goes on).
                    self.learned_ack = None;
                    self.rto_at = None;
                    self.try_send(now, out);
                }
                false
            }
            Response::AdvanceAck(_) => false,
            Response::Persist(what) => {
                self.freeze();
                self.ext_resend(now, what, out);
                true
            }
            Response::Disconnect => {
                self.freeze();
                // ATCP: cwnd = one segment, so the new route is probed from slow start.
                self.win.set(self.mss);
                true
            }
            Response::Resend(what) => {
                self.ext_resend(now, what, out);
                true
            }
            Response::Unfreeze if self.frozen => {
                self.frozen = false;
                if self.snd_una < self.snd_max {
                    self.arm_rto(now);
                }
                self.try_send(now, out);
                false
            }
            Response::Unfreeze => false,
            Response::Release => {
                self.frozen = false;
                self.rto_at = None;
                self.on_rto(now, out);
                true
            }
            Response::Flush if self.frozen => {
                self.frozen = false;
                // TCP-F: go back to snd_una and send the window again at the old cwnd.
                self.snd_nxt = self.snd_una;
                if self.snd_una < self.snd_max {
                    self.arm_rto(now);
                }
                self.try_send(now, out);
                false
            }
            Response::Flush => false,
            Response::SendAcks(n) => {
                if self.is_established() {
                    for _ in 0..n {
                        self.send_ack(now, out);
                    }
                }
                false
            }
        }
    }

    /// Resends for a frozen sender. With nothing outstanding, new data stands in (a probe).
    fn ext_resend(&mut self, now: SimTime, what: Resend, out: &mut Vec<Segment>) {
        if !self.can_send_data() {
            return;
        }
        let s = self.snd_una;
        let end = if s < self.snd_max {
            self.snd_max
        } else {
            self.data_end()
        };
        if end <= s {
            return;
        }
        let ranges: Vec<(u64, u64)> = match what {
            Resend::Nothing => Vec::new(),
            Resend::Byte => vec![(s, 1)],
            Resend::Head => vec![(s, self.mss.min(end - s))],
            Resend::Window if s >= self.snd_max => vec![(s, self.mss.min(end - s))],
            Resend::Window => (s..end)
                .step_by(self.mss as usize)
                .map(|a| (a, self.mss.min(end - a)))
                .collect(),
        };
        // The end of what this resend has covered so far.
        let mut covered = s;
        for (a, len) in ranges {
            if a < covered {
                // Only the FIN, which rode on the segment before.
                continue;
            }
            // The FIN rides on the segment that ends at it.
            let len = match self.fin_seq() {
                Some(f) if a + len == f && self.snd_max > f => len + 1,
                _ => len,
            };
            covered = a + len;
            if what == Resend::Byte {
                self.stats.window_probes += 1;
            }
            self.send_range(now, a, len, Some(Cause::Timeout), out);
            self.snd_nxt = self.snd_nxt.max(a + len);
        }
    }
}
