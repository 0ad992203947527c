//! BER of the 802.11b DSSS/CCK rates (additive white Gaussian noise, interference treated as
//! noise), as derived by G. Pei and T. R. Henderson, "Validation of ns-3 802.11b PHY model"
//! (2009), with Eb/N0 = SINR · 22 MHz / symbol rate / bits per symbol (the SINR is measured over
//! the 22 MHz channel):
//! - 1 Mb/s DBPSK: BER = ½·exp(−Eb/N0);
//! - 2 Mb/s DQPSK: BER ≈ (√2 + 1)/√(8π√2) · (Eb/N0)^(−½) · exp(−(2 − √2)·Eb/N0);
//! - 5.5 Mb/s CCK (4 bits/symbol, 1.375 Msym/s): symbol error of a 16-signal biorthogonal set,
//!   SEP₁₆(E) = 1 − ∫_{−β}^{∞} (2Φ(x + β) − 1)⁷ φ(x) dx with β = √(2E), E = 4·Eb/N0 / 2;
//! - 11 Mb/s CCK (8 bits/symbol): SEP = 1 − (1 − SEP₁₆(8·Eb/N0 / 4))².

use super::erfc;

/// The 802.11b rates this file models (b/s).
pub const RATES: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// Standard normal CDF Φ.
fn phi_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Symbol error probability of a 16-signal biorthogonal set (CCK) at symbol energy ratio `e`.
fn sep16(e: f64) -> f64 {
    let beta = (2.0 * e).sqrt();
    // Simpson's rule over [−β, 10]: the integrand vanishes beyond a few standard deviations.
    let (a, b, n) = (-beta, 10.0, 400);
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

/// ln of the probability that one bit at the DSSS/CCK `rate` survives at linear `sinr`.
pub fn ln_bit_success(rate: u64, sinr: f64) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbpsk_has_the_processing_gain() {
        // DBPSK with 22x processing gain: at SINR −3 dB, Eb/N0 = 11 and BER = ½·exp(−Eb/N0).
        let sinr = 0.5;
        let ber = 1.0 - ln_bit_success(1_000_000, sinr).exp();
        let want = 0.5 * (-22.0 * sinr).exp();
        assert!((ber / want - 1.0).abs() < 1e-9, "{ber} vs {want}");
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
