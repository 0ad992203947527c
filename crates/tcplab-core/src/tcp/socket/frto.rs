//! F-RTO (RFC 5682): after a timeout, the first ACK that acknowledges the retransmission is
//! answered with new data instead of more retransmissions; if the next ACK also acknowledges data
//! that was never retransmitted, the segments were delayed, not lost, and the timeout was
//! spurious. Its reduction is then undone (Linux's response: the pre-timeout cwnd and ssthresh
//! come back, as RFC 4138 allows). With SACK the second ACK may show that progress in its SACK
//! blocks, for data sent before the timeout (the SACK-enhanced variant, RFC 5682 §3).

use super::*;

/// Where the algorithm stands; `recover` is HighData + 1 when the timeout fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Frto {
    /// Step 2: waiting for the first ACK after the timeout's retransmission, which ended at `rtx_end`.
    First { recover: u64, rtx_end: u64 },
    /// Step 3: new data went out on the first ACK; waiting for the second.
    Second { recover: u64 },
}

impl Socket {
    /// Step 1, at a timeout: F-RTO runs on the first timeout of an episode outside fast recovery
    /// and RTO recovery; a further timeout ends it (conventional recovery).
    pub(super) fn frto_on_timeout(&mut self, first_timeout: bool, rtx_end: u64) {
        self.frto = (self.cfg.frto && first_timeout).then_some(Frto::First {
            recover: self.snd_max,
            rtx_end,
        });
    }

    /// Whether a timeout now may start F-RTO (RFC 5682 §2: not inside another recovery).
    pub(super) fn frto_allowed(&self) -> bool {
        self.cfg.frto && !self.in_recovery() && self.loss_recover.is_none()
    }

    /// Step 3's `recover` while F-RTO waits for its second ACK.
    pub(super) fn frto_recover(&self) -> Option<u64> {
        match self.frto {
            Some(Frto::Second { recover }) => Some(recover),
            _ => None,
        }
    }

    /// Steps 2 and 3 on each ACK. `advanced`: snd_una moved; `orig_sacked`: the ACK SACKed data
    /// below step 3's `recover` not SACKed before (sent before the timeout, never retransmitted).
    pub(super) fn frto_on_ack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        advanced: bool,
        orig_sacked: bool,
        out: &mut Vec<Segment>,
    ) {
        let Some(stage) = self.frto else { return };
        self.frto = None;
        match stage {
            Frto::First { recover, rtx_end } => {
                // 2a: a duplicate ACK, an ACK of everything up to recover, or one that does not
                // cover the retransmission leaves the decision to conventional recovery.
                if !advanced || h.ack >= recover || h.ack < rtx_end {
                    return;
                }
                // 2b: up to two new segments; without new data to send, conventional recovery.
                let mut sent = 0;
                while sent < 2 && self.can_send_new(self.send_end()) {
                    let (s, e) = (self.snd_max, self.new_segment_end(self.send_end()));
                    self.send_range(now, s, e - s, None, out);
                    sent += 1;
                }
                if sent > 0 {
                    // The go-back-N waits for step 3's verdict.
                    self.snd_nxt = self.snd_max;
                    self.frto = Some(Frto::Second { recover });
                }
            }
            Frto::Second { .. } => {
                // 3b: data never retransmitted was acknowledged: cumulatively, or, with the
                // SACK-enhanced variant (RFC 5682 §3), in SACK blocks between SND.UNA and
                // `recover`; SACKs of step 2b's new segments alone show the loss was real (3a).
                if advanced || orig_sacked {
                    self.undo_reduction();
                } else {
                    // 3a: a duplicate ACK (its SACKs, if any, only of the new data): the loss was
                    // real; cwnd ≤ 3·SMSS and the retransmissions resume from snd_una.
                    self.win.set(self.win.window().min(3 * self.mss));
                    self.snd_nxt = self.snd_una;
                }
            }
        }
    }
}
