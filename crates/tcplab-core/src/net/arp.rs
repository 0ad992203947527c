//! ARP as ns-2.35 runs it on a wireless node (mac/arp.cc, mac/arp.h; docs/models/arp.md): a
//! sans-IO table between the routing agent and the interface queue. A packet for a neighbour
//! whose hardware address is unknown is held — one packet per neighbour, a second one drops the
//! first — while a request is broadcast; any ARP message from the neighbour resolves it and
//! releases the held packet. Entries never expire and there is no retry timer: every packet
//! that finds its neighbour unresolved sends a new request, and after three unanswered requests
//! the next packet gives up on both (the link layer's failure, as the MAC's retry limit).
//!
//! Neighbours are named by their station index in the WLAN; the world does the sending.

use crate::ids::PktId;

/// ns-2.35 arp.h `ARP_MAX_REQUEST_COUNT`: requests sent for one neighbour before the next
/// packet gives up.
pub const MAX_REQUESTS: u8 = 3;

/// What to do with a packet offered for a neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolve {
    /// The neighbour is resolved: queue the packet.
    Send,
    /// The packet is held; broadcast a request. `dropped` is the packet it replaced (ns-2.35
    /// arp.cc `arpresolve`: the older one is dropped, reason "ARP").
    Request { dropped: Option<PktId> },
    /// Three requests went unanswered: the held packet (if any) and this one fail to the
    /// neighbour; the count starts again (ns-2.35 arp.cc: both go to the packet's
    /// `xmit_failure_` callback, the one the MAC's retry limit calls).
    GiveUp { held: Option<PktId> },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    peer: u32,
    up: bool,
    hold: Option<PktId>,
    count: u8,
}

/// Counters for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArpStats {
    pub requests_sent: u64,
    pub replies_sent: u64,
    /// Held packets dropped because a newer one for the same neighbour arrived.
    pub drops: u64,
}

/// One station's ARP table (ns-2.35's list of `ARPEntry`, searched linearly: a node has a few
/// neighbours).
#[derive(Clone, Debug, Default)]
pub struct ArpTable {
    entries: Vec<Entry>,
    pub stats: ArpStats,
}

impl ArpTable {
    fn entry(&mut self, peer: u32) -> &mut Entry {
        let i = match self.entries.iter().position(|e| e.peer == peer) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    peer,
                    up: false,
                    hold: None,
                    count: 0,
                });
                self.entries.len() - 1
            }
        };
        &mut self.entries[i]
    }

    /// Entries held (neighbours ever addressed or heard from).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `peer`'s address is known.
    pub fn resolved(&self, peer: u32) -> bool {
        self.entries.iter().any(|e| e.peer == peer && e.up)
    }

    /// Packet `pkt` is to go to `peer` (ns-2.35 arp.cc `arpresolve`).
    pub fn resolve(&mut self, peer: u32, pkt: PktId) -> Resolve {
        let e = self.entry(peer);
        if e.up {
            return Resolve::Send;
        }
        if e.count >= MAX_REQUESTS {
            e.count = 0;
            return Resolve::GiveUp {
                held: e.hold.take(),
            };
        }
        e.count += 1;
        let dropped = e.hold.replace(pkt);
        if dropped.is_some() {
            self.stats.drops += 1;
        }
        self.stats.requests_sent += 1;
        Resolve::Request { dropped }
    }

    /// An ARP message from `peer` arrived (a request to anyone, or a reply): its address is
    /// learnt, and the packet held for it, if any, is to be sent now (ns-2.35 arp.cc
    /// `arpinput`, which creates the entry when there is none).
    pub fn learn(&mut self, peer: u32) -> Option<PktId> {
        let e = self.entry(peer);
        e.up = true;
        e.hold.take()
    }

    /// The packets still held (the run's end).
    pub fn held(&self) -> impl Iterator<Item = PktId> + '_ {
        self.entries.iter().filter_map(|e| e.hold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unresolved_neighbour_holds_one_packet_and_a_second_drops_the_first() {
        let mut t = ArpTable::default();
        assert_eq!(t.resolve(4, PktId(1)), Resolve::Request { dropped: None });
        assert_eq!(
            t.resolve(4, PktId(2)),
            Resolve::Request {
                dropped: Some(PktId(1))
            }
        );
        assert_eq!(t.held().collect::<Vec<_>>(), vec![PktId(2)]);
        // Another neighbour has its own entry.
        assert_eq!(t.resolve(5, PktId(3)), Resolve::Request { dropped: None });
        assert_eq!(t.learn(4), Some(PktId(2)));
        assert!(t.resolved(4) && !t.resolved(5));
        assert_eq!(t.resolve(4, PktId(6)), Resolve::Send);
        assert_eq!(
            t.stats,
            ArpStats {
                requests_sent: 3,
                replies_sent: 0,
                drops: 1
            }
        );
    }

    #[test]
    fn after_three_unanswered_requests_the_next_packet_gives_up_on_both() {
        let mut t = ArpTable::default();
        for k in 0..MAX_REQUESTS as u32 {
            assert!(matches!(t.resolve(1, PktId(k)), Resolve::Request { .. }));
        }
        assert_eq!(
            t.resolve(1, PktId(9)),
            Resolve::GiveUp {
                held: Some(PktId(2))
            }
        );
        assert_eq!(t.held().count(), 0);
        // The count starts again: the next packet sends a request.
        assert_eq!(t.resolve(1, PktId(10)), Resolve::Request { dropped: None });
        assert_eq!(t.stats.requests_sent, 4);
    }

    #[test]
    fn entries_never_expire_and_learning_needs_no_request() {
        let mut t = ArpTable::default();
        // A request heard from a neighbour resolves it (no packet held for it).
        assert_eq!(t.learn(7), None);
        assert_eq!(t.resolve(7, PktId(0)), Resolve::Send);
        assert_eq!(t.resolve(7, PktId(1)), Resolve::Send);
    }
}
