//! Simulated time: integer nanoseconds since the start of the run.
//!
//! One type serves for instants and durations; both are exact integers so that event order never
//! depends on floating-point rounding. Conversions from seconds round to the nearest nanosecond.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds since t = 0 (or a span of nanoseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimTime(0)
        } else if s >= u64::MAX as f64 / 1e9 {
            SimTime::MAX
        } else {
            SimTime((s * 1e9).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    #[inline]
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
    #[inline]
    pub fn saturating_add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
    /// Scales a span, saturating.
    #[inline]
    pub fn times(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
    /// The first multiple of `tick` at or after `self` (tick-based timers, e.g. BSD's 500 ms slow
    /// timer). A zero tick leaves the time unchanged.
    pub fn round_up_to(self, tick: SimTime) -> SimTime {
        if tick.0 == 0 {
            return self;
        }
        let r = self.0 % tick.0;
        if r == 0 {
            self
        } else {
            SimTime(self.0.saturating_add(tick.0 - r))
        }
    }
    /// Time to serialise `bytes` at `rate_bps`, rounded up to the next nanosecond.
    #[inline]
    pub fn tx_time(bytes: u64, rate_bps: u64) -> SimTime {
        let r = rate_bps.max(1);
        // u64 arithmetic whenever it cannot overflow (any packet size); u128 otherwise.
        match bytes.checked_mul(8_000_000_000) {
            Some(bits) => SimTime(bits.div_ceil(r)),
            None => SimTime((bytes as u128 * 8_000_000_000).div_ceil(r as u128) as u64),
        }
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_is_exact_and_rounds_up() {
        // 1500 B at 10 Mb/s = 1.2 ms exactly.
        assert_eq!(
            SimTime::tx_time(1500, 10_000_000),
            SimTime::from_micros(1200)
        );
        // 1 B at 3 b/s = 8/3 s, rounded up.
        assert_eq!(SimTime::tx_time(1, 3).0, 2_666_666_667);
    }

    #[test]
    fn round_up_to_tick() {
        let t = SimTime::from_millis(501);
        assert_eq!(
            t.round_up_to(SimTime::from_millis(500)),
            SimTime::from_millis(1000)
        );
        assert_eq!(
            SimTime::from_millis(500).round_up_to(SimTime::from_millis(500)),
            SimTime::from_millis(500)
        );
        assert_eq!(t.round_up_to(SimTime::ZERO), t);
    }
}
