//! TCP Veno (Fu & Liew, IEEE JSAC 21(2), 2003), the implicit loss-discrimination baseline of
//! seed 004. Veno measures the backlog the flow keeps in the bottleneck queue as Vegas does,
//! N = Actual·(RTT − BaseRTT) = cwnd·(RTT − BaseRTT)/RTT segments, once per round trip, and uses
//! it twice: a loss while N < β is taken as random (ssthresh = cwnd·4/5 instead of cwnd/2), and
//! while N ≥ β congestion avoidance adds a segment only every other round trip. Slow start and
//! everything else are Reno's. Where Linux's tcp_veno differs: docs/models/vegas_veno.md.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reno::{ns2_window_segs, Reno};
use super::vegas::Rounds;
use super::{Ack, Congestion, CongestionControl, Flight, Window};
use crate::tcp::config::{TcpConfig, WindowUnit};
use crate::tcp::rtt::RttEstimator;

/// `veno = { beta }` in `[tcp]` (cc = "veno").
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct VenoParams {
    /// The backlog, in segments, at and above which the path counts as congested (Fu & Liew
    /// §II-A and Linux: 3).
    pub beta: f64,
}

impl Default for VenoParams {
    fn default() -> Self {
        VenoParams { beta: 3.0 }
    }
}

impl VenoParams {
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        if !(0.0..=1000.0).contains(&self.beta) {
            errs.push((
                "veno.beta",
                format!("{} is out of range; allowed 0 to 1000 segments", self.beta),
            ));
        }
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    beta: f64,
    reno: Reno,
    rounds: Rounds,
    /// The last round trip's backlog N in segments; None before the first.
    backlog: Option<f64>,
    /// Congestive state: the increment is due on every other window of ACKs (Linux's veno->inc).
    inc: bool,
}

impl Veno {
    pub fn new(cfg: &TcpConfig) -> Veno {
        Veno {
            beta: cfg.veno.beta,
            reno: Reno::new(cfg),
            rounds: Rounds::default(),
            backlog: None,
            inc: true,
        }
    }

    /// N of the last round trip, in segments.
    pub fn backlog(&self) -> Option<f64> {
        self.backlog
    }

    /// Fu & Liew §II: N < β means the loss was not the flow's own queue overflowing.
    fn congestive(&self) -> bool {
        self.backlog.is_some_and(|n| n >= self.beta)
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn on_any_ack(&mut self, _w: &Window, ack: &Ack, _rtt: &RttEstimator) {
        self.rounds.on_any_ack(ack);
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator) {
        if let Some(r) = self.rounds.on_ack(ack) {
            // Fu & Liew eq. (1)–(2): Actual = cwnd/RTT, N = Actual·(RTT − BaseRTT).
            let cwnd = w.cwnd / w.mss as f64;
            self.backlog = Some(cwnd * (r.rtt - r.base) / r.rtt);
        }
        if w.in_slow_start() || !self.congestive() {
            // Slow start, and congestion avoidance in the non-congestive state: Reno's.
            self.reno.on_ack(w, ack, rtt);
            return;
        }
        // §II-B: in the congestive state (N ≥ β) one segment every other round trip: each
        // window's worth of ACKs alternately adds a segment and not (Linux's veno->inc).
        let counted = match w.unit {
            WindowUnit::Bytes => ack.acked,
            // ns-2's segment mode counts ACKs, as Reno's +1/cwnd per ACK does.
            WindowUnit::Segments => w.mss,
        };
        if w.count_window_acked(counted) {
            if self.inc {
                w.cwnd += w.mss as f64;
            }
            self.inc = !self.inc;
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, f: &Flight, rtt: &RttEstimator) -> u64 {
        match ev {
            // §II-A: a fast retransmit with N < β is a random loss: ssthresh = cwnd·4/5.
            Congestion::FastRetransmit if !self.congestive() => {
                let win = match w.unit {
                    WindowUnit::Bytes => {
                        (w.cwnd / w.mss as f64).min((f.snd_wnd / w.mss).max(1) as f64)
                    }
                    WindowUnit::Segments => ns2_window_segs(w, f) as f64,
                };
                ((win * 4.0 / 5.0 * w.mss as f64) as u64).max(2 * w.mss)
            }
            // Congestive losses, timeouts and ECN: Reno's halving.
            _ => self.reno.ssthresh(w, ev, f, rtt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::tcp::config::CaMode;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    /// A window-limited sender in congestion avoidance: every ACK acknowledges one segment with
    /// an RTT sample of `rtt_ms`; the sender then fills cwnd.
    struct Trace {
        cc: Veno,
        w: Window,
        una: u64,
        max: u64,
        now: SimTime,
    }

    impl Trace {
        fn new(cwnd_segs: u64) -> Trace {
            let cfg = TcpConfig {
                ca_mode: CaMode::ByteCounting,
                ..TcpConfig::default()
            };
            let w = Window::new(WindowUnit::Bytes, MSS, cwnd_segs * MSS, 2 * MSS);
            Trace {
                cc: Veno::new(&cfg),
                una: 0,
                max: w.window(),
                w,
                now: SimTime::ZERO,
            }
        }

        fn round(&mut self, rtt_ms: u64) {
            let end = self.max;
            let est = rtt_after_sample(rtt_ms);
            while self.una < end {
                self.una += MSS;
                self.now += SimTime::from_millis(1);
                let ack = Ack {
                    now: self.now,
                    acked: MSS,
                    rtt: None,
                    ca_rtt: Some(SimTime::from_millis(rtt_ms)),
                    snd_una: self.una,
                    snd_max: self.max,
                };
                self.cc.on_any_ack(&self.w, &ack, &est);
                self.cc.on_ack(&mut self.w, &ack, &est);
                self.max = self.max.max(self.una + self.w.window());
            }
        }

        fn segs(&self) -> f64 {
            self.w.cwnd / MSS as f64
        }

        fn ssthresh_on_fast_retransmit(&mut self) -> u64 {
            let f = Flight {
                now: self.now,
                flight_size: self.max - self.una,
                snd_wnd: u64::MAX,
            };
            let est = rtt_after_sample(100);
            self.cc
                .ssthresh(&self.w, Congestion::FastRetransmit, &f, &est)
        }
    }

    /// N < β: Reno's +1 segment per round trip; N ≥ β: +1 every other round trip.
    #[test]
    fn congestion_avoidance_slows_to_every_other_round_when_backlogged() {
        let mut t = Trace::new(20);
        t.round(100);
        t.round(100);
        assert!(t.cc.backlog().unwrap().abs() < 1e-9);
        let mut sizes = vec![t.segs()];
        for _ in 0..4 {
            t.round(100);
            sizes.push(t.segs());
        }
        assert_eq!(sizes, [22.0, 23.0, 24.0, 25.0, 26.0], "Reno: +1 per RTT");
        // RTT 125 ms: N = 26·25/125 ≈ 5 ≥ 3: congestive; one segment per two round trips.
        t.round(125);
        t.round(125);
        assert!(t.cc.backlog().unwrap() >= 3.0, "{:?}", t.cc.backlog());
        let mut sizes = vec![t.segs()];
        for _ in 0..4 {
            t.round(125);
            sizes.push(t.segs());
        }
        let grown = sizes[4] - sizes[0];
        assert_eq!(grown, 2.0, "two segments in four round trips: {sizes:?}");
    }

    /// §II-A: a fast retransmit with N < β sets ssthresh to 4/5 of cwnd; with N ≥ β to half
    /// the flight (Reno).
    #[test]
    fn random_loss_keeps_four_fifths_and_congestive_loss_halves() {
        let mut t = Trace::new(20);
        t.round(100);
        t.round(100);
        assert!(t.cc.backlog().unwrap() < 3.0);
        // cwnd 22 segments: 22·4/5 = 17.6 segments = 17 600 bytes.
        assert_eq!(t.segs(), 22.0);
        assert_eq!(t.ssthresh_on_fast_retransmit(), 17_600);
        // Queueing: N ≈ 23·(150 − 100)/150 ≈ 7.7 ≥ 3: congestive, Reno's half of the flight.
        t.round(150);
        t.round(150);
        assert!(t.cc.backlog().unwrap() >= 3.0);
        let flight = t.max - t.una;
        assert_eq!(t.ssthresh_on_fast_retransmit(), flight / 2);
        // A timeout is Reno's whatever N.
        let est = rtt_after_sample(100);
        let f = Flight {
            now: t.now,
            flight_size: 10 * MSS,
            snd_wnd: u64::MAX,
        };
        let mut calm = Trace::new(20);
        calm.round(100);
        calm.round(100);
        assert_eq!(
            calm.cc.ssthresh(&calm.w, Congestion::Timeout, &f, &est),
            5 * MSS
        );
        assert_eq!(calm.cc.name(), "veno");
    }

    /// β is the parameter: with β = 10 a backlog of 7 is still random loss.
    #[test]
    fn beta_is_the_parameter() {
        let cfg = TcpConfig {
            veno: VenoParams { beta: 10.0 },
            ..TcpConfig::default()
        };
        let mut t = Trace::new(20);
        t.cc = Veno::new(&cfg);
        t.round(150);
        t.round(150);
        t.round(100); // BaseRTT 100 ms is learnt here
        t.round(150);
        t.round(150); // N ≈ cwnd·(150 − 100)/150 ≈ 7.7
        let n = t.cc.backlog().unwrap();
        assert!((3.0..10.0).contains(&n), "{n}");
        let cwnd = t.w.cwnd;
        assert_eq!(t.ssthresh_on_fast_retransmit(), (cwnd * 0.8) as u64);
        let mut errs = Vec::new();
        VenoParams { beta: -1.0 }.check(&mut errs);
        assert_eq!(errs[0].0, "veno.beta");
    }
}
