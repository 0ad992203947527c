//! BER of the 802.11a/g OFDM rates: the NIST error-rate model of ns-3 (G. Pei and
//! T. R. Henderson, "Validation of OFDM error rate model in ns-3", Boeing, 2010), whose coded
//! bound follows the NIST OFDM link study it is named after.
//!
//! The SINR is measured over the 20 MHz channel and used as the symbol SNR γ. Uncoded BER per
//! subcarrier modulation (AWGN, Gray mapping):
//! - BPSK: ½·erfc(√γ); QPSK: ½·erfc(√(γ/2));
//! - M-QAM (M = 16, 64, L = √M): (L − 1)/(L·log₂L) · erfc(√(3γ / (2(M − 1)))).
//!
//! Coded BER of the K = 7 (133, 171) convolutional code with hard-decision Viterbi decoding: the
//! union bound P_b ≤ 1/(2k) · Σ_d c_d · D^d with the Bhattacharyya parameter D = √(4p(1 − p)) of
//! the uncoded BER p; k = 1, 2, 3 for the code rates 1/2, 2/3, 3/4, and c_d the first ten terms
//! of the code's information-weight spectrum from its free distance on (rate 1/2: d_free = 10;
//! rates 2/3 and 3/4 punctured as in 802.11-2020 17.3.5.7, spectra of D. Haccoun and G. Bégin,
//! "High-rate punctured convolutional codes for Viterbi and sequential decoding", IEEE Trans.
//! Commun. 37(11), 1989). The bound is capped at 1.

use super::erfc;

/// The OFDM rates this file models (b/s): 802.11-2020 Table 17-4.
pub const RATES: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];

/// Subcarrier modulation of an OFDM rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modulation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
}

/// Convolutional code rate 1/2, 2/3 or 3/4 as k of k/(k+1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CodeRate(u32);

/// Modulation and coding of an OFDM rate: 802.11-2020 Table 17-4.
fn mcs(rate: u64) -> (Modulation, CodeRate) {
    use Modulation::*;
    match rate {
        6_000_000 => (Bpsk, CodeRate(1)),
        9_000_000 => (Bpsk, CodeRate(3)),
        12_000_000 => (Qpsk, CodeRate(1)),
        18_000_000 => (Qpsk, CodeRate(3)),
        24_000_000 => (Qam16, CodeRate(1)),
        36_000_000 => (Qam16, CodeRate(3)),
        48_000_000 => (Qam64, CodeRate(2)),
        _ => (Qam64, CodeRate(3)),
    }
}

/// Uncoded BER of `m` at symbol SNR `snr`.
fn uncoded_ber(m: Modulation, snr: f64) -> f64 {
    let qam = |size: f64| {
        let l = size.sqrt();
        (l - 1.0) / (l * l.log2()) * erfc((3.0 * snr / (2.0 * (size - 1.0))).sqrt())
    };
    match m {
        Modulation::Bpsk => 0.5 * erfc(snr.sqrt()),
        Modulation::Qpsk => 0.5 * erfc((snr / 2.0).sqrt()),
        Modulation::Qam16 => qam(16.0),
        Modulation::Qam64 => qam(64.0),
    }
}

/// Union bound on the decoded BER for uncoded BER `p` (module docs).
fn coded_ber(p: f64, code: CodeRate) -> f64 {
    // (first exponent d_free, c_d for d_free, d_free + step, …, step)
    let (d_free, step, spectrum): (i32, i32, &[f64]) = match code.0 {
        // Rate 1/2: only even distances occur.
        1 => (
            10,
            2,
            &[
                36.0,
                211.0,
                1404.0,
                11633.0,
                77433.0,
                502690.0,
                3322763.0,
                21292910.0,
                134365911.0,
            ],
        ),
        2 => (
            6,
            1,
            &[
                3.0, 70.0, 285.0, 1276.0, 6160.0, 27128.0, 117019.0, 498860.0, 2103891.0, 8784123.0,
            ],
        ),
        _ => (
            5,
            1,
            &[
                42.0,
                201.0,
                1492.0,
                10469.0,
                62935.0,
                379644.0,
                2253373.0,
                13073811.0,
                75152755.0,
                428005675.0,
            ],
        ),
    };
    let d = (4.0 * p * (1.0 - p)).sqrt();
    let sum: f64 = spectrum
        .iter()
        .enumerate()
        .map(|(i, c)| c * d.powi(d_free + step * i as i32))
        .sum();
    (sum / (2.0 * code.0 as f64)).min(1.0)
}

/// ln of the probability that one decoded bit at the OFDM `rate` survives at linear `sinr`.
pub fn ln_bit_success(rate: u64, sinr: f64) -> f64 {
    let (m, code) = mcs(rate);
    let p = uncoded_ber(m, sinr);
    if p == 0.0 {
        return 0.0;
    }
    (1.0 - coded_ber(p, code)).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncoded_bers_match_textbook_values() {
        // BPSK at Eb/N0 = 9.6 dB: the classic 1e-5 point, Q(√(2·9.12)) = 1.0e-5.
        let g = 10f64.powf(0.96);
        assert!((uncoded_ber(Modulation::Bpsk, g) / 1.0e-5 - 1.0).abs() < 0.05);
        // QPSK at symbol SNR 2γ has BPSK's BER at γ.
        assert!(
            (uncoded_ber(Modulation::Qpsk, 2.0 * g) / uncoded_ber(Modulation::Bpsk, g) - 1.0).abs()
                < 1e-12
        );
        // 16-QAM: ¾·Q(√(γ/5)) = ⅜·erfc(√(γ/10)); at γ = 100: ⅜·erfc(√10).
        let q16 = 0.375 * erfc(10f64.sqrt());
        assert!((uncoded_ber(Modulation::Qam16, 100.0) / q16 - 1.0).abs() < 1e-12);
        // 64-QAM at γ = 42·4: (7/24)·erfc(2).
        let q64 = 7.0 / 24.0 * erfc(2.0);
        assert!((uncoded_ber(Modulation::Qam64, 168.0) / q64 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_union_bound_starts_at_the_free_distance() {
        // For small p the first term dominates: (c_dfree / 2k)·(4p)^(d_free/2).
        let p: f64 = 1e-9;
        for (code, d_free, c, k) in [(1, 10, 36.0, 1.0), (2, 6, 3.0, 2.0), (3, 5, 42.0, 3.0)] {
            let want = c / (2.0 * k) * (4.0 * p).powf(d_free as f64 / 2.0);
            let got = coded_ber(p, CodeRate(code));
            assert!(
                (got / want - 1.0).abs() < 0.01,
                "rate {code}: {got} vs {want}"
            );
        }
        // The bound is capped: at p = ½ it is 1.
        assert_eq!(coded_ber(0.5, CodeRate(1)), 1.0);
    }
}
