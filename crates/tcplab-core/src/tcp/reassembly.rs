//! The receiver's out-of-order store and the SACK blocks it reports (RFC 2018 §4).

use std::collections::VecDeque;

/// How many recently changed blocks are remembered for the SACK option (it carries at most 4).
const RECENT: usize = 8;

/// Out-of-order data above rcv_nxt, as sorted disjoint ranges, with the recency order RFC 2018
/// asks the SACK option to follow. Ranges leave from the front as the gap fills, so they sit in a
/// deque; the recency list is bounded, so a segment costs O(log ranges) plus a short scan.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: VecDeque<(u64, u64)>,
    /// Starts of the most recently changed ranges, most recent first (RFC 2018 §4: the first
    /// block holds the most recently received segment; the others repeat the most recently
    /// reported blocks).
    recency: VecDeque<u64>,
    held: u64,
}

/// What an arriving segment did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insert {
    /// Bytes that were not held before.
    pub new_bytes: u64,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    /// Bytes held out of order.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Whether [s, e) is entirely held already.
    pub fn covers(&self, s: u64, e: u64) -> bool {
        self.holding(s, e).is_some()
    }

    /// The held range that contains all of [s, e), if one does.
    pub fn holding(&self, s: u64, e: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|r| r.1 < e);
        self.ranges.get(i).copied().filter(|r| r.0 <= s && r.1 >= e)
    }

    /// Stores [s, e) (above rcv_nxt), merging neighbours.
    pub fn insert(&mut self, s: u64, e: u64) -> Insert {
        let i = self.ranges.partition_point(|r| r.1 < s);
        let (mut ns, mut ne) = (s, e);
        let mut merged = 0;
        while i < self.ranges.len() && self.ranges[i].0 <= e {
            let (rs, re) = self.ranges.remove(i).expect("index checked");
            ns = ns.min(rs);
            ne = ne.max(re);
            merged += re - rs;
            self.recency.retain(|&x| x != rs);
        }
        self.ranges.insert(i, (ns, ne));
        let new_bytes = (ne - ns) - merged;
        self.held += new_bytes;
        self.recency.push_front(ns);
        self.recency.truncate(RECENT);
        Insert { new_bytes }
    }

    /// Removes and returns the bytes that became in-order at `rcv_nxt`; returns the new rcv_nxt.
    pub fn advance(&mut self, mut rcv_nxt: u64) -> u64 {
        while let Some(&(s, e)) = self.ranges.front() {
            if s > rcv_nxt {
                break;
            }
            rcv_nxt = rcv_nxt.max(e);
            self.ranges.pop_front();
            self.held -= e - s;
            self.recency.retain(|&x| x != s);
        }
        rcv_nxt
    }

    /// Up to `max` (≤ 4) SACK blocks, most recent first; when fewer recent blocks survive (the
    /// others merged or became in-order), the highest remaining ranges fill the option.
    pub fn sack_blocks(&self, max: usize) -> impl Iterator<Item = (u64, u64)> {
        let max = max.min(4);
        let mut out = [(0u64, 0u64); 4];
        let mut n = 0;
        let recent = self.recency.iter().filter_map(|&s| {
            let i = self.ranges.partition_point(|r| r.0 < s);
            self.ranges.get(i).filter(|r| r.0 == s).copied()
        });
        for r in recent.chain(self.ranges.iter().rev().copied()) {
            if n == max {
                break;
            }
            if !out[..n].contains(&r) {
                out[n] = r;
                n += 1;
            }
        }
        out.into_iter().take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_reported_most_recent_first() {
        let mut r = Reassembly::default();
        r.insert(2000, 3000);
        r.insert(5000, 6000);
        r.insert(8000, 9000);
        let b: Vec<_> = r.sack_blocks(3).collect();
        assert_eq!(b, vec![(8000, 9000), (5000, 6000), (2000, 3000)]);
        // A segment extending the first block moves it to the front.
        r.insert(3000, 4000);
        let b: Vec<_> = r.sack_blocks(3).collect();
        assert_eq!(b, vec![(2000, 4000), (8000, 9000), (5000, 6000)]);
        assert!(r.covers(2500, 3500));
        assert_eq!(r.advance(2000), 4000);
        let b: Vec<_> = r.sack_blocks(3).collect();
        assert_eq!(b, vec![(8000, 9000), (5000, 6000)]);
    }

    /// The store against a byte-by-byte reading over pseudo-random arrivals above rcv_nxt and
    /// in-order advances: the ranges are the maximal held runs (adjacent ones merged), `held` and
    /// `new_bytes` count bytes, `covers`/`holding` find the run holding all of [s, e), and the
    /// SACK blocks follow RFC 2018 §4 — the first holds the most recently received segment, the
    /// others the runs of the segments received before it, most recent first, then the highest
    /// runs, no block twice, at most four. At most eight segments a round, so the recency list
    /// (eight starts) never forgets one.
    #[test]
    fn ranges_counts_and_sack_blocks_agree_with_a_byte_by_byte_reading() {
        use crate::rng::{Rng, StreamId};
        const LIMIT: u64 = 40;
        let mut rng = Rng::derive(2018, StreamId::Custom(1));
        for _ in 0..300 {
            let mut r = Reassembly::default();
            let mut held = [false; LIMIT as usize];
            let mut rcv_nxt = 0;
            let mut segments: Vec<(u64, u64)> = vec![]; // most recent first
            for _ in 0..8 {
                if rcv_nxt + 1 >= LIMIT {
                    break;
                }
                if rng.below(4) == 0 {
                    // Data up to `to` arrived in order: everything held from there on joins it.
                    let to = (rcv_nxt + rng.below(6)).min(LIMIT - 1);
                    let mut expect = to;
                    while expect < LIMIT && held[expect as usize] {
                        expect += 1;
                    }
                    held[..expect as usize].fill(false);
                    assert_eq!(r.advance(to), expect, "advance({to})");
                    rcv_nxt = expect;
                } else {
                    let s = rcv_nxt + 1 + rng.below(LIMIT - 1 - rcv_nxt);
                    let e = (s + 1 + rng.below(5)).min(LIMIT);
                    let fresh = (s..e).filter(|&b| !held[b as usize]).count() as u64;
                    assert_eq!(r.insert(s, e).new_bytes, fresh, "insert({s}, {e})");
                    held[s as usize..e as usize].fill(true);
                    segments.insert(0, (s, e));
                }
                let mut runs: Vec<(u64, u64)> = vec![];
                for b in (0..LIMIT).filter(|&b| held[b as usize]) {
                    match runs.last_mut() {
                        Some(run) if run.1 == b => run.1 = b + 1,
                        _ => runs.push((b, b + 1)),
                    }
                }
                assert_eq!(r.ranges().collect::<Vec<_>>(), runs);
                assert_eq!(r.held(), runs.iter().map(|x| x.1 - x.0).sum::<u64>());
                assert_eq!(r.is_empty(), runs.is_empty());
                for s in 0..LIMIT {
                    for e in s + 1..=LIMIT {
                        let run = runs.iter().copied().find(|x| x.0 <= s && x.1 >= e);
                        assert_eq!(r.holding(s, e), run, "holding({s}, {e}) in {runs:?}");
                        assert_eq!(r.covers(s, e), run.is_some());
                    }
                }
                let run_of =
                    |seg: &(u64, u64)| runs.iter().copied().find(|x| x.0 <= seg.0 && seg.0 < x.1);
                let mut order: Vec<(u64, u64)> = vec![];
                for run in segments
                    .iter()
                    .filter_map(run_of)
                    .chain(runs.iter().rev().copied())
                {
                    if !order.contains(&run) {
                        order.push(run);
                    }
                }
                for max in 0..=5 {
                    let blocks: Vec<_> = r.sack_blocks(max).collect();
                    let n = max.min(4).min(runs.len());
                    assert_eq!(blocks, order[..n], "sack_blocks({max}) after {segments:?}");
                }
            }
        }
    }
}
