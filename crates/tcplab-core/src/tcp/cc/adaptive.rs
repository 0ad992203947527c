//! Adaptive TCP (Dalal, Sarkar, Dasgupta, Kothari, IJCNS 8(5) 2015; seed 004) on NewReno. At
//! the n-th loss a congestion estimator α ∈ [0, 1] from RTT_n, RTT_min and RTT_max scales the
//! loss window and ssthresh between the native NewReno values (α = 0) and cwnd(n) (α = 1); a
//! network utilisation factor K(n), the growth of cwnd over slot n, advances ssthresh in
//! favourable slots. The paper's equations are images that did not survive; the forms here are
//! rebuilt from its prose (ALGORITHMS.md §1.2), each alternative a `TcpConfig` switch.
//! Windows are in segments (f64) inside this file, as ns-2 keeps them; `Window` holds bytes.

use std::cell::Cell;

use super::reno::Reno;
use super::{Ack, Congestion, CongestionControl, Flight, Window};
use crate::tcp::config::{
    AdaptiveAdvance, AdaptiveLossWindow, AdaptiveRtt, AdaptiveSerialTimeout, AdaptiveSlotStart,
    TcpConfig, WindowUnit,
};
use crate::tcp::rtt::RttEstimator;

/// What the previous loss event left: the start of the current slot and its reference values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slot {
    /// T(n−1) in seconds (or the end of its recovery, `AdaptiveSlotStart::RecoveryEnd`).
    pub t: f64,
    /// W_LA(n−1), segments.
    pub w_la: f64,
    /// ssthresh(n−1), segments.
    pub ssthresh: f64,
    /// K(n−1); None for the first loss (K(1) has no slot before it).
    pub k: Option<f64>,
}

/// The outcome of one loss event, all windows in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossEvent {
    /// T(n), seconds: when the loss was detected.
    pub t: f64,
    pub timeout: bool,
    pub alpha: f64,
    pub w_la: f64,
    pub k: Option<f64>,
    /// ssthresh(adv) when the slot was favourable and α > 0.
    pub advanced: Option<f64>,
    pub ssthresh: f64,
}

#[derive(Clone, Debug)]
pub struct Adaptive {
    /// Growth between losses is NewReno's (the paper changes only the reaction to loss).
    reno: Reno,
    rtt_kind: AdaptiveRtt,
    loss_window_form: AdaptiveLossWindow,
    advance_form: AdaptiveAdvance,
    slot_start: AdaptiveSlotStart,
    serial_timeout: AdaptiveSerialTimeout,
    /// RTT_min, RTT_max (seconds) of the estimated RTT since the transfer began, and its latest
    /// value (RTT_n at a loss detection).
    rtt_min: Option<f64>,
    rtt_max: Option<f64>,
    rtt_now: Option<f64>,
    prev: Option<Slot>,
    /// cwnd(n) at a fast retransmit, kept while the episode lasts (cwnd is inflated inside it).
    episode_cwnd: Option<f64>,
    /// ssthresh(n) to install when the recovery ends (bytes).
    after_recovery: Option<u64>,
    /// The loss window of a first timeout (bytes); taken by `loss_window`, so a serial timeout
    /// finds none and falls back to the native one segment.
    rto_window: Cell<Option<u64>>,
    last_ack: f64,
    history: Vec<LossEvent>,
}

/// Eq. (1) [RECONSTRUCTED]: α = (RTT_max − RTT_n)/(RTT_max − RTT_min), clamped to [0, 1]; α = 0
/// (native) while RTT_max = RTT_min, where the paper does not say.
pub fn alpha(rtt_n: f64, rtt_min: f64, rtt_max: f64) -> f64 {
    if rtt_max - rtt_min <= 0.0 {
        return 0.0;
    }
    ((rtt_max - rtt_n) / (rtt_max - rtt_min)).clamp(0.0, 1.0)
}

/// Eq. (2) [RECONSTRUCTED]: W_LA(n) between the native loss window W_LN (α = 0) and cwnd(n)
/// (α = 1), never above cwnd(n).
pub fn loss_window(form: AdaptiveLossWindow, alpha: f64, cwnd: f64, w_ln: f64) -> f64 {
    let w = match form {
        AdaptiveLossWindow::Linear => w_ln + alpha * (cwnd - w_ln),
        AdaptiveLossWindow::Max => w_ln.max(alpha * cwnd),
    };
    w.min(cwnd.max(w_ln))
}

/// Eq. (5) [RECONSTRUCTED]: K(n) from cwnd's growth over slot n, which began at W_LA(n−1).
pub fn utilisation(form: AdaptiveAdvance, prev: &Slot, cwnd: f64, t: f64) -> Option<f64> {
    match form {
        AdaptiveAdvance::Slope => (t > prev.t).then(|| (cwnd - prev.w_la) / (t - prev.t)),
        AdaptiveAdvance::Ratio => (prev.w_la > 0.0).then(|| cwnd / prev.w_la),
    }
}

/// Eq. (6) [RECONSTRUCTED]: ssthresh(adv), truncated to whole segments (Fig. 5: 12.79 → 12).
pub fn advanced_ssthresh(form: AdaptiveAdvance, prev: &Slot, k_prev: f64, t: f64) -> f64 {
    match form {
        // Fig. 2: from point D (ssthresh(n−1)) along slope K(n−1) to T(n) (point E).
        AdaptiveAdvance::Slope => (prev.ssthresh + k_prev * (t - prev.t)).floor(),
        AdaptiveAdvance::Ratio => (k_prev * prev.ssthresh).floor(),
    }
}

impl Adaptive {
    pub fn new(cfg: &TcpConfig) -> Adaptive {
        Adaptive {
            reno: Reno::new(cfg),
            rtt_kind: cfg.adaptive_rtt,
            loss_window_form: cfg.adaptive_loss_window,
            advance_form: cfg.adaptive_advance,
            slot_start: cfg.adaptive_slot_start,
            serial_timeout: cfg.adaptive_serial_timeout,
            rtt_min: None,
            rtt_max: None,
            rtt_now: None,
            prev: None,
            episode_cwnd: None,
            after_recovery: None,
            rto_window: Cell::new(None),
            last_ack: 0.0,
            history: Vec::new(),
        }
    }

    /// Every loss event so far (α, W_LA, K, ssthresh(adv), ssthresh), for traces and figures.
    pub fn history(&self) -> &[LossEvent] {
        &self.history
    }

    fn observe_rtt(&mut self, r: f64) {
        self.rtt_now = Some(r);
        self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        self.rtt_max = Some(self.rtt_max.map_or(r, |m| m.max(r)));
    }

    /// The n-th loss at `t` seconds with cwnd(n), the native ssthresh_N and the native loss
    /// window W_LN (segments): α, W_LA, K and ssthresh(n) (Sec. 3.1–3.2 of the paper).
    pub fn on_loss(
        &mut self,
        t: f64,
        cwnd: f64,
        ssthresh_n: f64,
        w_ln: f64,
        timeout: bool,
    ) -> LossEvent {
        let a = match (self.rtt_now, self.rtt_min, self.rtt_max) {
            (Some(n), Some(lo), Some(hi)) => alpha(n, lo, hi),
            _ => 0.0,
        };
        let w_la = loss_window(self.loss_window_form, a, cwnd, w_ln);
        let base = if timeout {
            // Eq. (4): the same interpolation applied to the native ssthresh.
            ssthresh_n + a * (cwnd - ssthresh_n)
        } else {
            // Eq. (3): ssthresh′(n) = W_LA(n) after fast recovery.
            w_la
        };
        let base = base.max(2.0);
        let k = self
            .prev
            .and_then(|p| utilisation(self.advance_form, &p, cwnd, t));
        // Sec. 3.2: advance only in a favourable slot, K(n) > K(n−1), and only with α > 0.
        let advanced = match (self.prev, k) {
            (Some(p), Some(kn)) if a > 0.0 => {
                p.k.filter(|&kp| kn > kp)
                    .map(|kp| advanced_ssthresh(self.advance_form, &p, kp, t))
            }
            _ => None,
        };
        let ssthresh = advanced.map_or(base, |adv| adv.max(base));
        self.prev = Some(Slot {
            t,
            w_la,
            ssthresh,
            k,
        });
        let ev = LossEvent {
            t,
            timeout,
            alpha: a,
            w_la,
            k,
            advanced,
            ssthresh,
        };
        self.history.push(ev);
        ev
    }

    fn start_slot_here(&mut self, t: f64) {
        if self.slot_start == AdaptiveSlotStart::RecoveryEnd {
            if let Some(p) = self.prev.as_mut() {
                p.t = t;
            }
        }
    }
}

/// Segments to bytes: whole segments in ns-2's segment mode (its ssthresh_ is an int), whole
/// bytes otherwise, so that α = 0 gives back the native window exactly.
fn to_bytes(w: &Window, segs: f64) -> u64 {
    match w.unit {
        WindowUnit::Segments => segs.floor() as u64 * w.mss,
        WindowUnit::Bytes => (segs * w.mss as f64).round() as u64,
    }
}

impl CongestionControl for Adaptive {
    fn name(&self) -> &'static str {
        "adaptive"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator) {
        self.reno.on_ack(w, ack, rtt);
    }

    fn on_any_ack(&mut self, _w: &Window, ack: &Ack, rtt: &RttEstimator) {
        self.last_ack = ack.now.as_secs_f64();
        let r = match self.rtt_kind {
            AdaptiveRtt::Srtt => ack.rtt.and(rtt.srtt()),
            AdaptiveRtt::Sample => ack.rtt,
        };
        if let Some(r) = r {
            self.observe_rtt(r.as_secs_f64());
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, f: &Flight, rtt: &RttEstimator) -> u64 {
        let mss = w.mss as f64;
        // ns-2's native reaction: ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2) (Reno's rule here).
        let native = self.reno.ssthresh(w, ev, f, rtt) as f64 / mss;
        let t = f.now.as_secs_f64();
        match ev {
            // Sec. 3.1: "in case of serial timeouts (with exponential back-off for RTO)" the
            // native reaction: NewReno's ssthresh and a loss window of one segment.
            Congestion::Timeout
                if self.serial_timeout == AdaptiveSerialTimeout::BackedOff
                    && rtt.backoff_count() > 0 =>
            {
                self.episode_cwnd = None;
                self.after_recovery = None;
                self.rto_window.set(None);
                to_bytes(w, native)
            }
            Congestion::Timeout => {
                // cwnd(n) excludes fast-recovery inflation: inside an episode it is the cwnd at
                // its detection.
                let cwnd = self.episode_cwnd.take().unwrap_or(w.cwnd / mss);
                self.after_recovery = None;
                // After a (first) timeout W_LN = 1 (ns-2 wnd_restart_); a repeated timeout of
                // the same segment never reaches here (the socket holds ssthresh) and gets one
                // segment.
                let e = self.on_loss(t, cwnd, native, 1.0, true);
                self.rto_window.set(Some(to_bytes(w, e.w_la.max(1.0))));
                self.start_slot_here(t);
                to_bytes(w, e.ssthresh)
            }
            Congestion::FastRetransmit | Congestion::Ecn => {
                let cwnd = w.cwnd / mss;
                // ns-2 NewReno: W_LN = ssthresh_N.
                let e = self.on_loss(t, cwnd, native, native, false);
                let w_la = to_bytes(w, e.w_la.max(2.0));
                if ev == Congestion::FastRetransmit {
                    // Recovery runs on W_LA (cwnd = W_LA + 3 inflated, W_LA at its end); the
                    // possibly advanced ssthresh(n) takes over when it ends, and if it is above
                    // W_LA the sender slow-starts (Sec. 3.2).
                    self.episode_cwnd = Some(cwnd);
                    self.after_recovery = Some(to_bytes(w, e.ssthresh));
                }
                w_la
            }
        }
    }

    fn loss_window(&self, w: &Window) -> u64 {
        self.rto_window.take().unwrap_or(w.mss)
    }

    fn on_recovery_exit(&mut self, w: &mut Window) {
        self.episode_cwnd = None;
        if let Some(ss) = self.after_recovery.take() {
            w.ssthresh = ss;
        }
        self.start_slot_here(self.last_ack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn alpha_spans_rtt_min_to_rtt_max() {
        // α = 1 at RTT_min (no congestion), 0 at RTT_max (the most congestion so far).
        assert!(close(alpha(0.100, 0.100, 0.170), 1.0));
        assert!(close(alpha(0.170, 0.100, 0.170), 0.0));
        assert!(close(alpha(0.135, 0.100, 0.170), 0.5));
        assert!(close(alpha(0.140, 0.100, 0.170), 3.0 / 7.0));
        // Clamped; degenerate range → native.
        assert!(close(alpha(0.200, 0.100, 0.170), 0.0));
        assert!(close(alpha(0.100, 0.100, 0.100), 0.0));
    }

    #[test]
    fn loss_window_between_native_and_cwnd() {
        use AdaptiveLossWindow::*;
        // Fig. 5: cwnd(n) = 14, W_LN = 7, α = 3/7 → W_LA = 10.
        assert!(close(loss_window(Linear, 3.0 / 7.0, 14.0, 7.0), 10.0));
        assert!(close(loss_window(Linear, 0.0, 14.0, 7.0), 7.0));
        assert!(close(loss_window(Linear, 1.0, 14.0, 7.0), 14.0));
        // The alternative form meets the same endpoints.
        assert!(close(loss_window(Max, 3.0 / 7.0, 14.0, 7.0), 7.0));
        assert!(close(loss_window(Max, 0.0, 14.0, 7.0), 7.0));
        assert!(close(loss_window(Max, 1.0, 14.0, 7.0), 14.0));
        // After a timeout W_LN = 1.
        assert!(close(loss_window(Linear, 0.5, 14.0, 1.0), 7.5));
    }

    /// One loss through the controller's interface: RTT samples `rtts` (ms) arrive, then the
    /// third duplicate ACK at `t` seconds with cwnd = `cwnd` segments; recovery ends with
    /// cwnd = the returned ssthresh (ns-2 NewReno). Returns (ssthresh during recovery, window
    /// after it).
    fn fast_recovery(cc: &mut Adaptive, rtts: &[u64], t: f64, cwnd: u64) -> (u64, Window) {
        let est = rtt_after_sample(100);
        let mut w = Window::new(WindowUnit::Segments, MSS, cwnd * MSS, u64::MAX);
        for &r in rtts {
            let ack = Ack {
                now: SimTime::from_secs_f64(t - 0.01),
                acked: MSS,
                rtt: Some(SimTime::from_millis(r)),
                ca_rtt: None,
                snd_una: 0,
                snd_max: 0,
            };
            cc.on_any_ack(&w, &ack, &est);
        }
        let f = Flight {
            now: SimTime::from_secs_f64(t),
            flight_size: cwnd * MSS,
            snd_wnd: u64::MAX,
        };
        let ss = cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est);
        w.ssthresh = ss;
        w.set(ss);
        cc.on_recovery_exit(&mut w);
        (ss, w)
    }

    fn sample_rtt() -> Adaptive {
        Adaptive::new(&TcpConfig {
            adaptive_rtt: AdaptiveRtt::Sample,
            ..TcpConfig::default()
        })
    }

    /// The paper's worked example (Fig. 5, FER 1 %): the third duplicate ACK at 164.23 s,
    /// recovery resumes with W_LA = 10 and ssthresh(adv) = 12.79 → 12, so the sender
    /// slow-starts from 10 to 12. A constructed trace with RTT_min = 100 ms, RTT_max = 170 ms:
    /// loss 1 at 148.65 s (cwnd 12, RTT 135 ms: α = 1/2, W_LA = 6 + 3 = 9); loss 2 at 156.65 s
    /// (cwnd 13, RTT 140 ms: α = 3/7, W_LA = 6 + 3 = 9, K(2) = (13 − 9)/8 s = 0.5/s, no K(1) so
    /// no advancement, ssthresh 9); loss 3 at 164.23 s (cwnd 14, α = 3/7, W_LA = 7 + 3 = 10,
    /// K(3) = 5/7.58 s > K(2): ssthresh(adv) = ⌊9 + 0.5·7.58⌋ = ⌊12.79⌋ = 12).
    #[test]
    fn fig5_worked_example() {
        let mut cc = sample_rtt();
        let (ss1, w1) = fast_recovery(&mut cc, &[100, 170, 135], 148.65, 12);
        assert_eq!((ss1 / MSS, w1.ssthresh / MSS), (9, 9));
        let (ss2, w2) = fast_recovery(&mut cc, &[140], 156.65, 13);
        assert_eq!((ss2 / MSS, w2.ssthresh / MSS), (9, 9));
        let (ss3, w3) = fast_recovery(&mut cc, &[140], 164.23, 14);
        let h = cc.history();
        assert!(close(h[0].alpha, 0.5) && close(h[0].w_la, 9.0) && h[0].k.is_none());
        assert!(close(h[1].w_la, 9.0) && close(h[1].k.unwrap(), 0.5));
        assert_eq!(
            h[1].advanced, None,
            "K(1) is undefined: no advancement on loss 2"
        );
        assert!(close(h[2].alpha, 3.0 / 7.0));
        assert!(close(h[2].w_la, 10.0));
        assert!(close(h[2].k.unwrap(), 5.0 / 7.58));
        assert_eq!(h[2].advanced, Some(12.0));
        // Recovery ran on W_LA = 10 and left cwnd = 10 under ssthresh 12: slow start.
        assert_eq!(ss3, 10 * MSS);
        assert_eq!((w3.cwnd as u64, w3.ssthresh), (10 * MSS, 12 * MSS));
        assert!(w3.in_slow_start());
    }

    /// No advancement when α = 0 (RTT_n = RTT_max: native NewReno) or when the slot was not
    /// favourable (K(n) ≤ K(n−1)).
    #[test]
    fn advancement_needs_alpha_and_a_favourable_slot() {
        let mut cc = sample_rtt();
        fast_recovery(&mut cc, &[100, 170, 135], 148.65, 12);
        fast_recovery(&mut cc, &[140], 156.65, 13);
        let (ss, w) = fast_recovery(&mut cc, &[170], 164.23, 14);
        assert_eq!(cc.history()[2].alpha, 0.0);
        assert_eq!((ss / MSS, w.ssthresh / MSS), (7, 7), "native: ⌊14/2⌋");

        let mut cc = sample_rtt();
        fast_recovery(&mut cc, &[100, 170, 135], 148.65, 12);
        fast_recovery(&mut cc, &[140], 156.65, 13);
        // cwnd grew from 9 to 12 in 7.58 s: K(3) = 0.40 < K(2) = 0.5.
        let (ss, w) = fast_recovery(&mut cc, &[140], 164.23, 12);
        assert_eq!(cc.history()[2].advanced, None);
        assert_eq!(ss, w.ssthresh);
    }

    /// RTT samples of 100, 170 and 135 ms at 10 s: α = 1/2 at the next loss.
    fn samples_100_170_135(cc: &mut Adaptive, w: &Window, est: &RttEstimator) {
        for r in [100, 170, 135] {
            let ack = Ack {
                now: SimTime::from_secs(10),
                acked: MSS,
                rtt: Some(SimTime::from_millis(r)),
                ca_rtt: None,
                snd_una: 0,
                snd_max: 0,
            };
            cc.on_any_ack(w, &ack, est);
        }
    }

    /// A timeout at 11 s with cwnd = 14 segments after RTT samples of 100, 170 and 135 ms
    /// (α = 1/2), the RTO backed off `backoffs` times: (ssthresh, loss window, the loss window
    /// asked for again), in segments.
    fn timeout(cc: &mut Adaptive, backoffs: u32) -> (u64, u64, u64) {
        let mut est = rtt_after_sample(100);
        let w = Window::new(WindowUnit::Segments, MSS, 14 * MSS, u64::MAX);
        samples_100_170_135(cc, &w, &est);
        for _ in 0..backoffs {
            est.back_off();
        }
        let f = Flight {
            now: SimTime::from_secs(11),
            flight_size: 14 * MSS,
            snd_wnd: u64::MAX,
        };
        let ss = cc.ssthresh(&w, Congestion::Timeout, &f, &est);
        (ss / MSS, cc.loss_window(&w) / MSS, cc.loss_window(&w) / MSS)
    }

    /// A first timeout uses W_LA with W_LN = 1 and Eq. (4)'s ssthresh; a repeated timeout of the
    /// same segment (the socket does not ask for ssthresh again) gets the native one segment.
    #[test]
    fn first_timeout_scaled_serial_timeout_native() {
        // α = 1/2: ssthresh = 7 + (14 − 7)/2 = 10.5 → 10; W_LA = 1 + 13/2 = 7.5 → 7.
        assert_eq!(timeout(&mut sample_rtt(), 0), (10, 7, 1));
    }

    /// Sec. 3.1: a timeout while the RTO is still backed off (no valid sample since the last one)
    /// is serial even after a recovery in between: native ssthresh ⌊14/2⌋ and one segment. With
    /// `adaptive_serial_timeout = "same_segment"` it gets Eqs. (2) and (4) like a first one.
    #[test]
    fn a_timeout_with_the_rto_backed_off_is_serial() {
        for (form, expected) in [
            (AdaptiveSerialTimeout::BackedOff, (7, 1, 1)),
            (AdaptiveSerialTimeout::SameSegment, (10, 7, 1)),
        ] {
            let mut cc = Adaptive::new(&TcpConfig {
                adaptive_rtt: AdaptiveRtt::Sample,
                adaptive_serial_timeout: form,
                ..TcpConfig::default()
            });
            assert_eq!(timeout(&mut cc, 1), expected, "{form:?}");
        }
    }

    /// Eqs. (5) and (6) in both forms: the slope of cwnd over the slot (none for a slot of no
    /// length) or its ratio to W_LA(n−1) (none from a zero window), and ssthresh(adv) along the
    /// slope from ssthresh(n−1) or scaled by K(n−1), truncated to whole segments.
    #[test]
    fn utilisation_and_advanced_ssthresh_in_both_forms() {
        use AdaptiveAdvance::*;
        let prev = Slot {
            t: 10.0,
            w_la: 8.0,
            ssthresh: 9.0,
            k: None,
        };
        assert!(close(utilisation(Slope, &prev, 12.0, 18.0).unwrap(), 0.5));
        assert_eq!(utilisation(Slope, &prev, 12.0, 10.0), None);
        assert!(close(utilisation(Ratio, &prev, 12.0, 18.0).unwrap(), 1.5));
        let empty = Slot { w_la: 0.0, ..prev };
        assert_eq!(utilisation(Ratio, &empty, 12.0, 18.0), None);
        assert_eq!(advanced_ssthresh(Slope, &prev, 0.5, 17.58), 12.0);
        assert_eq!(advanced_ssthresh(Ratio, &prev, 1.5, 17.58), 13.0);
    }

    /// Sec. 3.2's "favourable slot" is K(n) > K(n−1): an equal K advances nothing. Three losses
    /// 8 s apart, the first two at cwnd 13 with the same RTTs (so the same α and W_LA ≈ 9,
    /// bit for bit): K(3) at cwnd 13 equals K(2) exactly and nothing advances; at cwnd 14 it
    /// is larger and ssthresh advances.
    #[test]
    fn an_equal_utilisation_is_not_favourable() {
        let run = |cwnd3| {
            let mut cc = sample_rtt();
            fast_recovery(&mut cc, &[100, 170, 140], 10.0, 13);
            fast_recovery(&mut cc, &[140], 18.0, 13);
            fast_recovery(&mut cc, &[140], 26.0, cwnd3);
            (cc.history()[1], cc.history()[2])
        };
        let (second, third) = run(13);
        assert_eq!(third.k, second.k);
        assert!(
            close(third.k.unwrap(), 0.5) && third.advanced.is_none(),
            "{third:?}"
        );
        let (second, third) = run(14);
        assert!(third.k > second.k && third.advanced.is_some(), "{third:?}");
    }

    /// `adaptive_rtt = "srtt"` (the default) reads the smoothed RTT, and only on ACKs that
    /// carry a valid sample; `adaptive_slot_start = "recovery_end"` starts the next slot at the
    /// last ACK of the recovery instead of at the loss detection.
    #[test]
    fn the_srtt_form_and_the_recovery_end_slot_start() {
        let mut cc = Adaptive::new(&TcpConfig::default());
        let w = Window::new(WindowUnit::Segments, MSS, 12 * MSS, u64::MAX);
        for (srtt, sampled) in [(100, true), (170, true), (135, true), (170, false)] {
            let ack = Ack {
                now: SimTime::from_secs(10),
                acked: MSS,
                rtt: sampled.then(|| SimTime::from_millis(srtt)),
                ca_rtt: None,
                snd_una: 0,
                snd_max: 0,
            };
            cc.on_any_ack(&w, &ack, &rtt_after_sample(srtt));
        }
        fast_recovery(&mut cc, &[], 11.0, 12);
        assert!(close(cc.history()[0].alpha, 0.5), "{:?}", cc.history());
        assert_eq!(cc.name(), "adaptive");

        let k2 = |slot_start| {
            let mut cc = Adaptive::new(&TcpConfig {
                adaptive_rtt: AdaptiveRtt::Sample,
                adaptive_slot_start: slot_start,
                ..TcpConfig::default()
            });
            fast_recovery(&mut cc, &[100, 170, 135], 148.65, 12);
            fast_recovery(&mut cc, &[140], 156.65, 13);
            cc.history()[1].k.unwrap()
        };
        assert!(close(k2(AdaptiveSlotStart::Detection), 4.0 / 8.0));
        // The recovery's last ACK came 10 ms before the detection in `fast_recovery`.
        assert!(close(k2(AdaptiveSlotStart::RecoveryEnd), 4.0 / 8.01));
    }

    /// In bytes the windows are whole bytes (α = 1/2 of the way from 7 to 14 segments is
    /// 10.5 segments = 10 500 B); a timeout inside an episode takes cwnd(n) at its detection,
    /// not the inflated window; an ECN-Echo cuts to W_LA but leaves ssthresh alone when the
    /// episode ends.
    #[test]
    fn bytes_timeouts_inside_an_episode_and_ecn() {
        let est = rtt_after_sample(100);
        let setup = |unit| {
            let mut cc = sample_rtt();
            let w = Window::new(unit, MSS, 14 * MSS, u64::MAX);
            samples_100_170_135(&mut cc, &w, &est);
            (cc, w)
        };
        let f = Flight {
            now: SimTime::from_secs(11),
            flight_size: 14 * MSS,
            snd_wnd: u64::MAX,
        };
        let (mut cc, w) = setup(WindowUnit::Bytes);
        assert_eq!(
            cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est),
            10_500
        );
        // Inflated to 20 segments in recovery; the timeout still sees cwnd(n) = 14.
        let mut inflated = w.clone();
        inflated.cwnd = 20_000.0;
        assert_eq!(
            cc.ssthresh(&inflated, Congestion::Timeout, &f, &est),
            10_500
        );
        assert!(close(cc.history()[1].w_la, 7.5));
        assert_eq!(cc.loss_window(&w), 7_500);

        let (mut cc, mut w) = setup(WindowUnit::Segments);
        assert_eq!(cc.ssthresh(&w, Congestion::Ecn, &f, &est), 10 * MSS);
        w.ssthresh = 10 * MSS;
        cc.on_recovery_exit(&mut w);
        assert_eq!(w.ssthresh, 10 * MSS);
    }
}
