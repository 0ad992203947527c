//! The receiver's out-of-order store and the SACK blocks it reports (RFC 2018 §4).

/// Out-of-order data above rcv_nxt, as sorted disjoint ranges, with the recency order RFC 2018
/// asks the SACK option to follow.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: Vec<(u64, u64)>,
    /// Range starts in order of most recent change first (RFC 2018 §4: the first block holds the
    /// most recently received segment; the others repeat the most recently reported blocks).
    recency: Vec<u64>,
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

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Bytes held out of order.
    pub fn held(&self) -> u64 {
        self.ranges.iter().map(|r| r.1 - r.0).sum()
    }

    /// Whether [s, e) is entirely held already.
    pub fn covers(&self, s: u64, e: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < e);
        i < self.ranges.len() && self.ranges[i].0 <= s && self.ranges[i].1 >= e
    }

    /// Stores [s, e) (above rcv_nxt), merging neighbours.
    pub fn insert(&mut self, s: u64, e: u64) -> Insert {
        let before = self.held();
        let i = self.ranges.partition_point(|r| r.1 < s);
        let (mut ns, mut ne) = (s, e);
        let mut j = i;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            ns = ns.min(self.ranges[j].0);
            ne = ne.max(self.ranges[j].1);
            j += 1;
        }
        let removed: Vec<u64> = self.ranges[i..j].iter().map(|r| r.0).collect();
        self.ranges.splice(i..j, std::iter::once((ns, ne)));
        self.recency.retain(|x| !removed.contains(x));
        self.recency.insert(0, ns);
        Insert {
            new_bytes: self.held() - before,
        }
    }

    /// Removes and returns the bytes that became in-order at `rcv_nxt`; returns the new rcv_nxt.
    pub fn advance(&mut self, mut rcv_nxt: u64) -> u64 {
        while let Some(&(s, e)) = self.ranges.first() {
            if s > rcv_nxt {
                break;
            }
            rcv_nxt = rcv_nxt.max(e);
            self.ranges.remove(0);
            self.recency.retain(|&x| x != s);
        }
        rcv_nxt
    }

    /// Up to `max` SACK blocks, most recent first.
    pub fn sack_blocks(&self, max: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.recency
            .iter()
            .take(max)
            .filter_map(move |&s| self.ranges.iter().find(|r| r.0 == s).copied())
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
