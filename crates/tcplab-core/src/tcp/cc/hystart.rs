//! HyStart (Ha & Rhee 2011) as Linux's CUBIC runs it in slow start: two tests that end slow
//! start before the bottleneck queue overflows, each set from the facts Linux documents (its
//! tcp_cubic module parameters and commit history; RFC 9406 §4.2 for the delay thresholds):
//!
//! - **Round trips.** A round begins at an ACK that acknowledges data sent after the previous
//!   round began (snd_una passes the snd_nxt recorded then); it remembers that ACK's time and
//!   the new snd_nxt.
//! - **ACK train.** While the ACKs of a round arrive no more than `hystart_ack_delta` (2 ms)
//!   apart, the train goes on; once it has lasted longer than half of (minimum RTT + an
//!   aggregation cushion of at most 1 ms), the sender is putting a full minimum RTT of data into
//!   the pipe: slow start ends. One larger gap ends the train for the rest of the round.
//! - **Delay.** The smallest RTT sample of the round, once at least 8 samples were taken, above
//!   the connection's minimum RTT + clamp(min/8, 4 ms, 16 ms): the queue is building.
//! - Neither test runs below `hystart_low_window` (16) segments; ACKs without an RTT sample are
//!   ignored; after an exit HyStart stays off until a timeout resets it (and its minimum RTT).
//!
//! On an exit Linux sets ssthresh = cwnd and goes to congestion avoidance at once (RFC 9406's
//! HyStart++ would continue in Conservative Slow Start instead; not modelled).

use super::{Ack, Window};
use crate::tcp::config::{HyStartDetect, TcpConfig};
use crate::time::SimTime;

/// The delay test's samples per round before it may fire (Linux's HYSTART_MIN_SAMPLES; RFC
/// 9406 §4.2's N_RTT_SAMPLE).
pub const DELAY_SAMPLES: u32 = 8;
/// The delay threshold, min RTT / 8 clamped to [4 ms, 16 ms] (Linux's HYSTART_DELAY_MIN/MAX;
/// RFC 9406 §4.2's MIN_RTT_THRESH, MAX_RTT_THRESH, MIN_RTT_DIVISOR).
pub const DELAY_MIN_THRESH: SimTime = SimTime::from_millis(4);
pub const DELAY_MAX_THRESH: SimTime = SimTime::from_millis(16);
pub const DELAY_DIVISOR: u64 = 8;
/// The ACK-train cushion for send/receive aggregation: four GSO packets at the pacing rate,
/// capped at 1 ms (Linux's tcp_cubic "tweak Hystart detection for short RTT flows"). The GSO
/// size is the device's 64 KiB; the pacing rate in slow start is 2·cwnd/SRTT
/// (tcp_pacing_ss_ratio = 200 %).
const CUSHION_MAX: SimTime = SimTime::from_millis(1);
const GSO_BYTES: f64 = 65_536.0;

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

impl Exit {
    /// As `hystart_detect` names the test.
    pub fn name(self) -> &'static str {
        match self {
            Exit::AckTrain => "ack_train",
            Exit::Delay => "delay",
        }
    }
}

#[derive(Clone, Debug)]
pub struct HyStart {
    detect: HyStartDetect,
    /// Segments below which the tests do not run (`hystart_low_window`).
    low_window: u64,
    ack_delta: SimTime,
    /// The round ends when snd_una passes this (snd_nxt when it began); `None` before the first.
    round_end: Option<u64>,
    round_start: SimTime,
    /// The last ACK of the current train.
    last_ack: SimTime,
    /// The smallest RTT sample of the round, and how many were taken.
    round_min: Option<SimTime>,
    samples: u32,
    /// The smallest RTT of the connection (since the last reset).
    min_rtt: Option<SimTime>,
    /// The test that ended slow start; HyStart is off from then on.
    found: Option<Exit>,
}

impl HyStart {
    pub fn new(cfg: &TcpConfig) -> HyStart {
        HyStart {
            detect: cfg.hystart_detect,
            low_window: cfg.hystart_low_window as u64,
            ack_delta: cfg.hystart_ack_delta,
            round_end: None,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            round_min: None,
            samples: 0,
            min_rtt: None,
            found: None,
        }
    }

    /// The test that ended slow start, if one did since the last reset.
    pub fn found(&self) -> Option<Exit> {
        self.found
    }

    /// A timeout: HyStart runs again in the next slow start, its minimum RTT forgotten (Linux
    /// resets CUBIC's state on entering the Loss state).
    pub fn reset(&mut self) {
        *self = HyStart {
            detect: self.detect,
            low_window: self.low_window,
            ack_delta: self.ack_delta,
            ..HyStart::new(&TcpConfig::default())
        };
    }

    fn new_round(&mut self, ack: &Ack) {
        self.round_end = Some(ack.snd_max);
        self.round_start = ack.now;
        self.last_ack = ack.now;
        self.round_min = None;
        self.samples = 0;
    }

    /// One ACK of new data in slow start, with the SRTT for the cushion; `Some` when slow start
    /// should end now.
    pub fn on_ack(&mut self, w: &Window, ack: &Ack, srtt: Option<SimTime>) -> Option<Exit> {
        if self.found.is_some() {
            return None;
        }
        // Linux's per-ACK sample from send times; the timestamp option's otherwise.
        let r = ack.ca_rtt.or(ack.rtt)?;
        let min = self.min_rtt.map_or(r, |m| m.min(r));
        self.min_rtt = Some(min);
        // A round ends when the ACK passes the sequence sent when it began.
        if self.round_end.is_none_or(|end| ack.snd_una > end) {
            self.new_round(ack);
        }
        if (w.cwnd as u64) < self.low_window * w.mss {
            return None;
        }
        if self.detect.ack_train() && ack.now - self.last_ack <= self.ack_delta {
            self.last_ack = ack.now;
            // The train has carried half of (min RTT + cushion) worth of ACKs.
            let threshold = SimTime((min + cushion(w, srtt)).0 / 2);
            if ack.now - self.round_start > threshold {
                self.found = Some(Exit::AckTrain);
                return self.found;
            }
        }
        if self.detect.delay() {
            let round = self.round_min.map_or(r, |m| m.min(r));
            self.round_min = Some(round);
            if self.samples < DELAY_SAMPLES {
                self.samples += 1;
            } else if round > min + delay_threshold(min) {
                self.found = Some(Exit::Delay);
                return self.found;
            }
        }
        None
    }
}

/// RFC 9406 §4.2: clamp(min RTT / 8, 4 ms, 16 ms).
pub fn delay_threshold(min_rtt: SimTime) -> SimTime {
    SimTime(min_rtt.0 / DELAY_DIVISOR).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH)
}

/// The ACK-train cushion: 4·GSO at slow start's pacing rate 2·cwnd/SRTT, at most 1 ms (none
/// before an SRTT exists, as Linux has no pacing rate then).
fn cushion(w: &Window, srtt: Option<SimTime>) -> SimTime {
    let Some(s) = srtt.filter(|s| s.0 > 0) else {
        return SimTime::ZERO;
    };
    let rate = 2.0 * w.cwnd / s.as_secs_f64(); // bytes per second
    let t = SimTime::from_secs_f64(4.0 * GSO_BYTES / rate);
    t.min(CUSHION_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::WindowUnit;

    const MSS: u64 = 1000;

    fn ack(now_us: u64, snd_una: u64, snd_max: u64, rtt_us: u64) -> Ack {
        Ack {
            now: SimTime::from_micros(now_us),
            acked: MSS,
            rtt: None,
            ca_rtt: Some(SimTime::from_micros(rtt_us)),
            snd_una,
            snd_max,
        }
    }

    fn hystart(detect: HyStartDetect) -> HyStart {
        HyStart::new(&TcpConfig {
            hystart_detect: detect,
            ..TcpConfig::default()
        })
    }

    /// A round of `n` ACKs from `t0_us`, `gap_us` apart, all with RTT `rtt_us`, acknowledging
    /// one segment each from `una0`; the round's snd_nxt is `end`. Returns the exit and the
    /// index of the ACK that produced it.
    fn round(
        h: &mut HyStart,
        w: &Window,
        (t0_us, gap_us, n): (u64, u64, u64),
        (una0, end): (u64, u64),
        rtt_us: u64,
    ) -> Option<(Exit, u64)> {
        (0..n).find_map(|k| {
            let a = ack(t0_us + k * gap_us, una0 + (k + 1) * MSS, end, rtt_us);
            h.on_ack(w, &a, None).map(|e| (e, k))
        })
    }

    /// 40 ms minimum RTT, no SRTT (no cushion): the train must last more than 20 ms. ACKs 1 ms
    /// apart: the 22nd ACK (21 ms after the first) ends slow start; with a 3 ms gap (over the
    /// 2 ms `hystart_ack_delta`) the train never forms; with the test switched off nothing ends.
    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let w = Window::new(WindowUnit::Bytes, MSS, 40 * MSS, u64::MAX);
        let run = |detect, gap_us| {
            let mut h = hystart(detect);
            round(&mut h, &w, (0, gap_us, 40), (0, 40 * MSS), 40_000)
        };
        assert_eq!(run(HyStartDetect::Both, 1000), Some((Exit::AckTrain, 21)));
        assert_eq!(
            run(HyStartDetect::AckTrain, 1000),
            Some((Exit::AckTrain, 21))
        );
        assert_eq!(run(HyStartDetect::Both, 3000), None);
        assert_eq!(run(HyStartDetect::Delay, 1000), None);
    }

    /// One gap over 2 ms ends the train for the rest of the round; the next round starts a new
    /// one, at the ACK that passes the first round's snd_nxt (not at the one that reaches it).
    #[test]
    fn a_gap_breaks_the_train_until_the_next_round() {
        let w = Window::new(WindowUnit::Bytes, MSS, 40 * MSS, u64::MAX);
        let mut h = hystart(HyStartDetect::AckTrain);
        // Round 1 (snd_nxt 30 000): 10 ACKs 1 ms apart, a 5 ms gap, then 1 ms again to 20 ACKs:
        // 28 ms after the round began, but the train broke at 9 ms.
        assert_eq!(round(&mut h, &w, (0, 1000, 10), (0, 30_000), 40_000), None);
        assert_eq!(
            round(&mut h, &w, (14_000, 1000, 20), (10_000, 30_000), 40_000),
            None
        );
        // snd_una = 30 000 reaches the round's snd_nxt but does not pass it: still round 1.
        assert_eq!(
            h.on_ack(&w, &ack(40_000, 30_000, 60_000, 40_000), None),
            None
        );
        assert_eq!(h.round_end, Some(30_000));
        // Passing it starts round 2 (snd_nxt 60 000) and a new train: 21 ms later it ends.
        assert_eq!(
            round(&mut h, &w, (50_000, 1000, 30), (30_000, 60_000), 40_000),
            Some((Exit::AckTrain, 21))
        );
        assert_eq!(h.round_end, Some(60_000));
    }

    /// The delay test compares the smallest sample of the round with the minimum once at least
    /// 8 samples were taken, i.e. from the 9th sample on; the minimum includes every sample so
    /// far. 40 ms minimum: threshold clamp(5 ms, 4, 16) = 5 ms.
    #[test]
    fn a_round_whose_samples_rise_above_the_threshold_ends_slow_start() {
        let w = Window::new(WindowUnit::Bytes, MSS, 20 * MSS, u64::MAX);
        let mut h = hystart(HyStartDetect::Delay);
        // Round 1: the minimum, 40 ms.
        assert_eq!(round(&mut h, &w, (0, 3000, 10), (0, 20_000), 40_000), None);
        // Round 2: 45 ms is not above 40 + 5.
        assert_eq!(
            round(&mut h, &w, (50_000, 3000, 20), (20_000, 40_000), 45_000),
            None
        );
        // Round 3: 45.001 ms is, on its 9th sample.
        assert_eq!(
            round(&mut h, &w, (100_000, 3000, 20), (40_000, 60_000), 45_001),
            Some((Exit::Delay, 8))
        );
        // With only the train test (3 ms gaps: no train) the same rise ends nothing.
        let mut h = hystart(HyStartDetect::AckTrain);
        round(&mut h, &w, (0, 3000, 10), (0, 20_000), 40_000);
        assert_eq!(
            round(&mut h, &w, (100_000, 3000, 20), (20_000, 40_000), 50_000),
            None
        );
        // The thresholds clamp: 4 ms under 32 ms of RTT, 16 ms above 128 ms.
        assert_eq!(
            delay_threshold(SimTime::from_millis(10)),
            SimTime::from_millis(4)
        );
        assert_eq!(
            delay_threshold(SimTime::from_millis(200)),
            SimTime::from_millis(16)
        );
    }

    /// Below `hystart_low_window` segments neither test runs; at it, both do.
    #[test]
    fn below_the_low_window_hystart_is_inactive() {
        let run = |cwnd_segs: u64, low: u32| {
            let mut h = HyStart::new(&TcpConfig {
                hystart_low_window: low,
                ..TcpConfig::default()
            });
            let w = Window::new(WindowUnit::Bytes, MSS, cwnd_segs * MSS, u64::MAX);
            round(&mut h, &w, (0, 1000, 40), (0, 40 * MSS), 40_000)
        };
        assert_eq!(run(15, 16), None);
        assert_eq!(run(16, 16), Some((Exit::AckTrain, 21)));
        assert_eq!(run(15, 8), Some((Exit::AckTrain, 21)));
    }

    /// The cushion: with SRTT 40 ms and cwnd 40 segments of 1000 B the pacing rate is 2 MB/s,
    /// 4·64 KiB of it is 131 ms: capped at 1 ms, so the train needs (40 + 1)/2 = 20.5 ms.
    #[test]
    fn the_train_threshold_carries_the_aggregation_cushion() {
        let w = Window::new(WindowUnit::Bytes, MSS, 40 * MSS, u64::MAX);
        assert_eq!(cushion(&w, Some(SimTime::from_millis(40))), CUSHION_MAX);
        assert_eq!(cushion(&w, None), SimTime::ZERO);
        let mut h = hystart(HyStartDetect::AckTrain);
        let srtt = Some(SimTime::from_millis(40));
        // ACKs 500 µs apart: the one at 20.5 ms (k = 41) does not pass it, the next does.
        let exit = (0..60u64).find_map(|k| {
            let a = ack(k * 500, (k + 1) * MSS, 100 * MSS, 40_000);
            h.on_ack(&w, &a, srtt).map(|_| k)
        });
        assert_eq!(exit, Some(42));
    }

    #[test]
    fn cubic_leaves_slow_start_on_the_delay_rise_only_with_the_switch() {
        use crate::tcp::cc::{CongestionControl, Cubic};
        use crate::tcp::rtt::RttEstimator;
        let run = |hystart: bool| {
            let mut cc = Cubic::new(&TcpConfig {
                hystart,
                hystart_detect: HyStartDetect::Delay,
                ..TcpConfig::default()
            });
            let est = RttEstimator::new(
                SimTime::from_secs(1),
                SimTime::from_millis(200),
                SimTime::from_secs(60),
                SimTime::from_millis(1),
            );
            let mut w = Window::new(WindowUnit::Bytes, MSS, 20 * MSS, u64::MAX);
            // Two rounds of 20 ACKs: 40 ms, then 50 ms (above 40 + 5 ms).
            for (round, rtt) in [(1, 40), (2, 50)] {
                for k in 0..20 {
                    let una = (round - 1) * 20_000 + k * MSS + MSS;
                    let a = ack(round * 100_000 + k * 3000, una, round * 20_000, rtt * 1000);
                    cc.on_ack(&mut w, &a, &est);
                }
            }
            w.ssthresh
        };
        // Round 2 begins at its first ACK (21 000 passes 20 000); its 9th sample ends slow
        // start at cwnd = 20 + 20 + 8 segments.
        assert_eq!(run(true), 48_000);
        assert_eq!(run(false), u64::MAX);
    }

    /// Below the 1 ms cap the cushion is four 64 KiB bursts at 2·cwnd/SRTT: with 1000 segments
    /// and 1 ms of SRTT that is 4·65 536 B / 2·10⁹ B/s = 131.072 µs.
    #[test]
    fn the_cushion_below_its_cap_is_four_gso_bursts_at_the_pacing_rate() {
        let w = Window::new(WindowUnit::Bytes, MSS, 1000 * MSS, u64::MAX);
        let c = cushion(&w, Some(SimTime::from_millis(1)));
        assert!((131_071..=131_073).contains(&c.0), "{c:?}");
        assert_eq!(Exit::AckTrain.name(), "ack_train");
        assert_eq!(Exit::Delay.name(), "delay");
    }

    /// A reset (a timeout) forgets the exit and the minimum RTT but keeps the configured tests,
    /// low window and ACK gap: here the delay test alone, 8 segments, 1 ms.
    #[test]
    fn a_reset_keeps_the_configuration() {
        let mut h = HyStart::new(&TcpConfig {
            hystart_detect: HyStartDetect::Delay,
            hystart_low_window: 8,
            hystart_ack_delta: SimTime::from_millis(1),
            ..TcpConfig::default()
        });
        let w = Window::new(WindowUnit::Bytes, MSS, 10 * MSS, u64::MAX);
        let rounds = |h: &mut HyStart| {
            round(h, &w, (0, 1000, 10), (0, 10 * MSS), 40_000);
            round(h, &w, (100_000, 1000, 20), (10 * MSS, 30 * MSS), 50_000)
        };
        assert_eq!(rounds(&mut h), Some((Exit::Delay, 8)));
        assert_eq!(h.found(), Some(Exit::Delay));
        h.reset();
        assert_eq!(h.found(), None);
        // 10 segments are over the low window of 8, not over the default 16.
        assert_eq!(rounds(&mut h), Some((Exit::Delay, 8)));
        assert_eq!(
            (h.detect, h.low_window, h.ack_delta),
            (HyStartDetect::Delay, 8, SimTime::from_millis(1))
        );
    }
}
