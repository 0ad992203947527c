//! Receive-buffer autotuning, as Linux documents `tcp_moderate_rcvbuf` (ip-sysctl.rst: size the
//! buffer, no greater than tcp_rmem's maximum, "to match the size required by the path for full
//! throughput"), by Dynamic Right-Sizing (Fisk & Feng 2001): the receiver measures the data it
//! delivers per round trip and offers a window of twice that, so that the sender, not the
//! receiver, limits the flow. The window starts at `rcv_buf` (tcp_rmem's default of 131072 B
//! "results in initial window of 65535") and grows, never shrinks, up to half of `rcv_buf_max`
//! (tcp_rmem's maximum, 6 MiB; with tcp_adv_win_scale = 1 half of the buffer is window).
//! The window offered follows the buffer as Linux's rcv_ssthresh does: it grows by two MSS per
//! in-order segment until it reaches the buffer's window, not in one step per round trip.

use super::*;

#[derive(Clone, Copy, Debug)]
pub(super) struct Drs {
    /// The window the receiver offers when the application has read everything.
    pub(super) space: u64,
    /// The window offered now (Linux's rcv_ssthresh): climbs towards `space` segment by segment.
    pub(super) wnd: u64,
    /// Start of the current round of measurement: rcv_nxt and the time.
    seq: u64,
    at: SimTime,
    /// The receiver's RTT estimate (smoothed 7/8, as RFC 6298 smooths the sender's).
    rtt: Option<SimTime>,
    /// Without timestamps, DRS's own sample: the time one window of data takes to arrive,
    /// measured from (rcv_nxt + window, start).
    window_timing: Option<(u64, SimTime)>,
}

impl Drs {
    pub(super) fn new(space: u64) -> Drs {
        Drs {
            space,
            wnd: space,
            seq: 0,
            at: SimTime::ZERO,
            rtt: None,
            window_timing: None,
        }
    }

    fn sample(&mut self, r: SimTime) {
        self.rtt = Some(match self.rtt {
            Some(old) => SimTime((old.0 * 7 + r.0) / 8),
            None => r,
        });
    }
}

impl Socket {
    /// After in-order data arrived: a receiver RTT sample (TSecr of the segment, or a window's
    /// arrival time), then, once a round trip has passed, window = max(window, 2·delivered).
    pub(super) fn autotune(&mut self, now: SimTime, h: &TcpHeader) {
        let max = self.cfg.rcv_buf_max / 2;
        let (ts_on, rcv_nxt) = (self.ts_on, self.rcv_nxt);
        let Some(d) = self.drs.as_mut() else { return };
        match h.ts {
            Some((_, ecr)) if ts_on && ecr != 0 => d.sample(SimTime::from_millis(
                Self::ts_now(now).wrapping_sub(ecr) as u64,
            )),
            _ if !ts_on => match d.window_timing {
                Some((end, t0)) if rcv_nxt >= end => {
                    d.sample(now - t0);
                    d.window_timing = Some((rcv_nxt + d.space, now));
                }
                None => d.window_timing = Some((rcv_nxt + d.space, now)),
                _ => {}
            },
            _ => {}
        }
        let Some(rtt) = d.rtt else {
            (d.seq, d.at) = (rcv_nxt, now);
            return;
        };
        if now - d.at >= rtt {
            let delivered = rcv_nxt - d.seq;
            d.space = d.space.max((2 * delivered).min(max));
            (d.seq, d.at) = (rcv_nxt, now);
        }
    }

    /// After in-order data: Linux's tcp_grow_window raises the offered window by two MSS per
    /// segment towards the buffer's window. Whether it grew (quick-ACK mode ACKs that at once).
    pub(super) fn grow_window(&mut self) -> bool {
        let step = 2 * self.mss;
        let Some(d) = self.drs.as_mut() else {
            return false;
        };
        if d.wnd >= d.space {
            return false;
        }
        d.wnd = (d.wnd + step).min(d.space);
        true
    }
}
