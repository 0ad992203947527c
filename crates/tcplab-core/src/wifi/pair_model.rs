//! One WLAN's propagation with its per-WLAN constants worked out once: what a position refresh
//! evaluates for every pair in range. The two-ray ground and free-space powers are the same
//! floating-point operations, in the same order, as [`Propagation::power`] (so the same bits);
//! only the factors that do not depend on the distance (Pt·Gt·Gr·λ², Pt·Gt·Gr·h_t²·h_r², the
//! crossover distance) are computed once instead of per pair. Every other model, and any
//! shadowing, goes through [`Propagation::reach_shadowed`] / [`Propagation::reach`] as before.

use super::channel::{Propagation, Reach, SPEED_OF_LIGHT};
use super::reception::Reception;
use super::{pair_normal, WlanConfig};
use crate::time::SimTime;

#[derive(Clone, Debug)]
enum Power {
    /// Friis below `crossover`, two-ray ground beyond (ns-2.35 `mobile/tworayground.cc`).
    TwoRay {
        friis_num: f64,
        two_ray_num: f64,
        l: f64,
        crossover: f64,
    },
    FreeSpace {
        friis_num: f64,
        l: f64,
    },
    /// Unit disk, log-distance, or any shadowing: the general formulas.
    General,
}

/// Who hears whom for one WLAN, given two stations' squared distance.
#[derive(Clone, Debug)]
pub(super) struct PairModel {
    power: Power,
    cs_thresh: f64,
    rx_thresh: f64,
    /// Under SINR, a pair is also listed when its power is within 20 dB of the noise.
    floor: f64,
    sigma: f64,
}

impl PairModel {
    pub(super) fn new(cfg: &WlanConfig) -> PairModel {
        let floor = match &cfg.reception {
            Reception::Threshold => f64::INFINITY,
            Reception::Sinr(p) => p.noise_w / 100.0,
        };
        let sigma = cfg.propagation.shadowing_db();
        // The same expressions as `Propagation::power`, minus the distance.
        let friis_num = |r: &super::RadioParams| {
            let lambda = SPEED_OF_LIGHT / r.freq;
            r.pt * r.gt * r.gr * lambda * lambda
        };
        let power = match &cfg.propagation {
            _ if sigma > 0.0 => Power::General,
            Propagation::TwoRayGround(r) => {
                let lambda = SPEED_OF_LIGHT / r.freq;
                Power::TwoRay {
                    friis_num: friis_num(r),
                    two_ray_num: r.pt * r.gt * r.gr * (r.ht * r.ht * r.hr * r.hr),
                    l: r.l,
                    crossover: 4.0 * std::f64::consts::PI * r.ht * r.hr / lambda,
                }
            }
            Propagation::FreeSpace(r) => Power::FreeSpace {
                friis_num: friis_num(r),
                l: r.l,
            },
            _ => Power::General,
        };
        let (cs_thresh, rx_thresh) = cfg
            .propagation
            .radio()
            .map_or((f64::NAN, f64::NAN), |r| (r.cs_thresh, r.rx_thresh));
        PairModel {
            power,
            cs_thresh,
            rx_thresh,
            floor,
            sigma,
        }
    }

    /// Stations `a` < `b`, `d2` square metres apart squared: their reach and delay if either
    /// lists the other — exactly what `Wifi::pair_link` gives.
    #[inline]
    pub(super) fn pair(
        &self,
        cfg: &WlanConfig,
        seed: u64,
        a: u32,
        b: u32,
        d2: f64,
    ) -> Option<(Reach, SimTime)> {
        let d = d2.sqrt();
        let thresholds = |p: f64| Reach {
            power: p,
            sensed: p >= self.cs_thresh,
            decodable: p >= self.rx_thresh,
        };
        let reach = match self.power {
            Power::TwoRay {
                friis_num,
                two_ray_num,
                l,
                crossover,
            } => {
                let d = d.max(1e-3);
                thresholds(if d < crossover {
                    let k = 4.0 * std::f64::consts::PI * d;
                    friis_num / (k * k * l)
                } else {
                    two_ray_num / (d.powi(4) * l)
                })
            }
            Power::FreeSpace { friis_num, l } => {
                let k = 4.0 * std::f64::consts::PI * d.max(1e-3);
                thresholds(friis_num / (k * k * l))
            }
            Power::General if self.sigma > 0.0 => {
                let shadow = self.sigma * pair_normal(seed, a, b);
                cfg.propagation.reach_shadowed(d, shadow)
            }
            Power::General => cfg.propagation.reach(d),
        };
        (reach.sensed || reach.power >= self.floor).then(|| (reach, cfg.prop_delay(d)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::channel::RadioParams;

    #[test]
    fn the_constants_give_the_same_bits_as_the_propagation_formulas() {
        // Two-ray ground (Friis below its ~86 m crossover) and free space, with thresholds and
        // under SINR: distances from 0 to 7.4 km, the listed pairs' power bit for bit
        // `Propagation::reach`'s, and every sensed pair listed.
        let radio = RadioParams {
            gt: 1.3,
            ht: 1.7,
            l: 1.1,
            ..RadioParams::default()
        };
        use crate::wifi::{MacParams, Mode, PhyParams, RateSelection, SignalConfig, SinrParams};
        let mut cfg = WlanConfig {
            name: "w".into(),
            mode: Mode::AdHoc,
            phy: PhyParams::ns2_dsss(),
            mac: MacParams::default(),
            propagation: Propagation::ns2_default(),
            rate: RateSelection::Fixed(2_000_000),
            signals: SignalConfig::default(),
            delay_from_distance: true,
            reception: Reception::Threshold,
        };
        for prop in [
            Propagation::ns2_default(),
            Propagation::TwoRayGround(radio.clone()),
            Propagation::FreeSpace(radio),
        ] {
            for sinr in [false, true] {
                cfg.propagation = prop.clone();
                cfg.reception = if sinr {
                    Reception::Sinr(SinrParams::thermal(22e6, 7.0))
                } else {
                    Reception::Threshold
                };
                let m = PairModel::new(&cfg);
                assert!(!matches!(m.power, Power::General));
                let (mut listed, mut friis) = (0, 0);
                for k in 0..20_000 {
                    let d2 = (k as f64 * 0.37).powi(2);
                    let d = d2.sqrt();
                    let want = cfg.propagation.reach(d);
                    let got = m.pair(&cfg, 1, 0, 1, d2);
                    if let Some((r, delay)) = got {
                        assert_eq!(r.power.to_bits(), want.power.to_bits(), "{prop:?} at {d} m");
                        assert_eq!(delay, cfg.prop_delay(d));
                        assert_eq!((r.sensed, r.decodable), (want.sensed, want.decodable));
                        listed += 1;
                        friis += (d < 86.0) as u32;
                    } else {
                        assert!(!want.sensed, "{prop:?} at {d} m");
                    }
                }
                assert!(listed > 1000 && friis > 100, "{prop:?}: {listed} listed");
            }
        }
    }
}
