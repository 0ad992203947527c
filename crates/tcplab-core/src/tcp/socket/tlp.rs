//! RFC 8985 §7 tail loss probe: when the last segments of a flight are lost no ACK comes back to
//! let RACK see the loss, and only the RTO would end the wait. TLP sends one probe two SRTTs after
//! the tail was sent (or last acknowledged), so that its ACK carries the SACK RACK needs.
//!
//! The probe timer (PTO) runs beside the retransmission timer and always before it: arming the
//! PTO never moves the RTO, and the RTO is re-armed after the probe (§7.3), which is the RFC's one
//! timer in two fields.

use super::*;

/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK time a single segment in flight may wait.
const WC_DEL_ACK_T: SimTime = SimTime::from_millis(200);

impl Socket {
    /// Whether the probe applies to this connection: the switch, and RACK on a SACK connection
    /// (without the peer's SACK the socket fell back to RFC 5681 recovery).
    fn tlp_on(&self) -> bool {
        self.cfg.tlp && matches!(self.rec, AnyRecovery::Rack(_))
    }

    /// RFC 8985 §7.2: no probe in fast recovery, in RTO recovery, with SACKed data (RACK has its
    /// ACK feedback), with a probe outstanding (one per tail), or with nothing in flight.
    fn probe_allowed(&self) -> bool {
        self.snd_una < self.snd_max
            && self.tlp_end.is_none()
            && !self.in_recovery()
            && self.loss_recover.is_none()
            && self.sb.sacked_bytes() == 0
            && !self.frozen
            && self.can_send_data()
    }

    /// RFC 8985 §7.2: (re)starts the PTO after new data is sent or an ACK advances snd_una.
    pub(super) fn arm_pto(&mut self, now: SimTime) {
        self.pto_at = None;
        if !self.tlp_on() || !self.probe_allowed() {
            return;
        }
        let Some(rto_at) = self.rto_at else { return };
        let pto = match self.rtt.srtt() {
            // PTO = 2·SRTT, plus WCDelAckT when one segment is in flight (its ACK may be delayed).
            Some(srtt) if self.flight_size() <= self.mss => srtt.times(2) + WC_DEL_ACK_T,
            Some(srtt) => srtt.times(2),
            None => SimTime::from_secs(1),
        };
        // The PTO never outlasts the RTO.
        self.pto_at = Some(self.arm(now, pto).min(rto_at));
    }

    /// RFC 8985 §7.3 TLP_send_probe: new data if the windows allow it, else the last segment
    /// sent; cwnd is left alone and the RTO, not the PTO, is armed after it.
    pub(super) fn on_pto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.tlp_on() || !self.probe_allowed() {
            return;
        }
        let data_end = self.send_end();
        let can_new = self.can_send_new(data_end);
        let new_end = self.new_segment_end(data_end);
        let last = self.rec.rack_mut().and_then(|r| r.last_segment());
        // One probe per tail: TLP.end_seq is set before sending, which keeps the PTO disarmed.
        if can_new {
            self.tlp_end = Some((new_end, false));
            let s = self.snd_max;
            self.send_range(now, s, new_end - s, None, out);
            self.snd_nxt = self.snd_max;
        } else if let Some((s, len)) = last {
            self.tlp_end = Some((self.snd_max, true));
            self.send_range(now, s, len, Some(Cause::Fast), out);
        } else {
            return;
        }
        self.stats.tail_loss_probes += 1;
        self.arm_rto(now);
    }

    /// RFC 8985 §7.4.1: what the ACK says about the outstanding probe. A probe of new data needs
    /// nothing; a retransmitted one was redundant if a DSACK reports it or a pure duplicate ACK
    /// answers it, and repaired a loss if the ACK goes beyond it — then congestion control reacts
    /// to that loss (§7.4.2), as it would have in recovery.
    pub(super) fn tlp_on_ack(&mut self, now: SimTime, h: &TcpHeader, advanced: bool) {
        let Some((end, retx)) = self.tlp_end else {
            return;
        };
        if h.ack < end {
            return;
        }
        let dsack = h
            .sack
            .as_slice()
            .first()
            .is_some_and(|b| b.1 <= h.ack && b.1 == end);
        let pure_dup = !advanced && h.sack.as_slice().is_empty();
        if !retx || dsack || pure_dup {
            self.tlp_end = None;
        } else if h.ack > end {
            self.tlp_end = None;
            if !self.in_recovery() {
                // §7.4.2: the response to one loss; Linux's CWR state ends at cwnd = ssthresh.
                self.win.ssthresh = self.congestion_ssthresh(now, Congestion::FastRetransmit);
                self.win.set(self.win.ssthresh);
                self.stats.tlp_recoveries += 1;
            }
        }
    }
}
