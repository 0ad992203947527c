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
}
