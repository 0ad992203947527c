//! Receive-buffer autotuning, as Linux documents `tcp_moderate_rcvbuf` (ip-sysctl.rst: size the
//! buffer, no greater than tcp_rmem's maximum, "to match the size required by the path for full
//! throughput"), by Dynamic Right-Sizing (Fisk & Feng 2001): the receiver measures the data it
//! delivers per round trip and offers a window of twice that, so that the sender, not the
//! receiver, limits the flow. The window starts at `rcv_buf` (tcp_rmem's default of 131072 B
//! "results in initial window of 65535") and grows, never shrinks, up to half of `rcv_buf_max`
//! (tcp_rmem's maximum, 6 MiB; with tcp_adv_win_scale = 1 half of the buffer is window).
//! The window offered follows the buffer as Linux's rcv_ssthresh does: it grows by two MSS per
//! in-order segment until it reaches the buffer's window, not in one step per round trip.
//! With `rcv_wnd_growth` the buffer is counted and grown by the kernel's rules instead
//! (`socket/rcv_wnd.rs`): the window starts below it and the round trip's data must grow.

use super::rcv_wnd::LinuxRcv;
use super::*;

#[derive(Clone, Copy, Debug)]
pub(super) struct Drs {
    /// The window the receiver offers when the application has read everything.
    pub(super) space: u64,
    /// The window offered now (Linux's rcv_ssthresh): climbs towards `space` segment by segment.
    pub(super) wnd: u64,
    /// Start of the current round of measurement: rcv_nxt and the time (None before the first
    /// in-order data, so that the first round counts only data of the connection).
    round: Option<(u64, SimTime)>,
    /// The receiver's RTT estimate (smoothed 7/8, as RFC 6298 smooths the sender's).
    rtt: Option<SimTime>,
    /// Without timestamps, DRS's own sample: the time one window of data takes to arrive,
    /// measured from (rcv_nxt + window, start).
    window_timing: Option<(u64, SimTime)>,
    /// Whether the buffer grows (`rcv_buf_autotune`); without it only the window climbs.
    tune: bool,
    /// Linux's buffer accounting and growth rules (`rcv_wnd_growth`, `socket/rcv_wnd.rs`).
    linux: Option<LinuxRcv>,
}

impl Drs {
    pub(super) fn new(cfg: &TcpConfig) -> Drs {
        let mss = cfg.mss as u64;
        let linux = cfg
            .rcv_wnd_growth
            .then(|| LinuxRcv::new(cfg.rcv_buf, cfg.rcv_buf_max, mss + cfg.rcv_overhead, mss));
        Drs {
            space: cfg.rcv_buf,
            // Linux: rcv_ssthresh starts at the initial window, the buffer's in whole segments.
            wnd: linux.map_or(cfg.rcv_buf, |l| l.initial_window()),
            round: None,
            rtt: None,
            window_timing: None,
            tune: cfg.rcv_buf_autotune,
            linux,
        }
    }

    fn sample(&mut self, r: SimTime) {
        self.rtt = Some(match (self.linux, self.rtt) {
            (Some(_), old) => LinuxRcv::rtt_update(old, r),
            (None, Some(old)) => SimTime((old.0 * 7 + r.0) / 8),
            (None, None) => r,
        });
    }

    /// Where the offered window stops climbing: the buffer's window, or with Linux's rules the
    /// window of the buffer's free space (the segment just queued still charged).
    fn bound(&self) -> u64 {
        self.linux.map_or(self.space, |l| l.growth_bound())
    }
}

impl Socket {
    /// After in-order data arrived: a receiver RTT sample (TSecr of the segment, or a window's
    /// arrival time), then, once a round trip has passed, window = max(window, 2·delivered)
    /// (Dynamic Right-Sizing), or Linux's rule with `rcv_wnd_growth`.
    pub(super) fn autotune(&mut self, now: SimTime, h: &TcpHeader, payload: u32) {
        let max = self.cfg.rcv_buf_max / 2;
        let (ts_on, rcv_nxt, mss) = (self.ts_on, self.rcv_nxt, self.mss);
        let Some(d) = self.drs.as_mut() else { return };
        if let Some(l) = d.linux.as_mut() {
            if payload as u64 >= mss {
                // Linux 6.6+: the scaling ratio is measured from a full-sized segment, and the
                // window clamp follows it.
                l.measure();
                d.space = l.space();
            }
        }
        if !d.tune {
            return;
        }
        // Linux samples once per new echo, from full-sized segments (tcp_rcv_rtt_measure_ts): a
        // round's segments echoing one ACK do not lengthen its RTT.
        let echo = h.ts.map(|(_, ecr)| ecr).filter(|&e| ts_on && e != 0);
        let fresh = echo.is_some_and(|e| d.linux.as_mut().is_none_or(|l| l.fresh_echo(e, payload)));
        match echo {
            Some(ecr) if fresh => d.sample(SimTime::from_millis(
                Self::ts_now(now).wrapping_sub(ecr) as u64,
            )),
            Some(_) => {}
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
            d.round = Some((rcv_nxt, now));
            return;
        };
        let first = rcv_nxt.saturating_sub(payload as u64);
        let (seq, at) = match (d.round, d.linux.is_some(), self.connected_at) {
            (Some(r), _, _) => r,
            // Linux measures from the connection's establishment (tcp_init_buffer_space), so
            // its first check comes with the first data and counts only that segment.
            (None, true, Some(t)) => (first, t),
            // Otherwise the first round starts with the first in-order data (this one included).
            _ => {
                d.round = Some((first, now));
                return;
            }
        };
        d.round = Some((seq, at));
        if now - at >= rtt {
            let delivered = rcv_nxt - seq;
            match d.linux.as_mut() {
                Some(l) => {
                    l.round(delivered);
                    d.space = l.space();
                }
                None => d.space = d.space.max((2 * delivered).min(max)),
            }
            d.round = Some((rcv_nxt, now));
        }
    }

    /// After in-order data: Linux's tcp_grow_window raises the offered window by two MSS per
    /// segment towards the buffer's window. Whether it grew (quick-ACK mode ACKs that at once).
    pub(super) fn grow_window(&mut self) -> bool {
        let step = 2 * self.mss;
        let Some(d) = self.drs.as_mut() else {
            return false;
        };
        let bound = d.bound();
        if d.wnd >= bound {
            return false;
        }
        d.wnd = (d.wnd + step).min(bound);
        true
    }
}
