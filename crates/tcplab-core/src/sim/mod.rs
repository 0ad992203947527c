//! The event queue.
//!
//! **Ordering.** Events run in order of time; events scheduled for the same nanosecond run in the
//! order they were scheduled (a global insertion counter breaks ties). Nothing else — no id, no
//! hash, no pointer — influences the order, which is what makes a run a pure function of
//! (scenario, seed, version).
//!
//! **Cancellation** is lazy: a component that re-arms a timer schedules a new wake-up tagged with a
//! fresh generation number; a wake-up whose generation is stale is discarded when popped. The
//! world sweeps such dead wake-ups out (`retain`) once they could be half the queue
//! (`world/census.rs`), so a timer re-armed earlier over and over does not grow the heap.

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
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Event,
}

#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

/// A deterministic min-queue of events: a binary heap on the unique (time, sequence) keys.
///
/// The keys are unique, so the order events come out in is fixed by the keys alone, whatever the
/// heap's layout: this hand-written heap (moving a hole instead of swapping, and re-keying the
/// top in place) pops exactly what `std::collections::BinaryHeap` would.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
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
            key: key(time, seq),
            ev,
        });
        self.sift_up(self.heap.len() - 1);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let last = self.heap.pop()?;
        let top = match self.heap.first() {
            Some(&root) => {
                // The last entry fills the root's place and sinks to its own. (Sinking the
                // hole to a leaf first and the entry up from there, as std's heap does, cost
                // more here: recently scheduled entries are mostly due soon.)
                self.sift_down(last);
                root
            }
            None => last,
        };
        Some((SimTime((top.key >> 64) as u64), top.ev))
    }

    /// The earliest event and its time, left in the queue.
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        self.heap
            .first()
            .map(|e| (SimTime((e.key >> 64) as u64), e.ev))
    }

    /// Replaces the earliest event by `ev` at `time`, exactly as `pop` followed by
    /// `schedule(time, ev)` would (the new event takes the next insertion sequence), without
    /// counting as an event taken: one sift instead of two.
    #[inline]
    pub fn replace_top(&mut self, time: SimTime, ev: Event) {
        debug_assert!(!self.heap.is_empty());
        let seq = self.next_seq;
        self.next_seq += 1;
        self.sift_down(Entry {
            key: key(time, seq),
            ev,
        });
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The heap vector's allocated slots (memory census: `World::memory_census`).
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }

    /// Every pending event and its time, in no particular order (memory census).
    pub fn iter(&self) -> impl Iterator<Item = (SimTime, Event)> + '_ {
        self.heap
            .iter()
            .map(|e| (SimTime((e.key >> 64) as u64), e.ev))
    }

    /// Pending events by kind, in `Event`'s declaration order (memory census).
    pub fn count_by_kind(&self) -> [usize; 10] {
        let mut n = [0; 10];
        for e in &self.heap {
            let k = match e.ev {
                Event::TxDone(_) => 0,
                Event::Arrive(..) => 1,
                Event::SockTimer(..) => 2,
                Event::App(_) => 3,
                Event::WifiTimer(..) => 4,
                Event::WifiRxEnd(_) => 5,
                Event::WifiLink(..) => 6,
                Event::AgentTimer(..) => 7,
                Event::RoutingTimer(..) => 8,
                Event::Mobility => 9,
            };
            n[k] += 1;
        }
        n
    }

    /// Removes the events `keep` rejects (superseded timer wake-ups) and restores the heap
    /// order. The keys are unique, so the events left pop exactly as they would have.
    pub fn retain(&mut self, mut keep: impl FnMut(Event) -> bool) {
        self.heap.retain(|e| keep(e.ev));
        // Floyd's heap construction: sink every inner node, the last first.
        for i in (0..self.heap.len() / 2).rev() {
            self.sink(i);
        }
    }

    /// Moves the entry at `i` down until both children are later.
    fn sink(&mut self, i: usize) {
        let e = self.heap[i];
        self.place_down(i, e);
    }

    /// Moves the entry at `i` towards the root until its parent is earlier.
    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let h = &mut self.heap;
        let e = h[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if h[parent].key <= e.key {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    /// Puts `e` at the root (overwriting it) and moves it down to its place.
    #[inline]
    fn sift_down(&mut self, e: Entry) {
        self.place_down(0, e);
    }

    /// Puts `e` at slot `i` (overwriting it), moving later children up until both of its
    /// children are later than `e`.
    #[inline]
    fn place_down(&mut self, mut i: usize, e: Entry) {
        let h = &mut self.heap;
        let n = h.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && h[r].key < h[l].key { r } else { l };
            if e.key <= h[c].key {
                break;
            }
            h[i] = h[c];
            i = c;
        }
        h[i] = e;
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
    fn pops_what_a_reference_queue_pops_under_random_use() {
        // The reference: std's BinaryHeap on the same (time, sequence) keys, where replacing the
        // top is a pop followed by a schedule.
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut rng = crate::rng::Rng::derive(7, crate::rng::StreamId::Custom(0x51));
        let mut q = EventQueue::new();
        let mut reference: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for i in 0..20_000u32 {
            // Few distinct times, so that many events share an instant.
            let t = now + rng.below(4);
            match rng.below(10) {
                0..=4 => {
                    q.schedule(SimTime(t), Event::App(i));
                    reference.push(Reverse((t, seq, i)));
                    seq += 1;
                }
                5..=7 => {
                    let got = q.pop();
                    let want = reference
                        .pop()
                        .map(|Reverse((t, _, a))| (SimTime(t), Event::App(a)));
                    assert_eq!(got, want, "pop {i}");
                    if let Some((t, _)) = got {
                        now = t.0;
                    }
                }
                _ => {
                    let Some((t0, _)) = q.peek() else { continue };
                    assert_eq!(Some(t0), q.peek_time());
                    now = t0.0;
                    let t = now + rng.below(4);
                    q.replace_top(SimTime(t), Event::App(i));
                    reference.pop();
                    reference.push(Reverse((t, seq, i)));
                    seq += 1;
                }
            }
            assert_eq!(q.len(), reference.len());
            let want = reference
                .peek()
                .map(|Reverse((t, _, a))| (SimTime(*t), Event::App(*a)));
            assert_eq!(q.peek(), want, "peek {i}");
        }
    }

    #[test]
    fn retain_removes_only_the_rejected_and_the_rest_pop_in_order() {
        let mut rng = crate::rng::Rng::derive(3, crate::rng::StreamId::Custom(0x52));
        let mut q = EventQueue::new();
        let mut kept = EventQueue::new();
        for i in 0..500u32 {
            let t = SimTime(rng.below(50));
            q.schedule(t, Event::App(i));
            // The reference holds only the kept events, scheduled in the same order.
            if i % 3 != 0 {
                kept.schedule(t, Event::App(i));
            }
        }
        q.retain(|ev| !matches!(ev, Event::App(i) if i % 3 == 0));
        assert_eq!(q.len(), kept.len());
        let order = |q: &mut EventQueue| std::iter::from_fn(|| q.pop()).collect::<Vec<_>>();
        assert_eq!(order(&mut q), order(&mut kept));
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
