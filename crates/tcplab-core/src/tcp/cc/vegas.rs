//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995; Brakmo's thesis, Arizona 1996), the
//! end-to-end baseline seed 002 cites. Once per round trip it compares the rate the window should
//! give on an empty path, Expected = window/BaseRTT, with the rate the last round trip achieved,
//! Actual = bytes sent in it / its RTT; Diff = (Expected − Actual)·BaseRTT is the data the flow
//! keeps queued in the network, in segments. Congestion avoidance holds Diff between α and β
//! (+1 segment per RTT below α, −1 above β); slow start doubles every other round trip and ends
//! when Diff exceeds γ. Rules, sources and where ns-2.35 and Linux differ: docs/models/vegas_veno.md.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reno::{ns2_window_segs, Reno};
use super::{Ack, AckKind, Congestion, CongestionControl, Flight, Head, Window};
use crate::tcp::config::TcpConfig;
use crate::tcp::rtt::RttEstimator;
use crate::time::SimTime;

/// `vegas = { alpha, beta, gamma, fine_retransmit }` in `[tcp]` (cc = "vegas"); α, β, γ in
/// segments.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct VegasParams {
    /// Below this Diff congestion avoidance adds a segment per RTT (paper and ns-2.35: 1; Linux 2).
    pub alpha: f64,
    /// Above this Diff congestion avoidance removes a segment (paper and ns-2.35: 3; Linux 4).
    pub beta: f64,
    /// Above this Diff slow start ends (paper, ns-2.35 and Linux: 1).
    pub gamma: f64,
    /// The modified retransmission of §3.1: on a duplicate ACK, and on the first one or two new
    /// ACKs after a retransmission, resend the first unacknowledged segment at once when its
    /// fine-grained timer has expired (paper and ns-2.35: on; Linux: off).
    pub fine_retransmit: bool,
}

impl Default for VegasParams {
    fn default() -> Self {
        // ns-2.35 ns-default.tcl: v_alpha_ 1, v_beta_ 3, v_gamma_ 1 (Brakmo & Peterson §3.2).
        VegasParams {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            fine_retransmit: true,
        }
    }
}

impl VegasParams {
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        for (field, v) in [
            ("vegas.alpha", self.alpha),
            ("vegas.beta", self.beta),
            ("vegas.gamma", self.gamma),
        ] {
            if !(0.0..=1000.0).contains(&v) {
                errs.push((
                    field,
                    format!("{v} is out of range; allowed 0 to 1000 segments"),
                ));
            }
        }
        if self.alpha > self.beta {
            errs.push((
                "vegas.alpha",
                format!(
                    "{} exceeds vegas.beta = {}; Vegas needs alpha ≤ beta",
                    self.alpha, self.beta
                ),
            ));
        }
    }
}

/// What the last round trip's decision asks of each ACK of the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Leave cwnd as it is.
    Hold,
    /// Slow start: one segment per ACK (a round trip that grows).
    Double,
    /// Congestion avoidance: one segment per RTT (1/cwnd per ACK).
    Linear,
}

/// Vegas's measurement, shared with Veno: BaseRTT, the fine-grained RTT samples of the current
/// round trip, and where the round ends.
#[derive(Clone, Debug, Default)]
pub(super) struct Rounds {
    /// BaseRTT: the smallest RTT sample seen (Brakmo & Peterson §3.2).
    pub base_rtt: Option<SimTime>,
    /// The round trip being measured ends when the first segment sent after `seq` is
    /// acknowledged (the paper's distinguished segment; ns-2.35's v_begseq_).
    seq: u64,
    start: SimTime,
    /// The fine-grained RTT samples of this round (ns-2.35's v_sumRTT_/v_cntRTT_).
    sum_rtt: f64,
    count_rtt: u32,
}

/// One finished round trip.
#[derive(Clone, Copy, Debug)]
pub(super) struct Round {
    /// The round's RTT and the BaseRTT, in seconds (rtt ≥ base > 0).
    pub rtt: f64,
    pub base: f64,
    /// Bytes sent during the round.
    pub sent: f64,
}

impl Rounds {
    /// §3.1: every segment is timed with the fine-grained clock (the socket's per-ACK RTT of the
    /// newest never-retransmitted segment acknowledged, `Ack::ca_rtt`).
    pub fn on_any_ack(&mut self, ack: &Ack) {
        if let Some(r) = ack.ca_rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.sum_rtt += r.as_secs_f64();
            self.count_rtt += 1;
        }
    }

    /// The round that this ACK ends, if it ends one (once per RTT, §3.2).
    pub fn on_ack(&mut self, ack: &Ack) -> Option<Round> {
        if ack.snd_una <= self.seq {
            return None;
        }
        // ns-2.35 tcp-vegas.cc: the round's RTT is the mean of its fine-grained samples, or the
        // round's length when it had none.
        let rtt = if self.count_rtt > 0 {
            self.sum_rtt / self.count_rtt as f64
        } else {
            ack.now.saturating_sub(self.start).as_secs_f64()
        };
        let sent = ack.snd_max.saturating_sub(self.seq) as f64;
        self.sum_rtt = 0.0;
        self.count_rtt = 0;
        self.seq = ack.snd_max;
        self.start = ack.now;
        let base = self.base_rtt?.as_secs_f64().min(rtt);
        (base > 0.0).then_some(Round { rtt, base, sent })
    }
}

/// The fine-grained retransmission timer of §3.1, in seconds (ns-2.35 tcp-vegas.cc's `v_sa_`,
/// `v_sd_`, `v_timeout_`): Jacobson's estimator on every once-sent segment's RTT, unticked.
#[derive(Clone, Copy, Debug, Default)]
struct FineTimer {
    /// 8 × the smoothed RTT and 4 × the mean deviation (Jacobson's scaled sums).
    sa: f64,
    sd: f64,
    /// Unset before the first sample: nothing expires (ns-2.35 starts it at 1000 s).
    timeout: Option<f64>,
}

impl FineTimer {
    fn on_sample(&mut self, rtt: f64) {
        if self.timeout.is_none() {
            // ns-2.35: the first ACK seeds the sums with the first round trip (SA = 8·rtt, SD =
            // rtt), before that ACK's own sample is applied.
            self.sa = 8.0 * rtt;
            self.sd = rtt;
        }
        let n = rtt - self.sa / 8.0;
        self.sa += n;
        self.sd += n.abs() - self.sd / 4.0;
        // (SA/4 + SD)/2 = SRTT + 2·RTTVAR, then one sixteenth more (ns-2.35 tcp-vegas.cc).
        let t = (self.sa / 4.0 + self.sd) / 2.0;
        self.timeout = Some(t + t / 16.0);
    }

    fn expired(&self, now: SimTime, sent_at: SimTime) -> bool {
        self.timeout
            .is_some_and(|t| now.saturating_sub(sent_at).as_secs_f64() >= t)
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    /// The growth itself (one segment per ACK, 1/cwnd per ACK) is Reno's, in the scenario's unit.
    reno: Reno,
    rounds: Rounds,
    step: Step,
    /// Slow start grows on every other round trip (§3.3); true on a round that grows.
    grow_round: bool,
    /// The last round's Diff in segments, after rounding (for traces and tests).
    diff: Option<i64>,
    /// §3.1's fine-grained retransmission timer.
    fine: FineTimer,
    /// New ACKs still to check after a retransmission on a duplicate ACK (ns-2.35 `v_worried_`).
    worried: u64,
}

impl Vegas {
    pub fn new(cfg: &TcpConfig) -> Vegas {
        Vegas {
            p: cfg.vegas,
            reno: Reno::new(cfg),
            rounds: Rounds::default(),
            step: Step::Hold,
            // ns-2.35 reset(): v_inc_flag_ = 1, toggled before the first decision, so the first
            // round trip holds and the second grows.
            grow_round: true,
            diff: None,
            fine: FineTimer::default(),
            worried: 0,
        }
    }

    /// The fine-grained retransmission timeout, once there is an RTT sample.
    pub fn fine_timeout(&self) -> Option<SimTime> {
        self.fine.timeout.map(SimTime::from_secs_f64)
    }

    pub fn base_rtt(&self) -> Option<SimTime> {
        self.rounds.base_rtt
    }

    /// The last round trip's Diff, in whole segments.
    pub fn diff(&self) -> Option<i64> {
        self.diff
    }

    pub fn step(&self) -> Step {
        self.step
    }

    /// The end of a round trip: Diff decides the next one (§3.2, §3.3).
    fn decide(&mut self, w: &mut Window, r: Round) {
        let mss = w.mss as f64;
        // §3.2: Expected = WindowSize/BaseRTT with the congestion window as WindowSize (ns-2.35
        // takes the data outstanding after this ACK), Actual = bytes sent in the round / RTT.
        let expected = w.window() as f64 / r.base;
        let actual = r.sent / r.rtt;
        // Diff in segments; ns-2.35 rounds it to the nearest whole segment.
        let diff = ((expected - actual) * r.base / mss + 0.5).floor() as i64;
        self.diff = Some(diff);
        let diff = diff as f64;
        if w.in_slow_start() {
            // §3.3 modified slow start: grow only every other round trip.
            self.grow_round = !self.grow_round;
            self.step = if !self.grow_round {
                Step::Hold
            } else if diff > self.p.gamma {
                // §3.3: Diff > γ ends slow start. ns-2.35 also trims cwnd by 1/8 (at least 2
                // segments) and sets ssthresh to 2 so that Vegas stays in congestion avoidance.
                w.ssthresh = 2 * w.mss;
                w.cwnd = (w.cwnd - w.cwnd / 8.0).max(2.0 * mss);
                w.ca_acked = 0;
                Step::Hold
            } else {
                Step::Double
            };
        } else if diff > self.p.beta {
            // §3.2: Diff > β: one segment less, once.
            w.cwnd = (w.cwnd - mss).max(2.0 * mss);
            w.ca_acked = 0;
            self.step = Step::Hold;
        } else if diff < self.p.alpha {
            // §3.2: Diff < α: one segment more per RTT.
            self.step = Step::Linear;
        } else {
            self.step = Step::Hold;
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_any_ack(&mut self, _w: &Window, ack: &Ack, _rtt: &RttEstimator) {
        self.rounds.on_any_ack(ack);
        // §3.1: the fine-grained timer learns from every segment sent once (Karn).
        if let Some(r) = ack.ca_rtt.map(|r| r.as_secs_f64()).filter(|&r| r > 0.0) {
            self.fine.on_sample(r);
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack, rtt: &RttEstimator) {
        if let Some(r) = self.rounds.on_ack(ack) {
            self.decide(w, r);
        }
        // ns-2.35: a doubling round stops doubling once cwnd reaches ssthresh.
        if self.step == Step::Double && !w.in_slow_start() {
            self.step = Step::Hold;
        }
        // ns-2.35 (the Arizona code): grow only while cwnd exceeds the data outstanding by at
        // most two segments, i.e. while the sender keeps up with its window.
        let outstanding = ack.snd_max.saturating_sub(ack.snd_una) as f64;
        if self.step != Step::Hold && w.cwnd - outstanding <= 2.0 * w.mss as f64 {
            self.reno.on_ack(w, ack, rtt);
        }
    }

    fn ssthresh(&mut self, w: &Window, ev: Congestion, f: &Flight, rtt: &RttEstimator) -> u64 {
        match ev {
            // ns-2.35 tcp-vegas.cc (after the Arizona code): on the third duplicate ACK the
            // window drops by a quarter, to 2 segments at most 3.
            Congestion::FastRetransmit => {
                let win = ns2_window_segs(w, f);
                let after = if win <= 3 { 2 } else { win - win / 4 };
                after * w.mss
            }
            // ns-2.35 timeout(): ssthresh halves as Reno's; ECN as Reno.
            Congestion::Timeout | Congestion::Ecn => self.reno.ssthresh(w, ev, f, rtt),
        }
    }

    /// ns-2.35 timeout(): cwnd restarts at v_slowstart_ = 2 segments.
    fn loss_window(&self, w: &Window) -> u64 {
        2 * w.mss
    }

    /// ns-2.35: after fast recovery "vegas ssthresh is used only during slow-start": ssthresh
    /// = 2 keeps Vegas in congestion avoidance from the reduced window.
    fn on_recovery_exit(&mut self, w: &mut Window) {
        w.ssthresh = 2 * w.mss;
    }

    /// §3.1: a duplicate ACK resends the head when its fine-grained timer has expired (ns-2.35
    /// `vegas_expire` on every duplicate); each of the next one or two new ACKs after such a
    /// retransmission checks the new head the same way, and the first that finds it unexpired
    /// ends the checks (`v_worried_`).
    fn resend_head(&mut self, now: SimTime, kind: AckKind, head: &Head) -> bool {
        if !self.p.fine_retransmit {
            return false;
        }
        let expired = self.fine.expired(now, head.sent_at);
        if kind == AckKind::New {
            if self.worried == 0 {
                return false;
            }
            self.worried = if expired { self.worried - 1 } else { 0 };
        }
        expired
    }

    /// ns-2.35 tcp-vegas.cc on a retransmission for a duplicate ACK: check the next min(2,
    /// outstanding) new ACKs; the fine-grained timeout doubles if the segment had been resent
    /// before, else grows by an eighth.
    fn on_dupack_resend(&mut self, head: &Head) {
        if !self.p.fine_retransmit {
            return;
        }
        self.worried = head.outstanding.min(2);
        if let Some(t) = self.fine.timeout.as_mut() {
            *t *= if head.transmits > 1 { 2.0 } else { 1.125 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::rtt_after_sample;
    use crate::tcp::config::{CaMode, WindowUnit};

    const MSS: u64 = 1000;

    /// A window-limited sender: every ACK acknowledges one segment after `rtt`, and the sender
    /// then fills cwnd. Feeds the controller as the socket does (on_any_ack, then on_ack).
    struct Trace {
        cc: Vegas,
        w: Window,
        una: u64,
        max: u64,
        now: SimTime,
    }

    impl Trace {
        fn new(params: VegasParams, cwnd_segs: u64, ssthresh: u64, unit: WindowUnit) -> Trace {
            let cfg = TcpConfig {
                vegas: params,
                window_unit: unit,
                ca_mode: CaMode::PerAck,
                ..TcpConfig::default()
            };
            let w = Window::new(unit, MSS, cwnd_segs * MSS, ssthresh);
            Trace {
                cc: Vegas::new(&cfg),
                una: 0,
                max: w.window(),
                w,
                now: SimTime::ZERO,
            }
        }

        /// One round trip: the window outstanding at its start is acknowledged segment by
        /// segment, each with an RTT sample of `rtt_ms`.
        fn round(&mut self, rtt_ms: u64) {
            let end = self.max;
            let n = (end - self.una) / MSS;
            let est = rtt_after_sample(rtt_ms);
            while self.una < end {
                self.una += MSS;
                self.now += SimTime::from_micros(rtt_ms * 1000 / n);
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
    }

    /// Congestion avoidance (ssthresh 2 segments, 10 in flight, BaseRTT 100 ms): an RTT equal
    /// to BaseRTT gives Diff 0 < α, +1 segment over the next round trip; Diff between α and β
    /// holds cwnd; Diff > β takes one segment off, once.
    #[test]
    fn congestion_avoidance_adds_holds_or_removes_one_segment_by_diff() {
        let mut t = Trace::new(VegasParams::default(), 10, 2 * MSS, WindowUnit::Segments);
        t.round(100); // BaseRTT 100 ms; the first round has no base yet at its start
        t.round(100);
        assert_eq!(t.cc.diff(), Some(0));
        assert_eq!(t.cc.step(), Step::Linear);
        let before = t.segs();
        t.round(100);
        assert!(
            (t.segs() - before - 1.0).abs() < 0.15,
            "Diff < α: +1 per RTT ({before} → {})",
            t.segs()
        );
        // RTT 120 ms with ~11 segments out: Diff = 11·(1 − 100/120) ≈ 1.8 → 2, within [α, β].
        t.round(120);
        t.round(120);
        assert_eq!(t.cc.diff(), Some(2));
        let held = t.segs();
        t.round(120);
        assert_eq!(t.segs(), held, "α ≤ Diff ≤ β: cwnd holds");
        // RTT 200 ms: Diff ≈ 5 > β: one segment less at the round's end, then hold.
        t.round(200);
        t.round(200);
        assert!(t.cc.diff().unwrap() > 3, "{:?}", t.cc.diff());
        assert_eq!(t.segs(), held - 1.0, "Diff > β: −1 segment");
        t.round(200);
        assert!(t.segs() <= held - 1.0);
    }

    /// The thresholds are the parameters: with α = 3 the same Diff of 2 grows cwnd, and with β = 5 a
    /// Diff of 3-5 holds it.
    #[test]
    fn alpha_and_beta_are_the_parameters() {
        let p = VegasParams {
            alpha: 3.0,
            beta: 5.0,
            gamma: 1.0,
            ..VegasParams::default()
        };
        let mut t = Trace::new(p, 10, 2 * MSS, WindowUnit::Segments);
        t.round(100);
        t.round(120);
        t.round(120);
        assert_eq!(t.cc.diff(), Some(2));
        let before = t.segs();
        t.round(120);
        assert!(t.segs() > before + 0.8, "Diff 2 < α = 3 grows");
        // β = 5: a Diff of 3-5 (RTT 150 ms with ~12 segments out) holds, where the default β = 3
        // would take one segment off, and ignoring Diff would grow.
        t.round(150);
        t.round(150);
        let d = t.cc.diff().unwrap();
        assert!((3..=5).contains(&d), "Diff {d}");
        let held = t.segs();
        t.round(150);
        assert_eq!(t.segs(), held, "α ≤ Diff ≤ β = 5: cwnd holds");
    }

    /// §3.3: slow start doubles every other round trip (hold, grow, hold, …) and ends — ssthresh
    /// 2 segments, cwnd less an eighth — on the first growing round trip whose Diff exceeds γ.
    #[test]
    fn slow_start_grows_every_other_round_and_exits_when_diff_exceeds_gamma() {
        let mut t = Trace::new(VegasParams::default(), 4, u64::MAX, WindowUnit::Bytes);
        let mut sizes = vec![t.segs()];
        for _ in 0..4 {
            t.round(100);
            sizes.push(t.segs());
        }
        // Round 1 opens the measurement; then hold, double, hold, double.
        assert_eq!(sizes, [4.0, 4.0, 8.0, 8.0, 16.0], "{sizes:?}");
        assert!(t.w.in_slow_start());
        // Queueing now: RTT 150 ms with 16 segments out gives Diff = 16·(1 − 100/150) ≈ 5.3
        // → 5 > γ. The next round holds (not a growing one); the one after ends slow start.
        t.round(150);
        assert!(t.w.in_slow_start());
        t.round(150);
        assert_eq!(t.cc.diff(), Some(5));
        assert_eq!(t.w.ssthresh, 2 * MSS, "slow start ended");
        assert_eq!(t.segs(), 16.0 - 2.0, "cwnd less an eighth");
        // With γ = 6 the same Diff lets it double.
        let p = VegasParams {
            gamma: 6.0,
            ..VegasParams::default()
        };
        let mut t = Trace::new(p, 4, u64::MAX, WindowUnit::Bytes);
        for rtt in [100, 100, 100, 100, 150] {
            t.round(rtt);
        }
        t.round(150);
        assert_eq!(t.cc.diff(), Some(5));
        assert!(t.w.in_slow_start() && t.segs() == 32.0, "{}", t.segs());
    }

    /// Loss: a quarter off on the third duplicate ACK (2 segments at most 3), Reno's halving on
    /// a timeout with a 2-segment loss window, ssthresh 2 after recovery (ns-2.35).
    #[test]
    fn loss_reactions_are_ns2s() {
        let mut cc = Vegas::new(&TcpConfig::default());
        let est = rtt_after_sample(100);
        let f = Flight {
            now: SimTime::ZERO,
            flight_size: 10 * MSS,
            snd_wnd: u64::MAX,
        };
        let w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        assert_eq!(
            cc.ssthresh(&w, Congestion::FastRetransmit, &f, &est),
            8 * MSS
        );
        let w3 = Window::new(WindowUnit::Bytes, MSS, 3 * MSS, u64::MAX);
        assert_eq!(
            cc.ssthresh(&w3, Congestion::FastRetransmit, &f, &est),
            2 * MSS
        );
        assert_eq!(cc.ssthresh(&w, Congestion::Timeout, &f, &est), 5 * MSS);
        assert_eq!(cc.loss_window(&w), 2 * MSS);
        let mut w = Window::new(WindowUnit::Bytes, MSS, 8 * MSS, 8 * MSS);
        cc.on_recovery_exit(&mut w);
        assert_eq!(w.ssthresh, 2 * MSS);
        assert_eq!(cc.name(), "vegas");
    }

    /// §3.1's timer (ns-2.35's arithmetic): one 100 ms sample gives (0.8/4 + 0.075)/2 · 17/16;
    /// a resend on a duplicate ACK arms min(2, outstanding) checks of new ACKs and stretches the
    /// timeout by 1/8 (doubles it for a segment resent before); an unexpired head on a new ACK
    /// ends the checks; switched off, nothing is ever resent.
    #[test]
    fn the_fine_grained_timer_and_the_checks_after_a_resend() {
        let ms = SimTime::from_millis;
        let mut v = Vegas::new(&TcpConfig::default());
        let w = Window::new(WindowUnit::Bytes, MSS, 4 * MSS, u64::MAX);
        let head = |sent, transmits| Head {
            sent_at: ms(sent),
            transmits,
            outstanding: 5,
        };
        assert!(
            !v.resend_head(ms(10_000), AckKind::Duplicate, &head(0, 1)),
            "no sample yet"
        );
        let ack = Ack {
            now: ms(100),
            acked: MSS,
            rtt: None,
            ca_rtt: Some(ms(100)),
            snd_una: MSS,
            snd_max: 4 * MSS,
        };
        v.on_any_ack(&w, &ack, &rtt_after_sample(100));
        let t = v.fine_timeout().unwrap().as_secs_f64();
        assert!((t - 0.275 / 2.0 * 17.0 / 16.0).abs() < 1e-6, "{t}");
        // Expires at the timeout after the head's latest transmission.
        assert!(!v.resend_head(ms(146), AckKind::Duplicate, &head(0, 1)));
        assert!(v.resend_head(ms(147), AckKind::Duplicate, &head(0, 1)));
        // New ACKs are not checked before a resend.
        assert!(!v.resend_head(ms(1000), AckKind::New, &head(0, 1)));
        v.on_dupack_resend(&head(0, 1));
        let t1 = v.fine_timeout().unwrap().as_secs_f64();
        assert!((t1 - t * 1.125).abs() < 1e-6);
        // Two checks: the first finds an expired head, the second an unexpired one and stops.
        assert!(v.resend_head(ms(1000), AckKind::New, &head(0, 1)));
        assert!(!v.resend_head(ms(1000), AckKind::New, &head(990, 1)));
        v.on_dupack_resend(&head(0, 1));
        assert!(!v.resend_head(ms(1000), AckKind::New, &head(990, 1)));
        assert!(
            !v.resend_head(ms(5000), AckKind::New, &head(0, 1)),
            "the checks ended"
        );
        // A segment resent before doubles the timeout.
        let before = v.fine_timeout().unwrap().as_secs_f64();
        v.on_dupack_resend(&head(0, 2));
        assert!((v.fine_timeout().unwrap().as_secs_f64() - 2.0 * before).abs() < 1e-6);
        // Off: never.
        let cfg = TcpConfig {
            vegas: VegasParams {
                fine_retransmit: false,
                ..VegasParams::default()
            },
            ..TcpConfig::default()
        };
        let mut off = Vegas::new(&cfg);
        off.on_any_ack(&w, &ack, &rtt_after_sample(100));
        assert!(!off.resend_head(ms(10_000), AckKind::Duplicate, &head(0, 1)));
    }

    #[test]
    fn parameters_are_checked() {
        let mut errs = Vec::new();
        VegasParams {
            alpha: 4.0,
            beta: 3.0,
            gamma: -1.0,
            ..VegasParams::default()
        }
        .check(&mut errs);
        let fields: Vec<_> = errs.iter().map(|e| e.0).collect();
        assert_eq!(fields, ["vegas.gamma", "vegas.alpha"]);
    }
}
