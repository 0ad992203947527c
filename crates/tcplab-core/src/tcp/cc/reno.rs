//! Reno-style AIMD (RFC 5681 §3.1): slow start, then one SMSS per RTT, halving on loss. Counted
//! in bytes as the RFCs specify, or in whole segments as ns-2's Agent/TCP does.

use super::{Ack, Congestion, CongestionControl, Flight, Window};
use crate::tcp::config::{CaMode, TcpConfig, WindowUnit};
use crate::tcp::rtt::RttEstimator;

#[derive(Clone, Debug)]
pub struct Reno {
    ca_mode: CaMode,
    /// L of RFC 3465.
    abc_limit: u64,
}

impl Reno {
    pub fn new(cfg: &TcpConfig) -> Reno {
        Reno {
            ca_mode: cfg.ca_mode,
            abc_limit: cfg.abc_limit.max(1) as u64,
        }
    }
}

/// ns-2's window at a reduction: min(int(cwnd_), window_) in whole segments, the peer's window
/// counting as at least one.
pub(crate) fn ns2_window_segs(w: &Window, f: &Flight) -> u64 {
    (w.window() / w.mss).min((f.snd_wnd / w.mss).max(1))
}

/// RFC 5681 eq. (4): max(FlightSize/2, 2·SMSS).
pub(crate) fn half_flight(w: &Window, f: &Flight) -> u64 {
    (f.flight_size / 2).max(2 * w.mss)
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, _rtt: &RttEstimator) {
        if w.in_slow_start() {
            w.slow_start(ack.acked, self.abc_limit);
            return;
        }
        match (w.unit, self.ca_mode) {
            // RFC 5681 §3.1 / RFC 3465 §2.1: +SMSS once a full cwnd of bytes has been acknowledged.
            (WindowUnit::Bytes, CaMode::ByteCounting) => {
                if w.count_window_acked(ack.acked) {
                    w.cwnd += w.mss as f64;
                }
            }
            // RFC 5681 §3.1 eq. (3): cwnd += SMSS·SMSS/cwnd, at least one byte.
            (WindowUnit::Bytes, CaMode::PerAck) => {
                let inc = (w.mss * w.mss / (w.cwnd as u64).max(1)).max(1);
                w.cwnd += inc as f64;
            }
            // ns-2 Agent/TCP opencwnd(): +1/cwnd segments per new ACK.
            (WindowUnit::Segments, _) => {
                let segs = w.cwnd / w.mss as f64;
                w.cwnd += w.mss as f64 / segs;
            }
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, f: &Flight, _rtt: &RttEstimator) -> u64 {
        match (w.unit, ev) {
            // RFC 3168 §6.1.2: the same reduction as for a loss.
            (_, Congestion::Ecn) | (WindowUnit::Bytes, _) => half_flight(w, f),
            // ns-2: ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) segments.
            (WindowUnit::Segments, _) => (ns2_window_segs(w, f) / 2).max(2) * w.mss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn ack(acked: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked,
            rtt: None,
            ca_rtt: None,
            snd_una: 0,
            snd_max: 0,
        }
    }

    fn reno(ca_mode: CaMode, abc_limit: u32) -> Reno {
        Reno::new(&TcpConfig {
            ca_mode,
            abc_limit,
            ..TcpConfig::default()
        })
    }

    /// Congestion avoidance, cwnd 4 segments above ssthresh, in each counting mode.
    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        let est = rtt_after_sample(100);
        let ca = |unit, mode, acks: &[u64]| {
            let mut w = Window::new(unit, MSS, 4 * MSS, 2 * MSS);
            let mut cc = reno(mode, 1);
            for &a in acks {
                cc.on_ack(&mut w, &ack(a), &est);
            }
            (w.cwnd, w.ca_acked)
        };
        // RFC 3465 §2.1: +SMSS when the bytes acknowledged reach cwnd, the excess carried over.
        let bytes = (WindowUnit::Bytes, CaMode::ByteCounting);
        assert_eq!(ca(bytes.0, bytes.1, &[MSS; 3]), (4000.0, 3000));
        assert_eq!(ca(bytes.0, bytes.1, &[MSS; 4]), (5000.0, 0));
        assert_eq!(ca(bytes.0, bytes.1, &[1500; 3]), (5000.0, 500));
        // RFC 5681 eq. (3): SMSS·SMSS/cwnd = 250 bytes per ACK.
        assert_eq!(ca(WindowUnit::Bytes, CaMode::PerAck, &[MSS]), (4250.0, 0));
        // ns-2 opencwnd(): 1/cwnd segments per ACK, whatever was acknowledged.
        assert_eq!(ca(WindowUnit::Segments, CaMode::PerAck, &[1]), (4250.0, 0));
        // Eq. (3) adds at least one byte.
        let mut w = Window::new(WindowUnit::Bytes, 10, 1000, 10);
        reno(CaMode::PerAck, 1).on_ack(&mut w, &ack(10), &est);
        assert_eq!(w.cwnd, 1001.0);
        // Below ssthresh: slow start with L = 2.
        let mut w = Window::new(WindowUnit::Bytes, MSS, 4 * MSS, u64::MAX);
        reno(CaMode::ByteCounting, 2).on_ack(&mut w, &ack(3 * MSS), &est);
        assert_eq!(w.cwnd, 6000.0);
        assert_eq!(reno(CaMode::ByteCounting, 1).name(), "reno");
    }

    /// RFC 5681 eq. (4): max(FlightSize/2, 2·SMSS) in bytes, and for an ECN-Echo in either
    /// unit (RFC 3168 §6.1.2); ns-2's segment mode: max(⌊min(cwnd, rwnd)/2⌋, 2) segments.
    #[test]
    fn ssthresh_is_half_the_flight_or_ns2s_half_window() {
        let est = rtt_after_sample(100);
        let mut cc = reno(CaMode::ByteCounting, 1);
        let f = |flight_size, snd_wnd| Flight {
            now: SimTime::ZERO,
            flight_size,
            snd_wnd,
        };
        let bytes = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        let ss = |cc: &mut Reno, w: &Window, ev, fl: Flight| cc.ssthresh(w, ev, &fl, &est);
        assert_eq!(ss(&mut cc, &bytes, Congestion::Timeout, f(9000, 0)), 4500);
        assert_eq!(
            ss(&mut cc, &bytes, Congestion::FastRetransmit, f(3000, 0)),
            2000
        );
        let segs = Window::new(WindowUnit::Segments, MSS, 10 * MSS + 500, u64::MAX);
        assert_eq!(ss(&mut cc, &segs, Congestion::Ecn, f(9000, 6000)), 4500);
        // min(10, 6) / 2 = 3 segments; min(10, ∞) / 2 = 5; a window under one segment
        // counts as one, and the result is at least 2.
        assert_eq!(
            ss(&mut cc, &segs, Congestion::FastRetransmit, f(0, 6000)),
            3000
        );
        assert_eq!(
            ss(&mut cc, &segs, Congestion::Timeout, f(0, u64::MAX)),
            5000
        );
        assert_eq!(ss(&mut cc, &segs, Congestion::Timeout, f(0, 500)), 2000);
        let small = Window::new(WindowUnit::Segments, MSS, 3 * MSS, u64::MAX);
        assert_eq!(
            ss(&mut cc, &small, Congestion::Timeout, f(0, u64::MAX)),
            2000
        );
    }
}
