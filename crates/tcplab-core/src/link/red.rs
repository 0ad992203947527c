//! Random Early Detection (Floyd & Jacobson 1993) with ECN marking (RFC 3168 §7): the decision
//! for each arriving packet, shared by the wired output queues and the WLAN interface queues.

use super::queue::Enqueue;
use crate::rng::Rng;
use crate::time::SimTime;

/// RED's parameters; thresholds in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub limit: u32,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// Weight of the EWMA of the queue length.
    pub w_q: f64,
    /// "Gentle" RED: drop probability ramps from max_p to 1 between max_th and 2·max_th.
    pub gentle: bool,
    /// Mark ECN-capable packets (CE) instead of dropping them in the probabilistic region.
    pub ecn: bool,
    /// Mark ECN-capable packets at and above max_th too, instead of RFC 3168 §7's forced drop
    /// (Sridhara & Subramanya §6: the nodes mark "when the queue length equals the maximum threshold").
    pub mark_at_max_th: bool,
}

/// RED's state: the average queue length and the count since the last early action.
#[derive(Clone, Debug)]
pub struct Red {
    pub p: RedParams,
    avg: f64,
    count: i64,
    idle_since: Option<SimTime>,
    /// Transmission time of a typical packet, for the idle-period decay of `avg`.
    typical_tx: SimTime,
}

impl Red {
    pub fn new(p: RedParams, typical_tx: SimTime) -> Red {
        Red {
            p,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            typical_tx,
        }
    }

    /// The average queue length (packets).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The queue became empty at `now` (starts the idle-time decay).
    pub fn emptied(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    /// The verdict on a packet arriving at a queue holding `qlen` packets.
    pub fn arrival(&mut self, now: SimTime, qlen: usize, ect: bool, rng: &mut Rng) -> Enqueue {
        let p = self.p;
        // Floyd & Jacobson §4: update the average on each arrival; after an idle period decay it
        // as if m small packets had been sent.
        if let Some(since) = self.idle_since.take() {
            let m = if self.typical_tx.0 == 0 {
                0.0
            } else {
                (now - since).0 as f64 / self.typical_tx.0 as f64
            };
            self.avg *= (1.0 - p.w_q).powf(m);
        } else {
            self.avg = (1.0 - p.w_q) * self.avg + p.w_q * qlen as f64;
        }
        let early = if self.avg < p.min_th {
            self.count = -1;
            false
        } else if self.avg < p.max_th || (p.gentle && self.avg < 2.0 * p.max_th) {
            self.count += 1;
            let pb = if self.avg < p.max_th {
                p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
            } else {
                p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th
            };
            // pa = pb / (1 - count·pb): spreads drops evenly between marks.
            let denom = 1.0 - self.count as f64 * pb;
            let pa = if denom <= 0.0 {
                1.0
            } else {
                (pb / denom).min(1.0)
            };
            if rng.uniform() < pa {
                self.count = 0;
                true
            } else {
                false
            }
        } else {
            self.count = 0;
            if !(p.mark_at_max_th && p.ecn && ect) {
                // Above max_th: forced drop even for ECN-capable packets (RFC 3168 §7).
                return Enqueue::Dropped;
            }
            true
        };
        if qlen as u32 >= p.limit {
            Enqueue::Dropped
        } else if early {
            if p.ecn && ect {
                Enqueue::QueuedMarked
            } else {
                Enqueue::Dropped
            }
        } else {
            Enqueue::Queued
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    /// The share of `n` fresh RED queues (w_q = 1, so the average is the queue length from the
    /// second arrival on) that act early on an arrival at `last` after arrivals at `before`
    /// (the first of which ends the initial idle period and leaves the average at 0).
    fn early_share(p: RedParams, before: &[usize], last: usize) -> f64 {
        let n = 4000;
        let early = (0..n)
            .filter(|&k| {
                let mut red = Red::new(p, SimTime(1000));
                let mut rng = Rng::derive(k, StreamId::Custom(5));
                for &q in before {
                    assert_eq!(red.arrival(SimTime(0), q, false, &mut rng), Enqueue::Queued);
                }
                red.arrival(SimTime(0), last, false, &mut rng) == Enqueue::Dropped
            })
            .count();
        early as f64 / n as f64
    }

    fn band(gentle: bool, max_p: f64) -> RedParams {
        RedParams {
            limit: 100,
            min_th: 5.0,
            max_th: 15.0,
            max_p,
            w_q: 1.0,
            gentle,
            ecn: false,
            mark_at_max_th: false,
        }
    }

    /// Within ±0.03 of `want`: 3.8 standard deviations of a share of 4000 at p = 0.5 (the
    /// queues are seeded, so the shares are fixed; the margin is for a change of stream).
    fn assert_share(got: f64, want: f64, what: &str) {
        assert!((got - want).abs() < 0.03, "{what}: {got} vs {want}");
    }

    /// Floyd & Jacobson §4 (and the count's reset below min_th): the first arrival in the band
    /// after one below min_th acts with pa = pb; each arrival in the band that does not act
    /// raises the count, so the next acts with pa = pb / (1 − count·pb). An arrival exactly at
    /// min_th is in the band (pb = 0, the count rises).
    #[test]
    fn the_early_probability_grows_with_the_count_since_the_last_early_action() {
        // avg 10: pb = 0.5 (10 − 5) / (15 − 5) = 0.25.
        let p = band(false, 0.5);
        assert_share(early_share(p, &[0, 2], 10), 0.25, "first in the band");
        assert_share(
            early_share(p, &[0, 2, 2, 2], 10),
            0.25,
            "below min_th resets the count",
        );
        assert_share(
            early_share(p, &[0, 5], 10),
            0.25 / 0.75,
            "at min_th the count rises",
        );
    }

    /// Gentle RED's ramp (Floyd 2000): pb = max_p + (1 − max_p)(avg − max_th)/max_th between
    /// max_th and 2·max_th; at avg 22, 0.1 + 0.9 · 7/15 = 0.52.
    #[test]
    fn gentle_red_ramps_from_max_p_to_one_between_max_th_and_twice_it() {
        let p = band(true, 0.1);
        assert_share(early_share(p, &[0], 22), 0.1 + 0.9 * 7.0 / 15.0, "avg 22");
        // And in the band below max_th: 0.1 · (10 − 5)/10.
        assert_share(early_share(p, &[0], 10), 0.05, "avg 10");
    }

    #[test]
    fn mark_at_max_th_marks_ect_packets_instead_of_the_forced_drop() {
        let verdict = |mark_at_max_th: bool, ect: bool| {
            let mut red = Red::new(
                RedParams {
                    limit: 50,
                    min_th: 5.0,
                    max_th: 15.0,
                    max_p: 0.1,
                    w_q: 1.0,
                    gentle: false,
                    ecn: true,
                    mark_at_max_th,
                },
                SimTime(1000),
            );
            let mut rng = Rng::derive(0, StreamId::Custom(3));
            // The first arrival ends the initial idle period; the second sees 15 packets.
            red.arrival(SimTime(0), 15, ect, &mut rng);
            red.arrival(SimTime(0), 15, ect, &mut rng)
        };
        // RFC 3168 §7: at max_th the router drops, ECN or not; Sridhara & Subramanya's nodes mark.
        assert_eq!(verdict(false, true), Enqueue::Dropped);
        assert_eq!(verdict(true, true), Enqueue::QueuedMarked);
        assert_eq!(verdict(true, false), Enqueue::Dropped);
    }
}
