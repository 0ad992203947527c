//! TCP Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli 2004; the baseline of seed 004):
//! Reno's growth, but after a loss ssthresh is the pipe the bandwidth estimate fills,
//! BWE·RTT_min, instead of half the window. The estimate takes one sample per RTT — the bytes
//! acknowledged over the interval divided by its length — and smooths it with a low-pass filter
//! (`WestwoodFilter`). Rules and sources: shared/ALGORITHMS.md §2.

use super::reno::Reno;
use super::{Ack, Congestion, CongestionControl, Flight, Window};
use crate::tcp::config::{TcpConfig, WestwoodFilter};
use crate::tcp::rtt::RttEstimator;
use crate::time::SimTime;

/// Mascolo et al. 2004 and ns-3's TcpWestwood: the filter gain γ = 0.9.
pub const GAMMA: f64 = 0.9;
/// Linux tcp_westwood.c `TCP_WESTWOOD_RTT_MIN` (HZ/20): the shortest sampling interval.
const LINUX_MIN_INTERVAL: SimTime = SimTime::from_millis(50);

#[derive(Clone, Debug)]
pub struct Westwood {
    /// Growth is Reno's (slow start, congestion avoidance), ALGORITHMS.md §2.1.
    reno: Reno,
    filter: WestwoodFilter,
    /// The filtered estimate in bytes per second; None before the first sample.
    bwe: Option<f64>,
    /// The previous raw sample (the Tustin form) or Linux's first filter stage.
    stage: f64,
    /// Start of the current sampling interval and the bytes acknowledged since.
    interval_start: Option<SimTime>,
    interval_bytes: u64,
    /// The smallest RTT sample seen (Karn-valid samples only: `Ack::rtt`).
    rtt_min: Option<SimTime>,
    /// ssthresh to install when the current recovery episode ends (see `ssthresh`).
    after_recovery: Option<u64>,
}

impl Westwood {
    pub fn new(cfg: &TcpConfig) -> Westwood {
        Westwood {
            reno: Reno::new(cfg),
            filter: cfg.westwood_filter,
            bwe: None,
            stage: 0.0,
            interval_start: None,
            interval_bytes: 0,
            rtt_min: None,
            after_recovery: None,
        }
    }

    /// The bandwidth estimate in bytes per second.
    pub fn bwe(&self) -> Option<f64> {
        self.bwe
    }

    pub fn rtt_min(&self) -> Option<SimTime> {
        self.rtt_min
    }

    /// One sample b (bytes/s) through the low-pass filter. The first sample initialises the
    /// filter (Linux's `westwood_update_window` on its first interval).
    fn filter_sample(&mut self, b: f64) {
        let Some(prev) = self.bwe else {
            self.bwe = Some(b);
            self.stage = b;
            return;
        };
        self.bwe = Some(match self.filter {
            // Mascolo et al. 2004 eq. (3): BWE_k = γ·BWE_{k−1} + (1 − γ)·b_k.
            WestwoodFilter::Mascolo => GAMMA * prev + (1.0 - GAMMA) * b,
            // ns-3 tcp-westwood.cc, FilterType TUSTIN: 0.9·BWE + 0.1·(b_k + b_{k−1})/2.
            WestwoodFilter::Tustin => {
                let avg = (b + self.stage) / 2.0;
                self.stage = b;
                GAMMA * prev + (1.0 - GAMMA) * avg
            }
            // Linux westwood_filter(): bw_ns_est = (7·bw_ns_est + b)/8; bw_est = (7·bw_est + bw_ns_est)/8.
            WestwoodFilter::Linux => {
                self.stage = (7.0 * self.stage + b) / 8.0;
                (7.0 * prev + self.stage) / 8.0
            }
        });
    }

    /// ALGORITHMS.md §2.1: max(2, BWE·RTT_min / seg) whole segments, in bytes (ns-2's ssthresh_
    /// and Linux's bw_rttmin are whole segments). With no estimate yet it is two segments, as in
    /// Linux and ns-3.
    pub fn pipe_ssthresh(&self, mss: u64) -> u64 {
        let pipe = match (self.bwe, self.rtt_min) {
            (Some(b), Some(r)) => (b * r.as_secs_f64() / mss as f64).floor() as u64,
            _ => 0,
        };
        pipe.max(2) * mss
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator) {
        self.reno.on_ack(w, ack, rtt);
    }

    fn on_any_ack(&mut self, _w: &Window, ack: &Ack, rtt: &RttEstimator) {
        if let Some(r) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        // The first ACK opens the first interval; the bytes it acknowledges were sent before it.
        let Some(start) = self.interval_start else {
            self.interval_start = Some(ack.now);
            return;
        };
        // Duplicate ACKs do not reach a controller: the bytes they stand for are counted when the
        // cumulative ACK covers them, in the same or a later interval.
        self.interval_bytes += ack.acked;
        let Some(srtt) = rtt.srtt().or(ack.rtt) else {
            return;
        };
        // Westwood+: one sample per RTT (Mascolo et al. 2004 §3; Linux: at least 50 ms).
        let period = match self.filter {
            WestwoodFilter::Linux => srtt.max(LINUX_MIN_INTERVAL),
            _ => srtt,
        };
        let elapsed = ack.now.saturating_sub(start);
        if elapsed >= period && elapsed > SimTime::ZERO {
            let b = self.interval_bytes as f64 / elapsed.as_secs_f64();
            self.filter_sample(b);
            self.interval_start = Some(ack.now);
            self.interval_bytes = 0;
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, _f: &Flight, _rtt: &RttEstimator) -> u64 {
        let pipe = self.pipe_ssthresh(w.mss);
        match ev {
            // ALGORITHMS.md §2.1: after an RTO ssthresh = the pipe and cwnd = 1 (the loss window).
            Congestion::Timeout => {
                self.after_recovery = None;
                pipe
            }
            // ALGORITHMS.md §2.1 (INET TcpWestwood.cc): ssthresh = the pipe; cwnd is reduced to it
            // only if larger. Recovery sets cwnd from the ssthresh returned here, so it gets
            // min(pipe, cwnd); the full pipe becomes ssthresh when the episode ends, and a cwnd
            // below it slow-starts up to it.
            Congestion::FastRetransmit | Congestion::Ecn => {
                let cwnd = (w.window() / w.mss).max(2) * w.mss;
                self.after_recovery = (ev == Congestion::FastRetransmit).then_some(pipe);
                pipe.min(cwnd)
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        if let Some(ss) = self.after_recovery.take() {
            w.ssthresh = ss;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::tcp::config::WindowUnit;

    const MSS: u64 = 1000;

    /// Feeds one ACK of `MSS` bytes every `gap_us` µs from `from` for `ms` milliseconds.
    fn ack_trace(
        cc: &mut Westwood,
        rtt: &RttEstimator,
        from: SimTime,
        gap_us: u64,
        ms: u64,
    ) -> SimTime {
        let w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        let n = ms * 1000 / gap_us;
        let mut now = from;
        for _ in 0..n {
            now += SimTime::from_micros(gap_us);
            let ack = Ack {
                now,
                acked: MSS,
                rtt: Some(SimTime::from_millis(100)),
                ca_rtt: None,
                snd_una: 0,
                snd_max: 0,
            };
            cc.on_any_ack(&w, &ack, rtt);
        }
        now
    }

    /// A constant-rate ACK stream (1000 B every 1 ms = 1 MB/s) gives samples of exactly that
    /// rate; after a step to 0.5 MB/s the estimate approaches the new rate geometrically with
    /// the filter's γ = 0.9 per 100 ms RTT: the error after k samples is γ^k of the step.
    #[test]
    fn estimate_converges_to_a_constant_ack_rate_with_gamma_per_rtt() {
        let mut cc = Westwood::new(&TcpConfig::default());
        let rtt = rtt_after_sample(100);
        // The first ACK (1 ms) opens the intervals, so samples fall at 101 ms, 201 ms, ...
        let t = ack_trace(&mut cc, &rtt, SimTime::ZERO, 1000, 4901);
        let b = cc.bwe().expect("sampled");
        assert!((b / 1e6 - 1.0).abs() < 1e-9, "bwe {b}");
        // Step down to 1000 B every 2 ms at a sample; 3 s is 30 one-RTT samples of 0.5 MB/s.
        ack_trace(&mut cc, &rtt, t, 2000, 3000);
        let b = cc.bwe().expect("sampled");
        let expect = 0.5e6 + 0.5e6 * GAMMA.powi(30);
        assert!((b / expect - 1.0).abs() < 1e-6, "bwe {b} vs {expect}");
        // ... and at the rate within 0.1 % after a further 10 s.
        ack_trace(&mut cc, &rtt, t + SimTime::from_secs(3), 2000, 10_000);
        assert!((cc.bwe().unwrap() / 0.5e6 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn every_filter_converges_to_the_rate() {
        for filter in [
            WestwoodFilter::Mascolo,
            WestwoodFilter::Tustin,
            WestwoodFilter::Linux,
        ] {
            let mut cc = Westwood::new(&TcpConfig {
                westwood_filter: filter,
                ..TcpConfig::default()
            });
            let rtt = rtt_after_sample(100);
            let t = ack_trace(&mut cc, &rtt, SimTime::ZERO, 1000, 2000);
            ack_trace(&mut cc, &rtt, t, 4000, 20_000);
            let b = cc.bwe().unwrap();
            assert!((b / 0.25e6 - 1.0).abs() < 1e-3, "{filter:?}: {b}");
        }
    }

    /// ALGORITHMS.md §2.1: ssthresh = max(2, BWE·RTT_min/seg); cwnd is cut to it only if larger,
    /// and the full pipe is ssthresh once recovery ends.
    #[test]
    fn ssthresh_is_the_pipe_and_cwnd_is_cut_only_if_larger() {
        let mut cc = Westwood::new(&TcpConfig::default());
        let rtt = rtt_after_sample(100);
        // 1 MB/s with RTT_min 100 ms: a pipe of 100 segments.
        ack_trace(&mut cc, &rtt, SimTime::ZERO, 1000, 2000);
        assert_eq!(cc.rtt_min(), Some(SimTime::from_millis(100)));
        assert_eq!(cc.pipe_ssthresh(MSS), 100 * MSS);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 0,
            snd_wnd: u64::MAX,
        };
        // cwnd 150 > pipe: cut to 100.
        let mut w = Window::new(WindowUnit::Bytes, MSS, 150 * MSS, u64::MAX);
        let ss = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &rtt);
        assert_eq!(ss, 100 * MSS);
        // cwnd 40 < pipe: recovery works from 40; ssthresh becomes 100 at its end.
        let w40 = Window::new(WindowUnit::Bytes, MSS, 40 * MSS, u64::MAX);
        assert_eq!(
            cc.ssthresh(&w40, Congestion::FastRetransmit, &f, &rtt),
            40 * MSS
        );
        w.ssthresh = 40 * MSS;
        cc.on_recovery_exit(&mut w);
        assert_eq!(w.ssthresh, 100 * MSS);
        // RTO: the pipe, whatever cwnd; the loss window stays one segment.
        assert_eq!(cc.ssthresh(&w40, Congestion::Timeout, &f, &rtt), 100 * MSS);
        assert_eq!(cc.loss_window(&w40), MSS);
        // A tiny estimate is floored at two segments.
        let mut slow = Westwood::new(&TcpConfig::default());
        ack_trace(&mut slow, &rtt, SimTime::ZERO, 100_000, 5000);
        assert_eq!(slow.ssthresh(&w40, Congestion::Timeout, &f, &rtt), 2 * MSS);
    }

    /// Each filter's first steps, exactly: the first sample initialises it; then Mascolo et
    /// al. eq. (3), ns-3's Tustin form (the mean of this and the previous sample) and Linux's
    /// two 7/8 stages.
    #[test]
    fn each_filter_steps_as_its_source_writes_it() {
        let steps = |filter| {
            let mut cc = Westwood::new(&TcpConfig {
                westwood_filter: filter,
                ..TcpConfig::default()
            });
            [1000.0, 2000.0, 4000.0].map(|b| {
                cc.filter_sample(b);
                cc.bwe().unwrap()
            })
        };
        assert_eq!(steps(WestwoodFilter::Mascolo), [1000.0, 1100.0, 1390.0]);
        // 0.9·1000 + 0.1·1500 = 1050; 0.9·1050 + 0.1·3000 = 1245.
        let t = steps(WestwoodFilter::Tustin);
        assert!(
            (t[1] - 1050.0).abs() < 1e-9 && (t[2] - 1245.0).abs() < 1e-9,
            "{t:?}"
        );
        // Stage 1125, estimate 1015.625; stage 1484.375, estimate 1074.21875.
        assert_eq!(steps(WestwoodFilter::Linux), [1000.0, 1015.625, 1074.21875]);
    }

    /// Linux samples at most every 50 ms (TCP_WESTWOOD_RTT_MIN), the other filters once per
    /// SRTT, here 20 ms; an interval of no length is never a sample, even when the RTT is zero.
    #[test]
    fn the_sampling_interval_and_reno_growth() {
        let fast = rtt_after_sample(20);
        let sampled = |filter, ms| {
            let mut cc = Westwood::new(&TcpConfig {
                westwood_filter: filter,
                ..TcpConfig::default()
            });
            ack_trace(&mut cc, &fast, SimTime::ZERO, 1000, ms);
            cc.bwe()
        };
        assert_eq!(sampled(WestwoodFilter::Mascolo, 22), Some(1e6));
        assert_eq!(sampled(WestwoodFilter::Linux, 50), None);
        assert_eq!(sampled(WestwoodFilter::Linux, 52), Some(1e6));
        let mut cc = Westwood::new(&TcpConfig::default());
        let no_sample = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_millis(200),
            SimTime::from_secs(60),
            SimTime::from_millis(1),
        );
        let w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        let zero = Ack {
            now: SimTime::from_millis(5),
            acked: MSS,
            rtt: Some(SimTime::ZERO),
            ca_rtt: None,
            snd_una: 0,
            snd_max: 0,
        };
        cc.on_any_ack(&w, &zero, &no_sample);
        cc.on_any_ack(&w, &zero, &no_sample);
        assert_eq!(cc.bwe(), None);
        // Growth is Reno's: slow start adds the acknowledged bytes.
        let mut w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        cc.on_ack(&mut w, &zero, &fast);
        assert_eq!(w.cwnd, 11_000.0);
        assert_eq!(cc.name(), "westwood");
    }
}
