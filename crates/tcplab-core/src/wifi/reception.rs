//! Reception models: whether a frame a station is locked on survives.
//!
//! - **Threshold** (ns-2): decodable above the reception threshold; an overlapping frame destroys
//!   it unless it is `cp_thresh` times weaker (capture). The channel implements it with the
//!   `collided` flag of the lock.
//! - **SINR** (cumulative interference): the frame's signal against the noise floor plus the sum
//!   of every other frame arriving at the same time, whatever its power. The frame is cut into
//!   chunks of constant interference; the bits of chunk `i` at rate `r` succeed with probability
//!   `(1 − BER_r(SINR_i))^n_i` (BER per rate: [`super::error_rate`]), and the frame succeeds with
//!   the product (one uniform draw at its end). As in ns-3's interference helper, the PLCP header
//!   counts at its own rate and the preamble and the ERP signal extension carry no bits:
//!   [`FrameSpans`].

use crate::time::SimTime;

use super::phy::PhyParams;

use super::error_rate::ln_bit_success;
pub use super::error_rate::SINR_RATES;

/// Thermal noise density at 290 K (dBm/Hz).
const KT_DBM_HZ: f64 = -174.0;

/// The SINR model's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SinrParams {
    /// Noise floor at the receiver (W): thermal noise over the channel bandwidth plus the
    /// receiver's noise figure.
    pub noise_w: f64,
    /// Which frames the PHY locks onto (the others are interference, and sensed if strong
    /// enough).
    pub preamble: PreambleDetection,
}

impl SinrParams {
    /// Thermal noise over `bandwidth_hz` with a noise figure of `nf_db` (ns-3's default 7 dB);
    /// the PHY locks onto every sensed frame.
    pub fn thermal(bandwidth_hz: f64, nf_db: f64) -> SinrParams {
        SinrParams {
            noise_w: dbm_to_w(KT_DBM_HZ + 10.0 * bandwidth_hz.log10() + nf_db),
            preamble: PreambleDetection::Sensed,
        }
    }
}

/// Whether an idle PHY locks onto an arriving frame. A locked frame is received to its end (an
/// undecodable one then counts as a reception error, which starts EIFS); a frame that is not
/// locked is only interference and busy medium.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PreambleDetection {
    /// Every sensed frame, as ns-2 does (its MAC takes every frame above the carrier-sense
    /// threshold as a reception, marked in error below the reception threshold) and ns-3 without
    /// a preamble detection model.
    Sensed,
    /// ns-3's `ThresholdPreambleDetectionModel`: only a frame at or above the reception threshold
    /// (its `MinimumRssi`) whose SINR when it arrives is at least `min_sinr` (its `Threshold`,
    /// 4 dB by default). A hidden station's weaker frame that arrives first then leaves the PHY
    /// free for the stronger one that follows.
    Threshold { min_sinr: f64 },
}

impl PreambleDetection {
    /// Whether a frame of power `power` (W), `decodable` by the propagation model's reception
    /// threshold, is locked onto, with `other_w` (W) of other signals and `noise_w` of noise.
    pub fn locks(self, power: f64, decodable: bool, other_w: f64, noise_w: f64) -> bool {
        match self {
            PreambleDetection::Sensed => true,
            PreambleDetection::Threshold { min_sinr } => {
                decodable && power >= min_sinr * (noise_w + other_w.max(0.0))
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Reception {
    Threshold,
    Sinr(SinrParams),
}

pub fn dbm_to_w(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0) / 1e3
}

/// Where a frame's bits lie in its air time, as offsets from its start: nothing during the
/// preamble, the PLCP header at `header_rate` until `data_from`, the PSDU at the frame's rate
/// until `data_to`, nothing after (ERP signal extension).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSpans {
    pub header_from: SimTime,
    pub data_from: SimTime,
    pub data_to: SimTime,
    pub header_rate: u64,
    pub rate: u64,
}

impl FrameSpans {
    /// The spans of a frame at `rate` lasting `air` (its PLCP included).
    pub fn new(phy: &PhyParams, rate: u64, air: SimTime) -> FrameSpans {
        let h = phy.plcp_header(rate);
        FrameSpans {
            header_from: h.preamble,
            data_from: h.preamble + h.header,
            data_to: air.saturating_sub(h.trailer),
            header_rate: h.rate,
            rate,
        }
    }
}

/// The SINR account of the frame a station is locked on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SinrLock {
    /// ln of the probability that the bits so far survived.
    pub ln_success: f64,
    /// Start of the current chunk of constant interference.
    pub since: SimTime,
    /// When the frame started arriving.
    pub start: SimTime,
    pub spans: FrameSpans,
}

impl SinrLock {
    /// The placeholder the threshold model carries (it never reads it).
    pub const UNUSED: SinrLock = SinrLock {
        ln_success: 0.0,
        since: SimTime::ZERO,
        start: SimTime::ZERO,
        spans: FrameSpans {
            header_from: SimTime::ZERO,
            data_from: SimTime::ZERO,
            data_to: SimTime::ZERO,
            header_rate: 0,
            rate: 0,
        },
    };

    pub fn new(start: SimTime, spans: FrameSpans) -> SinrLock {
        SinrLock {
            ln_success: 0.0,
            since: start,
            start,
            spans,
        }
    }

    /// Closes the chunk [since, now) at `sinr`: its header bits at the header rate, its data
    /// bits at the frame's rate.
    pub fn chunk(&mut self, now: SimTime, sinr: f64) {
        if now <= self.since {
            return;
        }
        let s = self.spans;
        let parts = [
            (
                self.start + s.header_from,
                self.start + s.data_from,
                s.header_rate,
            ),
            (self.start + s.data_from, self.start + s.data_to, s.rate),
        ];
        for (from, to, rate) in parts {
            let (a, b) = (self.since.max(from), now.min(to));
            if b > a {
                let bits = (b - a).as_secs_f64() * rate as f64;
                self.ln_success += bits * ln_bit_success(rate, sinr);
            }
        }
        self.since = now;
    }
}

/// The SINR of a frame received at `power` (W) while `arriving_w` arrives in all, the frame
/// itself included: the rest is interference, added to the `noise_w` floor. Rounding can leave the
/// running sum a hair below `power` once other frames have left, hence the floor.
#[inline]
pub fn sinr(power: f64, arriving_w: f64, noise_w: f64) -> f64 {
    power / (noise_w + arriving_w - power).max(noise_w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }

    #[test]
    fn header_bits_count_at_the_header_rate_and_the_preamble_carries_none() {
        // ERP-OFDM at 54 Mb/s, 1536 B: 16 µs preamble, 4 µs SIGNAL at 6 Mb/s, 57 symbols of
        // data, 6 µs signal extension (254 µs in all).
        let phy = PhyParams::erp_ofdm(false);
        let air = phy.duration(1536, 54_000_000);
        let spans = FrameSpans::new(&phy, 54_000_000, air);
        assert_eq!(
            (
                spans.header_from,
                spans.data_from,
                spans.data_to,
                spans.header_rate
            ),
            (us(16), us(20), us(248), 6_000_000)
        );
        let sinr = 10f64.powf(1.5);
        let t0 = us(100);
        let whole = |cut: &[u64]| {
            let mut l = SinrLock::new(t0, spans);
            for &c in cut {
                l.chunk(t0 + us(c), sinr);
            }
            l.chunk(t0 + air, sinr);
            l.ln_success
        };
        let want = 24.0 * ln_bit_success(6_000_000, sinr)
            + 228.0 * 54.0 * ln_bit_success(54_000_000, sinr);
        // However the frame is cut into chunks, the same bits count once.
        for cut in [&[][..], &[8], &[18, 30], &[20, 248, 250]] {
            let got = whole(cut);
            assert!((got / want - 1.0).abs() < 1e-9, "{cut:?}: {got} vs {want}");
        }
        // Interference during the preamble or the signal extension costs nothing.
        let mut l = SinrLock::new(t0, spans);
        l.chunk(t0 + us(16), 1e-3);
        l.chunk(t0 + us(248), sinr);
        l.chunk(t0 + air, 1e-3);
        assert!((l.ln_success / want - 1.0).abs() < 1e-9);
    }

    #[test]
    fn dsss_header_goes_at_one_mbps() {
        // 802.11b long preamble: 144 µs SYNC/SFD, 48 µs header at 1 Mb/s; short: 72 µs, then
        // 24 µs at 2 Mb/s.
        let long = PhyParams::hr_dsss(false);
        let s = FrameSpans::new(&long, 11_000_000, long.duration(1536, 11_000_000));
        assert_eq!(
            (s.header_from, s.data_from, s.header_rate),
            (us(144), us(192), 1_000_000)
        );
        let short = PhyParams::hr_dsss(true);
        let s = FrameSpans::new(&short, 11_000_000, short.duration(1536, 11_000_000));
        assert_eq!(
            (s.header_from, s.data_from, s.header_rate),
            (us(72), us(96), 2_000_000)
        );
        assert_eq!(s.data_to, short.duration(1536, 11_000_000));
    }

    #[test]
    fn thermal_noise_is_kt_times_the_bandwidth_times_the_noise_figure() {
        // N = k·T·B·F at T = 290 K: 20 MHz and a 7 dB noise figure give 4.0e-13 W (−94 dBm);
        // −174 dBm/Hz is kT (−173.975 dBm/Hz) rounded, 0.57 % low, hence the 1 % bound.
        let k_t = 1.380_649e-23 * 290.0;
        for (bw, nf_db) in [(20e6, 7.0), (22e6, 0.0), (1e6, 10.0)] {
            let want = k_t * bw * 10f64.powf(nf_db / 10.0);
            let p = SinrParams::thermal(bw, nf_db);
            assert!(
                (p.noise_w / want - 1.0).abs() < 1e-2,
                "{bw} Hz, {nf_db} dB: {}",
                p.noise_w
            );
            assert_eq!(p.preamble, PreambleDetection::Sensed);
        }
    }

    #[test]
    fn dbm_converts_to_watts() {
        // 0 dBm = 1 mW; 10 dB per decade.
        for (dbm, w) in [
            (0.0, 1e-3),
            (30.0, 1.0),
            (-30.0, 1e-6),
            (15.0, 10f64.powf(1.5) * 1e-3),
        ] {
            assert!((dbm_to_w(dbm) / w - 1.0).abs() < 1e-12, "{dbm} dBm");
        }
    }

    #[test]
    fn threshold_preamble_detection_needs_a_decodable_frame_at_min_sinr() {
        // ns-3 ThresholdPreambleDetectionModel: RSSI at or above MinimumRssi (here the
        // propagation model's `decodable`) and SINR >= Threshold at the frame's start.
        let th = PreambleDetection::Threshold { min_sinr: 3.0 };
        // Noise 1 W + 1 W of other frames: the frame needs 3 · 2 = 6 W.
        assert!(th.locks(6.0, true, 1.0, 1.0), "exactly at the threshold");
        assert!(th.locks(7.0, true, 1.0, 1.0));
        assert!(!th.locks(5.5, true, 1.0, 1.0), "below it");
        assert!(
            !th.locks(1e9, false, 0.0, 1.0),
            "not decodable, however strong"
        );
        // Other signals never count negative (a rounding remainder after a frame ends).
        assert!(th.locks(3.0, true, -1.0, 1.0));
        assert!(!th.locks(2.9, true, -1.0, 1.0));
        // Without a detection model every sensed frame is locked onto, decodable or not.
        assert!(PreambleDetection::Sensed.locks(1e-20, false, 1.0, 1.0));
    }

    #[test]
    fn the_plcp_header_and_the_psdu_each_count_at_their_own_rate() {
        // At 3 dB the 6 Mb/s SIGNAL field loses bits too, so each part's share is visible.
        let phy = PhyParams::erp_ofdm(false);
        let air = phy.duration(1536, 54_000_000);
        let spans = FrameSpans::new(&phy, 54_000_000, air);
        let (sinr, t0) = (2.0, us(100));
        let header = ln_bit_success(6_000_000, sinr);
        assert!(header < 0.0);
        let mut l = SinrLock::new(t0, spans);
        // Preamble and SIGNAL: the 24 header bits at 6 Mb/s.
        l.chunk(t0 + us(20), sinr);
        assert!((l.ln_success / (24.0 * header) - 1.0).abs() < 1e-9);
        // The next 10 µs: 540 data bits at 54 Mb/s.
        let before = l.ln_success;
        l.chunk(t0 + us(30), sinr);
        let data = 540.0 * ln_bit_success(54_000_000, sinr);
        assert!(((l.ln_success - before) / data - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_sinr_is_the_frame_over_the_noise_and_everything_else_arriving() {
        let (p, n) = (1e-9, 1e-12);
        // Alone: the SNR (to rounding: n + p - p is not quite n).
        assert!((sinr(p, p, n) / (p / n) - 1.0).abs() < 1e-9);
        // Two interferers of 1e-10 and 3e-10 W beside it.
        let s = sinr(p, p + 1e-10 + 3e-10, n);
        assert!((s / (p / (n + 4e-10)) - 1.0).abs() < 1e-12, "{s}");
        // A running sum rounded below the frame's own power is no interference.
        assert_eq!(sinr(p, p * (1.0 - 1e-15), n), p / n);
    }
}
