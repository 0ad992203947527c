//! DSACK (RFC 2883) at the receiver, and at the sender the undo of a reduction that DSACKs
//! (RFC 3708) or timestamps (RFC 3522, Eifel) show was spurious: the restore of the pre-episode
//! cwnd and ssthresh as Linux does it, in the style of Eifel's response (RFC 4015). F-RTO's spurious timeouts
//! (`socket/frto.rs`) end in the same undo.

use super::*;

/// What the sender needs to take an episode's reduction back.
#[derive(Clone, Copy, Debug)]
pub(super) struct Undo {
    /// snd_una when the episode began: DSACKs of data below it belong to an earlier one.
    marker: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Retransmissions of the episode no DSACK has yet shown to be duplicates (Linux's
    /// undo_retrans).
    retrans: u64,
    /// The TSval and first byte of the episode's first retransmission (Linux's retrans_stamp),
    /// for Eifel detection.
    retrans_ts: Option<(u32, u64)>,
}

/// RFC 2883 §4: the first SACK block is a D-SACK when it lies below the cumulative ACK or inside
/// the second block.
pub(super) fn dsack_block(h: &TcpHeader) -> Option<(u64, u64)> {
    let b = h.sack.as_slice();
    let first = *b.first()?;
    let inside_second = b.get(1).is_some_and(|s| s.0 <= first.0 && first.1 <= s.1);
    (first.1 <= h.ack || inside_second).then_some(first)
}

impl Socket {
    /// The receiver got [s, e) again: report it in the next ACK (RFC 2883 §4).
    pub(super) fn note_duplicate(&mut self, s: u64, e: u64) {
        if self.cfg.dsack && self.sack_on {
            self.dsack_pending = Some((s, e));
        }
    }

    /// A congestion episode (fast recovery or a first timeout) begins: remember the window it is
    /// about to reduce. A tail loss probe's retransmission still in flight will draw a DSACK of
    /// its own, so it counts as one of the episode's retransmissions (otherwise that DSACK would
    /// undo a real loss's reduction).
    pub(super) fn undo_start(&mut self) {
        if !self.cfg.undo && !self.cfg.frto && !self.cfg.timestamp_undo {
            return;
        }
        if self.in_recovery() && self.undo.is_some() {
            // A timeout inside fast recovery: Linux keeps the recovery's undo state (its
            // tcp_enter_loss saves prior cwnd/ssthresh only outside a recovery in progress).
            return;
        }
        let cwnd = self.win.window();
        // Linux saves tcp_current_ssthresh(): outside a cwnd reduction ssthresh "may be raised
        // half-way to cwnd", max(ssthresh, ¾·cwnd) (include/net/tcp.h).
        let ssthresh = match self.in_recovery() {
            true => self.win.ssthresh,
            false => self.win.ssthresh.max(cwnd / 2 + cwnd / 4),
        };
        self.undo = Some(Undo {
            marker: self.snd_una,
            cwnd,
            ssthresh,
            retrans: self.tlp_end.is_some_and(|(_, retx)| retx) as u64,
            retrans_ts: None,
        });
    }

    /// Counts a retransmission of the episode.
    pub(super) fn undo_on_retransmit(&mut self, now: SimTime, seq: u64) {
        if let Some(u) = self.undo.as_mut() {
            u.retrans += 1;
            u.retrans_ts.get_or_insert((Self::ts_now(now), seq));
        }
    }

    /// RFC 3522 §3.2 (Eifel detection), before the ACK is processed: during a recovery or RTO
    /// recovery, an ACK that acknowledges the first retransmitted data and echoes a timestamp
    /// older than that retransmission's acknowledges the original: the reduction was spurious.
    pub(super) fn undo_on_timestamp(&mut self, h: &TcpHeader) {
        if !self.cfg.timestamp_undo || !self.ts_on {
            return;
        }
        if !self.in_recovery() && self.loss_recover.is_none() {
            return;
        }
        let Some((rts, rseq)) = self.undo.and_then(|u| u.retrans_ts) else {
            return;
        };
        let older =
            h.ts.is_some_and(|(_, ecr)| ecr != 0 && (ecr.wrapping_sub(rts) as i32) < 0);
        if older && h.ack > rseq {
            self.undo_reduction();
        }
    }

    /// RFC 3708 §3 with DSACK: every retransmission of the episode reported duplicate means none
    /// was needed; the reduction is undone.
    pub(super) fn undo_on_dsack(&mut self, h: &TcpHeader) {
        if !self.cfg.undo {
            return;
        }
        let Some((s, e)) = dsack_block(h) else { return };
        let Some(u) = self.undo.as_mut() else { return };
        if s < u.marker || u.retrans == 0 {
            return;
        }
        u.retrans = u.retrans.saturating_sub((e - s).div_ceil(self.mss));
        if u.retrans == 0 {
            self.undo_reduction();
        }
    }

    /// The episode was spurious: the pre-episode cwnd and ssthresh come back (never lower than
    /// now), recovery ends, and nothing is taken as lost any more (go-back-N stops at snd_max).
    /// The controller's own state is not restored, as in Linux, whose CUBIC undoes with Reno's
    /// rule (max(cwnd, prior cwnd)): its next epoch starts at the restored window.
    pub(super) fn undo_reduction(&mut self) {
        let Some(u) = self.undo.take() else { return };
        self.win.ssthresh = self.win.ssthresh.max(u.ssthresh);
        self.win.set(self.win.window().max(u.cwnd));
        if self.in_recovery() {
            self.rec.get_mut().abandon();
        }
        if let Some(r) = self.rec.rack_mut() {
            r.forget_losses();
        }
        self.rack_at = None;
        self.loss_recover = None;
        // F-RTO has nothing left to decide.
        self.frto = None;
        self.snd_nxt = self.snd_max;
        self.stats.undos += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK of everything below `ack` carrying `blocks`, first block first.
    fn ack_with(ack: u64, blocks: &[(u64, u64)]) -> TcpHeader {
        let mut h = TcpHeader::new(1, 2, 0, ack, TcpFlags::ACK, 65535);
        for &(s, e) in blocks {
            h.sack.push(s, e);
        }
        h
    }

    /// RFC 2883 §4: the first block is a D-SACK when it lies at or below the cumulative ACK
    /// (case 1, §4.1.1), or inside the second block (case 2, §4.1.2: a duplicate of data held
    /// above a hole); otherwise it is an ordinary SACK block.
    #[test]
    fn the_first_block_is_a_dsack_below_the_ack_or_inside_the_second() {
        assert_eq!(dsack_block(&ack_with(3000, &[])), None);
        // Below the ACK, and ending exactly at it.
        assert_eq!(
            dsack_block(&ack_with(3000, &[(1000, 2000)])),
            Some((1000, 2000))
        );
        assert_eq!(
            dsack_block(&ack_with(3000, &[(2000, 3000)])),
            Some((2000, 3000))
        );
        // One byte above it: an ordinary block.
        assert_eq!(dsack_block(&ack_with(3000, &[(2001, 3001)])), None);
        // Inside the second block, at either edge or both.
        let inside = |first, second| dsack_block(&ack_with(1000, &[first, second]));
        assert_eq!(inside((5000, 6000), (4000, 7000)), Some((5000, 6000)));
        assert_eq!(inside((4000, 7000), (4000, 7000)), Some((4000, 7000)));
        // Sticking out of the second block on either side, or beside it: ordinary blocks.
        assert_eq!(inside((3000, 6000), (4000, 7000)), None);
        assert_eq!(inside((5000, 8000), (4000, 7000)), None);
        assert_eq!(inside((8000, 9000), (4000, 7000)), None);
    }
}
