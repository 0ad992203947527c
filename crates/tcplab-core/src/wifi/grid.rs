//! A uniform grid over one WLAN's stations, with square cells as wide as the largest distance at
//! which two stations can be in each other's neighbour lists (the WLAN's carrier-sense or, under
//! the SINR model, interference range). Every station within that distance of a point lies in the
//! point's cell or one of its eight neighbours, so a moved station's pairs are found among a few
//! cells instead of the whole WLAN.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::channel::Propagation;
use super::reception::Reception;

/// Cell coordinates (x, y) in cell widths.
pub(super) type Cell = (i32, i32);

/// The cells of one WLAN: which stations (global indices) each holds, with their positions (a
/// copy of `Station::pos`, so that a scan over a cell reads one short array), in no particular
/// order.
#[derive(Debug, Default)]
pub(super) struct Grid {
    /// Cell width (m); infinite when the range is unbounded (one cell holds every station).
    width: f64,
    cells: HashMap<Cell, Vec<Entry>, CellHash>,
}

/// A station and its position.
type Entry = (u32, (f64, f64));
type CellHash = BuildHasherDefault<CellHasher>;

impl Grid {
    pub(super) fn new(range: f64) -> Grid {
        Grid {
            width: range,
            cells: HashMap::default(),
        }
    }

    /// The cell that holds position `p`.
    pub(super) fn cell_of(&self, p: (f64, f64)) -> Cell {
        if !self.width.is_finite() {
            return (0, 0);
        }
        // `as` saturates: far-away or non-finite positions share the border cells, which
        // only costs candidates, never a missed pair.
        (
            (p.0 / self.width).floor() as i32,
            (p.1 / self.width).floor() as i32,
        )
    }

    pub(super) fn insert(&mut self, c: Cell, sta: u32, pos: (f64, f64)) {
        self.cells.entry(c).or_default().push((sta, pos));
    }

    pub(super) fn remove(&mut self, c: Cell, sta: u32) {
        if let Some(v) = self.cells.get_mut(&c) {
            if let Some(i) = v.iter().position(|e| e.0 == sta) {
                v.swap_remove(i);
            }
        }
    }

    /// The stations of cell `c` and its eight neighbours (a superset of those within range of
    /// any point of `c`) that `keep` accepts, unordered.
    pub(super) fn around(
        &self,
        c: Cell,
        mut keep: impl FnMut(u32, (f64, f64)) -> bool,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let mut scan = |k: Cell| {
            if let Some(v) = self.cells.get(&k) {
                out.extend(v.iter().filter(|e| keep(e.0, e.1)).map(|e| e.0));
            }
        };
        if !self.width.is_finite() {
            scan(c);
            return;
        }
        for dx in -1..=1 {
            for dy in -1..=1 {
                scan((c.0.saturating_add(dx), c.1.saturating_add(dy)));
            }
        }
    }
}

/// The largest distance at which `pair_link` can list a pair: beyond it a pair is neither sensed
/// nor, under the SINR model, within 20 dB of the noise floor, whatever its shadowing draw.
/// Infinite when no such distance exists (e.g. the unit disk's constant power under SINR). A
/// 0.1 % margin covers rounding in the power formulas and in the cell arithmetic.
pub(super) fn listing_range(prop: &Propagation, reception: &Reception) -> f64 {
    let floor = match reception {
        Reception::Threshold => f64::INFINITY,
        Reception::Sinr(p) => p.noise_w / 100.0,
    };
    let margin = |r: f64| r * 1.001 + 1e-6;
    let Some(radio) = prop.radio() else {
        // Unit disk: sensed within max(cs, rx) range; its power (1 W) reaches any floor below.
        if let Propagation::UnitDisk { rx_range, cs_range } = prop {
            if floor <= 1.0 {
                return f64::INFINITY;
            }
            return margin(cs_range.max(*rx_range));
        }
        return f64::INFINITY;
    };
    // The weakest power that gets a pair listed, and the strongest shadowing gain: the per-pair
    // draw is sqrt(-2 ln u1)·cos(..) with u1 ≥ 1e-300 (`pair_normal`), so |z| ≤ 37.2.
    let weakest = radio.cs_thresh.min(floor);
    let sigma = prop.shadowing_db();
    let z_max = (-2.0 * 1e-300f64.ln()).sqrt();
    let gain = 10f64.powf(sigma.abs() * z_max / 10.0);
    let listed = |d: f64| prop.power(d) * gain >= weakest;
    if weakest.is_nan() || weakest <= 0.0 || !gain.is_finite() {
        return f64::INFINITY;
    }
    // Power falls with distance in every model: double until unlisted, then bisect.
    let mut hi = 1.0;
    while listed(hi) {
        hi *= 2.0;
        if hi > 1e9 {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if listed(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    margin(hi)
}

/// A multiplicative hash for cell keys (the standard SipHash costs more than the cell work).
#[derive(Default)]
pub(super) struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64);
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(29) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::channel::RadioParams;
    use crate::wifi::reception::SinrParams;

    #[test]
    fn the_range_is_where_a_pair_stops_being_listed() {
        // ns-2 two-ray: carrier sense to 550 m (ALGORITHMS.md §6.2), plus the 0.1 % margin.
        let two_ray = Propagation::ns2_default();
        let r = listing_range(&two_ray, &Reception::Threshold);
        assert!(r > 550.0 && r < 551.5, "{r}");
        let cs = RadioParams::default().cs_thresh;
        assert!(two_ray.power(r) < cs && two_ray.power(r / 1.002) >= cs);
        // Under SINR the 20 dB-below-noise floor reaches farther than carrier sense.
        let sinr = Reception::Sinr(SinrParams::thermal(22e6, 7.0));
        assert!(listing_range(&two_ray, &sinr) > 2.0 * r);
        // The unit disk senses to max(cs, rx); its constant power is above any SINR floor.
        let disk = Propagation::UnitDisk {
            rx_range: 250.0,
            cs_range: 550.0,
        };
        assert!((listing_range(&disk, &Reception::Threshold) - 550.55).abs() < 0.01);
        assert_eq!(listing_range(&disk, &sinr), f64::INFINITY);
        // Shadowing draws reach 37 σ in principle: a bound of thousands of kilometres.
        let shadowed = Propagation::LogDistance {
            radio: RadioParams::default(),
            exponent: 3.0,
            ref_distance: 1.0,
            ref_loss_db: None,
            shadowing_db: 4.0,
        };
        assert!(listing_range(&shadowed, &Reception::Threshold) > 1e6);
    }

    #[test]
    fn a_cell_and_its_eight_neighbours_hold_everyone_within_range() {
        let mut g = Grid::new(100.0);
        let at = [
            (0.0, 0.0),
            (99.9, 99.9),
            (-0.1, 50.0),
            (250.0, 0.0),
            (150.0, -99.0),
        ];
        for (i, &p) in at.iter().enumerate() {
            g.insert(g.cell_of(p), i as u32, p);
        }
        assert_eq!(g.cell_of((-0.1, 50.0)), (-1, 0));
        let mut out = Vec::new();
        g.around(g.cell_of((50.0, 50.0)), |_, _| true, &mut out);
        out.sort_unstable();
        assert_eq!(out, vec![0, 1, 2, 4], "(250, 0) is two cells away");
        g.remove(g.cell_of(at[1]), 1);
        g.around(g.cell_of((50.0, 50.0)), |_, _| true, &mut out);
        out.sort_unstable();
        assert_eq!(out, vec![0, 2, 4]);
        // An unbounded range: one cell for all.
        let mut one = Grid::new(f64::INFINITY);
        for (i, &p) in at.iter().enumerate() {
            one.insert(one.cell_of(p), i as u32, p);
        }
        one.around(one.cell_of((1e9, -1e9)), |_, _| true, &mut out);
        assert_eq!(out.len(), at.len());
    }
}
