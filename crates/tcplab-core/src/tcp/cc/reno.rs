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
                w.ca_acked += ack.acked;
                let cwnd = w.cwnd as u64;
                if w.ca_acked >= cwnd {
                    w.ca_acked -= cwnd;
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
            (WindowUnit::Segments, _) => {
                let wnd_segs = f.snd_wnd / w.mss;
                let cw = (w.window() / w.mss).min(wnd_segs.max(1));
                (cw / 2).max(2) * w.mss
            }
        }
    }
}
