//! RFC 6298 round-trip estimation and the retransmission timeout (and, behind the same face,
//! ns-2.35's tick-counting estimator of `rtt_ns2.rs`).

use super::rtt_ns2::Ns2Rtt;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct RttEstimator {
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
    /// ns-2.35's estimator (`rto_rule = "ns2"`), which then answers every query.
    ns2: Option<Ns2Rtt>,
    /// Every valid sample taken, summarised (the flow statistics' RTT columns).
    samples: crate::trace::flowstats::RttSummary,
}

impl RttEstimator {
    pub fn new(initial: SimTime, min: SimTime, max: SimTime, g: SimTime) -> Self {
        // RFC 6298 (2.1): RTO = 1 s (here: the configured initial value) until a sample arrives.
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            base_rto: initial.min(max),
            backoff: 0,
            min,
            max,
            g,
            linux: false,
            ns2: None,
            samples: Default::default(),
        }
    }

    /// ns-2.35's Agent/TCP estimator in place of RFC 6298's (see `rtt_ns2.rs`).
    pub fn ns2(mut self, e: Ns2Rtt) -> Self {
        self.ns2 = Some(e);
        self
    }

    /// Linux's RTO: SRTT + max(4·RTTVAR, rto_min), at most rto_max (the kernel keeps its
    /// variance term at least TCP_RTO_MIN; ip-route's rto_min documents the floor).
    pub fn linux(mut self) -> Self {
        self.linux = true;
        self
    }

    pub fn srtt(&self) -> Option<SimTime> {
        if let Some(e) = &self.ns2 {
            return e.srtt();
        }
        self.srtt.map(|s| SimTime(s.round() as u64))
    }
    pub fn rttvar(&self) -> SimTime {
        if let Some(e) = &self.ns2 {
            return e.rttvar();
        }
        SimTime(self.rttvar.round() as u64)
    }
    pub fn backoff_count(&self) -> u32 {
        match &self.ns2 {
            Some(e) => e.backoff_count(),
            None => self.backoff,
        }
    }

    /// A valid measurement of a segment (or timestamp) sent at `sent` and acknowledged at `now`;
    /// `timestamps` says it came from a timestamp echo (ns-2 rounds those, counts ticks otherwise).
    pub fn on_sample_at(&mut self, sent: SimTime, now: SimTime, timestamps: bool) {
        match self.ns2.as_mut() {
            Some(e) => {
                self.samples.add(now.saturating_sub(sent));
                e.on_sample(sent, now, timestamps)
            }
            None => self.on_sample(now.saturating_sub(sent)),
        }
    }

    /// The valid samples taken so far.
    pub fn samples(&self) -> &crate::trace::flowstats::RttSummary {
        &self.samples
    }

    /// Takes a valid RTT measurement.
    pub fn on_sample(&mut self, r: SimTime) {
        self.samples.add(r);
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

    /// The current RTO including backoff, capped at the maximum.
    pub fn rto(&self) -> SimTime {
        if let Some(e) = &self.ns2 {
            return e.rto();
        }
        let mut r = self.base_rto;
        for _ in 0..self.backoff {
            r = r.times(2);
            if r >= self.max {
                return self.max;
            }
        }
        r.min(self.max)
    }

    /// RFC 6298 (5.5): RTO ← 2·RTO.
    pub fn back_off(&mut self) {
        if let Some(e) = self.ns2.as_mut() {
            return e.back_off();
        }
        if self.rto() < self.max {
            self.backoff += 1;
        }
    }

    /// RFC 6298 (5.7): if the SYN timed out, use at least `floor` until the first sample.
    pub fn raise_floor_before_sample(&mut self, floor: SimTime) {
        // ns-2 has no SYN, hence no (5.7).
        if self.srtt.is_none() && self.ns2.is_none() {
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
}
