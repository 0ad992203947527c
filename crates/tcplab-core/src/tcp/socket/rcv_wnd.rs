//! Linux's receive window (`rcv_wnd_growth`): how the kernel counts its receive buffer and grows
//! the window it offers inside it. Facts from the kernel's public documentation and commit
//! messages, no kernel code consulted:
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
//! - autotuning (tcp_moderate_rcvbuf) measures the data read per receiver RTT and, when it
//!   exceeds the largest earlier measurement (at first 10 MSS: "Initial rcvq_space gets
//!   calculated as TCP_INIT_CWND * tp->advmss"), sets the window to twice that data plus 16 MSS,
//!   raised further by twice its relative growth ("tcp: smoother receiver autotuning"), and the
//!   buffer to what holds that window, at most tcp_rmem's maximum.

/// The share of the buffer that is window before any data arrived: 1/2, in 1/256ths.
const DEFAULT_RATIO: u64 = 128;
/// Autotuning's first threshold: TCP_INIT_CWND segments.
const INIT_SPACE_SEGMENTS: u64 = 10;
/// Autotuning's headroom: 16 MSS on top of twice the data of a round trip.
const HEADROOM_SEGMENTS: u64 = 16;

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
        let mut wnd = 2 * copied + HEADROOM_SEGMENTS * self.mss;
        // "smoother receiver autotuning": grown by twice the relative growth of the data.
        wnd += 2 * wnd * (copied - prev) / prev.max(1);
        let buf = (wnd * 256 / self.ratio).min(self.buf_max);
        self.buf = self.buf.max(buf);
        self.copied_max = copied;
    }
}
