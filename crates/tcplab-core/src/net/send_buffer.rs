//! The send buffer of the on-demand agents (AODV, DSR): packets waiting for a route (RFC 3561
//! §6.3 "buffer", ns-2 `aodv_rqueue`; RFC 4728 §4.2 Send Buffer). Bounded in size (the oldest
//! goes when full, as ns-2) and in waiting time.

use std::collections::VecDeque;

use super::routing::DropReason;
use crate::ids::PktId;
use crate::packet::Addr;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// (packet, destination, time queued), oldest first.
    q: VecDeque<(PktId, Addr, SimTime)>,
    capacity: usize,
    timeout: SimTime,
}

impl SendBuffer {
    pub fn new(capacity: usize, timeout: SimTime) -> SendBuffer {
        SendBuffer {
            q: VecDeque::new(),
            capacity,
            timeout,
        }
    }

    /// Queues `id`; returns the packet pushed out when the buffer was full (ns-2 drops the head,
    /// `DROP_RTR_QFULL`).
    pub fn push(&mut self, id: PktId, dst: Addr, now: SimTime) -> Option<PktId> {
        let evicted = if self.q.len() >= self.capacity {
            self.q.pop_front().map(|e| e.0)
        } else {
            None
        };
        if self.capacity > 0 {
            self.q.push_back((id, dst, now));
            evicted
        } else {
            Some(id)
        }
    }

    /// Removes the packets that waited `timeout` or longer (ns-2 `DROP_RTR_QTIMEOUT`) into
    /// `drops`.
    pub fn expire(&mut self, now: SimTime, drops: &mut Vec<(PktId, DropReason)>) {
        while let Some(&(id, _, t)) = self.q.front() {
            if t + self.timeout > now {
                break;
            }
            self.q.pop_front();
            drops.push((id, DropReason::BufferTimeout));
        }
    }

    /// Queues `id` for a route to `dst` after dropping what waited too long; every packet
    /// dropped on the way goes to `drops` with its reason.
    pub fn hold(
        &mut self,
        id: PktId,
        dst: Addr,
        now: SimTime,
        drops: &mut Vec<(PktId, DropReason)>,
    ) {
        self.expire(now, drops);
        if let Some(old) = self.push(id, dst, now) {
            drops.push((old, DropReason::BufferFull));
        }
    }

    /// Removes and returns every packet for `dst`, oldest first.
    pub fn take(&mut self, dst: Addr) -> Vec<PktId> {
        let mut taken = Vec::new();
        self.q.retain(|&(id, d, _)| {
            let hit = d == dst;
            if hit {
                taken.push(id);
            }
            !hit
        });
        taken
    }

    /// Removes and returns the oldest packet for `dst`.
    pub fn take_oldest(&mut self, dst: Addr) -> Option<PktId> {
        let i = self.q.iter().position(|&(_, d, _)| d == dst)?;
        self.q.remove(i).map(|e| e.0)
    }

    pub fn has(&self, dst: Addr) -> bool {
        self.q.iter().any(|&(_, d, _)| d == dst)
    }

    /// Destinations with waiting packets, in order of their oldest packet.
    pub fn destinations(&self) -> Vec<Addr> {
        let mut v: Vec<Addr> = Vec::new();
        for &(_, d, _) in &self.q {
            if !v.contains(&d) {
                v.push(d);
            }
        }
        v
    }

    /// When the oldest packet times out.
    pub fn next_expiry(&self) -> Option<SimTime> {
        self.q.front().map(|&(_, _, t)| t + self.timeout)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_buffer_drops_oldest_and_old_packets_time_out() {
        let mut b = SendBuffer::new(2, SimTime::from_secs(30));
        assert_eq!(b.push(PktId(1), 9, SimTime::ZERO), None);
        assert_eq!(b.push(PktId(2), 8, SimTime::from_secs(1)), None);
        assert_eq!(b.push(PktId(3), 9, SimTime::from_secs(2)), Some(PktId(1)));
        let mut out = Vec::new();
        b.expire(SimTime::from_secs(30), &mut out);
        assert!(out.is_empty());
        b.expire(SimTime::from_secs(31), &mut out);
        assert_eq!(out, vec![(PktId(2), DropReason::BufferTimeout)]);
        assert_eq!(b.next_expiry(), Some(SimTime::from_secs(32)));
        assert_eq!(b.take(9), vec![PktId(3)]);
        assert!(b.is_empty());
    }
}
