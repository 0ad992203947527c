//! Congestion control: how cwnd grows on new ACKs and what ssthresh a congestion event calls for.
//!
//! The split follows ns-3's `TcpCongestionOps` and Linux's `tcp_congestion_ops`: a controller
//! sees the shared window state ([`Window`], the "tcb") and a read-only RTT estimator, never the
//! socket. It returns ssthresh rather than assigning it, and loss recovery (see `recovery/`)
//! decides cwnd while an episode lasts. A new controller is one file here plus one arm of
//! [`AnyCc`] and its scenario name in `config::CcKind`.

mod adaptive;
mod cubic;
mod hystart;
mod reno;
mod vegas;
mod veno;
mod westwood;

pub use adaptive::{Adaptive, LossEvent};
pub use cubic::Cubic;
pub use hystart::Exit as HyStartExit;
pub use reno::Reno;
pub use vegas::{Vegas, VegasParams};
pub use veno::{Veno, VenoParams};
pub use westwood::Westwood;

use super::config::{CcKind, TcpConfig, WindowUnit};
use super::rtt::RttEstimator;
use crate::time::SimTime;

/// The congestion state shared by the controller and loss recovery (ns-3's TcpSocketState).
#[derive(Clone, Debug)]
pub struct Window {
    pub unit: WindowUnit,
    pub mss: u64,
    /// cwnd in bytes; fractional only in segment mode (ns-2's cwnd_ is a double).
    pub cwnd: f64,
    pub ssthresh: u64,
    /// Bytes acknowledged towards the next congestion-avoidance increment (RFC 3465 §2.1; Linux's
    /// snd_cwnd_cnt).
    pub ca_acked: u64,
}

impl Window {
    pub fn new(unit: WindowUnit, mss: u64, cwnd: u64, ssthresh: u64) -> Window {
        Window {
            unit,
            mss,
            cwnd: cwnd as f64,
            ssthresh,
            ca_acked: 0,
        }
    }

    /// The usable window in bytes.
    pub fn window(&self) -> u64 {
        match self.unit {
            WindowUnit::Bytes => self.cwnd as u64,
            // ns-2 uses int(cwnd_) segments.
            WindowUnit::Segments => {
                (self.cwnd / self.mss as f64).floor().max(1.0) as u64 * self.mss
            }
        }
    }

    /// Sets cwnd to `bytes` and restarts the congestion-avoidance byte count.
    pub fn set(&mut self, bytes: u64) {
        self.cwnd = bytes as f64;
        self.ca_acked = 0;
    }

    /// RFC 3465 §2.1 byte counting: adds `bytes` to the count and says whether a full cwnd has
    /// now been acknowledged, in which case the count restarts from the excess.
    pub fn count_window_acked(&mut self, bytes: u64) -> bool {
        self.ca_acked += bytes;
        let cwnd = self.cwnd as u64;
        let full = self.ca_acked >= cwnd;
        if full {
            self.ca_acked -= cwnd;
        }
        full
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        (self.cwnd as u64) < self.ssthresh
    }

    /// RFC 5681 §3.1 eq. (2) with RFC 3465's limit L (or ns-2's +1 segment per ACK).
    pub fn slow_start(&mut self, acked: u64, abc_limit: u64) {
        match self.unit {
            WindowUnit::Bytes => self.cwnd += acked.min(abc_limit * self.mss) as f64,
            WindowUnit::Segments => self.cwnd += self.mss as f64,
        }
    }
}

/// One ACK of new data, as the controller sees it.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub now: SimTime,
    /// Newly acknowledged bytes.
    pub acked: u64,
    /// The RTT sample this ACK produced, if any (RFC 6298 §3 / RFC 7323 §4).
    pub rtt: Option<SimTime>,
    /// The time since the most recently sent segment this ACK newly acknowledges was sent, if
    /// it was never retransmitted (Linux's per-ACK `ca_rtt`, kept only for HyStart).
    pub ca_rtt: Option<SimTime>,
    /// snd_una after this ACK and HighData + 1: where round trips begin and end (HyStart).
    pub snd_una: u64,
    pub snd_max: u64,
}

/// What called for a window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// DupThresh duplicate ACKs or RFC 6675 IsLost: fast retransmit.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
    /// An ECN-Echo (RFC 3168 §6.1.2).
    Ecn,
}

/// The sender's flight at the congestion event.
#[derive(Clone, Copy, Debug)]
pub struct Flight {
    pub now: SimTime,
    /// FlightSize of RFC 5681 (snd_max − snd_una).
    pub flight_size: u64,
    /// The peer's advertised window.
    pub snd_wnd: u64,
}

/// The first unacknowledged segment, as fine-grained loss detection sees it.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    /// Its latest transmission (retransmissions included) and how many it has had.
    pub sent_at: SimTime,
    pub transmits: u32,
    /// Segments outstanding, snd_max − snd_una in whole MSS (rounded up).
    pub outstanding: u64,
}

/// The ACK that asks about the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// A duplicate ACK (outside or inside loss recovery).
    Duplicate,
    /// An ACK of new data; the head is the new first unacknowledged segment.
    New,
}

pub trait CongestionControl {
    fn name(&self) -> &'static str;

    /// New data acknowledged outside loss recovery: grow cwnd.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator);

    /// Every ACK that advances snd_una, in recovery too (rate estimators such as Westwood+ use
    /// it). The default ignores it.
    fn on_any_ack(&mut self, _w: &Window, _ack: &Ack, _rtt: &RttEstimator) {}

    /// The ssthresh this congestion event calls for. Returned, not assigned (ns-3's contract):
    /// the socket decides whether to apply it (e.g. not on a repeated timeout).
    fn ssthresh(&mut self, w: &Window, ev: Congestion, f: &Flight, rtt: &RttEstimator) -> u64;

    /// cwnd after a retransmission timeout: the loss window of RFC 5681 §3.1, one SMSS.
    fn loss_window(&self, w: &Window) -> u64 {
        w.mss
    }

    /// A loss-recovery episode has ended and the scheme has set cwnd for the time after it
    /// (RFC 6582 §3.2 step 3: ssthresh). Controllers whose window after recovery is not
    /// ssthresh (Westwood+, Adaptive TCP) adjust it here; the default keeps the scheme's choice.
    fn on_recovery_exit(&mut self, _w: &mut Window) {}

    /// Fine-grained loss detection at the duplicate-ACK seam (Vegas, Brakmo & Peterson 1995
    /// §3.1): asked on every duplicate ACK and every ACK of new data, true resends the head at
    /// once — before DupThresh duplicates, or while an episode lasts, without waiting for the
    /// retransmission timer. The default leaves loss detection to the recovery scheme.
    fn resend_head(&mut self, _now: SimTime, _kind: AckKind, _head: &Head) -> bool {
        false
    }

    /// The head was just retransmitted on a duplicate ACK (the DupThresh-th, or one
    /// `resend_head` called for); `head` is as it stood before that retransmission.
    fn on_dupack_resend(&mut self, _head: &Head) {}
}

/// The built-in controllers, dispatched by `match` (no allocation, no boxing per ACK).
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
    Cubic(Cubic),
    Westwood(Westwood),
    Adaptive(Adaptive),
    Vegas(Vegas),
    Veno(Veno),
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> AnyCc {
        match cfg.cc {
            CcKind::Reno => AnyCc::Reno(Reno::new(cfg)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(cfg)),
            CcKind::Westwood => AnyCc::Westwood(Westwood::new(cfg)),
            CcKind::Adaptive => AnyCc::Adaptive(Adaptive::new(cfg)),
            CcKind::Vegas => AnyCc::Vegas(Vegas::new(cfg)),
            CcKind::Veno => AnyCc::Veno(Veno::new(cfg)),
        }
    }

    pub fn get(&self) -> &dyn CongestionControl {
        match self {
            AnyCc::Reno(c) => c,
            AnyCc::Cubic(c) => c,
            AnyCc::Westwood(c) => c,
            AnyCc::Adaptive(c) => c,
            AnyCc::Vegas(c) => c,
            AnyCc::Veno(c) => c,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            AnyCc::Reno(c) => c,
            AnyCc::Cubic(c) => c,
            AnyCc::Westwood(c) => c,
            AnyCc::Adaptive(c) => c,
            AnyCc::Vegas(c) => c,
            AnyCc::Veno(c) => c,
        }
    }
}

/// An RTT estimator after one sample of `ms` milliseconds (RTO floor 200 ms, 1 ms clock).
#[cfg(test)]
pub(crate) fn rtt_after_sample(ms: u64) -> RttEstimator {
    let mut r = RttEstimator::new(
        SimTime::from_secs(1),
        SimTime::from_millis(200),
        SimTime::from_secs(60),
        SimTime::from_millis(1),
    );
    r.on_sample(SimTime::from_millis(ms));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// The usable window: whole bytes (RFC 5681), or ns-2's int(cwnd_) segments and never
    /// less than one.
    #[test]
    fn the_window_in_bytes_and_in_whole_segments() {
        let mut w = Window::new(WindowUnit::Bytes, MSS, 0, u64::MAX);
        w.cwnd = 2999.9;
        assert_eq!(w.window(), 2999);
        w.unit = WindowUnit::Segments;
        assert_eq!(w.window(), 2 * MSS);
        w.cwnd = 400.0;
        assert_eq!(w.window(), MSS, "at least one segment");
        // `set` restarts the congestion-avoidance count.
        w.ca_acked = 700;
        w.set(5 * MSS);
        assert_eq!((w.cwnd, w.ca_acked), (5000.0, 0));
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh (not at equality), growing by the bytes
    /// acknowledged up to L·SMSS (RFC 3465 §2.2), or by one segment per ACK in ns-2's mode.
    #[test]
    fn slow_start_below_ssthresh_by_acked_bytes_up_to_l_smss() {
        let mut w = Window::new(WindowUnit::Bytes, MSS, 4 * MSS, 4 * MSS);
        assert!(
            !w.in_slow_start(),
            "cwnd = ssthresh is congestion avoidance"
        );
        w.cwnd = 3999.5;
        assert!(w.in_slow_start());
        w.ssthresh = 3000;
        assert!(!w.in_slow_start());
        let mut w = Window::new(WindowUnit::Bytes, MSS, 4 * MSS, u64::MAX);
        w.slow_start(700, 2);
        assert_eq!(w.cwnd, 4700.0);
        w.slow_start(5 * MSS, 2);
        assert_eq!(w.cwnd, 6700.0, "at most L = 2 segments per ACK");
        let mut w = Window::new(WindowUnit::Segments, MSS, 4 * MSS, u64::MAX);
        w.slow_start(300, 1);
        assert_eq!(w.cwnd, 5000.0, "ns-2: one segment per new ACK");
    }

    /// RFC 5681 §3.1: after a timeout cwnd is the loss window, one SMSS (the trait's default).
    #[test]
    fn the_default_loss_window_is_one_smss() {
        let cc = AnyCc::new(&TcpConfig::default());
        let w = Window::new(WindowUnit::Bytes, 1460, 10 * 1460, u64::MAX);
        assert_eq!(cc.get().loss_window(&w), 1460);
        assert_eq!(cc.get().name(), "reno");
    }
}
