//! Per-flow statistics in the manner of ns-3's FlowMonitor: packets and bytes each direction of a
//! flow sent, received and lost, the one-way delays of the packets received (mean, median, 95th
//! percentile, max), the RFC 3550 interarrival jitter, and the throughput.
//!
//! Always on, so it must be cheap: a handful of additions per packet sent, received or lost, and
//! for the delay quantiles a log-linear histogram (`DelayHistogram`): 32 buckets per power of two,
//! so a bucket spans at most 1/32 of its lower edge and a quantile read at the bucket's middle is
//! within 1.6 % of an exact one, clamped to the smallest and largest delay seen (exact when every
//! delay is equal). It grows only to the largest delay seen (about 1 000 buckets, 4 kB, for
//! delays up to a few seconds) and never with the number of packets. A reservoir sample would
//! keep the memory bounded too, but its quantiles would depend on which packets it happened to
//! keep; the histogram's error is bounded and the same in every run.

use crate::time::SimTime;

/// Sub-buckets per power of two (the histogram's resolution).
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;

/// Counts of delays (ns) in log-linear buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DelayHistogram {
    counts: Vec<u32>,
    n: u64,
}

impl DelayHistogram {
    /// The bucket of `v`: values below 2·SUB are their own bucket; above, the power of two and
    /// the next SUB_BITS bits.
    fn bucket(v: u64) -> usize {
        if v < 2 * SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // v in [2^e, 2^(e+1)), e >= SUB_BITS + 1
        let sub = (v >> (e - SUB_BITS)) & (SUB - 1);
        ((e - SUB_BITS) as u64 * SUB + sub + SUB) as usize
    }

    /// The half-open range of values of bucket `b`.
    fn range(b: usize) -> (u64, u64) {
        let b = b as u64;
        if b < 2 * SUB {
            return (b, b + 1);
        }
        let e = (b - SUB) / SUB + SUB_BITS as u64;
        let sub = (b - SUB) % SUB;
        let width = 1u64 << (e - SUB_BITS as u64);
        let lo = (1u64 << e) + sub * width;
        (lo, lo + width)
    }

    pub fn add(&mut self, v: u64) {
        let b = Self::bucket(v);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
    }

    /// The `q` quantile (0..=1) by the nearest-rank rule, read at the middle of its bucket.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                let (lo, hi) = Self::range(b);
                return Some(lo + (hi - lo - 1) / 2);
            }
        }
        None
    }
}

/// One-way delays and jitter of the packets a flow direction received.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DelayStats {
    pub n: u64,
    pub sum_ns: u128,
    pub min_ns: u64,
    pub max_ns: u64,
    /// RFC 3550 §6.4.1 interarrival jitter estimate (ns), updated at each arrival.
    pub jitter_ns: f64,
    /// The previous arrival's transit time (ns).
    last_transit: Option<u64>,
    pub hist: DelayHistogram,
}

impl DelayStats {
    pub fn add(&mut self, delay: SimTime) {
        let d = delay.0;
        if self.n == 0 || d < self.min_ns {
            self.min_ns = d;
        }
        self.max_ns = self.max_ns.max(d);
        self.n += 1;
        self.sum_ns += d as u128;
        // RFC 3550 §6.4.1: D(i-1, i) = (R_i − R_{i−1}) − (S_i − S_{i−1}) = transit_i −
        // transit_{i−1}; J += (|D| − J) / 16.
        if let Some(prev) = self.last_transit {
            let dd = (d as f64 - prev as f64).abs();
            self.jitter_ns += (dd - self.jitter_ns) / 16.0;
        }
        self.last_transit = Some(d);
        self.hist.add(d);
    }

    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64 / 1e9)
    }

    /// The `q` quantile in seconds, within the smallest and largest delay seen.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if q >= 1.0 && self.n > 0 {
            return Some(self.max_ns as f64 / 1e9); // the top rank is the largest delay
        }
        self.hist
            .quantile(q)
            .map(|v| v.clamp(self.min_ns, self.max_ns) as f64 / 1e9)
    }
}

/// One direction of a flow, measured at the IP layer of its two ends.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirStats {
    /// Packets (and their IP bytes) the source sent.
    pub sent: u64,
    pub sent_bytes: u64,
    /// Packets (and IP bytes) delivered to the destination's transport.
    pub received: u64,
    pub received_bytes: u64,
    /// Packets (and IP bytes) the network discarded (queues, MAC, routing, TTL, loss models).
    pub lost: u64,
    pub lost_bytes: u64,
    pub first_tx: Option<SimTime>,
    pub last_rx: Option<SimTime>,
    pub delay: DelayStats,
}

impl DirStats {
    pub fn on_sent(&mut self, now: SimTime, bytes: u32) {
        self.sent += 1;
        self.sent_bytes += bytes as u64;
        self.first_tx.get_or_insert(now);
    }

    pub fn on_received(&mut self, now: SimTime, sent_at: SimTime, bytes: u32) {
        self.received += 1;
        self.received_bytes += bytes as u64;
        self.last_rx = Some(now);
        self.delay.add(now.saturating_sub(sent_at));
    }

    pub fn on_lost(&mut self, bytes: u32) {
        self.lost += 1;
        self.lost_bytes += bytes as u64;
    }

    /// IP bits received per second from the first packet sent to the last received (as
    /// FlowMonitor: rxBytes · 8 / (timeLastRxPacket − timeFirstTxPacket)).
    pub fn throughput_bps(&self) -> f64 {
        match (self.first_tx, self.last_rx) {
            (Some(a), Some(b)) if b > a => self.received_bytes as f64 * 8.0 / (b - a).as_secs_f64(),
            _ => 0.0,
        }
    }
}

/// Summary of a TCP sender's RTT samples (seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RttSummary {
    pub n: u64,
    pub sum_ns: u128,
    pub min_ns: u64,
    pub max_ns: u64,
}

impl RttSummary {
    pub fn add(&mut self, r: SimTime) {
        if self.n == 0 || r.0 < self.min_ns {
            self.min_ns = r.0;
        }
        self.max_ns = self.max_ns.max(r.0);
        self.n += 1;
        self.sum_ns += r.0 as u128;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_once_and_in_order() {
        let mut prev_hi = 0;
        // Up to the bucket of 2^62 (the last ones reach the top of u64).
        for b in 0..=DelayHistogram::bucket(1 << 62) {
            let (lo, hi) = DelayHistogram::range(b);
            assert_eq!(lo, prev_hi, "bucket {b} starts where {} ended", b - 1);
            assert!(hi > lo);
            assert_eq!(DelayHistogram::bucket(lo), b);
            assert_eq!(DelayHistogram::bucket(hi - 1), b);
            // A bucket is at most 1/32 of its lower edge wide (above the exact ones).
            if lo >= 64 {
                assert!((hi - lo) * 32 <= lo, "bucket {b}: [{lo}, {hi})");
            }
            prev_hi = hi;
        }
    }

    #[test]
    fn quantiles_are_within_the_bucket_resolution() {
        let mut d = DelayStats::default();
        // 1..=1000 ms: median 500 ms, 95th 950 ms (nearest rank).
        for ms in 1..=1000u64 {
            d.add(SimTime::from_millis(ms));
        }
        let med = d.quantile_s(0.5).unwrap();
        let p95 = d.quantile_s(0.95).unwrap();
        assert!((med / 0.5 - 1.0).abs() < 0.016, "{med}");
        assert!((p95 / 0.95 - 1.0).abs() < 0.016, "{p95}");
        assert_eq!(
            d.quantile_s(1.0).unwrap(),
            1.0,
            "the top rank is the largest delay"
        );
        assert!((d.mean_s().unwrap() - 0.5005).abs() < 1e-12);
    }

    #[test]
    fn equal_delays_give_exact_quantiles_and_zero_jitter() {
        let mut d = DelayStats::default();
        for _ in 0..10 {
            d.add(SimTime::from_micros(12_345));
        }
        assert_eq!(d.quantile_s(0.5), Some(0.012345));
        assert_eq!(d.quantile_s(0.95), Some(0.012345));
        assert_eq!(d.jitter_ns, 0.0);
    }

    #[test]
    fn jitter_follows_rfc3550() {
        // Transit times 10, 12, 10 ms: |D| = 2 ms twice; J = 2/16, then J += (2 − J)/16.
        let mut d = DelayStats::default();
        for ms in [10, 12, 10] {
            d.add(SimTime::from_millis(ms));
        }
        let j1 = 2e6 / 16.0;
        let j2 = j1 + (2e6 - j1) / 16.0;
        assert!((d.jitter_ns - j2).abs() < 1e-6);
    }
}
