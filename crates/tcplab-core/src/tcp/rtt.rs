//! Round-trip estimation and the retransmission timeout behind one face: RFC 6298's estimator
//! (with Linux's form of the RTO) or ns-2.35's tick-counting one of `rtt_ns2.rs`, as `rto_rule`
//! chooses; and the summary of every valid sample for the flow statistics.

use super::rtt_ns2::Ns2Rtt;
use crate::time::SimTime;
use crate::trace::flowstats::RttSummary;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    rule: Rule,
    /// Every valid sample taken, summarised (the flow statistics' RTT columns).
    samples: RttSummary,
}

/// The estimator that answers every query, dispatched by `match` (as `cc::AnyCc`).
#[derive(Clone, Debug)]
enum Rule {
    Rfc6298(Rfc6298),
    /// ns-2.35's Agent/TCP estimator (`rto_rule = "ns2"`).
    Ns2(Ns2Rtt),
}

/// RFC 6298's estimator.
#[derive(Clone, Debug)]
struct Rfc6298 {
    /// Smoothed RTT and variation in nanoseconds (f64: the gains 1/8 and 1/4 are exact in binary).
    srtt: Option<f64>,
    rttvar: f64,
    /// The RTO before backoff, already clamped to [min, max].
    base_rto: SimTime,
    /// Number of doublings applied since the last valid sample (RFC 6298 (5.5)).
    backoff: u32,
    min: SimTime,
    max: SimTime,
    g: SimTime,
    /// Linux's rule: rto_min bounds the variance term, not the sum.
    linux: bool,
}

impl RttEstimator {
    pub fn new(initial: SimTime, min: SimTime, max: SimTime, g: SimTime) -> Self {
        // RFC 6298 (2.1): RTO = 1 s (here: the configured initial value) until a sample arrives.
        RttEstimator {
            rule: Rule::Rfc6298(Rfc6298 {
                srtt: None,
                rttvar: 0.0,
                base_rto: initial.min(max),
                backoff: 0,
                min,
                max,
                g,
                linux: false,
            }),
            samples: Default::default(),
        }
    }

    /// ns-2.35's Agent/TCP estimator in place of RFC 6298's (see `rtt_ns2.rs`).
    pub fn ns2(mut self, e: Ns2Rtt) -> Self {
        self.rule = Rule::Ns2(e);
        self
    }

    /// Linux's RTO: SRTT + max(4·RTTVAR, rto_min), at most rto_max (the kernel keeps its
    /// variance term at least TCP_RTO_MIN; ip-route's rto_min documents the floor).
    pub fn linux(mut self) -> Self {
        if let Rule::Rfc6298(r) = &mut self.rule {
            r.linux = true;
        }
        self
    }

    pub fn srtt(&self) -> Option<SimTime> {
        match &self.rule {
            Rule::Rfc6298(r) => r.srtt.map(|s| SimTime(s.round() as u64)),
            Rule::Ns2(e) => e.srtt(),
        }
    }
    pub fn rttvar(&self) -> SimTime {
        match &self.rule {
            Rule::Rfc6298(r) => SimTime(r.rttvar.round() as u64),
            Rule::Ns2(e) => e.rttvar(),
        }
    }
    pub fn backoff_count(&self) -> u32 {
        match &self.rule {
            Rule::Rfc6298(r) => r.backoff,
            Rule::Ns2(e) => e.backoff_count(),
        }
    }

    /// A valid measurement of a segment (or timestamp) sent at `sent` and acknowledged at `now`;
    /// `timestamps` says it came from a timestamp echo (ns-2 rounds those, counts ticks otherwise).
    pub fn on_sample_at(&mut self, sent: SimTime, now: SimTime, timestamps: bool) {
        let r = now.saturating_sub(sent);
        self.samples.add(r);
        match &mut self.rule {
            Rule::Rfc6298(e) => e.on_sample(r),
            Rule::Ns2(e) => e.on_sample(sent, now, timestamps),
        }
    }

    /// Takes a valid RTT measurement `r` (of a segment sent at time zero).
    pub fn on_sample(&mut self, r: SimTime) {
        self.on_sample_at(SimTime::ZERO, r, false);
    }

    /// The valid samples taken so far.
    pub fn samples(&self) -> &RttSummary {
        &self.samples
    }

    /// The current RTO including backoff, capped at the maximum.
    pub fn rto(&self) -> SimTime {
        match &self.rule {
            Rule::Rfc6298(r) => r.rto(),
            Rule::Ns2(e) => e.rto(),
        }
    }

    /// RFC 6298 (5.5): RTO ← 2·RTO (ns-2.35: tcp.cc rtt_backoff).
    pub fn back_off(&mut self) {
        match &mut self.rule {
            Rule::Rfc6298(r) => r.back_off(),
            Rule::Ns2(e) => e.back_off(),
        }
    }

    /// RFC 6298 (5.7): if the SYN timed out, use at least `floor` until the first sample.
    pub fn raise_floor_before_sample(&mut self, floor: SimTime) {
        // ns-2 has no SYN, hence no (5.7).
        if let Rule::Rfc6298(r) = &mut self.rule {
            r.raise_floor_before_sample(floor);
        }
    }
}

impl Rfc6298 {
    fn on_sample(&mut self, r: SimTime) {
        let r = r.0 as f64;
        match self.srtt {
            // RFC 6298 (2.2): first measurement.
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            // RFC 6298 (2.3): RTTVAR first (uses the old SRTT), then SRTT; β = 1/4, α = 1/8.
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let s = self.srtt.unwrap_or(0.0);
        self.base_rto = if self.linux {
            // Linux: SRTT + max(4·RTTVAR, rto_min), capped at rto_max.
            let rto = s + (4.0 * self.rttvar).max(self.min.0 as f64);
            SimTime(rto.round() as u64).min(self.max)
        } else {
            // RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, K·RTTVAR), K = 4.
            let rto = s + (self.g.0 as f64).max(4.0 * self.rttvar);
            // RFC 6298 (2.4) lower bound, (2.5) upper bound.
            SimTime(rto.round() as u64).max(self.min).min(self.max)
        };
        // A valid sample ends the backoff (RFC 6298 §5, note after (5.7)).
        self.backoff = 0;
    }

    fn rto(&self) -> SimTime {
        let mut r = self.base_rto;
        for _ in 0..self.backoff {
            r = r.times(2);
            if r >= self.max {
                return self.max;
            }
        }
        r.min(self.max)
    }

    fn back_off(&mut self) {
        if self.rto() < self.max {
            self.backoff += 1;
        }
    }

    fn raise_floor_before_sample(&mut self, floor: SimTime) {
        if self.srtt.is_none() {
            self.base_rto = self.base_rto.max(floor).min(self.max);
            self.backoff = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(60),
            ms(1),
        );
        assert_eq!(e.rto(), SimTime::from_secs(1));
        e.on_sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300));
        e.on_sample(ms(200));
        // RTTVAR = 0.75·50 + 0.25·100 = 62.5; SRTT = 112.5; RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rttvar(), SimTime(62_500_000));
        assert_eq!(e.srtt(), Some(SimTime(112_500_000)));
        assert_eq!(e.rto(), SimTime(362_500_000));
    }

    #[test]
    fn linux_rto_floors_the_variance_term_not_the_sum() {
        let mk = || {
            RttEstimator::new(
                SimTime::from_secs(1),
                ms(200),
                SimTime::from_secs(120),
                ms(1),
            )
        };
        let (mut rfc, mut lin) = (mk(), mk().linux());
        for _ in 0..20 {
            rfc.on_sample(ms(100));
            lin.on_sample(ms(100));
        }
        // RTTVAR has decayed to ~0.3 ms: RFC 6298 gives max(100.x, 200) = 200 ms, Linux 100 + 200.
        assert_eq!(rfc.rto(), ms(200));
        assert_eq!(lin.rto().as_millis(), 300);
        // A large variance dominates the floor in both.
        let (mut rfc, mut lin) = (mk(), mk().linux());
        rfc.on_sample(ms(400));
        lin.on_sample(ms(400));
        assert_eq!(rfc.rto(), ms(1200));
        assert_eq!(lin.rto(), ms(1200));
    }

    #[test]
    fn granularity_and_bounds() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_secs(1),
            SimTime::from_secs(60),
            ms(500),
        );
        e.on_sample(ms(10));
        // 10 + max(500, 20) = 510 ms, raised to the 1 s minimum.
        assert_eq!(e.rto(), SimTime::from_secs(1));
    }

    #[test]
    fn backoff_doubles_caps_and_clears_on_sample() {
        let mut e = RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_secs(1),
            SimTime::from_secs(64),
            ms(1),
        );
        let mut seq = vec![];
        for _ in 0..8 {
            seq.push(e.rto().as_millis() / 1000);
            e.back_off();
        }
        assert_eq!(seq, vec![1, 2, 4, 8, 16, 32, 64, 64]);
        e.on_sample(ms(100));
        assert_eq!(e.rto(), SimTime::from_secs(1));
    }

    /// RFC 6298 (5.5) doubles the RTO per expiry and the count stops at the cap (the RTO cannot
    /// double past RTO_max); (5.7): after a SYN timeout the RTO is at least the floor until the
    /// first sample, which also ends the backoff — and once a sample exists the floor is ignored.
    #[test]
    fn backoff_counts_to_the_cap_and_the_syn_floor_holds_only_before_a_sample() {
        let mut e = RttEstimator::new(ms(700), ms(200), ms(3000), ms(1));
        for (expiries, rto) in [(0, 700), (1, 1400), (2, 2800), (3, 3000), (4, 3000)] {
            assert_eq!(
                (e.backoff_count(), e.rto()),
                (expiries.min(3), ms(rto)),
                "{expiries}"
            );
            e.back_off();
        }
        // (5.7): a 1 s floor raises the 700 ms base and clears the doublings.
        e.raise_floor_before_sample(SimTime::from_secs(1));
        assert_eq!((e.backoff_count(), e.rto()), (0, SimTime::from_secs(1)));
        // A floor above RTO_max stops at RTO_max.
        e.raise_floor_before_sample(SimTime::from_secs(5));
        assert_eq!(e.rto(), ms(3000));
        // After a sample the floor does nothing.
        e.on_sample(ms(100));
        e.back_off();
        e.raise_floor_before_sample(SimTime::from_secs(2));
        assert_eq!((e.backoff_count(), e.rto()), (1, ms(600)));
        // The Linux form keeps the cap too: 2 s + 4·1 s = 6 s > 3 s.
        let mut lin = RttEstimator::new(ms(700), ms(200), ms(3000), ms(1)).linux();
        lin.on_sample(SimTime::from_secs(2));
        assert_eq!(lin.rto(), ms(3000));
        assert_eq!(lin.srtt(), Some(SimTime::from_secs(2)));
    }

    /// Under `rto_rule = "ns2"` the tick estimator answers every query and (5.7) does nothing;
    /// under either rule each valid sample enters the flow statistics' summary once.
    #[test]
    fn the_ns2_rule_answers_and_every_sample_is_summarised_once() {
        let ns2 = Ns2Rtt::new(
            SimTime::from_secs(3),
            ms(200),
            SimTime::from_secs(60),
            ms(100),
            SimTime::ZERO,
            true,
        );
        let mut e = RttEstimator::new(
            SimTime::from_secs(3),
            ms(200),
            SimTime::from_secs(60),
            ms(100),
        )
        .linux()
        .ns2(ns2);
        e.raise_floor_before_sample(SimTime::from_secs(5));
        assert_eq!(e.rto(), SimTime::from_secs(3));
        // 160 ms from 0 crosses one 100 ms boundary: SRTT 1 tick, RTO 3 ticks (RFC 6298: 480 ms).
        e.on_sample_at(ms(0), ms(160), false);
        assert_eq!(
            (e.srtt(), e.rttvar(), e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        e.back_off();
        assert_eq!((e.backoff_count(), e.rto()), (1, ms(600)));
        e.on_sample_at(ms(1000), ms(1120), false);
        let mut rfc = RttEstimator::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(60),
            ms(1),
        );
        rfc.on_sample(ms(160));
        rfc.on_sample_at(ms(1000), ms(1120), true);
        for s in [e.samples(), rfc.samples()] {
            assert_eq!(
                (s.n, s.sum_ns, s.min_ns, s.max_ns),
                (2, 280_000_000, 120_000_000, 160_000_000)
            );
        }
    }
}
