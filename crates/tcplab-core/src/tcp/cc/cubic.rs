//! CUBIC (RFC 9438): the window grows as a cubic function of the time since the last congestion
//! event, W_cubic(t) = C·(t − K)³ + W_max, with a Reno-friendly floor W_est and fast convergence.
//! Windows are in segments inside this file, as the RFC writes them; `Window` holds bytes.

use super::hystart::{Exit, HyStart};
use super::{Ack, Congestion, CongestionControl, Flight, Window};
use crate::tcp::config::TcpConfig;
use crate::tcp::rtt::RttEstimator;
use crate::time::SimTime;

/// RFC 9438 §5.1: C = 0.4.
pub const C: f64 = 0.4;
/// RFC 9438 §4.6: β_cubic = 0.7.
pub const BETA: f64 = 0.7;

#[derive(Clone, Debug)]
pub struct Cubic {
    /// L of RFC 3465 for slow start (RFC 9438 §4.10 keeps standard slow start).
    abc_limit: u64,
    fast_convergence: bool,
    /// W_max: the window just before the last reduction (segments).
    w_max: f64,
    /// cwnd_prior: cwnd when ssthresh was last set (segments), for α_cubic's switch to 1.
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance stage (t_epoch), and K for it.
    epoch: Option<(SimTime, f64)>,
    /// W_est of the Reno-friendly region (segments).
    w_est: f64,
    /// RFC 9438 §4.8: the first avoidance stage after a timeout uses K = 0 and W_max = cwnd_epoch.
    after_timeout: bool,
    /// Linux's HyStart in slow start (`hystart`).
    hystart: Option<HyStart>,
    /// Linux's floor of one segment per 20 acknowledged (`cubic_min_growth`).
    min_growth: bool,
    /// No loss remembered: none yet, or a timeout since the last (Linux resets CUBIC's state,
    /// its W_max included, when it enters the Loss state).
    lossless: bool,
}

impl Cubic {
    pub fn new(cfg: &TcpConfig) -> Cubic {
        Cubic {
            abc_limit: cfg.abc_limit.max(1) as u64,
            fast_convergence: cfg.cubic_fast_convergence,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            w_est: 0.0,
            after_timeout: false,
            hystart: cfg.hystart.then(|| HyStart::new(cfg)),
            min_growth: cfg.cubic_min_growth,
            lossless: true,
        }
    }

    /// RFC 9438 eq. (1): W_cubic(t) in segments, t in seconds since the epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let k = self.epoch.map_or(0.0, |e| e.1);
        C * (t - k).powi(3) + self.w_max
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// The HyStart test that ended the current slow start, if any.
    pub fn hystart_exit(&self) -> Option<Exit> {
        self.hystart.as_ref().and_then(HyStart::found)
    }

    /// RFC 9438 eq. (2): K = ∛((W_max − cwnd_epoch)/C), the time to climb back to W_max.
    fn start_epoch(&mut self, now: SimTime, cwnd: f64) {
        if self.after_timeout || self.w_max <= cwnd {
            // §4.8 (after a timeout), and a stage that starts at or above W_max (no loss yet):
            // the plateau is where we are.
            self.w_max = cwnd;
        }
        self.after_timeout = false;
        let k = ((self.w_max - cwnd) / C).cbrt();
        self.epoch = Some((now, k));
        // §4.3: W_est starts at cwnd_epoch.
        self.w_est = cwnd;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator) {
        if w.in_slow_start() {
            let srtt = rtt.srtt();
            if let Some(_exit) = self.hystart.as_mut().and_then(|h| h.on_ack(w, ack, srtt)) {
                // HyStart: the queue is building; avoidance from here (Linux: ssthresh = cwnd).
                w.ssthresh = w.cwnd as u64;
                return;
            }
            w.slow_start(ack.acked, self.abc_limit);
            return;
        }
        let mss = w.mss as f64;
        let cwnd = w.cwnd / mss;
        if self.epoch.is_none() {
            self.start_epoch(ack.now, cwnd);
        }
        let (t0, _) = self.epoch.expect("epoch started above");
        let t = (ack.now - t0).as_secs_f64();
        let segs_acked = ack.acked as f64 / mss;
        // Linux's tcp_cubic: while no loss is remembered, at most 20 ACKed segments per segment
        // of growth (at least 5 % per round trip), whichever region sets the window.
        let floor = (self.min_growth && self.lossless).then(|| (cwnd + segs_acked / 20.0) * mss);
        // §4.3: W_est grows by α_cubic per cwnd of acknowledged segments; α_cubic = 3(1−β)/(1+β)
        // until W_est reaches cwnd_prior, then 1 (Reno's rate).
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - BETA) / (1.0 + BETA)
        };
        self.w_est += alpha * segs_acked / cwnd;
        if self.w_cubic(t) < self.w_est {
            // §4.3: the Reno-friendly region.
            w.cwnd = self.w_est * mss;
        } else {
            // §4.4–4.5: aim at W_cubic one RTT ahead, clamped to [cwnd, 1.5·cwnd], and close
            // (target − cwnd)/cwnd of the gap per acknowledged segment.
            let rtt_s = rtt.srtt().or(ack.rtt).map_or(0.0, |r| r.as_secs_f64());
            let target = self.w_cubic(t + rtt_s).clamp(cwnd, 1.5 * cwnd);
            w.cwnd += (target - cwnd) / cwnd * segs_acked * mss;
        }
        if let Some(f) = floor {
            w.cwnd = w.cwnd.max(f);
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, _f: &Flight, _rtt: &RttEstimator) -> u64 {
        let cwnd = w.cwnd / w.mss as f64;
        // §4.7 fast convergence: release bandwidth when the plateau keeps dropping.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_timeout = ev == Congestion::Timeout;
        self.lossless = ev == Congestion::Timeout;
        if ev == Congestion::Timeout {
            // Linux resets HyStart when a timeout starts slow start again.
            if let Some(h) = self.hystart.as_mut() {
                h.reset();
            }
        }
        // §4.6: ssthresh = cwnd·β_cubic, at least two segments.
        ((cwnd * BETA).max(2.0) * w.mss as f64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::tcp::config::WindowUnit;

    const MSS: u64 = 1000;

    /// Acknowledges one window at `now`, spread evenly over one RTT, one ACK per segment.
    fn one_rtt(cc: &mut Cubic, w: &mut Window, est: &RttEstimator, now: SimTime, rtt_ms: u64) {
        one_rtt_acking(cc, w, est, now, rtt_ms, 1);
    }

    /// The same with one ACK per `per_ack` segments (delayed ACKs: ⌊⌊cwnd⌋/per_ack⌋ ACKs).
    fn one_rtt_acking(
        cc: &mut Cubic,
        w: &mut Window,
        est: &RttEstimator,
        now: SimTime,
        rtt_ms: u64,
        per_ack: u64,
    ) {
        let acks = (w.cwnd / MSS as f64).floor() as u64 / per_ack;
        for i in 0..acks {
            let ack = Ack {
                now: now + SimTime::from_millis(rtt_ms * i / acks),
                acked: per_ack * MSS,
                rtt: None,
                ca_rtt: None,
                snd_una: 0,
                snd_max: 0,
            };
            cc.on_ack(w, &ack, est);
        }
    }

    /// A CUBIC flow at 1000 segments meets a loss, then is acknowledged a window per 100 ms RTT
    /// for 20 s. Its window follows W_cubic(t) = C·(t − K)³ + W_max of RFC 9438 eq. (1) with
    /// K = ∛((W_max − cwnd_epoch)/C) of eq. (2): concave up to W_max at t = K, convex after.
    /// (With W_max = 1000 the Reno-friendly W_est stays far below the curve.) t counts from the
    /// epoch's start, the first ACK after the loss: here at 0 s and at 50 s. With delayed ACKs
    /// (two segments each) the window closes the gap per acknowledged segment, not per ACK.
    #[test]
    fn window_follows_w_cubic_after_a_loss() {
        follows_w_cubic_from(SimTime::ZERO, 1);
        follows_w_cubic_from(SimTime::from_secs(50), 1);
        follows_w_cubic_from(SimTime::ZERO, 2);
    }

    fn follows_w_cubic_from(start: SimTime, per_ack: u64) {
        let mut cc = Cubic::new(&TcpConfig::default());
        let est = rtt_after_sample(100);
        let mut w = Window::new(WindowUnit::Bytes, MSS, 1000 * MSS, u64::MAX);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 1000 * MSS,
            snd_wnd: u64::MAX,
        };
        let ss = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        // §4.6: β = 0.7 of 1000 segments.
        assert_eq!(ss, 700 * MSS);
        w.ssthresh = ss;
        w.set(ss);
        let k = (300.0f64 / C).cbrt();
        let mut now = start;
        for round in 1..=200u64 {
            one_rtt_acking(&mut cc, &mut w, &est, now, 100, per_ack);
            now += SimTime::from_millis(100);
            let t = (now - start).as_secs_f64();
            let cwnd = w.cwnd / MSS as f64;
            let curve = C * (t - k).powi(3) + 1000.0;
            // Each ACK closes (target − cwnd)/cwnd of the gap to W_cubic one RTT ahead, so by the
            // end of a round the window sits on the curve: within 0.5 % all along.
            assert!(
                (cwnd / curve - 1.0).abs() < 0.005,
                "round {round}, t = {t:.1} s: cwnd {cwnd:.2} vs W_cubic {curve:.2}"
            );
        }
        assert!((cc.epoch.expect("epoch").1 - k).abs() < 1e-9);
        assert!(cc.w_est < w.cwnd / MSS as f64 / 1.5);
    }

    /// Linux's CUBIC takes nothing of its own back when a reduction is undone (its undo_cwnd is
    /// Reno's, max(cwnd, prior cwnd)): W_max stays where the spurious loss put it and the epoch
    /// restarts on the next ACK. From the restored window that gives K = 0 and W_max = cwnd:
    /// convex growth from the restored window, not the old curve towards the old plateau.
    #[test]
    fn an_undone_reduction_restarts_the_epoch_at_the_restored_window() {
        let mut cc = Cubic::new(&TcpConfig::default());
        let est = rtt_after_sample(100);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 0,
            snd_wnd: u64::MAX,
        };
        // A real loss at 120 segments, then 10 RTTs of avoidance: the epoch aims at W_max = 120.
        let mut w = Window::new(WindowUnit::Bytes, MSS, 120 * MSS, u64::MAX);
        w.ssthresh = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        w.set(w.ssthresh);
        let mut now = SimTime::ZERO;
        for _ in 0..10 {
            one_rtt(&mut cc, &mut w, &est, now, 100);
            now += SimTime::from_millis(100);
        }
        let (_, k_before) = cc.epoch.expect("epoch");
        assert!(k_before > 1.0 && cc.w_max() == 120.0, "{k_before}");
        // A spurious loss at the current window, undone at once (the socket restores cwnd).
        let restored = w.cwnd;
        w.ssthresh = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        w.cwnd = restored;
        one_rtt(&mut cc, &mut w, &est, now, 100);
        let (t0, k) = cc.epoch.expect("epoch");
        assert_eq!((t0, k), (now, 0.0));
        assert_eq!(cc.w_max(), restored / MSS as f64);
    }

    #[test]
    fn fast_convergence_lowers_the_plateau() {
        let cfg = TcpConfig::default();
        let est = rtt_after_sample(100);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 0,
            snd_wnd: u64::MAX,
        };
        let mut cc = Cubic::new(&cfg);
        let w = Window::new(WindowUnit::Bytes, MSS, 100 * MSS, u64::MAX);
        cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        assert_eq!(cc.w_max(), 100.0);
        // A second loss below the old plateau: W_max = cwnd·(1 + β)/2 (§4.7).
        let w = Window::new(WindowUnit::Bytes, MSS, 80 * MSS, u64::MAX);
        cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        assert!((cc.w_max() - 80.0 * 0.85).abs() < 1e-9);
        // Without fast convergence the plateau is the window at the loss.
        let mut plain = Cubic::new(&TcpConfig {
            cubic_fast_convergence: false,
            ..TcpConfig::default()
        });
        let w = Window::new(WindowUnit::Bytes, MSS, 100 * MSS, u64::MAX);
        plain.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        let w = Window::new(WindowUnit::Bytes, MSS, 80 * MSS, u64::MAX);
        plain.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        assert_eq!(plain.w_max(), 80.0);
    }

    /// On small windows Reno's growth W_est outruns the cubic curve early in the epoch and CUBIC
    /// follows it (RFC 9438 §4.3): α_cubic = 3(1 − β)/(1 + β) ≈ 0.53 segments per RTT until
    /// W_est reaches cwnd_prior, then 1 segment per RTT; counted per acknowledged segment, so
    /// the same with delayed ACKs (two segments each).
    #[test]
    fn reno_friendly_region_on_short_windows() {
        reno_friendly_acking(1);
        reno_friendly_acking(2);
    }

    fn reno_friendly_acking(per_ack: u64) {
        let mut cc = Cubic::new(&TcpConfig::default());
        let est = rtt_after_sample(100);
        let mut w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 10 * MSS,
            snd_wnd: u64::MAX,
        };
        w.ssthresh = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        w.set(w.ssthresh);
        let mut now = SimTime::ZERO;
        let mut per_rtt = vec![];
        for _ in 0..12 {
            let before = w.cwnd / MSS as f64;
            one_rtt_acking(&mut cc, &mut w, &est, now, 100, per_ack);
            now += SimTime::from_millis(100);
            let cwnd = w.cwnd / MSS as f64;
            // In the region cwnd is W_est, and W_cubic is below it.
            assert!(cc.w_cubic(now.as_secs_f64()) < cc.w_est);
            assert!((cwnd - cc.w_est).abs() < 1e-9);
            per_rtt.push((before, cwnd - before));
        }
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        let mut crossed = 0;
        for (before, step) in per_rtt {
            if before < 10.0 && before + step > 10.0 {
                crossed += 1; // the RTT in which W_est passes cwnd_prior mixes both rates
                continue;
            }
            // ⌊cwnd⌋ acknowledged segments of α/cwnd each: α·⌊cwnd⌋/cwnd, a little under α
            // (with delayed ACKs, the segments of ⌊⌊cwnd⌋/2⌋ ACKs).
            let a = if before >= 10.0 { 1.0 } else { alpha };
            let acked = (before.floor() as u64 / per_ack * per_ack) as f64;
            let expect = a * acked / before;
            assert!(
                (step - expect).abs() < 0.05 * a,
                "from {before:.2}: +{step:.3}, expected ≈ {expect:.3}"
            );
        }
        assert_eq!(crossed, 1, "the run must see both rates");
    }

    /// Linux's floor (`cubic_min_growth`): a flow that left slow start without a loss (HyStart)
    /// at 60 segments sits on a flat W_cubic (K = 0, W_max = cwnd) and grows at Reno's pace, one
    /// segment per round trip; with the floor it grows 5 % per round trip. A loss ends the floor,
    /// a timeout brings it back (Linux resets CUBIC on entering Loss).
    #[test]
    fn the_floor_grows_five_percent_a_round_trip_until_a_loss() {
        let est = rtt_after_sample(20);
        let grown = |min_growth: bool, events: &[Congestion]| {
            let cfg = TcpConfig {
                cubic_min_growth: min_growth,
                ..TcpConfig::default()
            };
            let mut cc = Cubic::new(&cfg);
            let f = Flight {
                now: SimTime::ZERO,
                flight_size: 0,
                snd_wnd: u64::MAX,
            };
            let probe = Window::new(WindowUnit::Bytes, MSS, 80 * MSS, u64::MAX);
            for &ev in events {
                cc.ssthresh(&probe, ev, &f, &est);
            }
            let mut w = Window::new(WindowUnit::Bytes, MSS, 60 * MSS, 60 * MSS);
            one_rtt(&mut cc, &mut w, &est, SimTime::ZERO, 20);
            w.cwnd / MSS as f64
        };
        let reno = grown(false, &[]);
        assert!((60.9..61.1).contains(&reno), "{reno}");
        let floor = grown(true, &[]);
        assert!((62.9..63.1).contains(&floor), "{floor}");
        // A loss is remembered: no floor (W_max = 80 above, so W_cubic climbs towards it).
        let after_loss = grown(true, &[Congestion::FastRetransmit]);
        assert_eq!(after_loss, grown(false, &[Congestion::FastRetransmit]));
        // A timeout forgets it: the floor again.
        let after_rto = grown(true, &[Congestion::FastRetransmit, Congestion::Timeout]);
        assert!((62.9..63.1).contains(&after_rto), "{after_rto}");
    }

    /// A congestion event's flight, where the controller does not read it.
    fn no_flight() -> Flight {
        Flight {
            now: SimTime::ZERO,
            flight_size: 0,
            snd_wnd: u64::MAX,
        }
    }

    /// Where an avoidance stage starts its curve (RFC 9438 eq. (2)): after a fast retransmit
    /// at 100 segments, from 30 segments K = ∛(70/C); after a timeout (§4.8) K = 0 and W_max is
    /// cwnd_epoch; with no loss yet W_max is cwnd too. A second loss at the plateau itself is
    /// not below it: no fast convergence (§4.7), W_max stays. ssthresh is at least 2 segments.
    #[test]
    fn the_epoch_after_a_fast_retransmit_a_timeout_and_no_loss() {
        let est = rtt_after_sample(100);
        let f = no_flight();
        let epoch = |events: &[Congestion]| {
            let mut cc = Cubic::new(&TcpConfig::default());
            let at_loss = Window::new(WindowUnit::Bytes, MSS, 100 * MSS, u64::MAX);
            for &ev in events {
                cc.ssthresh(&at_loss, ev, &f, &est);
            }
            let mut w = Window::new(WindowUnit::Bytes, MSS, 30 * MSS, 0);
            one_rtt(&mut cc, &mut w, &est, SimTime::from_secs(1), 100);
            let (t0, k) = cc.epoch.expect("epoch");
            assert_eq!(t0, SimTime::from_secs(1));
            (k, cc.w_max())
        };
        let (k, w_max) = epoch(&[Congestion::FastRetransmit]);
        assert!(
            (k - (70.0 / C).cbrt()).abs() < 1e-9 && w_max == 100.0,
            "{k} {w_max}"
        );
        assert_eq!(epoch(&[Congestion::Timeout]), (0.0, 30.0));
        assert_eq!(epoch(&[]), (0.0, 30.0));
        let (_, w_max) = epoch(&[Congestion::FastRetransmit, Congestion::FastRetransmit]);
        assert_eq!(w_max, 100.0);
        let mut cc = Cubic::new(&TcpConfig::default());
        let tiny = Window::new(WindowUnit::Bytes, MSS, 2 * MSS, u64::MAX);
        assert_eq!(cc.ssthresh(&tiny, Congestion::Timeout, &f, &est), 2 * MSS);
        assert_eq!(cc.name(), "cubic");
    }

    /// Linux resets HyStart when a timeout restarts slow start: the exit it found is forgotten
    /// (a fast retransmit keeps it).
    #[test]
    fn a_timeout_resets_hystart() {
        use crate::tcp::config::HyStartDetect;
        let est = rtt_after_sample(40);
        let f = no_flight();
        let after = |ev| {
            let mut cc = Cubic::new(&TcpConfig {
                hystart: true,
                hystart_detect: HyStartDetect::AckTrain,
                ..TcpConfig::default()
            });
            let mut w = Window::new(WindowUnit::Bytes, MSS, 40 * MSS, u64::MAX);
            // ACKs 1 ms apart with a 40 ms RTT: the train ends slow start after 20.5 ms.
            for k in 0..30 {
                let a = Ack {
                    now: SimTime::from_millis(k),
                    acked: MSS,
                    rtt: None,
                    ca_rtt: Some(SimTime::from_millis(40)),
                    snd_una: (k + 1) * MSS,
                    snd_max: 100 * MSS,
                };
                cc.on_ack(&mut w, &a, &est);
            }
            assert_eq!(cc.hystart_exit(), Some(Exit::AckTrain));
            cc.ssthresh(&w, ev, &f, &est);
            cc.hystart_exit()
        };
        assert_eq!(after(Congestion::FastRetransmit), Some(Exit::AckTrain));
        assert_eq!(after(Congestion::Timeout), None);
    }
}
