//! Propagation and rate selection: what power a receiver at distance d sees, whether it can
//! decode or only sense a frame, and which data rate a sender uses towards it.
//!
//! Two models, as in ns-2 (ALGORITHMS.md §6.2):
//! - **Unit disk**: decodable within `rx_range`, sensed (busy medium, undecodable) within
//!   `cs_range`, nothing beyond; any two overlapping frames collide (no power, so no capture).
//! - **Free space / two-ray ground** with ns-2's Phy/WirelessPhy defaults: received power from the
//!   Friis equation, or the two-ray ground equation beyond the crossover distance
//!   d_c = 4π·h_t·h_r/λ (ns-2.35 `mobile/tworayground.cc`); decodable above `rx_thresh`, sensed
//!   above `cs_thresh`; a frame survives an overlapping one if its power is at least
//!   `cp_thresh` times the other's (ns-2 capture, 10 dB).
//! - **Log-distance**: Pr(d) = Pt − L₀ − 10·n·log₁₀(d/d₀) (dB), L₀ the free-space loss at d₀ unless
//!   given, optionally plus a log-normal shadowing term X ~ N(0, σ²) dB drawn once per station
//!   pair (a static channel; T. S. Rappaport, Wireless Communications, 2nd ed., §4.9–4.10).

/// Speed of light used for λ = c/f (ns-2 `SPEED_OF_LIGHT`).
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

#[derive(Clone, Debug, PartialEq)]
pub struct RadioParams {
    /// Transmit power (W); ns-2 `Pt_ 0.28183815`.
    pub pt: f64,
    /// Carrier frequency (Hz); ns-2 `freq_ 914e6`.
    pub freq: f64,
    /// Antenna gains and heights (m); ns-2 OmniAntenna `Gt_ = Gr_ = 1`, `Z_ = 1.5`.
    pub gt: f64,
    pub gr: f64,
    pub ht: f64,
    pub hr: f64,
    /// System loss; ns-2 `L_ 1.0`.
    pub l: f64,
    /// ns-2 `RXThresh_ 3.652e-10` W (250 m two-ray).
    pub rx_thresh: f64,
    /// ns-2 `CSThresh_ 1.559e-11` W (550 m two-ray).
    pub cs_thresh: f64,
    /// ns-2 `CPThresh_ 10.0` (linear, 10 dB).
    pub cp_thresh: f64,
}

impl Default for RadioParams {
    fn default() -> Self {
        RadioParams {
            pt: 0.281_838_15,
            freq: 914e6,
            gt: 1.0,
            gr: 1.0,
            ht: 1.5,
            hr: 1.5,
            l: 1.0,
            rx_thresh: 3.652e-10,
            cs_thresh: 1.559e-11,
            cp_thresh: 10.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Propagation {
    UnitDisk {
        rx_range: f64,
        cs_range: f64,
    },
    FreeSpace(RadioParams),
    TwoRayGround(RadioParams),
    LogDistance {
        radio: RadioParams,
        exponent: f64,
        ref_distance: f64,
        /// Path loss at `ref_distance` (dB); None: the free-space loss there.
        ref_loss_db: Option<f64>,
        /// Standard deviation of the per-pair log-normal shadowing (dB); 0: none.
        shadowing_db: f64,
    },
}

/// How a receiver perceives a transmitter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// Received power (W); 1.0 for every sensed pair under the unit disk.
    pub power: f64,
    pub sensed: bool,
    pub decodable: bool,
}

impl Propagation {
    /// ns-2's default: two-ray ground giving 250 m reception and 550 m carrier sense.
    pub fn ns2_default() -> Propagation {
        Propagation::TwoRayGround(RadioParams::default())
    }

    /// Received power (W) at distance `d` (m). Unit disk has no power model and returns 1.
    pub fn power(&self, d: f64) -> f64 {
        let friis = |r: &RadioParams, d: f64| {
            let lambda = SPEED_OF_LIGHT / r.freq;
            let k = 4.0 * std::f64::consts::PI * d;
            r.pt * r.gt * r.gr * lambda * lambda / (k * k * r.l)
        };
        match self {
            Propagation::UnitDisk { .. } => 1.0,
            Propagation::FreeSpace(r) => friis(r, d.max(1e-3)),
            Propagation::LogDistance {
                radio,
                exponent,
                ref_distance,
                ref_loss_db,
                ..
            } => {
                let d0 = ref_distance.max(1e-3);
                let l0 =
                    ref_loss_db.unwrap_or_else(|| 10.0 * (radio.pt / friis(radio, d0)).log10());
                let loss_db = l0 + 10.0 * exponent * (d.max(d0) / d0).log10();
                radio.pt * 10f64.powf(-loss_db / 10.0)
            }
            Propagation::TwoRayGround(r) => {
                let d = d.max(1e-3);
                let lambda = SPEED_OF_LIGHT / r.freq;
                let crossover = 4.0 * std::f64::consts::PI * r.ht * r.hr / lambda;
                if d < crossover {
                    friis(r, d)
                } else {
                    r.pt * r.gt * r.gr * (r.ht * r.ht * r.hr * r.hr) / (d.powi(4) * r.l)
                }
            }
        }
    }

    /// The radio parameters of a power-based model.
    pub fn radio(&self) -> Option<&RadioParams> {
        match self {
            Propagation::UnitDisk { .. } => None,
            Propagation::FreeSpace(r)
            | Propagation::TwoRayGround(r)
            | Propagation::LogDistance { radio: r, .. } => Some(r),
        }
    }

    /// The shadowing spread (dB) of the model, 0 if it has none.
    pub fn shadowing_db(&self) -> f64 {
        match self {
            Propagation::LogDistance { shadowing_db, .. } => *shadowing_db,
            _ => 0.0,
        }
    }

    /// How a receiver `d` m away perceives a transmitter, with `shadow_db` of shadowing.
    pub fn reach_shadowed(&self, d: f64, shadow_db: f64) -> Reach {
        match self.radio() {
            None => self.reach(d),
            Some(r) => {
                let p = self.power(d) * 10f64.powf(shadow_db / 10.0);
                Reach {
                    power: p,
                    sensed: p >= r.cs_thresh,
                    decodable: p >= r.rx_thresh,
                }
            }
        }
    }

    pub fn reach(&self, d: f64) -> Reach {
        match self {
            Propagation::UnitDisk { rx_range, cs_range } => Reach {
                power: 1.0,
                sensed: d <= cs_range.max(*rx_range),
                decodable: d <= *rx_range,
            },
            Propagation::FreeSpace(r)
            | Propagation::TwoRayGround(r)
            | Propagation::LogDistance { radio: r, .. } => {
                let p = self.power(d);
                Reach {
                    power: p,
                    sensed: p >= r.cs_thresh,
                    decodable: p >= r.rx_thresh,
                }
            }
        }
    }

    /// The power ratio at which the frame being received survives a new one (None: no capture).
    pub fn capture_ratio(&self) -> Option<f64> {
        self.radio().map(|r| r.cp_thresh)
    }
}

/// Data rate towards a receiver.
#[derive(Clone, Debug, PartialEq)]
pub enum RateSelection {
    Fixed(u64),
    /// (maximum distance in m, rate) steps in increasing distance; beyond the last step the last
    /// rate is used (e.g. 11 Mb/s to 50 m, 5.5 to 100 m, 2 to 150 m, then 1).
    Distance(Vec<(f64, u64)>),
}

impl RateSelection {
    pub fn rate(&self, d: f64) -> u64 {
        match self {
            RateSelection::Fixed(r) => *r,
            RateSelection::Distance(steps) => steps
                .iter()
                .find(|(max, _)| d <= *max)
                .or(steps.last())
                .map_or(1_000_000, |s| s.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_two_ray_thresholds_give_250_and_550_m() {
        let p = Propagation::ns2_default();
        // ALGORITHMS.md §6.2: Pr(250 m) = 3.652e-10 W, Pr(550 m) = 1.559e-11 W.
        assert!((p.power(250.0) / 3.652e-10 - 1.0).abs() < 1e-3);
        assert!((p.power(550.0) / 1.559e-11 - 1.0).abs() < 1e-3);
        assert!(p.reach(249.0).decodable && !p.reach(251.0).decodable);
        assert!(p.reach(549.0).sensed && !p.reach(551.0).sensed);
        // Below the crossover (≈ 86 m) the Friis equation holds and is continuous-ish at d_c.
        let fs = Propagation::FreeSpace(RadioParams::default());
        assert_eq!(p.power(50.0), fs.power(50.0));
        assert_eq!(p.capture_ratio(), Some(10.0));
    }

    #[test]
    fn log_distance_loses_10n_db_per_decade() {
        let radio = RadioParams::default();
        let ld = |ref_loss_db| Propagation::LogDistance {
            radio: radio.clone(),
            exponent: 3.0,
            ref_distance: 1.0,
            ref_loss_db,
            shadowing_db: 0.0,
        };
        let db = |p: f64| 10.0 * p.log10();
        let p = ld(Some(40.0));
        assert!((db(p.power(10.0)) - db(p.power(100.0)) - 30.0).abs() < 1e-9);
        assert!((db(radio.pt) - db(p.power(1.0)) - 40.0).abs() < 1e-9);
        // Without a reference loss: free space at d0.
        let fs = Propagation::FreeSpace(radio.clone());
        assert!((ld(None).power(1.0) / fs.power(1.0) - 1.0).abs() < 1e-9);
        // Shadowing scales the power by its dB.
        let r = ld(Some(40.0)).reach_shadowed(10.0, -3.0);
        assert!((db(r.power) - db(p.power(10.0)) + 3.0).abs() < 1e-9);
    }

    #[test]
    fn unit_disk_and_rate_steps() {
        let u = Propagation::UnitDisk {
            rx_range: 250.0,
            cs_range: 550.0,
        };
        assert!(u.reach(250.0).decodable);
        assert!(!u.reach(300.0).decodable && u.reach(300.0).sensed);
        assert!(!u.reach(600.0).sensed);
        assert_eq!(u.capture_ratio(), None);
        let r = RateSelection::Distance(vec![
            (50.0, 11_000_000),
            (100.0, 5_500_000),
            (150.0, 2_000_000),
            (250.0, 1_000_000),
        ]);
        assert_eq!(r.rate(10.0), 11_000_000);
        assert_eq!(r.rate(50.0), 11_000_000);
        assert_eq!(r.rate(120.0), 2_000_000);
        assert_eq!(r.rate(400.0), 1_000_000);
    }

    #[test]
    fn free_space_and_two_ray_powers_follow_their_equations() {
        // Free-space path loss in dB: 20·log10(d) + 20·log10(f) − 147.55 (d in m, f in Hz);
        // −147.55 is 20·log10(4π/c) rounded, hence the 0.01 dB bound.
        let radio = RadioParams {
            gt: 2.0,
            gr: 3.0,
            l: 4.0,
            ht: 1.2,
            hr: 2.5,
            ..RadioParams::default()
        };
        let db = |p: f64| 10.0 * p.log10();
        let gains_db = db(2.0 * 3.0 / 4.0);
        let fs = Propagation::FreeSpace(radio.clone());
        for d in [1.0, 100.0, 1000.0] {
            let fspl = 20.0 * f64::log10(d) + 20.0 * radio.freq.log10() - 147.55;
            let want = db(radio.pt) + gains_db - fspl;
            assert!((db(fs.power(d)) - want).abs() < 0.01, "{d} m");
        }
        // Two-ray ground beyond the crossover d_c = 4π·h_t·h_r/λ (≈ 115 m here), Friis below
        // it (ns-2.35 tworayground.cc): Pr = Pt·Gt·Gr·h_t²·h_r²/(d⁴·L).
        let tr = Propagation::TwoRayGround(radio.clone());
        let crossover = 4.0 * std::f64::consts::PI * 1.2 * 2.5 * radio.freq / SPEED_OF_LIGHT;
        assert!((crossover - 114.9).abs() < 0.1, "{crossover}");
        for d in [60.0, 110.0] {
            assert_eq!(tr.power(d), fs.power(d), "{d} m, below the crossover");
        }
        for d in [120.0f64, 400.0] {
            let want = radio.pt * 6.0 * (1.2f64 * 1.2 * 2.5 * 2.5) / (d.powi(4) * 4.0);
            assert!((tr.power(d) / want - 1.0).abs() < 1e-12, "{d} m");
        }
    }

    #[test]
    fn log_distance_counts_from_its_reference_distance() {
        // Pr(d) = Pt − L(d0) − 10·n·log10(d/d0); no gain closer than d0.
        let radio = RadioParams::default();
        let p = Propagation::LogDistance {
            radio: radio.clone(),
            exponent: 2.0,
            ref_distance: 4.0,
            ref_loss_db: Some(40.0),
            shadowing_db: 6.0,
        };
        let db = |x: f64| 10.0 * x.log10();
        assert!((db(radio.pt) - db(p.power(40.0)) - 60.0).abs() < 1e-9);
        assert!((db(radio.pt) - db(p.power(4.0)) - 40.0).abs() < 1e-9);
        assert_eq!(p.power(1.0), p.power(4.0));
        assert_eq!(p.shadowing_db(), 6.0);
        assert_eq!(Propagation::ns2_default().shadowing_db(), 0.0);
    }

    #[test]
    fn shadowing_moves_a_receiver_across_the_thresholds() {
        // ns-2 two-ray: 270 m is beyond the 250 m reception range, but 3 dB of shadowing
        // (×2) brings it above RXThresh; 600 m is beyond carrier sense until shadowed.
        let p = Propagation::ns2_default();
        let (plain, up) = (p.reach(270.0), p.reach_shadowed(270.0, 3.0));
        assert!(plain.sensed && !plain.decodable);
        assert!(up.sensed && up.decodable);
        assert!(!p.reach_shadowed(240.0, -3.0).decodable && p.reach(240.0).decodable);
        assert!(!p.reach(600.0).sensed && p.reach_shadowed(600.0, 3.0).sensed);
        assert!(!p.reach_shadowed(600.0, 3.0).decodable);
        // The unit disk has no power: shadowing changes nothing.
        let u = Propagation::UnitDisk {
            rx_range: 250.0,
            cs_range: 550.0,
        };
        assert_eq!(u.reach_shadowed(300.0, 20.0), u.reach(300.0));
        assert_eq!(u.reach(300.0).power, 1.0);
    }
}
