//! The event queue.
//!
//! **Ordering.** Events run in order of time; events scheduled for the same nanosecond run in the
//! order they were scheduled (a global insertion counter breaks ties). Nothing else — no id, no
//! hash, no pointer — influences the order, which is what makes a run a pure function of
//! (scenario, seed, version).
//!
//! **Cancellation** is lazy: a component that re-arms a timer schedules a new wake-up tagged with a
//! fresh generation number; a wake-up whose generation is stale is discarded when popped.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ids::{IfaceId, PktId, SockId};
use crate::time::SimTime;

/// What happens at an instant. Kept small (16 bytes) because the heap moves it around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The transmitter of `IfaceId` finished serialising a packet and may start the next.
    TxDone(IfaceId),
    /// A packet reaches the receiving interface `IfaceId`.
    Arrive(IfaceId, PktId),
    /// Wake socket `SockId` for its timers, if `gen` is still current.
    SockTimer(SockId, u32),
    /// Wake application `u32` (a CBR source's next packet, or a delayed start).
    App(u32),
    /// Wake wireless station `u32`'s MAC, if `gen` is still current.
    WifiTimer(u32, u32),
    /// Wireless frame `u32` (a transmission record) ends for its hearers.
    WifiRxEnd(u32),
    /// Outage and signal events of wireless station `u32` (kind: see `wifi::LINK_*`).
    WifiLink(u32, u32),
    /// Wake in-network agent `u32` for its timers, if the generation is still current.
    AgentTimer(u32, u32),
    /// Wake node `u32`'s routing agent for its timers, if the generation is still current.
    RoutingTimer(u32, u32),
    /// Refresh the positions of moving stations.
    Mobility,
}

/// Heap entry. `key` packs (time, insertion sequence) so one integer comparison orders entries.
#[derive(Debug)]
struct Entry {
    key: u128,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// A deterministic min-queue of events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            key: ((time.0 as u128) << 64) | seq as u128,
            ev,
        });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap
            .pop()
            .map(|e| (SimTime((e.key >> 64) as u64), e.ev))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| SimTime((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::App(1));
        q.schedule(SimTime(3), Event::App(2));
        q.schedule(SimTime(5), Event::App(3));
        q.schedule(SimTime(5), Event::App(4));
        assert_eq!((q.len(), q.is_empty()), (4, false));
        assert_eq!(q.peek_time(), Some(SimTime(3)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let (t3, t5) = (SimTime(3), SimTime(5));
        assert_eq!(
            order,
            vec![
                (t3, Event::App(2)),
                (t5, Event::App(1)),
                (t5, Event::App(3)),
                (t5, Event::App(4))
            ]
        );
        assert_eq!((q.len(), q.is_empty(), q.peek_time()), (0, true, None));
    }

    #[test]
    fn entry_equality_agrees_with_its_order() {
        // `Ord` requires a == b exactly when a.cmp(b) is Equal; BinaryHeap itself only calls cmp.
        let e = |key| Entry {
            key,
            ev: Event::App(0),
        };
        for (a, b) in [(1, 1), (1, 2), (2, 1)] {
            assert_eq!(
                e(a) == e(b),
                e(a).cmp(&e(b)) == Ordering::Equal,
                "{a} vs {b}"
            );
            assert_eq!(e(a).partial_cmp(&e(b)), Some(e(a).cmp(&e(b))));
        }
        assert!(e(7) == e(7) && e(7) != e(8));
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
