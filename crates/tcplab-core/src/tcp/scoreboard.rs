//! The sender's SACK scoreboard and the RFC 6675 queries on it (IsLost, SetPipe, NextSeg).
//!
//! SACKed ranges are kept sorted and disjoint, all above HighACK (snd_una). Everything is in
//! bytes; a "hole" is an unSACKed range between HighACK and the highest SACKed byte. IsLost is the
//! same for every byte of a hole (it depends only on what is SACKed above it), so the queries walk
//! holes, not bytes or segments.

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: Vec<(u64, u64)>,
    /// SACKed bytes in total, kept as ranges come and go (no re-summing per block).
    total: u64,
}

/// What NextSeg() (RFC 6675 §4) chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit [seq, seq+len).
    Retransmit {
        seq: u64,
        len: u64,
        rescue: bool,
    },
    /// Send new data.
    New,
    Nothing,
}

impl Scoreboard {
    /// SACKed bytes above snd_una.
    pub fn sacked_bytes(&self) -> u64 {
        self.total
    }

    /// SACKed bytes below `x`.
    pub fn sacked_below(&self, x: u64) -> u64 {
        self.sacked
            .iter()
            .take_while(|r| r.0 < x)
            .map(|r| r.1.min(x) - r.0)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// Highest SACKed sequence (exclusive end), if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|r| r.1)
    }

    /// Records a SACK block, merging overlaps. Returns true if it covered bytes not SACKed before.
    pub fn add(&mut self, start: u64, end: u64, snd_una: u64) -> bool {
        let start = start.max(snd_una);
        if end <= start {
            return false;
        }
        let i = self.sacked.partition_point(|r| r.1 < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        let mut merged = 0;
        while j < self.sacked.len() && self.sacked[j].0 <= e {
            s = s.min(self.sacked[j].0);
            e = e.max(self.sacked[j].1);
            merged += self.sacked[j].1 - self.sacked[j].0;
            j += 1;
        }
        self.sacked.splice(i..j, std::iter::once((s, e)));
        let new = (e - s) - merged;
        self.total += new;
        new > 0
    }

    /// Drops what the cumulative ACK now covers.
    pub fn on_cumulative_ack(&mut self, snd_una: u64) {
        let k = self.sacked.partition_point(|r| r.1 <= snd_una);
        for r in self.sacked.drain(..k) {
            self.total -= r.1 - r.0;
        }
        if let Some(first) = self.sacked.first_mut() {
            let cut = snd_una.saturating_sub(first.0);
            if cut > 0 {
                first.0 += cut;
                self.total -= cut;
            }
        }
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.sacked.partition_point(|r| r.1 <= seq);
        i < self.sacked.len() && self.sacked[i].0 <= seq
    }

    /// The first byte at or after `seq` that is not SACKed.
    pub fn next_unsacked(&self, seq: u64) -> u64 {
        let i = self.sacked.partition_point(|r| r.1 <= seq);
        if i < self.sacked.len() && self.sacked[i].0 <= seq {
            self.sacked[i].1
        } else {
            seq
        }
    }

    /// End of the unSACKed run starting at `seq` (the next SACKed byte, or `limit`).
    pub fn unsacked_run_end(&self, seq: u64, limit: u64) -> u64 {
        let i = self.sacked.partition_point(|r| r.1 <= seq);
        if i < self.sacked.len() {
            self.sacked[i].0.max(seq).min(limit)
        } else {
            limit
        }
    }

    /// RFC 6675 §4 IsLost, hole by hole: the hole that ends at SACKed range `k` is lost when at
    /// least DupThresh discontiguous SACKed ranges, or more than (DupThresh − 1)·SMSS SACKed
    /// bytes, lie above it. Both counts grow towards lower holes, so the lost holes are exactly
    /// those below an index found by walking down from the top until either count suffices —
    /// at most DupThresh ranges, whatever the number of holes.
    fn lost_holes(&self, dupthresh: u32, smss: u64) -> usize {
        let n = self.sacked.len();
        let mut bytes = 0;
        for k in (0..n).rev() {
            bytes += self.sacked[k].1 - self.sacked[k].0;
            if (n - k) as u32 >= dupthresh || bytes > (dupthresh as u64 - 1) * smss {
                return k + 1;
            }
        }
        0
    }

    /// IsLost(seq) of RFC 6675 §4.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, smss: u64) -> bool {
        let k = self.sacked.partition_point(|r| r.1 <= seq);
        if k >= self.sacked.len() || self.sacked[k].0 <= seq {
            return false; // nothing SACKed above, or seq itself is SACKed
        }
        k < self.lost_holes(dupthresh, smss)
    }

    /// SetPipe() of RFC 6675 §4: octets in flight between HighACK and HighData. `high_rxt` is the
    /// exclusive end of the highest retransmitted range.
    pub fn pipe(
        &self,
        snd_una: u64,
        snd_max: u64,
        high_rxt: u64,
        dupthresh: u32,
        smss: u64,
    ) -> u64 {
        let lost_below = self.lost_holes(dupthresh, smss);
        let mut pipe = 0;
        let mut cursor = snd_una;
        for k in 0..=self.sacked.len() {
            let (hole_end, lost) = if k < self.sacked.len() {
                (self.sacked[k].0, k < lost_below)
            } else {
                (snd_max, false)
            };
            if hole_end > cursor {
                // (a) octets not lost count once; (b) retransmitted octets count (once more).
                if !lost {
                    pipe += hole_end - cursor;
                }
                let rx_end = high_rxt.min(hole_end);
                if rx_end > cursor {
                    pipe += rx_end - cursor;
                }
            }
            if k < self.sacked.len() {
                cursor = self.sacked[k].1;
            }
        }
        pipe
    }

    /// NextSeg() of RFC 6675 §4, rules (1), (3) and (4); rule (2) — new data — is signalled with
    /// `NextSeg::New` when `can_send_new` says the receiver window and the application allow it.
    #[allow(clippy::too_many_arguments)]
    pub fn next_seg(
        &self,
        snd_una: u64,
        snd_max: u64,
        high_rxt: u64,
        rescue_allowed: bool,
        can_send_new: bool,
        dupthresh: u32,
        smss: u64,
    ) -> NextSeg {
        let high_sacked = match self.high_sacked() {
            Some(h) => h,
            None => {
                return if can_send_new {
                    NextSeg::New
                } else {
                    NextSeg::Nothing
                }
            }
        };
        // (1) the lowest lost, unSACKed byte above HighRxt. Holes below HighRxt are skipped by
        // a binary search, so a call costs O(log holes) however many holes there are.
        let lost_below = self.lost_holes(dupthresh, smss);
        let from = snd_una.max(high_rxt);
        let mut k = self.sacked.partition_point(|r| r.1 <= from);
        let mut rule3: Option<(u64, u64)> = None;
        while k < self.sacked.len() {
            let prev_end = if k == 0 {
                snd_una
            } else {
                self.sacked[k - 1].1
            };
            let hole = (prev_end.max(from), self.sacked[k].0);
            if hole.1 > hole.0 {
                if k < lost_below {
                    return NextSeg::Retransmit {
                        seq: hole.0,
                        len: (hole.1 - hole.0).min(smss),
                        rescue: false,
                    };
                }
                // Holes above this one are not lost either.
                rule3 = Some(hole);
                break;
            }
            k += 1;
        }
        // (2) new data.
        if can_send_new {
            return NextSeg::New;
        }
        // (3) the lowest unSACKed byte above HighRxt below the highest SACKed byte.
        if let Some(h) = rule3 {
            return NextSeg::Retransmit {
                seq: h.0,
                len: (h.1 - h.0).min(smss),
                rescue: false,
            };
        }
        // (4) one rescue retransmission per recovery: the segment holding the highest outstanding
        // unSACKed byte.
        if rescue_allowed && snd_max > high_sacked {
            let len = (snd_max - high_sacked).min(smss);
            return NextSeg::Retransmit {
                seq: snd_max - len,
                len,
                rescue: true,
            };
        }
        NextSeg::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1000;

    #[test]
    fn sacked_below_counts_the_part_of_each_block_under_the_mark() {
        let mut sb = Scoreboard::default();
        sb.add(2 * M, 4 * M, 0);
        sb.add(6 * M, 8 * M, 0);
        let below = |x| sb.sacked_below(x);
        assert_eq!([below(2 * M), below(3 * M), below(5 * M)], [0, M, 2 * M]);
        assert_eq!([below(7 * M), below(9 * M)], [3 * M, 4 * M]);
    }

    #[test]
    fn merge_and_cumulative_ack() {
        let mut sb = Scoreboard::default();
        assert!(sb.add(3 * M, 4 * M, 0));
        assert!(sb.add(5 * M, 6 * M, 0));
        assert!(sb.add(4 * M, 5 * M, 0));
        assert!(!sb.add(3 * M, 6 * M, 0));
        assert_eq!(sb.ranges(), &[(3 * M, 6 * M)]);
        sb.on_cumulative_ack(4 * M);
        assert_eq!(sb.ranges(), &[(4 * M, 6 * M)]);
        sb.on_cumulative_ack(7 * M);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_dupthresh_segments_above() {
        // Segments 0..10 sent; 0 lost; 1 and 2 SACKed: not yet lost (2 < 3 SACKed segments).
        let mut sb = Scoreboard::default();
        sb.add(M, 3 * M, 0);
        assert!(!sb.is_lost(0, 3, M));
        // One more SACKed segment above: 3·SMSS > 2·SMSS SACKed bytes -> lost.
        sb.add(3 * M, 4 * M, 0);
        assert!(sb.is_lost(0, 3, M));
        assert!(!sb.is_lost(M, 3, M), "a SACKed byte is never lost");
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_plus_retransmitted() {
        // 10 segments out, segment 0 lost, 1..4 SACKed (4 segments above 0 -> 0 is lost).
        let mut sb = Scoreboard::default();
        sb.add(M, 5 * M, 0);
        // Not yet retransmitted: pipe = segments 5..10 = 5 segments.
        assert_eq!(sb.pipe(0, 10 * M, 0, 3, M), 5 * M);
        // After retransmitting segment 0 it counts once again.
        assert_eq!(sb.pipe(0, 10 * M, M, 3, M), 6 * M);
    }

    #[test]
    fn next_seg_order() {
        let mut sb = Scoreboard::default();
        // Holes at 0 and 2; SACKed 1, 3, 4, 5.
        sb.add(M, 2 * M, 0);
        sb.add(3 * M, 6 * M, 0);
        // Hole 0 has 4 SACKed segments above (2 ranges, 4000 B > 2000 B) -> lost -> first.
        assert_eq!(
            sb.next_seg(0, 8 * M, 0, true, true, 3, M),
            NextSeg::Retransmit {
                seq: 0,
                len: M,
                rescue: false
            }
        );
        // After retransmitting it, hole 2 (3 SACKed above: 3000 B > 2000) is lost.
        assert_eq!(
            sb.next_seg(0, 8 * M, M, true, true, 3, M),
            NextSeg::Retransmit {
                seq: 2 * M,
                len: M,
                rescue: false
            }
        );
        // After both: new data if allowed.
        assert_eq!(sb.next_seg(0, 8 * M, 3 * M, true, true, 3, M), NextSeg::New);
        // No new data allowed: rescue the segment at the right edge once.
        assert_eq!(
            sb.next_seg(0, 8 * M, 3 * M, true, false, 3, M),
            NextSeg::Retransmit {
                seq: 7 * M,
                len: M,
                rescue: true
            }
        );
        assert_eq!(
            sb.next_seg(0, 8 * M, 3 * M, false, false, 3, M),
            NextSeg::Nothing
        );
    }

    /// The scoreboard byte by byte, as RFC 6675 §4 words its queries: which octets are SACKed.
    struct Bytes(Vec<bool>);

    impl Bytes {
        fn sacked(&self, seq: u64) -> bool {
            self.0[seq as usize]
        }
        /// The maximal SACKed runs, lowest first.
        fn runs(&self) -> Vec<(u64, u64)> {
            let mut out: Vec<(u64, u64)> = vec![];
            for (i, &b) in self.0.iter().enumerate() {
                let i = i as u64;
                match out.last_mut() {
                    Some(r) if b && r.1 == i => r.1 = i + 1,
                    _ if b => out.push((i, i + 1)),
                    _ => {}
                }
            }
            out
        }
        /// IsLost(seq): DupThresh discontiguous SACKed runs above seq, or more than
        /// (DupThresh − 1)·SMSS SACKed octets above it; a SACKed octet is not lost.
        fn is_lost(&self, seq: u64, dupthresh: u32, smss: u64) -> bool {
            if self.sacked(seq) {
                return false;
            }
            let runs = self.runs().iter().filter(|r| r.0 > seq).count() as u32;
            let above = (seq + 1..self.0.len() as u64)
                .filter(|&b| self.sacked(b))
                .count() as u64;
            runs >= dupthresh || above > (dupthresh as u64 - 1) * smss
        }
        /// The unSACKed run starting at `seq`, up to SMSS octets: a segment to retransmit.
        fn segment(&self, seq: u64, smss: u64) -> NextSeg {
            let len = (seq..seq + smss).take_while(|&b| !self.sacked(b)).count() as u64;
            NextSeg::Retransmit {
                seq,
                len,
                rescue: false,
            }
        }
    }

    /// Every query against the byte-by-byte reading of RFC 6675 §4 (IsLost, SetPipe, NextSeg's
    /// rules 1–4) and of what the scoreboard holds, over a pseudo-random sequence of SACK blocks
    /// and cumulative ACKs with DupThresh 2–4: merging (adjacent blocks too), trimming at the
    /// cumulative ACK, the running byte count and each boundary of each query.
    #[test]
    fn every_query_agrees_with_rfc6675_read_byte_by_byte() {
        use crate::rng::{Rng, StreamId};
        const LIMIT: u64 = 48;
        const SMSS: u64 = 4;
        let mut rng = Rng::derive(6675, StreamId::Custom(1));
        for _ in 0..40 {
            let mut sb = Scoreboard::default();
            let mut bytes = Bytes(vec![false; LIMIT as usize + SMSS as usize]);
            let mut snd_una = 0;
            for _ in 0..12 {
                if rng.below(4) == 0 {
                    snd_una = (snd_una + rng.below(8)).min(LIMIT);
                    sb.on_cumulative_ack(snd_una);
                    bytes.0[..snd_una as usize].fill(false);
                } else {
                    let start = rng.below(LIMIT);
                    let end = start + rng.below(10);
                    let end = end.min(LIMIT);
                    let from = start.max(snd_una);
                    let fresh = (from..end).any(|b| !bytes.sacked(b));
                    assert_eq!(sb.add(start, end, snd_una), fresh, "add({start}, {end})");
                    bytes.0[from as usize..end.max(from) as usize].fill(true);
                }
                let runs = bytes.runs();
                assert_eq!(sb.ranges(), &runs[..]);
                assert_eq!(
                    sb.sacked_bytes(),
                    runs.iter().map(|r| r.1 - r.0).sum::<u64>()
                );
                assert_eq!(sb.is_empty(), runs.is_empty());
                let high_sacked = runs.last().map(|r| r.1);
                assert_eq!(sb.high_sacked(), high_sacked);
                let snd_max = high_sacked.unwrap_or(snd_una).max(snd_una + rng.below(12));
                let dupthresh = 2 + rng.below(3) as u32;
                for seq in snd_una..LIMIT {
                    assert_eq!(sb.is_sacked(seq), bytes.sacked(seq), "is_sacked({seq})");
                    let unsacked = (seq..).find(|&b| !bytes.sacked(b)).unwrap();
                    assert_eq!(sb.next_unsacked(seq), unsacked, "next_unsacked({seq})");
                    for limit in [seq + 1, seq + 3, LIMIT + 1] {
                        let run_end = (seq..limit).find(|&b| bytes.sacked(b)).unwrap_or(limit);
                        assert_eq!(
                            sb.unsacked_run_end(seq, limit),
                            run_end,
                            "unsacked_run_end({seq}, {limit})"
                        );
                    }
                    assert_eq!(
                        sb.is_lost(seq, dupthresh, SMSS),
                        bytes.is_lost(seq, dupthresh, SMSS),
                        "is_lost({seq}, {dupthresh}) with {runs:?}"
                    );
                }
                for high_rxt in snd_una..=snd_max {
                    // SetPipe: (a) every unSACKed octet not lost, (b) every one retransmitted.
                    let pipe = (snd_una..snd_max)
                        .filter(|&b| !bytes.sacked(b))
                        .map(|b| {
                            u64::from(!bytes.is_lost(b, dupthresh, SMSS)) + u64::from(b < high_rxt)
                        })
                        .sum::<u64>();
                    assert_eq!(
                        sb.pipe(snd_una, snd_max, high_rxt, dupthresh, SMSS),
                        pipe,
                        "pipe(una {snd_una}, max {snd_max}, rxt {high_rxt}) with {runs:?}"
                    );
                    for (rescue, new) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let from = snd_una.max(high_rxt);
                        let holes = (from..high_sacked.unwrap_or(0)).filter(|&b| !bytes.sacked(b));
                        let expected = if let Some(s) =
                            holes.clone().find(|&b| bytes.is_lost(b, dupthresh, SMSS))
                        {
                            bytes.segment(s, SMSS) // (1) the lowest lost octet above HighRxt
                        } else if new {
                            NextSeg::New // (2)
                        } else if let Some(s) = holes.clone().next() {
                            bytes.segment(s, SMSS) // (3) the lowest unSACKed octet above HighRxt
                        } else if let Some(h) = high_sacked.filter(|&h| rescue && snd_max > h) {
                            // (4) one segment holding the highest outstanding unSACKed octet.
                            let len = (snd_max - h).min(SMSS);
                            NextSeg::Retransmit {
                                seq: snd_max - len,
                                len,
                                rescue: true,
                            }
                        } else {
                            NextSeg::Nothing
                        };
                        assert_eq!(
                            sb.next_seg(snd_una, snd_max, high_rxt, rescue, new, dupthresh, SMSS),
                            expected,
                            "next_seg(una {snd_una}, max {snd_max}, rxt {high_rxt}, rescue \
                             {rescue}, new {new}, dupthresh {dupthresh}) with {runs:?}"
                        );
                    }
                }
            }
        }
    }
}
