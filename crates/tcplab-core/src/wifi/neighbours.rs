//! Who hears whom: each station's neighbour list (the stations whose frames it senses or, under
//! the SINR model, that add to its interference), with the reach and delay of each pair.
//!
//! The lists are kept incrementally. Each WLAN has a uniform [`Grid`] whose cells are as wide as
//! the largest distance at which a pair can be listed, so a station's pairs are among the
//! stations of its own and the eight surrounding cells. A position refresh drops the moved
//! stations' entries from their old neighbours, then computes the moved stations' pairs from
//! their new cells only: the work is proportional to the stations that moved and their
//! surroundings, not to the square of the WLAN's size.
//!
//! Every list stays in member order (ascending station index), and every pair's reach and delay
//! come from the same computation ([`Wifi::pair_link`]), so the lists are exactly those a
//! recomputation of every pair gives: the order frames reach their hearers — hence the event
//! order and the run's results — do not depend on how the lists were kept.

use super::grid::{self, Grid};
use super::{pair_normal, Nbr, Reach, Station, Wifi, Wlan};
use crate::time::SimTime;

/// Scratch state of a refresh, kept between refreshes so that none allocates.
#[derive(Default)]
pub(super) struct Refresh {
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

impl Wifi {
    /// Who hears whom between stations `a` and `b` of WLAN `w`, if either registers the other: the
    /// reach and delay, the same both ways (distance, shadowing draw per unordered pair). Under
    /// the SINR model a station also lists those it does not sense but whose frames reach it
    /// within 20 dB of the noise floor: they add to its interference.
    pub(super) fn pair_link(
        seed: u64,
        w: &Wlan,
        stations: &[Station],
        a: u32,
        b: u32,
    ) -> Option<(Reach, SimTime)> {
        let cfg = &w.cfg;
        let floor = match &cfg.reception {
            super::Reception::Threshold => f64::INFINITY,
            super::Reception::Sinr(p) => p.noise_w / 100.0,
        };
        let sigma = cfg.propagation.shadowing_db();
        let (pa, pb) = (stations[a as usize].pos, stations[b as usize].pos);
        let d = ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt();
        let reach = if sigma > 0.0 {
            let shadow = sigma * pair_normal(seed, a.min(b), a.max(b));
            cfg.propagation.reach_shadowed(d, shadow)
        } else {
            cfg.propagation.reach(d)
        };
        (reach.sensed || reach.power >= floor).then(|| (reach, cfg.prop_delay(d)))
    }

    /// The grid of a new WLAN (call when it is added).
    pub(super) fn new_grid(w: &Wlan) -> Grid {
        Grid::new(grid::listing_range(&w.cfg.propagation, &w.cfg.reception))
    }

    /// Whether stations at `a` and `b` are farther apart than the listing range (`range2` is its
    /// square): then `pair_link` gives None for them.
    #[inline]
    fn out_of_range(range2: f64, a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) > range2
    }

    /// Adds the pairs of station `new`, just appended to WLAN `wlan`'s members (the highest
    /// index so far), to the lists and the grid: appending `new` keeps its neighbours' lists in
    /// member order; its own list is built from its candidates in ascending order.
    pub(super) fn add_neighbours(&mut self, wlan: u32, new: u32) {
        let Wifi {
            wlans,
            stations,
            grids,
            refresh,
            ..
        } = self;
        let w = &wlans[wlan as usize];
        debug_assert_eq!(w.stations.last(), Some(&new));
        let g = &mut grids[wlan as usize];
        let pn = stations[new as usize].pos;
        let cell = g.cell_of(pn);
        stations[new as usize].cell = cell;
        let range2 = g.range().powi(2);
        g.around(
            cell,
            |_, p| !Self::out_of_range(range2, p, pn),
            &mut refresh.candidates,
        );
        g.insert(cell, new, pn);
        refresh.candidates.sort_unstable();
        for &b in &refresh.candidates {
            if let Some((reach, delay)) = Self::pair_link(self.seed, w, stations, b, new) {
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
    /// lists up to date: only the moved stations' pairs are recomputed.
    pub fn move_stations(&mut self, moves: &[(u32, (f64, f64))]) {
        let Wifi {
            wlans,
            stations,
            grids,
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
            let st = &mut stations[sta as usize];
            st.pos = pos;
            let g = &mut grids[st.wlan as usize];
            let cell = g.cell_of(pos);
            if cell != st.cell {
                g.remove(st.cell, sta);
                g.insert(cell, sta, pos);
                st.cell = cell;
            } else {
                g.set_pos(cell, sta, pos);
            }
            if r.moved_at[sta as usize] != stamp {
                r.moved_at[sta as usize] = stamp;
                r.moved.push(sta);
            }
        }
        r.moved.sort_unstable();
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
        // Each moved station's pairs with the stations around its new cell, in ascending order
        // of the other station; a pair of two moved stations is computed once, from its lower
        // index. Visiting the moved stations in ascending order, every list ends up as two
        // ascending runs: what it held (or, for a moved station, the pairs its lower moved
        // neighbours pushed) and what was pushed after. Merging the runs gives member order.
        for &a in &r.moved {
            let wi = stations[a as usize].wlan as usize;
            let (w, g) = (&wlans[wi], &grids[wi]);
            let range2 = g.range().powi(2);
            let pa = stations[a as usize].pos;
            let moved_at = &r.moved_at;
            g.around(
                stations[a as usize].cell,
                |c, pc| {
                    c != a
                        && (c > a || moved_at[c as usize] != stamp)
                        && !Self::out_of_range(range2, pa, pc)
                },
                &mut r.candidates,
            );
            r.candidates.sort_unstable();
            r.split[a as usize] = stations[a as usize].nbrs.len() as u32;
            for &c in &r.candidates {
                let Some((reach, delay)) =
                    Self::pair_link(self.seed, w, stations, a.min(c), a.max(c))
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
                if r.moved_at[c as usize] != stamp && r.touched_at[c as usize] != stamp {
                    r.touched_at[c as usize] = stamp;
                    r.touched.push(c);
                    r.split[c as usize] = stations[c as usize].nbrs.len() as u32 - 1;
                }
            }
        }
        for &s in r.moved.iter().chain(&r.touched) {
            merge_runs(
                &mut stations[s as usize].nbrs,
                r.split[s as usize] as usize,
                &mut r.merged,
            );
        }
    }

    /// Moves a station (the hook for a mobility model). Frames already on the air keep the
    /// reach they started with.
    pub fn set_position(&mut self, sta: u32, pos: (f64, f64)) {
        self.move_stations(&[(sta, pos)]);
    }

    /// Recomputes every pair of a WLAN from scratch: the reference the incremental lists must
    /// equal.
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
