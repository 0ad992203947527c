//! Output queues: DropTail (in packets or bytes) and RED (Floyd & Jacobson 1993) with optional ECN
//! marking (RFC 3168 §7).

use std::collections::VecDeque;

use super::red::{Red, RedParams};
use crate::ids::PktId;
use crate::rng::Rng;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum QueueConfig {
    /// Tail drop when the queue holds `packets` packets (and/or `bytes` bytes, if set).
    DropTail {
        packets: Option<u32>,
        bytes: Option<u64>,
    },
    /// Random Early Detection. Thresholds in packets.
    Red(RedParams),
}

/// What the queue did with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    Queued,
    /// Queued after setting CE in its IP header (the caller applies the mark).
    QueuedMarked,
    Dropped,
}

#[derive(Debug)]
pub struct Queue {
    cfg: QueueConfig,
    items: VecDeque<(PktId, u32)>,
    bytes: u64,
    red: Option<Red>,
}

impl Queue {
    pub fn new(cfg: QueueConfig, typical_tx: SimTime) -> Self {
        let red = match &cfg {
            QueueConfig::Red(p) => Some(Red::new(*p, typical_tx)),
            QueueConfig::DropTail { .. } => None,
        };
        Queue {
            cfg,
            items: VecDeque::new(),
            bytes: 0,
            red,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// RED's average queue length (packets); zero for DropTail.
    pub fn red_avg(&self) -> f64 {
        self.red.as_ref().map_or(0.0, Red::avg)
    }

    /// Offers a packet of `size` bytes; `ect` says whether it is ECN-capable.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PktId,
        size: u32,
        ect: bool,
        rng: &mut Rng,
    ) -> Enqueue {
        let verdict = match self.cfg {
            QueueConfig::DropTail { packets, bytes } => {
                let full_p = packets.is_some_and(|p| self.items.len() as u32 >= p);
                let full_b = bytes.is_some_and(|b| self.bytes + size as u64 > b);
                if full_p || full_b {
                    Enqueue::Dropped
                } else {
                    Enqueue::Queued
                }
            }
            QueueConfig::Red(_) => match self.red.as_mut() {
                Some(red) => red.arrival(now, self.items.len(), ect, rng),
                None => Enqueue::Queued,
            },
        };
        if verdict != Enqueue::Dropped {
            self.items.push_back((pkt, size));
            self.bytes += size as u64;
        }
        verdict
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<(PktId, u32)> {
        let r = self.items.pop_front();
        if let Some((_, s)) = r {
            self.bytes -= s as u64;
        }
        if let (true, Some(red)) = (self.items.is_empty(), self.red.as_mut()) {
            red.emptied(now);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn droptail_packets_and_bytes() {
        let mut rng = Rng::derive(0, StreamId::Custom(0));
        let mut q = Queue::new(
            QueueConfig::DropTail {
                packets: Some(2),
                bytes: None,
            },
            SimTime(1),
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(0), 100, false, &mut rng),
            Enqueue::Queued
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(1), 100, false, &mut rng),
            Enqueue::Queued
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(2), 100, false, &mut rng),
            Enqueue::Dropped
        );
        assert_eq!(q.dequeue(SimTime(0)), Some((PktId(0), 100)));

        let mut q = Queue::new(
            QueueConfig::DropTail {
                packets: None,
                bytes: Some(250),
            },
            SimTime(1),
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(0), 100, false, &mut rng),
            Enqueue::Queued
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(1), 100, false, &mut rng),
            Enqueue::Queued
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(2), 100, false, &mut rng),
            Enqueue::Dropped
        );
        // A packet that fills the limit exactly still fits, one byte more does not.
        assert_eq!(
            q.enqueue(SimTime(0), PktId(3), 50, false, &mut rng),
            Enqueue::Queued
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(4), 1, false, &mut rng),
            Enqueue::Dropped
        );
        assert_eq!(q.bytes(), 250);
        // A departure frees its bytes: after the 100-B head leaves, 100 B fit again, 101 do not.
        assert_eq!(q.dequeue(SimTime(0)), Some((PktId(0), 100)));
        assert_eq!(q.bytes(), 150);
        assert_eq!(
            q.enqueue(SimTime(0), PktId(5), 101, false, &mut rng),
            Enqueue::Dropped
        );
        assert_eq!(
            q.enqueue(SimTime(0), PktId(6), 100, false, &mut rng),
            Enqueue::Queued
        );
    }

    /// Offers 2000 packets, alternately ECN-capable and not, to a RED queue held at `held`
    /// packets (w_q = 1, so the average is the instantaneous length). Returns the outcomes as
    /// [ect][Queued, QueuedMarked, Dropped] counts.
    fn red_outcomes(held: u32, ecn: bool) -> [[u32; 3]; 2] {
        red_outcomes_with(held, ecn, false, 0)
    }

    fn red_outcomes_with(held: u32, ecn: bool, gentle: bool, seed: u64) -> [[u32; 3]; 2] {
        let cfg = QueueConfig::Red(RedParams {
            limit: 100,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle,
            ecn,
            mark_at_max_th: false,
        });
        let mut rng = Rng::derive(seed, StreamId::Custom(1));
        let mut q = Queue::new(cfg, SimTime(1000));
        let mut id = 10_000;
        while (q.len() as u32) < held {
            q.enqueue(SimTime(0), PktId(id), 1000, true, &mut rng);
            id += 1;
        }
        let mut n = [[0; 3]; 2];
        for i in 0..2000u32 {
            let ect = i % 2 == 0;
            let v = q.enqueue(SimTime(0), PktId(100 + i), 1000, ect, &mut rng);
            if v != Enqueue::Dropped {
                q.dequeue(SimTime(0));
            }
            let k = match v {
                Enqueue::Queued => 0,
                Enqueue::QueuedMarked => 1,
                Enqueue::Dropped => 2,
            };
            n[usize::from(ect)][k] += 1;
        }
        assert_eq!(q.len() as u32, held);
        n
    }

    #[test]
    fn red_marks_ect_and_drops_non_ect_between_thresholds() {
        let [non_ect, ect] = red_outcomes(10, true);
        // RFC 3168 §7: an early action on an ECN-capable packet is a mark, never a drop; a packet
        // that is not ECN-capable is dropped, never marked.
        assert_eq!(ect[2], 0, "ECT packets dropped: {ect:?}");
        assert_eq!(non_ect[1], 0, "non-ECT packets marked: {non_ect:?}");
        // Between the thresholds pb = max_p (10 - 5)/(15 - 5) = 0.05, and the count correction
        // pa = pb/(1 - count pb) makes the gap between early actions uniform on 1..=20
        // (Floyd & Jacobson §7): one action per 10.5 arrivals, 190 of 2000 on average (standard
        // deviation ~8; plain pb would give 100). Bounds at ±4 standard deviations.
        let actions = ect[1] + non_ect[2];
        assert!((160..=222).contains(&actions), "{actions} early actions");
        assert!(ect[1] > 60 && non_ect[2] > 60, "{ect:?} {non_ect:?}");
    }

    #[test]
    fn red_without_ecn_drops_ect_packets_too() {
        let [non_ect, ect] = red_outcomes(10, false);
        assert_eq!(ect[1] + non_ect[1], 0, "no marks without ECN");
        assert!(ect[2] > 60 && non_ect[2] > 60, "{ect:?} {non_ect:?}");
    }

    #[test]
    fn red_above_max_th_drops_even_ect_packets() {
        // RFC 3168 §7: at or above the maximum threshold the router drops, ECN or not.
        let [non_ect, ect] = red_outcomes(15, true);
        assert_eq!(ect, [0, 0, 1000]);
        assert_eq!(non_ect, [0, 0, 1000]);
    }

    #[test]
    fn red_average_is_an_ewma_that_decays_over_idle_time() {
        // Floyd & Jacobson §4: avg ← (1 − w_q)·avg + w_q·q on each arrival; after an idle period
        // of m typical transmission times, avg ← (1 − w_q)^m·avg. Thresholds out of reach.
        let cfg = QueueConfig::Red(RedParams {
            limit: 100,
            min_th: 50.0,
            max_th: 90.0,
            max_p: 0.1,
            w_q: 0.5,
            gentle: false,
            ecn: false,
            mark_at_max_th: false,
        });
        let mut rng = Rng::derive(0, StreamId::Custom(2));
        let mut q = Queue::new(cfg, SimTime(1000));
        let mut offer = |q: &mut Queue, t: u64, id: u32| {
            assert_eq!(
                q.enqueue(SimTime(t), PktId(id), 500, false, &mut rng),
                Enqueue::Queued
            );
            q.red_avg()
        };
        // The first arrival ends the initial idle period (at t = 0: no decay of avg = 0).
        assert_eq!(offer(&mut q, 0, 0), 0.0);
        assert_eq!(offer(&mut q, 0, 1), 0.5);
        assert_eq!(offer(&mut q, 0, 2), 1.25);
        assert_eq!((q.len(), q.bytes(), q.is_empty()), (3, 1500, false));
        for _ in 0..3 {
            q.dequeue(SimTime(6000));
        }
        assert!(q.is_empty() && q.bytes() == 0);
        // Idle from t = 6000 to 10000: m = 4 transmission times, avg = 1.25 / 2^4.
        assert_eq!(offer(&mut q, 10_000, 3), 1.25 / 16.0);
    }

    #[test]
    fn gentle_red_ramps_between_max_th_and_twice_it() {
        // Gentle RED: at avg = 20, pb = max_p + (1 − max_p)(20 − 15)/15 = 0.4 instead of a
        // forced drop; an early action is still a mark for ECT packets.
        let [non_ect, ect] = red_outcomes_with(20, true, true, 0);
        assert_eq!((ect[2], non_ect[1]), (0, 0), "{ect:?} {non_ect:?}");
        assert!(ect[0] > 100 && non_ect[0] > 100, "{ect:?} {non_ect:?}");
        assert!(ect[1] > 100 && non_ect[2] > 100, "{ect:?} {non_ect:?}");
        // From 2·max_th on, every packet is dropped.
        assert_eq!(red_outcomes_with(30, true, true, 0)[1], [0, 0, 1000]);
    }

    #[test]
    fn red_below_min_th_queues_everything() {
        let [non_ect, ect] = red_outcomes(4, true);
        assert_eq!(ect, [1000, 0, 0]);
        assert_eq!(non_ect, [1000, 0, 0]);
    }
}
