//! Linux's receive window (`rcv_wnd_growth`): how the kernel counts its receive buffer and grows
//! the window it offers inside it. Facts from the kernel's commit messages and public
//! descriptions (the once-per-echo rule read off excerpts that public search results showed),
//! checked on the validation pcap; no kernel code copied:
//! - the buffer is counted in memory, not payload: each segment is charged its truesize, and the
//!   window is the buffer times the scaling ratio payload/truesize, in 1/256ths ("tcp: get rid of
//!   sysctl_tcp_adv_win_scale", 6.6: a per-socket ratio measured from skb->len/skb->truesize);
//!   before any data the ratio is 1/2 ("tcp: increase the default TCP scaling ratio"), so
//!   tcp_rmem's default of 131072 B gives the 65535-byte initial window, and the measured ratio
//!   resets the window clamp ("tcp: Update window clamping condition");
//! - the first window is that window rounded down to whole segments (the SYN's 64240 = 44 × 1460
//!   on the validation pcap), and rcv_ssthresh starts there;
//! - rcv_ssthresh grows by two MSS per in-order segment while it is below both the clamp and the
//!   window the buffer's free space allows (tcp_grow_window);
//! - the receiver's RTT is sampled from the timestamp echo once per new echo value
//!   (rcv_rtt_last_tsecr), and autotuning's first round starts when the connection is
//!   established;
//! - a smaller receiver RTT sample replaces the estimate at once, a larger one is averaged in
//!   with weight 1/8 ("tcp: always seek for minimal rtt in tcp_rcv_rtt_update()", 6.16);
//! - autotuning (tcp_moderate_rcvbuf) measures the data read per receiver RTT and, when it
//!   exceeds the largest earlier measurement (at first 10 MSS: "Initial rcvq_space gets
//!   calculated as TCP_INIT_CWND * tp->advmss"), sets the window to twice that data, raised by
//!   twice its relative growth, without the 16-MSS cushion older kernels added ("tcp: fix too
//!   slow tcp_rcvbuf_grow() action", 6.18: "not exactly a revert, we do not add the
//!   16 * tp->advmss cushion"), and the buffer to what holds that window, at most tcp_rmem's
//!   maximum.

use crate::time::SimTime;

/// The share of the buffer that is window before any data arrived: 1/2, in 1/256ths.
const DEFAULT_RATIO: u64 = 128;
/// Autotuning's first threshold: TCP_INIT_CWND segments.
const INIT_SPACE_SEGMENTS: u64 = 10;

#[derive(Clone, Copy, Debug)]
pub(super) struct LinuxRcv {
    /// The buffer in bytes of memory (Linux's sk_rcvbuf).
    buf: u64,
    /// Its largest size (tcp_rmem's maximum).
    buf_max: u64,
    /// Window per byte of memory, in 1/256ths (the scaling ratio).
    ratio: u64,
    /// Memory one full segment is charged.
    truesize: u64,
    mss: u64,
    /// The largest data read in one receiver RTT so far (Linux's rcvq_space.space).
    copied_max: u64,
    /// The TSecr of the last receiver RTT sample (Linux's rcv_rtt_last_tsecr).
    last_echo: u32,
}

impl LinuxRcv {
    /// `window` is the scenario's `rcv_buf`: the window of the initial buffer at the default
    /// ratio, so the buffer is twice it.
    pub(super) fn new(window: u64, buf_max: u64, truesize: u64, mss: u64) -> LinuxRcv {
        LinuxRcv {
            buf: window * 256 / DEFAULT_RATIO,
            buf_max,
            ratio: DEFAULT_RATIO,
            truesize,
            mss,
            copied_max: (INIT_SPACE_SEGMENTS * mss).min(window),
            last_echo: 0,
        }
    }

    /// The first window offered (and rcv_ssthresh's start): the buffer's, in whole segments.
    pub(super) fn initial_window(&self) -> u64 {
        let w = self.window_of(self.buf);
        match w > self.mss {
            true => w / self.mss * self.mss,
            false => w,
        }
    }

    fn window_of(&self, mem: u64) -> u64 {
        mem * self.ratio / 256
    }

    /// A full-sized segment arrived: the ratio is measured from it (payload/truesize).
    pub(super) fn measure(&mut self) {
        self.ratio = self.mss * 256 / self.truesize;
    }

    /// The receiver's RTT estimate after sample `r` (tcp_rcv_rtt_update since 6.16): a smaller
    /// sample is taken at once, a larger one averaged in with weight 1/8.
    pub(super) fn rtt_update(old: Option<SimTime>, r: SimTime) -> SimTime {
        match old {
            Some(o) if r >= o => SimTime((o.0 * 7 + r.0) / 8),
            _ => r,
        }
    }

    /// Whether a segment echoing `ecr` gives a receiver RTT sample: only a new echo does, and
    /// only from a full-sized segment.
    pub(super) fn fresh_echo(&mut self, ecr: u32, payload: u32) -> bool {
        if ecr == self.last_echo {
            return false;
        }
        self.last_echo = ecr;
        payload as u64 >= self.mss
    }

    /// The window the buffer allows when everything has been read (the window clamp).
    pub(super) fn space(&self) -> u64 {
        self.window_of(self.buf)
    }

    /// The window the free space allows with the segment just queued still charged (it is read
    /// after the window grew): rcv_ssthresh's bound.
    pub(super) fn growth_bound(&self) -> u64 {
        self.window_of(self.buf.saturating_sub(self.truesize))
    }

    /// Once per receiver RTT: `copied` bytes were delivered in it.
    pub(super) fn round(&mut self, copied: u64) {
        let prev = self.copied_max;
        if copied <= prev {
            return;
        }
        // tcp_rcvbuf_grow (6.18): twice the data, grown by twice its relative growth.
        let mut wnd = 2 * copied;
        wnd += 2 * wnd * (copied - prev) / prev.max(1);
        let buf = (wnd * 256 / self.ratio).min(self.buf_max);
        self.buf = self.buf.max(buf);
        self.copied_max = copied;
    }
}
