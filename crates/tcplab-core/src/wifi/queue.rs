//! The interface queue of a wireless station: DropTail with priority for routing control, as
//! ns-2's `Queue/DropTail/PriQueue` with `Prefer_Routing_Protocols 1` (ns-2.35
//! `queue/priqueue.cc`): a high-priority packet goes to the head, and if that overfills the queue
//! the tail packet is dropped.

use std::collections::VecDeque;

use crate::ids::PktId;

/// A packet waiting for the MAC, with what the MAC needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedPkt {
    pub pkt: PktId,
    /// Destination station (global index) or `mac::BROADCAST`.
    pub dst: u32,
    /// IP datagram length in bytes.
    pub ip_len: u32,
    /// Routing control: goes to the head of the queue.
    pub prio: bool,
    /// Data rate chosen for this packet's destination (b/s).
    pub rate: u64,
}

#[derive(Debug)]
pub struct PriQueue {
    items: VecDeque<QueuedPkt>,
    limit: usize,
}

impl PriQueue {
    pub fn new(limit: usize) -> Self {
        PriQueue {
            items: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `Ok(None)`: queued. `Ok(Some(p))`: queued at the head, pushing out tail packet `p`.
    /// `Err(())`: the queue is full and the (normal-priority) packet is dropped.
    #[allow(clippy::result_unit_err)]
    pub fn push(&mut self, q: QueuedPkt) -> Result<Option<PktId>, ()> {
        if q.prio {
            self.items.push_front(q);
            if self.items.len() > self.limit {
                return Ok(self.items.pop_back().map(|x| x.pkt));
            }
            return Ok(None);
        }
        if self.items.len() >= self.limit {
            return Err(());
        }
        self.items.push_back(q);
        Ok(None)
    }

    pub fn pop(&mut self) -> Option<QueuedPkt> {
        self.items.pop_front()
    }

    /// Removes every packet for `dst`, keeping the order of the others.
    pub fn drain_for(&mut self, dst: u32) -> Vec<PktId> {
        let mut out = Vec::new();
        self.items.retain(|q| {
            if q.dst == dst {
                out.push(q.pkt);
                false
            } else {
                true
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(i: u32, prio: bool) -> QueuedPkt {
        QueuedPkt {
            pkt: PktId(i),
            dst: i % 2,
            ip_len: 100,
            prio,
            rate: 1,
        }
    }

    #[test]
    fn droptail_with_priority_head() {
        let mut pq = PriQueue::new(3);
        assert_eq!(pq.push(q(0, false)), Ok(None));
        assert_eq!(pq.push(q(1, false)), Ok(None));
        assert_eq!(pq.push(q(2, false)), Ok(None));
        assert_eq!(pq.push(q(3, false)), Err(()));
        // A routing packet enters at the head and pushes out the tail.
        assert_eq!(pq.push(q(4, true)), Ok(Some(PktId(2))));
        assert_eq!(pq.pop().map(|x| x.pkt), Some(PktId(4)));
        assert_eq!(pq.drain_for(1), vec![PktId(1)]);
        assert_eq!(pq.pop().map(|x| x.pkt), Some(PktId(0)));
        assert!(pq.is_empty());
    }

    #[test]
    fn a_routing_packet_displaces_the_tail_only_when_the_queue_overflows() {
        let mut pq = PriQueue::new(3);
        assert_eq!(pq.push(q(0, false)), Ok(None));
        assert_eq!(pq.push(q(1, false)), Ok(None));
        assert_eq!(pq.len(), 2);
        assert!(!pq.is_empty());
        // Room left: the routing packet goes to the head and nothing is dropped.
        assert_eq!(pq.push(q(2, true)), Ok(None));
        assert_eq!(pq.len(), 3);
        let order: Vec<_> = std::iter::from_fn(|| pq.pop()).map(|x| x.pkt).collect();
        assert_eq!(order, vec![PktId(2), PktId(0), PktId(1)]);
        assert_eq!(pq.len(), 0);
        // drain_for keeps the others in order.
        for i in [3, 4, 5] {
            pq.push(q(i, false)).unwrap();
        }
        assert_eq!(pq.drain_for(1), vec![PktId(3), PktId(5)]);
        assert_eq!(pq.pop().map(|x| x.pkt), Some(PktId(4)));
    }
}
