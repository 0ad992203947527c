//! ns-2.35's round-trip estimator and retransmission timeout (Agent/TCP, tcp.cc `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`), the rule of `rto_rule = "ns2"`.
//!
//! Unlike RFC 6298 it counts in whole ticks of `tcpTick_` (here `clock_granularity`): a sample is
//! the number of tick boundaries of a clock with a random phase (ns-2's `boot_time_`) that fall
//! between the send and the ACK, at least one; SRTT is kept ×8 and RTTVAR ×4 in integers
//! (`T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2), and the RTO before backoff is ⌊SRTT + 4·RTTVAR⌋ ticks.
//! Backoff multiplies that by a factor that doubles per expiry; `minrto_` is applied before the
//! factor (ns-2's `rfc2988_`, on by default) or to the product (`rfc2988_` off), `maxrto_` to the
//! product, and no timeout is shorter than two ticks.

use crate::time::SimTime;

/// ns-2.35 tcp.h: SRTT carries 3 fraction bits, RTTVAR 2; RTO = SRTT + 2^rttvar_exp_·RTTVAR.
const T_SRTT_BITS: u32 = 3;
const T_RTTVAR_BITS: u32 = 2;
const RTTVAR_EXP: u32 = 2;

#[derive(Clone, Debug)]
pub struct Ns2Rtt {
    /// tcpTick_ in nanoseconds.
    tick: u64,
    /// boot_time_: the phase of the tick clock, in [0, tick).
    phase: u64,
    /// t_srtt_ (×8) and t_rttvar_ (×4), in ticks; t_srtt_ = 0 means "no estimate".
    t_srtt: i32,
    t_rttvar: i32,
    /// t_rtxcur_: the RTO before backoff and bounds, in seconds (ns-2 keeps a double).
    t_rtxcur: f64,
    /// t_backoff_: 1, 2, 4, …
    t_backoff: u64,
    minrto: f64,
    maxrto: f64,
    /// ns-2's rfc2988_: minrto_ bounds t_rtxcur_ before the backoff factor.
    rfc2988: bool,
}

fn secs(t: SimTime) -> f64 {
    t.0 as f64 / 1e9
}

impl Ns2Rtt {
    /// `initial` is rtxcur_init_, `tick` tcpTick_ (must be positive), `phase` boot_time_.
    pub fn new(
        initial: SimTime,
        min: SimTime,
        max: SimTime,
        tick: SimTime,
        phase: SimTime,
        rfc2988: bool,
    ) -> Self {
        let tick = tick.0.max(1);
        // ns-2.35 tcp.cc rtt_init: srtt_init_ = 0 gives no estimate; rttvar_init_ is overwritten
        // by the first sample, so it is not kept.
        Ns2Rtt {
            tick,
            phase: phase.0 % tick,
            t_srtt: 0,
            t_rttvar: 0,
            t_rtxcur: secs(initial),
            t_backoff: 1,
            minrto: secs(min),
            maxrto: secs(max),
            rfc2988,
        }
    }

    /// ns-2.35's boot_time_ is uniform in [0, tcpTick_) per agent; here a 32-bit random draw
    /// (the connection's ISN) scaled onto the tick, so that the phase is fixed by the seed.
    pub fn phase_from(draw: u64, tick: SimTime) -> SimTime {
        SimTime((((draw & 0xffff_ffff) as u128 * tick.0 as u128) >> 32) as u64)
    }

    fn tick_secs(&self) -> f64 {
        self.tick as f64 / 1e9
    }

    /// The RTT sample in ticks: without timestamps, the tick boundaries crossed between `sent`
    /// and `now` on the phased clock; with timestamps, the RTT rounded to the nearest tick; at
    /// least 1 (tcp.cc rtt_update).
    pub fn ticks(&self, sent: SimTime, now: SimTime, timestamps: bool) -> i32 {
        let t = if timestamps {
            // int(tao / tcp_tick_ + 0.5)
            ((now.0 - sent.0) + self.tick / 2) / self.tick
        } else {
            // int((tao + fmod(sendtime + boot_time_, tcp_tick_)) / tcp_tick_)
            (now.0 + self.phase) / self.tick - (sent.0 + self.phase) / self.tick
        };
        (t.min(i32::MAX as u64) as i32).max(1)
    }

    /// A valid sample of a segment sent at `sent` and acknowledged at `now`.
    pub fn on_sample(&mut self, sent: SimTime, now: SimTime, timestamps: bool) {
        let m = self.ticks(sent, now, timestamps);
        if self.t_srtt != 0 {
            // tcp.cc keeps the difference in a `short`.
            let mut delta = (m - (self.t_srtt >> T_SRTT_BITS)) as i16;
            // SRTT += (m − SRTT)/8, at least 1.
            self.t_srtt += delta as i32;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            // RTTVAR += (|m − SRTT| − RTTVAR)/4, at least 1.
            delta = delta.wrapping_abs();
            delta = (delta as i32 - (self.t_rttvar >> T_RTTVAR_BITS)) as i16;
            self.t_rttvar += delta as i32;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            // First sample (or the first after the estimate was dropped): SRTT = m, RTTVAR = m/2.
            self.t_srtt = m << T_SRTT_BITS;
            self.t_rttvar = m << (T_RTTVAR_BITS - 1);
        }
        // t_rtxcur_ = ⌊SRTT + 4·RTTVAR⌋ ticks, in seconds.
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + T_SRTT_BITS - T_RTTVAR_BITS)) + self.t_srtt)
            >> T_SRTT_BITS;
        self.t_rtxcur = ticks as f64 * self.tick_secs();
        // tcp.cc newack: a valid sample ends the backoff (t_backoff_ = 1).
        self.t_backoff = 1;
    }

    /// The timeout the retransmission timer is set to (tcp.cc rtt_timeout).
    pub fn rto(&self) -> SimTime {
        let b = self.t_backoff as f64;
        let mut t = if self.rfc2988 {
            // Tom Kelly's correction: minrto_ clamps t_rtxcur_ before the backoff factor.
            if self.t_rtxcur < self.minrto {
                self.minrto * b
            } else {
                self.t_rtxcur * b
            }
        } else {
            (self.t_rtxcur * b).max(self.minrto)
        };
        if t > self.maxrto {
            t = self.maxrto;
        }
        // Never under two ticks.
        if t < 2.0 * self.tick_secs() {
            t = 2.0 * self.tick_secs();
        }
        SimTime((t * 1e9).round() as u64)
    }

    /// An expiry (tcp.cc rtt_backoff): the factor doubles up to 64, beyond that (rfc2988_) only
    /// while the timeout is under maxrto_; past a factor of 8 the SRTT is dropped into RTTVAR,
    /// so that the next sample starts the estimate afresh.
    pub fn back_off(&mut self) {
        if self.t_backoff < 64 || (self.rfc2988 && secs(self.rto()) < self.maxrto) {
            self.t_backoff <<= 1;
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> T_SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// SRTT in time (t_srtt_/8 ticks), none before a sample or after backoff dropped it.
    pub fn srtt(&self) -> Option<SimTime> {
        (self.t_srtt != 0).then(|| SimTime((self.t_srtt as u64 * self.tick) >> T_SRTT_BITS))
    }
    /// RTTVAR in time (t_rttvar_/4 ticks).
    pub fn rttvar(&self) -> SimTime {
        SimTime((self.t_rttvar.max(0) as u64 * self.tick) >> T_RTTVAR_BITS)
    }
    /// Doublings applied (log2 of t_backoff_).
    pub fn backoff_count(&self) -> u32 {
        self.t_backoff.trailing_zeros()
    }
    /// (t_srtt_, t_rttvar_) as ns-2 keeps them, for tests against its traces.
    #[cfg(test)]
    pub fn scaled(&self) -> (i32, i32) {
        (self.t_srtt, self.t_rttvar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    fn est(tick: u64, phase: u64) -> Ns2Rtt {
        Ns2Rtt::new(
            SimTime::from_secs(3),
            ms(200),
            SimTime::from_secs(60),
            ms(tick),
            ms(phase),
            true,
        )
    }

    /// rtxcur_init_ (3 s) before any sample; the first sample of k ticks gives SRTT = k,
    /// RTTVAR = k/2 and an RTO of 3k ticks, floored at minrto_.
    #[test]
    fn first_sample_gives_three_times_the_ticks() {
        let mut e = est(100, 0);
        assert_eq!(e.rto(), SimTime::from_secs(3));
        // 160 ms sent at 0 on a 100 ms clock with phase 0: one boundary → 1 tick, RTO 0.3 s.
        e.on_sample(ms(0), ms(160), false);
        assert_eq!(e.scaled(), (8, 2));
        assert_eq!(e.rto(), ms(300));
        // Later 1-tick samples keep it there: RTTVAR stays 2 (2 >> 2 = 0 decays nothing).
        e.on_sample(ms(1000), ms(1160), false);
        assert_eq!((e.scaled(), e.rto()), ((8, 2), ms(300)));
        // On a 10 ms tick the same 160 ms is 16 ticks: RTO 48 ticks = 0.48 s.
        let mut f = est(10, 0);
        f.on_sample(ms(0), ms(160), false);
        assert_eq!(f.rto(), ms(480));
    }

    /// The sample counts boundaries of the phased clock: 160 ms is 1 or 2 ticks of 100 ms
    /// depending on where the send falls; with timestamps it is rounded (2).
    #[test]
    fn the_sample_counts_clock_boundaries() {
        let e = est(100, 0);
        assert_eq!(e.ticks(ms(0), ms(160), false), 1);
        assert_eq!(e.ticks(ms(50), ms(210), false), 2);
        let p = est(100, 50);
        assert_eq!(p.ticks(ms(0), ms(160), false), 2);
        assert_eq!(e.ticks(ms(0), ms(160), true), 2);
        // Never under one tick.
        assert_eq!(e.ticks(ms(0), ms(5), false), 1);
        assert_eq!(e.ticks(ms(10), ms(20), true), 1);
    }

    /// RFC 6298-like smoothing in scaled integers: a 5-tick sample after 1-tick ones.
    #[test]
    fn smoothing_in_fixed_point() {
        let mut e = est(10, 0);
        e.on_sample(ms(0), ms(100), false); // 10 ticks: srtt 80, rttvar 20, rto 30 ticks
        assert_eq!((e.scaled(), e.rto()), ((80, 20), ms(300)));
        e.on_sample(ms(0), ms(180), false); // 18: delta 8 → srtt 88; |8| − 5 = 3 → rttvar 23
        assert_eq!(e.scaled(), (88, 23));
        // ⌊(23·8 + 88)/8⌋ = 34 ticks.
        assert_eq!(e.rto(), ms(340));
        e.on_sample(ms(0), ms(20), false); // 2: delta 2 − 11 = −9 → srtt 79; 9 − 5 = 4 → 27
        assert_eq!(e.scaled(), (79, 27));
        assert_eq!(e.srtt(), Some(SimTime(98_750_000)));
    }

    /// rfc2988_: minrto_ before the factor (0.2, 0.4, 0.8 …) when t_rtxcur_ is below it; without
    /// it the product is floored (0.2 s twice from a 0.1 s t_rtxcur_, then 0.4 s). maxrto_ caps,
    /// and a valid sample ends the backoff.
    #[test]
    fn backoff_applies_minrto_before_or_after_the_factor() {
        let run = |rfc2988| {
            let mut e = Ns2Rtt::new(
                SimTime::from_secs(3),
                ms(200),
                ms(5000),
                ms(10),
                SimTime::ZERO,
                rfc2988,
            );
            // 3 ticks of 10 ms: SRTT 3, RTTVAR 1.5, RTO ⌊3 + 6⌋ = 9 ticks = 90 ms < minrto.
            e.on_sample(ms(0), ms(30), false);
            let mut v = vec![];
            for _ in 0..7 {
                v.push(e.rto().as_millis());
                e.back_off();
            }
            v
        };
        assert_eq!(run(true), [200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(run(false), [200, 200, 360, 720, 1440, 2880, 5000]);
        let mut e = est(100, 0);
        e.on_sample(ms(0), ms(160), false);
        e.back_off();
        e.back_off();
        assert_eq!((e.backoff_count(), e.rto()), (2, ms(1200)));
        e.on_sample(ms(0), ms(160), false);
        assert_eq!((e.backoff_count(), e.rto()), (0, ms(300)));
    }

    /// Past a factor of 8 the SRTT is folded into RTTVAR and dropped: the next sample is a first
    /// one again. The factor stops at 64 once the timeout reaches maxrto_ (rfc2988_), and without
    /// rfc2988_ at 64 whatever the timeout.
    #[test]
    fn deep_backoff_drops_the_estimate_and_caps_the_factor() {
        let mut e = est(100, 0);
        e.on_sample(ms(0), ms(160), false);
        for _ in 0..3 {
            e.back_off();
        }
        assert_eq!(e.scaled(), (8, 2));
        e.back_off(); // factor 16
        assert_eq!((e.scaled(), e.srtt()), ((0, 3), None));
        e.on_sample(ms(0), ms(250), false); // 2 ticks, a first sample again
        assert_eq!((e.scaled(), e.rto()), ((16, 4), ms(600)));
        // 3 s · 64 is over maxrto_: the factor stops at 64.
        let mut e = est(10, 0);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!((e.backoff_count(), e.rto()), (6, SimTime::from_secs(60)));
        // With a 0.1 s RTO and a 1000 s maxrto_ the factor passes 64 (rfc2988_) until the
        // timeout reaches maxrto_ (0.1 s · 2^14 ≥ 1000 s); without rfc2988_ it stops at 64.
        let far = |rfc2988| {
            let mut e = Ns2Rtt::new(
                ms(100),
                ms(1),
                SimTime::from_secs(1000),
                ms(10),
                SimTime::ZERO,
                rfc2988,
            );
            for _ in 0..20 {
                e.back_off();
            }
            (e.backoff_count(), e.rto())
        };
        assert_eq!(far(true), (14, SimTime::from_secs(1000)));
        assert_eq!(far(false), (6, ms(6400)));
    }

    /// No timeout under two ticks; the phase is the 32-bit draw scaled onto the tick.
    #[test]
    fn two_tick_floor_and_phase() {
        let e = Ns2Rtt::new(ms(1), ms(1), ms(60_000), ms(100), SimTime::ZERO, true);
        assert_eq!(e.rto(), ms(200));
        assert_eq!(Ns2Rtt::phase_from(0, ms(100)), SimTime::ZERO);
        assert_eq!(Ns2Rtt::phase_from(1 << 31, ms(100)), ms(50));
        assert!(Ns2Rtt::phase_from(u64::MAX, ms(100)) < ms(100));
    }
}
