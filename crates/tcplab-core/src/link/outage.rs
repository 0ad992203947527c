//! Outage schedules: explicit [start, end) intervals, and periodic "down D every P starting at
//! t0" cycles. A link or station in an outage neither sends nor receives.

use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Outage {
    /// Sorted, non-overlapping explicit intervals.
    pub intervals: Vec<(SimTime, SimTime)>,
    /// Periodic outages: (first start t0, period P, down time D).
    pub periodic: Option<(SimTime, SimTime, SimTime)>,
}

impl Outage {
    pub fn none() -> Self {
        Outage::default()
    }

    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty() && self.periodic.is_none()
    }

    /// Whether the link is down at `t`.
    #[inline]
    pub fn is_down(&self, t: SimTime) -> bool {
        if self.is_empty() {
            return false;
        }
        if let Some((t0, p, d)) = self.periodic {
            if t >= t0 && p.0 > 0 && (t - t0).0 % p.0 < d.0 {
                return true;
            }
        }
        // Few intervals in practice: a scan is cheaper than a search.
        self.intervals.iter().any(|&(s, e)| t >= s && t < e)
    }

    /// The first instant at or after `t` when the link is up: the end of the run of touching
    /// or overlapping intervals that holds at `t` (`t` itself when up).
    pub fn up_at(&self, mut t: SimTime) -> SimTime {
        while self.is_down(t) {
            match self.next_interval(t) {
                Some((_, end)) if end > t => t = end,
                _ => break,
            }
        }
        t
    }

    /// The next outage interval that starts at or after `t`, or contains `t`.
    pub fn next_interval(&self, t: SimTime) -> Option<(SimTime, SimTime)> {
        let mut best: Option<(SimTime, SimTime)> = None;
        let mut consider = |iv: (SimTime, SimTime)| {
            if iv.1 > t && best.is_none_or(|b| iv.0 < b.0) {
                best = Some(iv);
            }
        };
        for &iv in &self.intervals {
            consider(iv);
        }
        if let Some((t0, p, d)) = self.periodic {
            if let Some(k) = (t - t0).0.checked_div(p.0) {
                // `t - t0` saturates at zero before the first cycle.
                for j in k..k + 2 {
                    let s = t0 + SimTime(j * p.0);
                    consider((s, s + d));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_at_is_the_end_of_the_run_of_touching_or_overlapping_intervals() {
        let ms = SimTime::from_millis;
        let o = Outage {
            intervals: vec![
                (ms(10), ms(20)),
                (ms(20), ms(30)),
                (ms(25), ms(40)),
                (ms(50), ms(60)),
            ],
            periodic: None,
        };
        assert_eq!(
            [o.up_at(ms(5)), o.up_at(ms(10)), o.up_at(ms(20))],
            [ms(5), ms(40), ms(40)]
        );
        assert_eq!([o.up_at(ms(45)), o.up_at(ms(55))], [ms(45), ms(60)]);
    }

    /// The next outage from `t` is the earliest-starting interval not yet over: one that ended
    /// at `t` is past ([start, end) intervals), a later one does not displace an earlier one.
    #[test]
    fn next_interval_is_the_earliest_one_not_yet_over() {
        let ms = SimTime::from_millis;
        let o = Outage {
            intervals: vec![(ms(10), ms(20)), (ms(30), ms(40))],
            periodic: None,
        };
        let next = |t| o.next_interval(ms(t));
        assert_eq!(next(5), Some((ms(10), ms(20))));
        assert_eq!(next(15), Some((ms(10), ms(20))));
        assert_eq!(next(20), Some((ms(30), ms(40))));
        assert_eq!(next(40), None);
    }

    /// A cycle counts from its first start t0: down for D at t0, t0 + P, t0 + 2P, …
    #[test]
    fn a_cycle_counts_its_periods_from_its_first_start() {
        let s = SimTime::from_secs;
        let o = Outage {
            intervals: vec![],
            periodic: Some((s(10), s(60), s(5))),
        };
        let down: Vec<u64> = (0..140).filter(|&t| o.is_down(s(t))).collect();
        assert_eq!(
            down,
            [10, 11, 12, 13, 14, 70, 71, 72, 73, 74, 130, 131, 132, 133, 134]
        );
    }

    /// A cycle with no period never takes the link down (and is not a division by zero).
    #[test]
    fn a_cycle_of_zero_period_never_takes_the_link_down() {
        let s = SimTime::from_secs;
        let o = Outage {
            intervals: vec![],
            periodic: Some((s(0), SimTime::ZERO, s(5))),
        };
        assert!(!o.is_down(s(0)) && !o.is_down(s(3)));
        assert_eq!(o.next_interval(s(3)), None);
    }

    #[test]
    fn periodic_and_explicit() {
        let o = Outage {
            intervals: vec![(SimTime::from_secs(500), SimTime::from_secs(510))],
            periodic: Some((
                SimTime::from_secs(30),
                SimTime::from_secs(60),
                SimTime::from_secs(10),
            )),
        };
        assert!(!o.is_down(SimTime::from_secs(29)));
        assert!(o.is_down(SimTime::from_secs(30)));
        assert!(o.is_down(SimTime::from_millis(39_999)));
        assert!(!o.is_down(SimTime::from_secs(40)));
        assert!(o.is_down(SimTime::from_secs(95)));
        assert!(o.is_down(SimTime::from_secs(505)));
        assert_eq!(
            o.next_interval(SimTime::from_secs(41)),
            Some((SimTime::from_secs(90), SimTime::from_secs(100)))
        );
        assert_eq!(
            o.next_interval(SimTime::from_secs(35)),
            Some((SimTime::from_secs(30), SimTime::from_secs(40)))
        );
    }
}
