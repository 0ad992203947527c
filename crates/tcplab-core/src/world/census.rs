//! A count of the world's containers whose size could grow with the run (the memory test of
//! issue 35: each must stay bounded by the network, not by the simulated duration).

use super::World;
use crate::net::AnyRouting;
use crate::sim::Event;

/// Sizes at one instant. Lengths are live entries; capacities are allocated slots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryCensus {
    /// Pending events in the queue and the heap vector's slots.
    pub events_pending: usize,
    pub events_capacity: usize,
    /// Pending events by kind (`sim::Event`'s declaration order).
    pub events_by_kind: [usize; 10],
    /// Pending timer wake-ups (socket, MAC, agent, routing) that a later re-arm superseded:
    /// discarded when popped.
    pub stale_timers: usize,
    /// Of those, routing timers, and the latest one's distance ahead of now (ns).
    pub stale_routing: usize,
    pub stale_routing_max_ahead: u64,
    /// Packet arena slots (live and free).
    pub packet_slots: usize,
    /// AODV route entries over all nodes.
    pub aodv_routes: usize,
    /// ARP entries over all stations.
    pub arp_entries: usize,
    /// Published link signals (the summary's `link_signals`).
    pub link_signals: usize,
}

/// Superseded wake-ups tolerated in the queue before a sweep, whatever its length.
const SWEEP_MIN: usize = 64;

impl World {
    /// A re-arm left its earlier wake-up in the queue, to be discarded when popped (lazy
    /// cancellation, `sim/mod.rs`). Where a timer is re-armed earlier over and over, those
    /// entries grow with the run: AODV's local-repair timer falls due about `now` ahead
    /// (ns-2.35 aodv.cc schedules it with an absolute time as the delay) and each 0.5 s purge
    /// tick supersedes it, 1,095 dead entries at 300 s in the 100-node network. Once they could
    /// be half the queue they are swept out, so the queue stays within twice its live events
    /// (plus `SWEEP_MIN`) at an amortised O(1) per re-arm. The live events keep their keys: the
    /// order of the run is unchanged; only `events` no longer counts the swept ones' pops.
    pub(super) fn note_superseded(&mut self) {
        self.superseded += 1;
        if self.sweep_superseded
            && self.superseded >= SWEEP_MIN
            && 2 * self.superseded >= self.queue.len()
        {
            self.sweep_superseded();
        }
    }

    fn sweep_superseded(&mut self) {
        let (sock, agents, routing) = (&self.sock_wake, &self.agents, &self.routing_wake);
        self.queue.retain(|ev| match ev {
            Event::SockTimer(s, g) => sock[s.idx()].1 == g,
            Event::AgentTimer(a, g) => agents[a as usize].wake.1 == g,
            Event::RoutingTimer(n, g) => routing[n as usize].1 == g,
            _ => true,
        });
        self.superseded = 0;
    }

    pub fn memory_census(&self) -> MemoryCensus {
        let aodv_routes = self
            .routing
            .iter()
            .map(|r| match r {
                AnyRouting::Aodv(a) => a.table().len(),
                _ => 0,
            })
            .sum();
        let mut stale_timers = 0;
        let mut stale_routing = 0;
        let mut stale_routing_max_ahead = 0;
        for (t, ev) in self.queue.iter() {
            let stale = match ev {
                Event::SockTimer(s, g) => self.sock_wake[s.idx()].1 != g,
                Event::AgentTimer(a, g) => self.agents[a as usize].wake.1 != g,
                Event::RoutingTimer(n, g) => {
                    let s = self.routing_wake[n as usize].1 != g;
                    if s {
                        stale_routing += 1;
                        stale_routing_max_ahead =
                            stale_routing_max_ahead.max(t.0.saturating_sub(self.now.0));
                    }
                    s
                }
                _ => false,
            };
            stale_timers += stale as usize;
        }
        MemoryCensus {
            stale_timers,
            stale_routing,
            stale_routing_max_ahead,
            events_pending: self.queue.len(),
            events_capacity: self.queue.capacity(),
            events_by_kind: self.queue.count_by_kind(),
            packet_slots: self.packets.len(),
            aodv_routes,
            arp_entries: self.arp.iter().flatten().map(|a| a.len()).sum(),
            link_signals: self.wifi.log.len(),
        }
    }
}
