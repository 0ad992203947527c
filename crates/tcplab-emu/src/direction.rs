//! One direction of an emulated link, sans-IO: packets are offered at `now`, and `poll(now)`
//! hands back those whose last bit has crossed the propagation delay. The caller owns the clock
//! and the devices, so these rules are tested here without namespaces or timers.
//!
//! The rules are the simulator's (crates/tcplab-core/src/world.rs, `enqueue`/`start_tx`): an
//! output queue from `tcplab_core::link` in front of one transmitter; a packet of `n` bytes
//! occupies the transmitter for `n·8/rate`, then arrives `delay` later; it is lost if the link is
//! in an outage when it starts or when it arrives, else if the loss model says so. Times are
//! virtual: the next packet starts exactly when the previous one ends, however late the caller
//! wakes, so the link rate does not depend on timer latency.

use std::collections::VecDeque;

use serde::Serialize;
use tcplab_core::ids::PktId;
use tcplab_core::link::{Enqueue, LossModel, Outage, Queue, QueueConfig};
use tcplab_core::rng::Rng;
use tcplab_core::SimTime;

/// Counters of one direction, named as the simulator's `LinkSummary`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DirStats {
    pub direction: String,
    /// Packets the sending end handed to the link (queue drops included).
    pub packets_offered: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub drops_outage: u64,
    pub ecn_marks: u64,
}

pub struct Direction {
    rate_bps: u64,
    delay: SimTime,
    queue: Queue,
    /// The bytes of the packets the queue holds, in its (FIFO) order.
    waiting: VecDeque<Vec<u8>>,
    next_id: u32,
    loss: LossModel,
    outage: Outage,
    rng: Rng,
    /// When the packet being serialised ends; None while the transmitter is idle.
    tx_end: Option<SimTime>,
    /// Packets in propagation with their arrival times (FIFO: one delay for all).
    on_wire: VecDeque<(SimTime, Vec<u8>)>,
    pub stats: DirStats,
}

impl Direction {
    pub fn new(
        name: String,
        rate_bps: u64,
        delay: SimTime,
        models: (QueueConfig, LossModel, Outage),
        rng: Rng,
    ) -> Direction {
        let (qcfg, loss, outage) = models;
        Direction {
            rate_bps,
            delay,
            // The simulator's RED idle decay assumes 1000-byte packets (scenario/build.rs).
            queue: Queue::new(qcfg, SimTime::tx_time(1000, rate_bps)),
            waiting: VecDeque::new(),
            next_id: 0,
            loss,
            outage,
            rng,
            tx_end: None,
            on_wire: VecDeque::new(),
            stats: DirStats {
                direction: name,
                ..DirStats::default()
            },
        }
    }

    /// A packet from the sending end at `now`.
    pub fn offer(&mut self, now: SimTime, mut pkt: Vec<u8>) {
        self.advance(now);
        self.stats.packets_offered += 1;
        let ect = pkt.len() > 1 && pkt[1] & 0b11 != 0;
        let id = PktId(self.next_id);
        self.next_id = self.next_id.wrapping_add(1);
        match self
            .queue
            .enqueue(now, id, pkt.len() as u32, ect, &mut self.rng)
        {
            Enqueue::Dropped => {
                self.stats.drops_queue += 1;
                return;
            }
            Enqueue::QueuedMarked => {
                self.stats.ecn_marks += 1;
                mark_ce(&mut pkt);
            }
            Enqueue::Queued => {}
        }
        self.waiting.push_back(pkt);
        if self.tx_end.is_none() {
            self.start_tx(now);
        }
    }

    /// Moves every packet that has arrived by `now` into `out`, with its arrival time.
    pub fn poll(&mut self, now: SimTime, out: &mut Vec<(SimTime, Vec<u8>)>) {
        self.advance(now);
        while self.on_wire.front().is_some_and(|(t, _)| *t <= now) {
            out.push(self.on_wire.pop_front().expect("front exists"));
        }
    }

    /// When `poll` next has something to do.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let arrival = self.on_wire.front().map(|(t, _)| *t);
        let next_start = self.tx_end.filter(|_| !self.waiting.is_empty());
        match (arrival, next_start) {
            (Some(a), Some(s)) => Some(a.min(s)),
            (a, s) => a.or(s),
        }
    }

    /// Runs the transmitter up to `now`: each queued packet starts when the previous one ended.
    fn advance(&mut self, now: SimTime) {
        while let Some(end) = self.tx_end.filter(|&end| end <= now) {
            self.tx_end = None;
            self.start_tx(end);
        }
    }

    fn start_tx(&mut self, t: SimTime) {
        let Some((_, size)) = self.queue.dequeue(t) else {
            return;
        };
        let pkt = self.waiting.pop_front().expect("queue and bytes agree");
        let tx = SimTime::tx_time(size as u64, self.rate_bps);
        let arrive = t + tx + self.delay;
        self.tx_end = Some(t + tx);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size as u64;
        // As in the simulator: an outage at either end of the packet's time on the wire loses
        // it; otherwise the loss model decides.
        if self.outage.is_down(t) || self.outage.is_down(arrive) {
            self.stats.drops_outage += 1;
        } else if self.loss.lose(&mut self.rng) {
            self.stats.drops_loss += 1;
        } else {
            self.on_wire.push_back((arrive, pkt));
        }
    }
}

/// Sets ECN's CE codepoint in an IPv4 header (RFC 3168 §5) and updates the header checksum
/// incrementally (RFC 1624 eqn. 3).
fn mark_ce(pkt: &mut [u8]) {
    if pkt.len() < 20 || pkt[0] >> 4 != 4 {
        return;
    }
    let old = u16::from_be_bytes([pkt[0], pkt[1]]);
    pkt[1] |= 0b11;
    let new = u16::from_be_bytes([pkt[0], pkt[1]]);
    let hc = u16::from_be_bytes([pkt[10], pkt[11]]);
    let mut sum = (!hc as u32) + (!old as u32) + new as u32;
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    pkt[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::rng::StreamId;

    const MS: u64 = 1_000_000;

    fn droptail(packets: u32) -> QueueConfig {
        QueueConfig::DropTail {
            packets: Some(packets),
            bytes: None,
        }
    }

    fn dir(rate: u64, delay_ms: u64, q: QueueConfig, loss: LossModel, out: Outage) -> Direction {
        Direction::new(
            "a->b".into(),
            rate,
            SimTime(delay_ms * MS),
            (q, loss, out),
            Rng::derive(1, StreamId::Custom(7)),
        )
    }

    /// Runs the direction to `until`, waking only at its deadlines; returns arrival times.
    fn drain(d: &mut Direction, until: SimTime) -> Vec<SimTime> {
        let mut times = Vec::new();
        let mut out = Vec::new();
        while let Some(t) = d.next_deadline().filter(|&t| t <= until) {
            d.poll(t, &mut out);
            for (due, _) in out.drain(..) {
                assert_eq!(due, t, "handed over at its arrival time");
                times.push(due);
            }
        }
        times
    }

    #[test]
    fn a_burst_leaves_at_the_link_rate_after_the_delay() {
        // 1500 B at 10 Mb/s = 1.2 ms each; 20 ms propagation.
        let mut d = dir(
            10_000_000,
            20,
            droptail(50),
            LossModel::None,
            Outage::none(),
        );
        for _ in 0..10 {
            d.offer(SimTime::ZERO, vec![0x45; 1500]);
        }
        let t = drain(&mut d, SimTime(SimTime::from_secs(1).0));
        let want: Vec<SimTime> = (1..=10).map(|k| SimTime(k * 1_200_000 + 20 * MS)).collect();
        assert_eq!(t, want);
        assert_eq!(d.stats.packets_sent, 10);
    }

    #[test]
    fn a_late_wake_up_does_not_slow_the_link() {
        let mut d = dir(10_000_000, 0, droptail(50), LossModel::None, Outage::none());
        for _ in 0..5 {
            d.offer(SimTime::ZERO, vec![0x45; 1500]);
        }
        // One poll 100 ms late sees all five, as if it had woken at each deadline.
        let mut out = Vec::new();
        d.poll(SimTime(100 * MS), &mut out);
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn the_fifo_drops_what_overflows_it() {
        // The transmitter holds one packet, the queue three more: the other six are dropped.
        let mut d = dir(1_000_000, 1, droptail(3), LossModel::None, Outage::none());
        for _ in 0..10 {
            d.offer(SimTime::ZERO, vec![0x45; 1000]);
        }
        assert_eq!(d.stats.drops_queue, 6);
        assert_eq!(drain(&mut d, SimTime::from_secs(1)).len(), 4);
    }

    #[test]
    fn a_byte_limit_counts_bytes() {
        let q = QueueConfig::DropTail {
            packets: None,
            bytes: Some(2500),
        };
        let mut d = dir(1_000_000, 1, q, LossModel::None, Outage::none());
        for _ in 0..5 {
            d.offer(SimTime::ZERO, vec![0x45; 1000]);
        }
        // One on the wire, two (2000 B) queued; the third would make 3000 B.
        assert_eq!(d.stats.drops_queue, 2);
    }

    #[test]
    fn an_outage_loses_what_starts_or_arrives_in_it() {
        let out = Outage {
            intervals: vec![(SimTime(10 * MS), SimTime(20 * MS))],
            periodic: None,
        };
        let mut d = dir(1_000_000_000, 5, droptail(50), LossModel::None, out);
        d.offer(SimTime(MS), vec![0x45; 100]); // arrives at 6 ms: kept
        d.offer(SimTime(7 * MS), vec![0x45; 100]); // arrives at 12 ms: lost
        d.offer(SimTime(15 * MS), vec![0x45; 100]); // starts in the outage: lost
        d.offer(SimTime(21 * MS), vec![0x45; 100]); // kept
        assert_eq!(drain(&mut d, SimTime::from_secs(1)).len(), 2);
        assert_eq!(d.stats.drops_outage, 2);
    }

    #[test]
    fn bernoulli_loss_drops_its_share() {
        let mut d = dir(
            1_000_000_000,
            0,
            droptail(100_000),
            LossModel::Bernoulli { p: 0.1 },
            Outage::none(),
        );
        for k in 0..20_000u64 {
            d.offer(SimTime(k * MS), vec![0x45; 100]);
        }
        let lost = d.stats.drops_loss as f64 / 20_000.0;
        assert!((lost - 0.1).abs() < 0.01, "lost {lost}");
    }

    #[test]
    fn ce_marking_keeps_the_header_checksum_valid() {
        // A minimal IPv4 header (ECT(0)) with its checksum.
        let mut h = vec![
            0x45, 0x02, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0, 0, 10, 0, 0, 1, 10, 0,
            0, 3,
        ];
        let sum = |h: &[u8]| {
            let mut s: u32 = h
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
                .sum();
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            s as u16
        };
        let c = !sum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        mark_ce(&mut h);
        assert_eq!(h[1] & 0b11, 0b11);
        assert_eq!(sum(&h), 0xffff);
    }
}
