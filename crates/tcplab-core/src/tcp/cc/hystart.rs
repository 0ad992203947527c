//! HyStart's delay-increase test (Ha & Rhee 2011), which Linux's CUBIC runs during slow start:
//! once a round trip's RTT samples rise clearly above the connection's smallest RTT, the queue
//! is filling and slow start ends before it overflows. Constants as RFC 9406 §4.2 gives them
//! (8 samples per round, threshold clamp(min RTT/8, 4 ms, 16 ms)), and Linux's
//! `hystart_low_window` of 16 segments below which the test is not run. On detection Linux sets
//! ssthresh = cwnd and goes to congestion avoidance at once (RFC 9406's HyStart++ would continue
//! in Conservative Slow Start instead; not modelled, nor HyStart's ACK-train test).

use super::{Ack, Window};
use crate::time::SimTime;

/// RFC 9406 §4.2: N_RTT_SAMPLE.
const SAMPLES: u32 = 8;
/// RFC 9406 §4.2: MIN_RTT_THRESH, MAX_RTT_THRESH, MIN_RTT_DIVISOR.
const MIN_THRESH: SimTime = SimTime::from_millis(4);
const MAX_THRESH: SimTime = SimTime::from_millis(16);
const DIVISOR: u64 = 8;
/// Linux's `hystart_low_window` (segments).
const LOW_WINDOW: u64 = 16;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// The round trip ends when snd_una reaches this (HighData + 1 when it began).
    round_end: u64,
    /// The smallest of this round's first samples, and how many were taken.
    round_min: Option<SimTime>,
    samples: u32,
    /// The smallest RTT of the connection.
    min_rtt: Option<SimTime>,
}

impl HyStart {
    /// One ACK in slow start; true when slow start should end now.
    pub fn on_ack(&mut self, w: &Window, ack: &Ack) -> bool {
        if ack.snd_una >= self.round_end {
            self.round_end = ack.snd_max;
            self.round_min = None;
            self.samples = 0;
        }
        let Some(r) = ack.rtt else { return false };
        let min = self.min_rtt.map_or(r, |m| m.min(r));
        self.min_rtt = Some(min);
        if self.samples >= SAMPLES {
            return false;
        }
        self.samples += 1;
        let round = self.round_min.map_or(r, |m| m.min(r));
        self.round_min = Some(round);
        let thresh = SimTime(min.0 / DIVISOR).clamp(MIN_THRESH, MAX_THRESH);
        self.samples == SAMPLES && w.cwnd as u64 >= LOW_WINDOW * w.mss && round >= min + thresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    fn ack(snd_una: u64, snd_max: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked: 1000,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            snd_una,
            snd_max,
        }
    }

    #[test]
    fn a_round_whose_first_eight_samples_rise_by_the_threshold_ends_slow_start() {
        let w = Window::new(WindowUnit::Bytes, 1000, 20_000, u64::MAX);
        let mut h = HyStart::default();
        // Round 1 (ends at 20 000): RTT 40 ms, the connection's minimum.
        for k in 1..=10 {
            assert!(!h.on_ack(&w, &ack(k * 1000, 20_000, 40)));
        }
        // Round 2: threshold clamp(40/8, 4, 16) = 5 ms. Eight samples of 44 ms do not end it.
        for k in 0..10 {
            assert!(!h.on_ack(&w, &ack(20_000 + k * 1000, 40_000, 44)));
        }
        // Round 3: the eighth sample of 45 ms (min + 5 ms) does.
        let ends: Vec<bool> = (0..8)
            .map(|k| h.on_ack(&w, &ack(40_000 + k * 1000, 60_000, 45)))
            .collect();
        assert_eq!(
            ends,
            [false, false, false, false, false, false, false, true]
        );
        // Below 16 segments the test is not run.
        let small = Window::new(WindowUnit::Bytes, 1000, 15_000, u64::MAX);
        let mut h2 = HyStart::default();
        h2.on_ack(&small, &ack(1000, 2000, 40));
        assert!(!(0..8).any(|k| h2.on_ack(&small, &ack(2000 + k * 100, 9000, 60))));
    }

    #[test]
    fn cubic_leaves_slow_start_on_the_delay_rise_only_with_the_switch() {
        use crate::tcp::cc::{CongestionControl, Cubic};
        use crate::tcp::config::TcpConfig;
        use crate::tcp::rtt::RttEstimator;
        let run = |hystart: bool| {
            let mut cc = Cubic::new(&TcpConfig {
                hystart,
                ..TcpConfig::default()
            });
            let est = RttEstimator::new(
                SimTime::from_secs(1),
                SimTime::from_millis(200),
                SimTime::from_secs(60),
                SimTime::from_millis(1),
            );
            let mut w = Window::new(WindowUnit::Bytes, 1000, 20_000, u64::MAX);
            // Two rounds of 20 ACKs: 40 ms, then 50 ms (above 40 + 5 ms).
            for (round, rtt) in [(1, 40), (2, 50)] {
                for k in 0..20 {
                    let una = (round - 1) * 20_000 + k * 1000 + 1000;
                    cc.on_ack(&mut w, &ack(una, round * 20_000, rtt), &est);
                }
            }
            w.ssthresh
        };
        // The eighth ACK of the second round ends slow start, at cwnd = 20 + 20 + 7 segments.
        assert_eq!(run(true), 47_000);
        assert_eq!(run(false), u64::MAX);
    }
}
