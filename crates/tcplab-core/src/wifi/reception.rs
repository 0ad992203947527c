//! Reception models: whether a frame a station is locked on survives.
//!
//! - **Threshold** (ns-2): decodable above the reception threshold; an overlapping frame destroys
//!   it unless it is `cp_thresh` times weaker (capture). The channel implements it with the
//!   `collided` flag of the lock.
//! - **SINR** (cumulative interference): the frame's signal against the noise floor plus the sum
//!   of every other frame arriving at the same time, whatever its power. The frame is cut into
//!   chunks of constant interference; chunk `i` of `n_i` bits at rate `r` succeeds with
//!   probability `(1 − BER_r(SINR_i))^n_i` (symbol-wise for CCK), and the frame succeeds with the
//!   product (one uniform draw at its end).
//!
//! BER per 802.11b rate (additive white Gaussian noise, interference treated as noise), as
//! derived by G. Pei and T. R. Henderson, "Validation of ns-3 802.11b PHY model" (2009), with
//! Eb/N0 = SINR · 22 MHz / symbol rate / bits per symbol:
//! - 1 Mb/s DBPSK: BER = ½·exp(−Eb/N0);
//! - 2 Mb/s DQPSK: BER ≈ (√2 + 1)/√(8π√2) · (Eb/N0)^(−½) · exp(−(2 − √2)·Eb/N0);
//! - 5.5 Mb/s CCK (4 bits/symbol, 1.375 Msym/s): symbol error of a 16-signal biorthogonal set,
//!   SEP₁₆(E) = 1 − ∫_{−β}^{∞} (2Φ(x + β) − 1)⁷ φ(x) dx with β = √(2E), E = 4·Eb/N0 / 2;
//! - 11 Mb/s CCK (8 bits/symbol): SEP = 1 − (1 − SEP₁₆(8·Eb/N0 / 4))².
//!
//! OFDM rates have no error model here yet: a scenario that selects the SINR model with an OFDM
//! rate is rejected by validation.

use std::sync::OnceLock;

use crate::time::SimTime;

/// Thermal noise density at 290 K (dBm/Hz).
const KT_DBM_HZ: f64 = -174.0;

/// The SINR model's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SinrParams {
    /// Noise floor at the receiver (W): thermal noise over the channel bandwidth plus the
    /// receiver's noise figure.
    pub noise_w: f64,
}

impl SinrParams {
    /// Thermal noise over `bandwidth_hz` with a noise figure of `nf_db` (ns-3's default 7 dB).
    pub fn thermal(bandwidth_hz: f64, nf_db: f64) -> SinrParams {
        SinrParams {
            noise_w: dbm_to_w(KT_DBM_HZ + 10.0 * bandwidth_hz.log10() + nf_db),
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

/// Rates with an error model: the 802.11b DSSS/CCK rates.
pub const SINR_RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// Complementary error function: W. H. Press et al., Numerical Recipes in C (2nd ed.), §6.2
/// `erfcc`, fractional error below 1.2e-7 everywhere.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Standard normal CDF Φ.
fn phi_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Symbol error probability of a 16-signal biorthogonal set (CCK) at symbol energy ratio `e`.
fn sep16(e: f64) -> f64 {
    let beta = (2.0 * e).sqrt();
    // Simpson's rule over [−β, 10]: the integrand vanishes beyond a few standard deviations.
    let (a, b, n) = (-beta, 10.0_f64.max(-beta + 1.0), 400);
    let h = (b - a) / n as f64;
    let f = |x: f64| {
        (2.0 * phi_cdf(x + beta) - 1.0).powi(7) * (-x * x / 2.0).exp()
            / (2.0 * std::f64::consts::PI).sqrt()
    };
    let mut s = f(a) + f(b);
    for i in 1..n {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    (1.0 - s * h / 3.0).clamp(0.0, 1.0)
}

/// ln of the probability that one bit at `rate` survives a chunk at linear `sinr`.
fn ln_bit_success_exact(rate: u64, sinr: f64) -> f64 {
    let spread = 22e6; // DSSS chip rate / channel bandwidth
    match rate {
        1_000_000 => {
            let ebn0 = sinr * spread / 1e6;
            (1.0 - 0.5 * (-ebn0).exp()).ln()
        }
        2_000_000 => {
            let ebn0 = sinr * spread / 1e6 / 2.0;
            let k = (2f64.sqrt() + 1.0) / (8.0 * std::f64::consts::PI * 2f64.sqrt()).sqrt();
            let ber = (k / ebn0.sqrt() * (-(2.0 - 2f64.sqrt()) * ebn0).exp()).min(0.5);
            (1.0 - ber).ln()
        }
        5_500_000 => {
            let ebn0 = sinr * spread / 1.375e6 / 4.0;
            (1.0 - sep16(4.0 * ebn0 / 2.0)).ln() / 4.0
        }
        _ => {
            let ebn0 = sinr * spread / 1.375e6 / 8.0;
            let sep = 1.0 - (1.0 - sep16(8.0 * ebn0 / 4.0)).powi(2);
            (1.0 - sep).ln() / 8.0
        }
    }
}

/// Table of `ln_bit_success_exact` per rate on a grid read straight from the bits of the SINR's
/// f64: its exponent and the top `MANT_BITS` bits of its mantissa (steps of 2^(1/64) in the
/// worst case, 0.047 dB), from 2^−4 (−12 dB) to 2^10 (+30 dB); linear in between. No logarithm
/// per chunk: the CCK integral is far too slow to evaluate per chunk, and so is `log10`.
const MANT_BITS: u32 = 6;
const SHIFT: u32 = 52 - MANT_BITS;
const LO_EXP: i64 = -4;
const HI_EXP: i64 = 10;

fn grid_key(x: f64) -> i64 {
    (x.to_bits() >> SHIFT) as i64
}

fn grid_lo() -> i64 {
    grid_key(2f64.powi(LO_EXP as i32))
}

fn grid_len() -> usize {
    (grid_key(2f64.powi(HI_EXP as i32)) - grid_lo()) as usize + 1
}

fn table(rate: u64) -> &'static [f64] {
    static TABLES: OnceLock<Vec<Vec<f64>>> = OnceLock::new();
    let t = TABLES.get_or_init(|| {
        SINR_RATES
            .iter()
            .map(|&r| {
                (0..grid_len())
                    .map(|i| {
                        let x = f64::from_bits(((grid_lo() + i as i64) as u64) << SHIFT);
                        ln_bit_success_exact(r, x).max(-50.0)
                    })
                    .collect()
            })
            .collect()
    });
    let i = SINR_RATES.iter().position(|&r| r == rate).unwrap_or(3);
    &t[i]
}

/// ln of the probability that one bit at `rate` survives at linear `sinr` (interpolated).
pub fn ln_bit_success(rate: u64, sinr: f64) -> f64 {
    let t = table(rate);
    // Also catches NaN: anything not above the grid is "no signal".
    if sinr.is_nan() || sinr <= 2f64.powi(LO_EXP as i32) {
        return t[0];
    }
    let i = (grid_key(sinr) - grid_lo()) as usize;
    if i + 1 >= t.len() {
        return t[t.len() - 1];
    }
    let frac = (sinr.to_bits() & ((1u64 << SHIFT) - 1)) as f64 / (1u64 << SHIFT) as f64;
    t[i] * (1.0 - frac) + t[i + 1] * frac
}

/// The SINR account of the frame a station is locked on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SinrLock {
    /// ln of the probability that the bits so far survived.
    pub ln_success: f64,
    /// Start of the current chunk of constant interference.
    pub since: SimTime,
}

impl SinrLock {
    pub fn new(start: SimTime) -> SinrLock {
        SinrLock {
            ln_success: 0.0,
            since: start,
        }
    }

    /// Closes the chunk [since, now) at `sinr` for a frame at `rate`.
    pub fn chunk(&mut self, now: SimTime, rate: u64, sinr: f64) {
        if now > self.since {
            let bits = (now - self.since).as_secs_f64() * rate as f64;
            self.ln_success += bits * ln_bit_success(rate, sinr);
            self.since = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn per(rate: u64, sinr_db: f64, bytes: f64) -> f64 {
        1.0 - (8.0 * bytes * ln_bit_success(rate, 10f64.powf(sinr_db / 10.0))).exp()
    }

    #[test]
    fn erfc_matches_known_values() {
        // Abramowitz & Stegun Table 7.1: erf(0.5) = 0.5204998778, erf(1) = 0.8427007929,
        // erf(2) = 0.9953222650.
        for (x, erf) in [
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (2.0, 0.995_322_265),
        ] {
            assert!((erfc(x) - (1.0 - erf)).abs() < 2e-7, "{x}");
        }
        assert!((erfc(-1.0) - (1.0 + 0.842_700_792_9)).abs() < 2e-7);
    }

    #[test]
    fn per_curves_are_ordered_by_rate_and_fall_with_sinr() {
        // A 1000-B frame: each rate needs more SINR than the one below it, and every curve
        // goes from certain loss to certain success within a few dB.
        let mut last_mid = -100.0;
        for r in SINR_RATES {
            let mid = (0..760)
                .map(|i| -8.0 + i as f64 * 0.05)
                .find(|&db| per(r, db, 1000.0) < 0.5)
                .unwrap();
            assert!(mid > last_mid, "rate {r}: PER 50 % at {mid} dB");
            assert!(per(r, mid - 3.0, 1000.0) > 0.99 && per(r, mid + 3.0, 1000.0) < 0.01);
            last_mid = mid;
        }
        // DBPSK with 22x processing gain: at 2^−1 (a grid point, −3.01 dB), Eb/N0 = 11 and
        // BER = ½·exp(−Eb/N0).
        let sinr = 0.5;
        let ber = 1.0 - ln_bit_success(1_000_000, sinr).exp();
        let want = 0.5 * (-22.0 * sinr).exp();
        assert!((ber / want - 1.0).abs() < 1e-3, "{ber} vs {want}");
        // Between grid points the table stays within 2 % of the exact value (in ln success).
        for r in SINR_RATES {
            for x in [0.37, 1.3, 2.9, 7.7] {
                let (a, b) = (ln_bit_success(r, x), ln_bit_success_exact(r, x));
                assert!(
                    (a - b).abs() <= 0.02 * b.abs() + 1e-12,
                    "rate {r} at {x}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn cck_symbol_errors_match_the_biorthogonal_limit() {
        // With no signal the 16 signals are nearly equally likely; with a strong one the
        // symbol error vanishes.
        assert!(sep16(1e-6) > 0.9);
        assert!(sep16(40.0) < 1e-6);
        // For large E the error is dominated by the 14 nearest signals: ≈ 14·Q(√E)
        // (here E = 20: 14·Q(4.47) = 5.5e-5).
        let q = 0.5 * erfc(20f64.sqrt() / std::f64::consts::SQRT_2);
        assert!(
            (sep16(20.0) / (14.0 * q) - 1.0).abs() < 0.1,
            "{}",
            sep16(20.0)
        );
    }
}
