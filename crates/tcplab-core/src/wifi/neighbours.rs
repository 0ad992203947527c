//! Who hears whom: each station's neighbour list (the stations whose frames it senses or, under
//! the SINR model, that add to its interference), with the reach and delay of each pair.
//!
//! The lists are kept incrementally, from per-station **candidate lists** (a Verlet list, as in
//! molecular dynamics: L. Verlet, Phys. Rev. 159, 98 (1967)). Each station has an *anchor*, the
//! position it had when its candidates were last found, and its candidates are the stations of
//! its WLAN whose anchors lie within the listing range R plus a *skin* of its anchor. A station
//! that has moved more than half the skin from its anchor is re-anchored (its candidates found
//! again, and it added to or dropped from the others' lists). So no station is farther than
//! skin/2 from its anchor, and two stations within R of each other now have anchors within
//! R + skin: every pair that can be listed is among the candidates.
//!
//! The anchors are kept in a uniform [`Grid`] per WLAN, with cells R + skin wide, so a
//! re-anchored station's candidates are among its own and the eight surrounding cells. A
//! position refresh drops the moved stations' entries from their old neighbours, then computes
//! the moved stations' pairs with their candidates only: the work is proportional to the
//! stations that moved and their surroundings, not to the square of the WLAN's size, and the
//! cells are visited only for the few stations that re-anchor.
//!
//! Every list stays in member order (ascending station index), and every pair's reach and delay
//! come from the same computation ([`PairModel::pair`], bit for bit `Wifi::pair_link`), so the
//! lists are exactly those a recomputation of every pair gives: the order frames reach their
//! hearers — hence the event order and the run's results — do not depend on how the lists were
//! kept.

use super::grid::{self, Grid};
use super::pair_model::PairModel;
use super::{Nbr, Station, Wifi, Wlan};

/// The skin, as a share of the listing range. Larger: more candidates per station (they grow
/// as (1 + share)²); smaller: more re-anchoring. 10 % of ns-2's 550 m carrier-sense range is
/// 55 m: a station at 10 m/s re-anchors every 2.75 s, for 21 % more candidates than neighbours.
const SKIN_SHARE: f64 = 0.1;

/// One WLAN's pair geometry, fixed when the WLAN is added.
pub(super) struct Field {
    /// The anchors, in cells `R + skin` wide (one cell when R is unbounded).
    grid: Grid,
    /// R², the squared listing range: no pair farther apart is listed.
    range2: f64,
    /// (R + skin)²: the candidate radius, between anchors.
    cand2: f64,
    /// (skin/2)² (with 1 % to spare for rounding): a station farther than this from its anchor
    /// is re-anchored. Infinite when R is: every member is then a candidate of every other.
    drift2: f64,
    model: PairModel,
}

impl Field {
    fn new(w: &Wlan, skin_share: f64) -> Field {
        let range = grid::listing_range(&w.cfg.propagation, &w.cfg.reception);
        let skin = range * skin_share;
        Field {
            grid: Grid::new(range + skin),
            range2: range * range,
            cand2: (range + skin).powi(2),
            drift2: (0.5 * 0.99 * skin).powi(2),
            model: PairModel::new(&w.cfg),
        }
    }

    /// Whether every member is a candidate of every other (no finite range).
    fn unbounded(&self) -> bool {
        !self.drift2.is_finite()
    }
}

/// Squared distance between two points (the same expression `pair_link` takes the root of).
#[inline]
fn dist2(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)
}

/// Per-station state of the lists, and scratch of a refresh kept between refreshes so that none
/// allocates.
#[derive(Default)]
pub(super) struct Refresh {
    /// Per station: its position (a compact copy of `Station::pos`, read for every candidate),
    /// its anchor, and its candidates in ascending order (empty in unbounded WLANs, where the
    /// members are the candidates).
    pos: Vec<(f64, f64)>,
    anchor: Vec<(f64, f64)>,
    cands: Vec<Vec<u32>>,
    /// Stations re-anchored so far (for tests and the performance notes).
    pub(super) reanchored: u64,
    /// The skin share new WLANs get (None: `SKIN_SHARE`); tests set small ones.
    skin_share: Option<f64>,
    /// Per station: the refresh in which it moved / had its list touched (stamps, not flags, so
    /// nothing needs clearing).
    moved_at: Vec<u32>,
    touched_at: Vec<u32>,
    stamp: u32,
    moved: Vec<u32>,
    touched: Vec<u32>,
    /// Per station: where the second ascending run of its list starts.
    split: Vec<u32>,
    candidates: Vec<u32>,
    merged: Vec<Nbr>,
}

/// Sorts `list`, made of two ascending runs `[..split]` and `[split..]`, by station (a linear
/// merge through `buf`).
fn merge_runs(list: &mut [Nbr], split: usize, buf: &mut Vec<Nbr>) {
    if split == 0 || split >= list.len() || list[split - 1].sta < list[split].sta {
        return;
    }
    buf.clear();
    let (lo, hi) = list.split_at(split);
    let (mut i, mut j) = (0, 0);
    while i < lo.len() && j < hi.len() {
        if lo[i].sta < hi[j].sta {
            buf.push(lo[i]);
            i += 1;
        } else {
            buf.push(hi[j]);
            j += 1;
        }
    }
    buf.extend_from_slice(&lo[i..]);
    buf.extend_from_slice(&hi[j..]);
    list.copy_from_slice(buf);
}

/// Puts station `a` at its current position as its anchor: moves it in the grid, finds its
/// candidates again, and adds it to / drops it from the lists of the stations that gained /
/// lost it (lists stay ascending).
fn reanchor(f: &mut Field, r: &mut Refresh, stations: &mut [Station], a: u32) {
    let ai = a as usize;
    let p = r.pos[ai];
    let cell = f.grid.cell_of(p);
    f.grid.remove(stations[ai].cell, a);
    f.grid.insert(cell, a, p);
    stations[ai].cell = cell;
    r.anchor[ai] = p;
    r.reanchored += 1;
    let cand2 = f.cand2;
    f.grid.around(
        cell,
        |c, pc| c != a && dist2(p, pc) <= cand2,
        &mut r.candidates,
    );
    r.candidates.sort_unstable();
    // Both lists ascending: walk them together.
    let old = std::mem::take(&mut r.cands[ai]);
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < r.candidates.len() {
        let (o, n) = (old.get(i).copied(), r.candidates.get(j).copied());
        match (o, n) {
            (Some(o), Some(n)) if o == n => {
                i += 1;
                j += 1;
            }
            (Some(o), n) if n.is_none_or(|n| o < n) => {
                let l = &mut r.cands[o as usize];
                if let Ok(k) = l.binary_search(&a) {
                    l.remove(k);
                }
                i += 1;
            }
            (_, Some(n)) => {
                let l = &mut r.cands[n as usize];
                if let Err(k) = l.binary_search(&a) {
                    l.insert(k, a);
                }
                j += 1;
            }
            (_, None) => unreachable!("one list has entries left"),
        }
    }
    let mut new = old;
    new.clear();
    new.extend_from_slice(&r.candidates);
    r.cands[ai] = new;
}

impl Wifi {
    /// Who hears whom between stations `a` and `b` of WLAN `w`, if either registers the other: the
    /// reach and delay, the same both ways (distance, shadowing draw per unordered pair). Under
    /// the SINR model a station also lists those it does not sense but whose frames reach it
    /// within 20 dB of the noise floor: they add to its interference. The reference that
    /// [`PairModel::pair`] follows bit for bit.
    #[cfg(test)]
    pub(super) fn pair_link(
        seed: u64,
        w: &Wlan,
        stations: &[Station],
        a: u32,
        b: u32,
    ) -> Option<(super::Reach, crate::time::SimTime)> {
        let cfg = &w.cfg;
        let floor = match &cfg.reception {
            super::Reception::Threshold => f64::INFINITY,
            super::Reception::Sinr(p) => p.noise_w / 100.0,
        };
        let sigma = cfg.propagation.shadowing_db();
        let (pa, pb) = (stations[a as usize].pos, stations[b as usize].pos);
        let d = ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt();
        let reach = if sigma > 0.0 {
            let shadow = sigma * super::pair_normal(seed, a.min(b), a.max(b));
            cfg.propagation.reach_shadowed(d, shadow)
        } else {
            cfg.propagation.reach(d)
        };
        (reach.sensed || reach.power >= floor).then(|| (reach, cfg.prop_delay(d)))
    }

    /// The pair geometry of a new WLAN (call when it is added).
    pub(super) fn new_field(&self, w: &Wlan) -> Field {
        Field::new(w, self.refresh.skin_share.unwrap_or(SKIN_SHARE))
    }

    /// Adds the pairs of station `new`, just appended to WLAN `wlan`'s members (the highest
    /// index so far), to the lists, anchored where it stands: appending `new` keeps its
    /// candidates' and neighbours' lists in member order; its own lists are built in ascending
    /// order.
    pub(super) fn add_neighbours(&mut self, wlan: u32, new: u32) {
        let Wifi {
            wlans,
            stations,
            fields,
            refresh: r,
            ..
        } = self;
        let w = &wlans[wlan as usize];
        debug_assert_eq!(w.stations.last(), Some(&new));
        debug_assert_eq!(r.pos.len(), new as usize);
        let f = &mut fields[wlan as usize];
        let pn = stations[new as usize].pos;
        r.pos.push(pn);
        r.anchor.push(pn);
        r.cands.push(Vec::new());
        let cands: &[u32] = if f.unbounded() {
            &w.stations[..w.stations.len() - 1]
        } else {
            let cell = f.grid.cell_of(pn);
            stations[new as usize].cell = cell;
            let cand2 = f.cand2;
            f.grid
                .around(cell, |_, p| dist2(p, pn) <= cand2, &mut r.candidates);
            f.grid.insert(cell, new, pn);
            r.candidates.sort_unstable();
            for &c in &r.candidates {
                r.cands[c as usize].push(new);
            }
            r.cands[new as usize].extend_from_slice(&r.candidates);
            &r.candidates
        };
        for &b in cands {
            let d2 = dist2(r.pos[b as usize], pn);
            if d2 > f.range2 {
                continue;
            }
            if let Some((reach, delay)) = f.model.pair(&w.cfg, self.seed, b, new, d2) {
                for (me, other) in [(b, new), (new, b)] {
                    stations[me as usize].nbrs.push(Nbr {
                        sta: other,
                        reach,
                        delay,
                    });
                }
            }
        }
    }

    /// Moves several stations at once (the mobility models' refresh) and brings the neighbour
    /// lists up to date: only the moved stations' pairs are recomputed, with their candidates.
    pub fn move_stations(&mut self, moves: &[(u32, (f64, f64))]) {
        let Wifi {
            wlans,
            stations,
            fields,
            refresh: r,
            ..
        } = self;
        let n = stations.len();
        r.moved_at.resize(n, 0);
        r.touched_at.resize(n, 0);
        r.split.resize(n, 0);
        r.stamp = r.stamp.wrapping_add(1);
        if r.stamp == 0 {
            // After 2³² refreshes: start the stamps afresh.
            r.moved_at.iter_mut().for_each(|s| *s = 0);
            r.touched_at.iter_mut().for_each(|s| *s = 0);
            r.stamp = 1;
        }
        let stamp = r.stamp;
        r.moved.clear();
        r.touched.clear();
        for &(sta, pos) in moves {
            stations[sta as usize].pos = pos;
            r.pos[sta as usize] = pos;
            if r.moved_at[sta as usize] != stamp {
                r.moved_at[sta as usize] = stamp;
                r.moved.push(sta);
            }
        }
        r.moved.sort_unstable();
        // Those that drifted more than half the skin from their anchors get new candidates.
        for k in 0..r.moved.len() {
            let a = r.moved[k];
            let f = &mut fields[stations[a as usize].wlan as usize];
            if dist2(r.pos[a as usize], r.anchor[a as usize]) > f.drift2 {
                reanchor(f, r, stations, a);
            }
        }
        // The stations that listed a moved one lose that entry (lists are symmetric); what is
        // left of their lists stays sorted.
        for &a in &r.moved {
            for nb in &stations[a as usize].nbrs {
                let b = nb.sta as usize;
                if r.moved_at[b] != stamp && r.touched_at[b] != stamp {
                    r.touched_at[b] = stamp;
                    r.touched.push(nb.sta);
                }
            }
        }
        for &b in &r.touched {
            let moved_at = &r.moved_at;
            let list = &mut stations[b as usize].nbrs;
            list.retain(|nb| moved_at[nb.sta as usize] != stamp);
            r.split[b as usize] = list.len() as u32;
        }
        for &a in &r.moved {
            stations[a as usize].nbrs.clear();
        }
        // Each moved station's pairs with its candidates, in ascending order of the other
        // station; a pair of two moved stations is computed once, from its lower index.
        // Visiting the moved stations in ascending order, every list ends up as two ascending
        // runs: what it held (or, for a moved station, the pairs its lower moved neighbours
        // pushed) and what was pushed after. Merging the runs gives member order.
        let Refresh {
            pos,
            cands,
            moved_at,
            touched_at,
            moved,
            touched,
            split,
            merged,
            ..
        } = &mut *r;
        for &a in moved.iter() {
            let wi = stations[a as usize].wlan as usize;
            let (w, f) = (&wlans[wi], &fields[wi]);
            let pa = pos[a as usize];
            let cs: &[u32] = if f.unbounded() {
                &w.stations
            } else {
                &cands[a as usize]
            };
            split[a as usize] = stations[a as usize].nbrs.len() as u32;
            for &c in cs {
                if c == a || (c < a && moved_at[c as usize] == stamp) {
                    continue;
                }
                let d2 = dist2(pa, pos[c as usize]);
                if d2 > f.range2 {
                    continue;
                }
                let Some((reach, delay)) = f.model.pair(&w.cfg, self.seed, a.min(c), a.max(c), d2)
                else {
                    continue;
                };
                for (me, other) in [(a, c), (c, a)] {
                    stations[me as usize].nbrs.push(Nbr {
                        sta: other,
                        reach,
                        delay,
                    });
                }
                if moved_at[c as usize] != stamp && touched_at[c as usize] != stamp {
                    touched_at[c as usize] = stamp;
                    touched.push(c);
                    split[c as usize] = stations[c as usize].nbrs.len() as u32 - 1;
                }
            }
        }
        for &s in moved.iter().chain(touched.iter()) {
            merge_runs(
                &mut stations[s as usize].nbrs,
                split[s as usize] as usize,
                merged,
            );
        }
    }

    /// Moves a station (the hook for a mobility model). Frames already on the air keep the
    /// reach they started with.
    pub fn set_position(&mut self, sta: u32, pos: (f64, f64)) {
        self.move_stations(&[(sta, pos)]);
    }

    /// New WLANs get a skin of `share` × their listing range (tests: a small skin makes
    /// re-anchoring, and so its mistakes, frequent).
    #[cfg(test)]
    pub(super) fn set_skin_share(&mut self, share: f64) {
        self.refresh.skin_share = Some(share);
    }

    /// Checks the candidate lists' invariants against a brute force over the anchors: every
    /// station within half the skin of its anchor, and each list exactly the members whose
    /// anchors are within R + skin, ascending.
    #[cfg(test)]
    pub(super) fn check_candidates(&self) {
        let r = &self.refresh;
        for (wi, w) in self.wlans.iter().enumerate() {
            let f = &self.fields[wi];
            // Two stations each half a skin from their anchors are at most a skin closer.
            assert!(f.unbounded() || f.range2.sqrt() + 2.0 * f.drift2.sqrt() <= f.cand2.sqrt());
            for &a in &w.stations {
                let (ai, pa) = (a as usize, r.anchor[a as usize]);
                assert_eq!(r.pos[ai], self.stations[ai].pos);
                if f.unbounded() {
                    assert!(r.cands[ai].is_empty());
                    continue;
                }
                assert!(dist2(r.pos[ai], pa) <= f.drift2, "station {a} drifted");
                let want: Vec<u32> = w
                    .stations
                    .iter()
                    .copied()
                    .filter(|&c| c != a && dist2(pa, r.anchor[c as usize]) <= f.cand2)
                    .collect();
                assert_eq!(r.cands[ai], want, "candidates of station {a}");
            }
        }
    }

    /// Recomputes every pair of a WLAN from scratch with `pair_link`: the reference the
    /// incremental lists must equal.
    #[cfg(test)]
    pub(super) fn update_neighbours(&mut self, wlan: u32) {
        let Wifi {
            wlans, stations, ..
        } = self;
        let members = &wlans[wlan as usize].stations;
        for &a in members {
            stations[a as usize].nbrs.clear();
        }
        // Each unordered pair is computed once; visiting pairs (i, j > i) in order keeps every
        // list in member order.
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                if let Some((reach, delay)) =
                    Self::pair_link(self.seed, &wlans[wlan as usize], stations, a, b)
                {
                    for (me, other) in [(a, b), (b, a)] {
                        stations[me as usize].nbrs.push(Nbr {
                            sta: other,
                            reach,
                            delay,
                        });
                    }
                }
            }
        }
    }
}
