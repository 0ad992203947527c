//! Packet/frame loss models: none, Bernoulli, and the two-state Gilbert–Elliott chain.
//!
//! Gilbert–Elliott: states Good and Bad with per-packet transition probabilities p = P(G→B) and
//! q = P(B→G), and loss probabilities e_G, e_B. Stationary π_B = p/(p+q); mean loss
//! π_G·e_G + π_B·e_B; mean bad-burst length 1/q packets; with e_G = 0, e_B = 1 the lag-1
//! autocorrelation of the loss indicator is 1 − p − q (ALGORITHMS.md §1.4).

use crate::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
}

impl LossModel {
    /// A Gilbert–Elliott chain with loss 0 in Good and 1 in Bad, given the mean loss rate and
    /// the mean length of a bad burst in packets (≥ 1).
    pub fn gilbert_from_mean(mean: f64, burst: f64) -> LossModel {
        let q = 1.0 / burst.max(1.0);
        let p = if mean >= 1.0 {
            1.0
        } else {
            (mean * q / (1.0 - mean)).min(1.0)
        };
        LossModel::GilbertElliott {
            p_gb: p,
            p_bg: q,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
        }
    }

    /// Advances the model by one packet and says whether that packet is lost.
    #[inline]
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
            } => {
                // Transition first, then draw the loss in the new state.
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
        }
    }

    /// The stationary mean loss probability.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                ..
            } => {
                if p_gb + p_bg == 0.0 {
                    return loss_good;
                }
                let pb = p_gb / (p_gb + p_bg);
                (1.0 - pb) * loss_good + pb * loss_bad
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn gilbert_mean_and_burst_length() {
        let mut m = LossModel::gilbert_from_mean(0.05, 4.0);
        assert!((m.mean_loss() - 0.05).abs() < 1e-12);
        let mut rng = Rng::derive(3, StreamId::Custom(9));
        let n = 2_000_000;
        let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
        for _ in 0..n {
            let l = m.lose(&mut rng);
            if l {
                lost += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        let rate = lost as f64 / n as f64;
        let mean_burst = lost as f64 / bursts as f64;
        assert!((rate - 0.05).abs() / 0.05 < 0.03, "rate {rate}");
        assert!((mean_burst - 4.0).abs() / 4.0 < 0.05, "burst {mean_burst}");
    }

    /// ALGORITHMS.md §1.4: the mean loss is π_G·e_G + π_B·e_B with π_B = p/(p+q), for any e_G,
    /// e_B (the chain above has e_G = 0, e_B = 1); a chain that never leaves Good loses e_G.
    #[test]
    fn gilbert_mean_loss_is_the_stationary_mix_of_both_states() {
        let ge = |p_gb, p_bg, loss_good, loss_bad| LossModel::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
            bad: false,
        };
        let close = |m: LossModel, want: f64| {
            let got = m.mean_loss();
            assert!((got - want).abs() < 1e-12, "{m:?}: {got} vs {want}");
        };
        // p = q: π_B = 1/2.
        close(ge(0.1, 0.1, 0.02, 0.5), 0.5 * 0.02 + 0.5 * 0.5);
        // π_B = 0.2 / 0.8 = 1/4.
        close(ge(0.2, 0.6, 0.04, 0.4), 0.75 * 0.04 + 0.25 * 0.4);
        // Absorbed in Bad (q = 0) or held in Good (p = 0), and the chain that never moves.
        close(ge(0.5, 0.0, 0.04, 0.4), 0.4);
        close(ge(0.0, 0.5, 0.04, 0.4), 0.04);
        close(ge(0.0, 0.0, 0.04, 0.4), 0.04);
        close(LossModel::Bernoulli { p: 0.3 }, 0.3);
        close(LossModel::None, 0.0);
    }

    #[test]
    fn bernoulli_rate() {
        let mut m = LossModel::Bernoulli { p: 0.01 };
        let mut rng = Rng::derive(4, StreamId::Custom(9));
        let lost = (0..1_000_000).filter(|_| m.lose(&mut rng)).count();
        assert!((lost as f64 / 1e6 - 0.01).abs() < 0.0005);
    }
}
