//! Warnings: a valid scenario that will not do what its author most likely means. They do not
//! stop the run; they are printed before it and carried in its summary.
//!
//! Today: a WLAN station that cannot hear its peer at its start position (a station beyond its
//! AP's reception range, or an ad hoc station that hears no other station), whose flows would
//! otherwise report 0 bytes with no reason given.

use super::schema::{Scenario, WlanMode, WlanSpec};
use super::{wlan_config, FieldError};

/// Every warning of a validated scenario, each with the field path it is about.
pub fn warnings(s: &Scenario) -> Vec<FieldError> {
    let mut out = Vec::new();
    for (wi, w) in s.wlans.iter().enumerate() {
        unreachable_stations(w, &format!("wlans[{wi}]"), &mut out);
    }
    out
}

fn unreachable_stations(w: &WlanSpec, loc: &str, out: &mut Vec<FieldError>) {
    let prop = wlan_config(w).propagation;
    let pos = |i: usize| {
        let (x, y) = w.stations[i].position;
        (x.metres(), y.metres())
    };
    let dist = |i: usize, j: usize| {
        let ((xi, yi), (xj, yj)) = (pos(i), pos(j));
        (xi - xj).hypot(yi - yj)
    };
    // Frames are decoded when the received power clears the reception threshold (ns-2's
    // threshold model) or, for the unit disk, within rx_range; the channel is symmetric.
    let hears = |i: usize, j: usize| prop.reach(dist(i, j)).decodable;
    let n = w.stations.len();
    match w.mode {
        WlanMode::Infrastructure => {
            let Some(ap) = w
                .stations
                .iter()
                .position(|st| Some(&st.node) == w.ap.as_ref())
            else {
                return;
            };
            for i in (0..n).filter(|&i| i != ap && !hears(i, ap)) {
                out.push(FieldError {
                    loc: format!("{loc}.stations[{i}].position"),
                    msg: format!(
                        "station {} is {:.1} m from the AP {}, beyond its reception range: no frame \
                         between them can be received, so its flows will deliver nothing",
                        w.stations[i].node,
                        dist(i, ap),
                        w.stations[ap].node
                    ),
                });
            }
        }
        WlanMode::Adhoc => {
            let points: Vec<(f64, f64)> = (0..n).map(pos).collect();
            let nearest = nearest_others(&points);
            for (i, near) in nearest.iter().enumerate() {
                if let Some(j) = near.filter(|&j| !hears(i, j)) {
                    out.push(FieldError {
                        loc: format!("{loc}.stations[{i}].position"),
                        msg: format!(
                            "station {} hears no other station of {} at its start position \
                             (nearest: {} at {:.1} m, beyond reception range): it can neither \
                             relay nor reach a peer",
                            w.stations[i].node,
                            w.name,
                            w.stations[j].node,
                            dist(i, j)
                        ),
                    });
                }
            }
        }
    }
}

/// The distance between two start positions (one formula, so that the sweep below and a
/// comparison of every pair find the same nearest station).
fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// For each point, the nearest other point (the lowest index among equally near ones).
///
/// A sweep along the axis with the larger spread: the points sorted by that coordinate, each
/// compares only those whose coordinate differs by no more than the best distance found so
/// far. Comparing every pair took minutes at 10⁵ stations, before the run's memory estimate
/// could refuse it (issue 38); the sweep is O(N log N) for spread-out layouts.
fn nearest_others(p: &[(f64, f64)]) -> Vec<Option<usize>> {
    let spread = |c: fn(&(f64, f64)) -> f64| {
        let (lo, hi) = p
            .iter()
            .map(c)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        hi - lo
    };
    let along_x = spread(|q| q.0) >= spread(|q| q.1);
    let key = |i: usize| if along_x { p[i].0 } else { p[i].1 };
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let mut out = vec![None; p.len()];
    for (r, &i) in order.iter().enumerate() {
        let mut best: Option<(f64, usize)> = None;
        let consider = |j: usize, best: &mut Option<(f64, usize)>| -> bool {
            // |Δ key| ≤ the distance, so once the gap alone exceeds the best, nothing further
            // along this direction can be nearer (equal gaps are still looked at: a tie goes
            // to the lower index).
            let gap = (key(j) - key(i)).abs();
            if best.is_some_and(|(d, _)| gap > d) {
                return false;
            }
            let d = distance(p[i], p[j]);
            if best.is_none_or(|(bd, bj)| d < bd || (d == bd && j < bj)) {
                *best = Some((d, j));
            }
            true
        };
        for &j in &order[r + 1..] {
            if !consider(j, &mut best) {
                break;
            }
        }
        for &j in order[..r].iter().rev() {
            if !consider(j, &mut best) {
                break;
            }
        }
        out[i] = best.map(|(_, j)| j);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair compared: the reference the sweep must equal.
    fn brute(p: &[(f64, f64)]) -> Vec<Option<usize>> {
        (0..p.len())
            .map(|i| {
                (0..p.len())
                    .filter(|&j| j != i)
                    .min_by(|&a, &b| distance(p[i], p[a]).total_cmp(&distance(p[i], p[b])))
            })
            .collect()
    }

    /// Random layouts (spread out, on a line, on a lattice with ties, clustered) give the
    /// nearest station a comparison of every pair gives, ties to the lower index included.
    #[test]
    fn the_sweep_finds_the_nearest_station_every_pair_would() {
        let mut rng = crate::rng::Rng::derive(7, crate::rng::StreamId::Custom(0));
        let mut layouts: Vec<Vec<(f64, f64)>> = Vec::new();
        for n in [1, 2, 3, 10, 200] {
            layouts.push(
                (0..n)
                    .map(|_| (rng.uniform() * 1500.0, rng.uniform() * 300.0))
                    .collect(),
            );
            layouts.push((0..n).map(|_| (50.0, rng.uniform() * 1000.0)).collect());
            layouts.push(
                (0..n)
                    .map(|k| ((k % 7) as f64 * 200.0, (k / 7) as f64 * 200.0))
                    .collect(),
            );
            layouts.push(
                (0..n)
                    .map(|_| ((rng.uniform() * 4.0).floor(), (rng.uniform() * 4.0).floor()))
                    .collect(),
            );
        }
        for p in &layouts {
            assert_eq!(nearest_others(p), brute(p), "{p:?}");
        }
    }
}
