//! Linux's quick-ACK mode (`quickack`): a receiver that ACKs every segment, instead of every
//! second one (RFC 5681 §4.2's delayed ACK), for a budget of ACKs. Facts from the kernel's
//! public documentation and commit history (tcp(7) TCP_QUICKACK; "tcp: add max_quickacks param
//! to tcp_incr_quickack and tcp_enter_quickack_mode", 2018; TCP_MAX_QUICKACKS = 16):
//! - the budget is the advertised window in MSS/2 (at least 2), capped by the caller's maximum;
//!   entering the mode raises the budget to that, never lowers it;
//! - it is granted on the first data of a connection and after a gap in the data longer than the
//!   RTO (the sender failed to restart its window), and on a duplicate or out-of-window segment;
//! - every segment that raises the advertised window (Linux's rcv_ssthresh) adds one ACK to the
//!   budget (sets its lowest bit), so a growing window is ACKed segment by segment;
//! - every ACK sent in the mode uses one.

use super::*;

/// TCP_MAX_QUICKACKS: the largest budget the start of a connection or a trigger grants.
pub(super) const MAX_QUICKACKS: u32 = 16;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct QuickAck {
    /// ACKs left to send at once.
    left: u32,
    /// When the last data segment arrived (None before the first).
    last_data: Option<SimTime>,
}

impl Socket {
    /// Enters quick-ACK mode with up to `max` ACKs: the window in MSS/2, at least 2.
    pub(super) fn quickack_enter(&mut self, max: u32) {
        let wnd_segs = self.rcv_wnd() / (2 * self.mss.max(1));
        let n = (wnd_segs as u32).max(2).min(max);
        if let Some(q) = self.quickack.as_mut() {
            q.left = q.left.max(n);
        }
    }

    /// On an accepted data segment, before the ACK decision: the start-of-connection and
    /// idle-gap grants (Linux: "first time here", and a gap longer than the RTO).
    pub(super) fn quickack_on_data(&mut self, now: SimTime) {
        let Some(q) = self.quickack.as_mut() else {
            return;
        };
        let last = q.last_data.replace(now);
        if last.is_none_or(|t| now - t > self.rto()) {
            self.quickack_enter(MAX_QUICKACKS);
        }
    }

    /// A segment raised the advertised window: one more quick ACK (the budget's lowest bit).
    pub(super) fn quickack_window_grew(&mut self) {
        if let Some(q) = self.quickack.as_mut() {
            q.left |= 1;
        }
    }

    /// Whether this segment is ACKed at once by the mode; uses one ACK of the budget if so.
    pub(super) fn quickack_take(&mut self) -> bool {
        match self.quickack.as_mut() {
            Some(q) if q.left > 0 => {
                q.left -= 1;
                true
            }
            _ => false,
        }
    }
}
