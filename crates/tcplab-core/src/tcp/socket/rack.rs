//! The socket's side of RFC 8985 RACK: hand each ACK to the scheme, run its reordering timer,
//! and start an episode when it marks a loss.

use super::*;

impl Socket {
    /// After an ACK's own processing: RACK's update and loss detection (RFC 8985 §6.2).
    pub(super) fn rack_on_ack(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<Segment>) {
        let seq = self.seq();
        let srtt = self.rtt.srtt();
        let Some(r) = self.rec.rack_mut() else {
            return;
        };
        let dsack = super::dsack::dsack_block(h).is_some();
        r.on_ack(&seq, h.sack.as_slice(), dsack, srtt, now);
        self.rack_at = r.timer();
        // Linux's Loss state: an ACK starts a recovery only when it shows a retransmission lost
        // (the others RACK marks are retransmitted by the timeout's go-back-N anyway).
        let loss_state = r.marked().retransmission;
        self.rack_maybe_enter(now, loss_state, out);
    }

    /// RFC 8985 §6.2 step 5: the reordering timer expired; detect again.
    pub(super) fn on_rack_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let srtt = self.rtt.srtt();
        let Some(r) = self.rec.rack_mut() else {
            return;
        };
        r.detect_loss(srtt, now);
        self.rack_at = r.timer();
        // Linux's tcp_rack_reo_timeout: any loss it marks starts a recovery.
        let loss_state = r.marked().any;
        self.rack_maybe_enter(now, loss_state, out);
        self.try_send(now, out);
    }

    /// Starts an episode on a marked loss: past RecoveryPoint (RFC 6675 §5.1), or, with
    /// `rack_after_rto`, inside the timeout's recovery when `loss_state` says this detection
    /// qualifies, as Linux leaves its Loss state for Recovery.
    fn rack_maybe_enter(&mut self, now: SimTime, loss_state: bool, out: &mut Vec<Segment>) {
        let seq = self.seq();
        let after_rto = loss_state
            && self.cfg.rack_after_rto
            && self.loss_recover.is_some()
            && !self.in_recovery();
        let Some(r) = self.rec.rack_mut() else {
            return;
        };
        let enter = r.may_enter(&seq) || (after_rto && r.has_lost());
        if enter && self.can_send_data() && !self.frozen {
            if after_rto {
                // The timeout's recovery (and its F-RTO check) ends here.
                self.loss_recover = None;
                self.frto = None;
            }
            self.enter_recovery(now, out);
        }
    }
}
