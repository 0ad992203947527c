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
        self.rack_maybe_enter(now, out);
    }

    /// RFC 8985 §6.2 step 5: the reordering timer expired; detect again.
    pub(super) fn on_rack_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let srtt = self.rtt.srtt();
        let Some(r) = self.rec.rack_mut() else {
            return;
        };
        r.detect_loss(srtt, now);
        self.rack_at = r.timer();
        self.rack_maybe_enter(now, out);
        self.try_send(now, out);
    }

    fn rack_maybe_enter(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.seq();
        if self.can_send_data()
            && !self.frozen
            && self.rec.rack_mut().is_some_and(|r| r.may_enter(&seq))
        {
            self.enter_recovery(now, out);
        }
    }
}
